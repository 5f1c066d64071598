"""Rooms from anywhere in Slack: the modal, the shortcuts, the Workflow step."""
