"""The daily digest: counting, posting, subscriptions, rights."""
