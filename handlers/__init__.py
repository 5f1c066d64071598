"""Slack listeners and the messages they build; each listener module has one `register(app, …)`."""
