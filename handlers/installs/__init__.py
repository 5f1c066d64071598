"""What the app does when a workspace removes it."""
