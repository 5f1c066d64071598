"""A team space's words: its name, its standing room as posted and pinned in the channel, a missing scope."""

from __future__ import annotations

from slack_sdk.models.blocks import ActionsBlock, ButtonElement, SectionBlock

from clients.team_spaces import TeamSpace
from domain.team.roster import Roster
from handlers.blocks import Message, header, join_button, link_mrkdwn, mrkdwn
from handlers.i18n import escape, text

ACTION_CALL = "team_call"
ACTION_PLAN = "team_plan"
ACTION_INVITE = "team_invite"


def space_name(lang: str, demarche: int, people: Roster) -> str:
    """`n° 101 · Subvention` (and ` · group Nord`), the service's words escaped by `text`."""
    if people.group_label is not None:
        return text(lang, "team.name_group", number=demarche, title=people.title, group=people.group_label)
    return text(lang, "team.name", number=demarche, title=people.title)


def team_room_message(lang: str, space: TeamSpace, people: Roster) -> Message:
    """The standing room as the channel sees it pinned: its link, a call now, a meeting planned."""
    title = text(lang, "team.room_title", number=space.demarche)
    line = text(lang, "team.room_link", link=link_mrkdwn(space.link)) if space.link else text(lang, "team.room_no_link", slug=space.slug)
    buttons = [ButtonElement(text=text(lang, "team.call_button"), action_id=ACTION_CALL, value=space.place, style="primary"),
               ButtonElement(text=text(lang, "team.plan_button"), action_id=ACTION_PLAN, value=space.place)]
    if space.link:
        buttons.append(join_button(lang, space.link, primary=False))
    blocks = [header(title), SectionBlock(text=mrkdwn(space_name(lang, space.demarche, people) + "\n" + line)),
              ActionsBlock(elements=buttons)]
    return Message(text=f"{title}: {escape(space.link or space.slug)}", blocks=blocks)


def scope_line(lang: str, needed: str) -> str:
    """What an install that lacks a scope should do, naming it."""
    return text(lang, "team.scope", scope=needed or "?")
