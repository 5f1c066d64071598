"""Who and what the console's stand-in for Slack knows by name: the person acting, whoever they
name with `@name`, the channels they name with `#name`.

Apart from the Web API answers and the screen because both read it: the API answers `users.info`
from it, the screen writes `<@U…>` back as `@name`, and the shell turns what is typed into Slack's
escapes with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from clients.redis_keys import digest
from handlers.i18n import text

TEAM = "T0CONSOLE"
HOME_CHANNEL = "console"

_MENTION = re.compile(r"(?<![\w<@&|])@([A-Za-z][\w.-]*\w|[A-Za-z])")
_CHANNEL = re.compile(r"(?<![\w<#&|])#([a-z0-9][\w-]*)")


def person_id(email: str, lang: str) -> str:
    """A Slack-like user id of its own for each person and language: the bot caches profiles by
    id, and `--as bob` after `--as alice` must not be answered as Alice."""
    return "UC" + digest(f"{email.strip().lower()}|{lang}", 10).upper()


def slack_locale(lang: str) -> str:
    """Slack's form of a language (`fr` → `fr-FR`), from the CLDR's likely subtags."""
    from babel.core import get_global

    likely = str(get_global("likely_subtags").get(lang, lang)).split("_")
    return f"{lang}-{likely[-1]}" if len(likely) > 1 else lang


@dataclass
class Person:
    id: str
    name: str
    email: str | None
    locale: str
    tz: str = "Europe/Paris"  # the zone the bot reads this person's times in (their Slack profile's)


@dataclass
class Directory:
    """Who and what the console knows by name; names typed plainly become Slack's escapes."""

    me: Person
    people: dict[str, Person] = field(default_factory=dict)
    channels: dict[str, str] = field(default_factory=dict)  # id → name

    def __post_init__(self) -> None:
        self.people[self.me.id] = self.me
        self.channel(HOME_CHANNEL)

    @property
    def home(self) -> str:
        return self.channel(HOME_CHANNEL)

    def person(self, name: str) -> Person:
        if name.lower() == self.me.name.lower():
            return self.me
        found = next((p for p in self.people.values() if p.name.lower() == name.lower()), None)
        if found is None:
            found = Person("UC" + digest(f"person|{name.lower()}|{self.me.locale}", 10).upper(), name, None, self.me.locale)
            self.people[found.id] = found
        return found

    def channel(self, name: str) -> str:
        found = next((cid for cid, known in self.channels.items() if known == name.lower()), None)
        if found is None:
            found = "CC" + digest(f"channel|{name.lower()}", 10).upper()
            self.channels[found] = name.lower()
        return found

    def escape(self, line: str) -> str:
        """`@bob` and `#general` as Slack sends them in a command's text."""
        line = _MENTION.sub(lambda m: f"<@{self.person(m.group(1)).id}|{m.group(1)}>", line)
        return _CHANNEL.sub(lambda m: f"<#{self.channel(m.group(1))}|{m.group(1)}>", line)

    def user_name(self, user_id: str) -> str:
        found = self.people.get(user_id)
        return found.name if found else user_id

    def where(self, conversation: str, lang: str) -> str:
        """A conversation id as a person names it."""
        if conversation in self.channels:
            return f"#{self.channels[conversation]}"
        person = conversation[1:] if conversation.startswith("D") else conversation
        if person == self.me.id:
            return text(lang, "shell.dm_you")
        return text(lang, "shell.dm_to", person=self.user_name(person)).replace("&amp;", "&")
