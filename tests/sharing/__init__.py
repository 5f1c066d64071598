"""Sharing a room: in a conversation, or by direct message."""
