"""Sharing a room: into a conversation, or by direct message to chosen people."""
