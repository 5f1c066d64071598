"""Which dossier-service token reads and acts for a Slack workspace: its own, else the operator's.

A service of its own, below the surfaces: the desk, the watch, previews, Home and the digest job
each ask it, so none depends on another at run time. With OAuth installs a workspace may bring its
own token (`clients.dossiers.accounts.DossierAccounts`); without, the operator's token
(`DS_API_TOKEN`) reads for every workspace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from clients.dossiers.accounts import DossierAccount, DossierAccounts

#: the organisation of an organisation-wide install's workspace (None otherwise), as the install store knows it
EnterpriseOf = Callable[[str], Awaitable[str | None]]


class WorkspaceAccounts:
    def __init__(self, operator: DossierAccount | None, tokens: DossierAccounts | None = None,
                 enterprise_of: EnterpriseOf | None = None) -> None:
        self.operator = operator
        # with OAuth installs: each workspace's own token, and which ones the operator's serves
        self.tokens = tokens
        self._enterprise_of = enterprise_of

    async def for_team(self, team: str, enterprise: str | None = None) -> DossierAccount | None:
        """The account that reads for the workspace; None when no token does (with OAuth installs).
        The workspace's organisation, when not given, is read from its install."""
        if self.tokens is None:
            return self.operator
        if enterprise is None and self._enterprise_of is not None:
            enterprise = await self._enterprise_of(team)
        return await self.tokens.for_team(team, enterprise)
