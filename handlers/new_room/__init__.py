"""Rooms from anywhere in Slack: the new-room modal and shortcuts, a room about a message, the Workflow step."""
