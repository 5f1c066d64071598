"""The two wings: what happens with rooms and with dossiers, and what it says, as plain data.

A wing speaks no Slack (no slack_sdk, no slack_bolt, nothing of handlers/ or bot/) and builds no
blocks: handlers/ turns its results into Block Kit in the person's language. So a feature changes
one wing and one surface, and a second chat surface would reuse the wings whole.
"""
