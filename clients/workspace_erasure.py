"""Everything the bot keeps of one Slack workspace, found by the team id its keys carry, so that
an uninstall removes it all: cached profiles, planned meetings and their indexes, the digest
subscriptions of its channels, its own dossier-service token, who watches dossiers there, and what each person chose to hear."""

from __future__ import annotations

import redis.asyncio as aioredis

from clients.dossiers.choices import PersonHours
from clients.dossiers.subscriptions import Subscriptions
from clients.dossiers.watch import Watches
from clients.redis_keys import key
from clients.storage import as_text
from clients.team_spaces import TeamSpaces

#: key namespaces whose second part is the team id
BY_TEAM = ("profile", "meeting", "upcoming", "owned", "ds-token", "desk-watch", "desk-told",
           "desk-choices", "desk-hours", "desk-held", "desk-daily-sent", "desk-daily-lease", "team-space")


async def forget_team(redis: aioredis.Redis, team: str) -> int:
    """Removes the workspace's data; how many keys went. Keys are deleted one by one: in a Redis
    Cluster they live on different nodes."""
    if not team or not team.isalnum():
        return 0
    gone = 0
    for namespace in BY_TEAM:
        async for name in redis.scan_iter(match=key(namespace, team, "*"), count=500):
            gone += int(await redis.delete(name))
        gone += int(await redis.delete(key(namespace, team)))
    weekly = key("meetings", "weekly")
    async for member, _ in redis.zscan_iter(weekly, match=f"{team}:*"):
        gone += int(await redis.zrem(weekly, as_text(member) or ""))
    gone += await Watches(redis).forget_team(team)
    gone += await PersonHours(redis).forget_team(team)
    gone += await TeamSpaces(redis).forget_team(team)
    return gone + await Subscriptions(redis).forget_team(team)
