"""What several features share, below them: how a room is shown, looked up, made and sent, how
a meeting is planned, moved and reminded, dossier links, and Slack's refusals and people's typos
in words. A feature package imports this, never another feature (tests/test_layout.py)."""
