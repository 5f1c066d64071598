"""`check`'s parts: one module per service checked, each saying its lines (bot/commands/check.py runs them)."""
