"""The Slack client of a workspace, for work no request carries (digests, weekly reminders): the
one bot token's, or with OAuth installs the workspace's own (bot.installations)."""

from __future__ import annotations

from typing import Protocol

from slack_sdk.web.async_client import AsyncWebClient


class Workspaces(Protocol):
    async def client(self, team_id: str | None) -> AsyncWebClient | None:
        """None when the app is not installed there (any more)."""

    async def enterprise_of(self, team_id: str) -> str | None:
        """The organisation of an organisation-wide installation's workspace; None otherwise."""

    async def forget(self, enterprise_id: str | None, team_id: str | None) -> tuple[list[str], int]:
        """The app was removed from a workspace, or from an organisation (`team_id` None): its
        installation and the data of each of its workspaces go. The workspaces, and how many keys."""
