"""Planned meetings: a room made now, plus what the bot keeps about it until it is over.

The room service has no calendar: the start, topic, who is invited and the reminders Slack was asked
to deliver live here, in Redis, shared by every bot process and gone once the meeting is over (a
weekly one lives until its series is cancelled). Each person has an index of the meetings they
own or are invited to, by start, which is what Home's "Upcoming" reads. People are Slack user ids;
no e-mail and no room PIN is kept (a file that needs the PIN reads the room again).
"""

from __future__ import annotations

import datetime as dt
import unicodedata
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from pydantic import BaseModel, Field, field_validator
from redis.exceptions import RedisError

from clients.redis_keys import key
from clients.storage import as_text, degraded

#: How long a meeting is kept after it ended (for a late "Cancel" click to find it and say so).
KEPT_AFTER = 24 * 3600
WEEK = dt.timedelta(days=7)
#: Upcoming meetings one person may own: each is a room, reminders and files for everyone invited.
MOST_OWNED = 50
RESERVED_SECONDS = 600  # a place taken while a meeting is being made, given back if it never is
CHANGE_LOCK_SECONDS = 60  # a change (cancel, move, the weekly roll) in progress; others wait for it
# how long a person's lists outlive their last change: longer than any meeting they hold (planned
# at most 120 days ahead, kept a day after its end, a weekly one a week more), so that saving a
# short meeting never shortens the life of a list holding a later one
INDEX_SECONDS = 130 * 24 * 3600


def new_id() -> str:
    return uuid.uuid4().hex


class TooMany(Exception):
    """The person owns `MOST_OWNED` upcoming meetings already."""


class Reminder(BaseModel):
    """A message Slack was asked to deliver (`chat.scheduleMessage`), to delete it on cancel."""

    channel: str
    id: str
    post_at: int


class Meeting(BaseModel):
    id: str = Field(default_factory=new_id)
    team_id: str
    owner: str
    room_id: str
    room_slug: str
    room_url: str | None = None
    topic: str = ""
    starts_at: int  # Unix time of the (next) start
    minutes: int = 60
    zone: str  # the owner's time zone: the calendar file's TZID, and what "weekly" keeps fixed
    weekly: bool = False
    # a weekly series' wall-clock time in `zone` ("HH:MM"): each occurrence is that time on its day,
    # whatever clock change the one before it crossed (None: kept before series had one)
    wall: str | None = None
    invitees: list[str] = Field(default_factory=list)
    channel: str | None = None
    sequence: int = 0  # the calendar file's SEQUENCE: raised by every change
    reminders: list[Reminder] = Field(default_factory=list)

    @field_validator("topic")
    @classmethod
    def _printable(cls, topic: str) -> str:
        """Typed text may carry control characters (NUL, ESC, DEL…): none reaches a message or a
        calendar file's SUMMARY."""
        return "".join(" " if char in "\t\n\r" else char for char in topic if char in "\t\n\r" or unicodedata.category(char) != "Cc")

    @property
    def start(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.starts_at, dt.UTC)

    @property
    def end(self) -> dt.datetime:
        return self.start + dt.timedelta(minutes=self.minutes)

    @property
    def people(self) -> list[str]:
        """Whoever sees it in "Upcoming": the owner, then the invitees."""
        return list(dict.fromkeys([self.owner, *self.invitees]))

    @property
    def uid(self) -> str:
        """The calendar file's UID: one per meeting, kept by every change and the cancellation."""
        return f"{self.id}@roombot"


class Meetings:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def reserve(self, team_id: str, owner: str, meeting_id: str, now: dt.datetime, most: int = MOST_OWNED) -> None:
        """Takes one of the owner's places for a meeting about to be made; `TooMany` when they own
        `most` upcoming ones already. Counted with the places others are taking at the same moment,
        so a burst of commands cannot pass the cap."""
        owned, at = self._owned(team_id, owner), int(now.timestamp())
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(owned, "-inf", at)  # what has ended, and places never used
            pipe.zadd(owned, {meeting_id: at + RESERVED_SECONDS})
            pipe.zcard(owned)
            pipe.ttl(owned)
            _, _, count, lasts = await pipe.execute()
        if int(lasts) < RESERVED_SECONDS:  # a new list: it goes by itself if nothing is ever made
            await self._redis.expire(owned, RESERVED_SECONDS)
        if int(count) > most:
            await self._redis.zrem(owned, meeting_id)
            raise TooMany(f"{owner} owns {most} upcoming meetings")

    async def release(self, team_id: str, owner: str, meeting_id: str) -> None:
        """A place taken for a meeting that was not made after all."""
        await self._redis.zrem(self._owned(team_id, owner), meeting_id)

    @asynccontextmanager
    async def changing(self, team_id: str, meeting_id: str) -> AsyncIterator[None]:
        """One change of a meeting at a time, across processes: a Cancel and a Move submitted at
        once run one after the other, and each reads the meeting again once it holds it."""
        async with self._redis.lock(key("meeting-change", team_id, meeting_id), timeout=CHANGE_LOCK_SECONDS,
                                    blocking_timeout=CHANGE_LOCK_SECONDS):
            yield

    async def save(self, meeting: Meeting, now: dt.datetime) -> None:
        """Stores `meeting` and lists it for each of its people (until its end); it counts among
        its owner's until then (a weekly one until it is cancelled)."""
        ttl = int((meeting.end - now).total_seconds()) + KEPT_AFTER + (int(WEEK.total_seconds()) if meeting.weekly else 0)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(self._key(meeting.team_id, meeting.id), meeting.model_dump_json(), ex=max(ttl, 60))
            owned = self._owned(meeting.team_id, meeting.owner)
            pipe.zadd(owned, {meeting.id: int(meeting.end.timestamp()) + (int(WEEK.total_seconds()) if meeting.weekly else 0)})
            pipe.expire(owned, INDEX_SECONDS)
            for person in meeting.people:
                index = self._index(meeting.team_id, person)
                pipe.zadd(index, {meeting.id: meeting.starts_at})
                pipe.expire(index, INDEX_SECONDS)
            if meeting.weekly:
                pipe.zadd(key("meetings", "weekly"), {f"{meeting.team_id}:{meeting.id}": meeting.starts_at})
            await pipe.execute()

    async def get(self, team_id: str, meeting_id: str) -> Meeting | None:
        raw = as_text(await self._redis.get(self._key(team_id, meeting_id)))
        return Meeting.model_validate_json(raw) if raw else None

    async def upcoming(self, team_id: str, person: str, now: dt.datetime, most: int = 10) -> list[Meeting]:
        """`person`'s meetings that have not started yet, soonest first (none while Redis is down:
        Home still shows the rest)."""
        try:
            return await self._upcoming(team_id, person, now, most)
        except RedisError as error:
            degraded("planned meetings", error)
            return []

    async def _upcoming(self, team_id: str, person: str, now: dt.datetime, most: int) -> list[Meeting]:
        index = self._index(team_id, person)
        started = int(now.timestamp())
        await self._redis.zremrangebyscore(index, "-inf", started)
        ids = [_text(member) for member in await self._redis.zrangebyscore(index, started + 1, "+inf", start=0, num=most)]
        async with self._redis.pipeline(transaction=False) as pipe:  # one round trip for them all
            for meeting_id in ids:
                pipe.get(self._key(team_id, meeting_id))
            stored = await pipe.execute()
        found: list[Meeting] = []
        for meeting_id, raw in zip(ids, stored, strict=True):
            meeting = Meeting.model_validate_json(raw) if raw else None
            if meeting is None or person not in meeting.people:
                await self._redis.zrem(index, meeting_id)  # cancelled, or no longer invited
            else:
                found.append(meeting)
        return found

    async def remove(self, meeting: Meeting) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.delete(self._key(meeting.team_id, meeting.id))
            pipe.zrem(self._owned(meeting.team_id, meeting.owner), meeting.id)
            for person in meeting.people:
                pipe.zrem(self._index(meeting.team_id, person), meeting.id)
            pipe.zrem(key("meetings", "weekly"), f"{meeting.team_id}:{meeting.id}")
            await pipe.execute()

    async def weekly_due(self, now: dt.datetime) -> list[Meeting]:
        """Weekly meetings whose current occurrence has started: their next one needs reminders."""
        members = await self._redis.zrangebyscore(key("meetings", "weekly"), "-inf", int(now.timestamp()))
        due: list[Meeting] = []
        for member in members:
            team_id, _, meeting_id = _text(member).partition(":")
            meeting = await self.get(team_id, meeting_id)
            if meeting is None:
                await self._redis.zrem(key("meetings", "weekly"), _text(member))
            else:
                due.append(meeting)
        return due

    def _key(self, team_id: str, meeting_id: str) -> str:
        return key("meeting", team_id, meeting_id)

    def _index(self, team_id: str, person: str) -> str:
        return key("upcoming", team_id, person)

    def _owned(self, team_id: str, owner: str) -> str:
        return key("owned", team_id, owner)


def _text(member: object) -> str:
    """A sorted set's member as text (without scores, redis-py gives bytes or str)."""
    return member.decode() if isinstance(member, bytes) else str(member)
