"""The Slack client of a workspace, for work no request carries (digests, weekly reminders): the
one bot token's, or with OAuth installs the workspace's own (bot.serving.workspace_clients); and what
goes when the app leaves a workspace or an organisation."""

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
        installation and the data of each workspace it alone served go. The workspaces, and how
        many keys."""

    async def left(self, enterprise_id: str, teams: list[str]) -> tuple[list[str], int]:
        """An organisation's install no longer serves these workspaces."""

    async def joined(self, enterprise_id: str, teams: list[str]) -> None:
        """An organisation's install now serves these workspaces too."""

    async def people_revoked(self, enterprise_id: str | None, team_id: str | None, users: list[str]) -> None:
        """People's own tokens were revoked: their grants go, the bot stays."""
