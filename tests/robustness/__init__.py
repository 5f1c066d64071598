"""Replays, bursts, hostile bodies and answers, retries."""
