"""Logging set-up shared by every command."""

import logging


def configure(level: str) -> None:
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # slack_bolt logs request bodies at DEBUG; keep them out even when we debug our own code.
    logging.getLogger("slack_bolt").setLevel(max(logging.INFO, logging.getLevelName(level)))
    # httpx logs every request at INFO; our own upstream metrics and warnings say what matters.
    logging.getLogger("httpx").setLevel(logging.WARNING)
