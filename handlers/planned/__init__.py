"""Rooms for later: a start, a topic, reminders Slack delivers, a calendar file."""
