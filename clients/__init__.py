"""Clients of the outside services and of Redis. Nothing here knows about Slack."""
