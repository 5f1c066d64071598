"""An install older than team spaces lacks their scopes: the person is told which, the steps that need
nothing more still run, and `check` names them. Channel names follow Slack's rules, and a name taken
gets a number."""

from __future__ import annotations

import re

import pytest

from bot.commands.checks.slack import check_slack
from clients.dossiers.subscriptions import Subscriptions
from domain.team.names import channel_name
from tests.conftest import text_of
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.team.conftest import made_channels, team


async def test_without_groups_write_no_channel_is_made_and_the_scope_is_named(digest_bot, demarche, slack: FakeSlack, meet):
    slack.scopes -= {"groups:write"}
    said = text_of(await team(digest_bot, "101"))
    assert not made_channels(slack) and not meet.rooms
    assert "the channel: the app lacks the `groups:write` permission" in said and "reinstall" in said


async def test_without_team_scopes_a_space_in_this_channel_still_gets_its_digest_and_room(digest_bot, demarche, slack: FakeSlack,
                                                                                         meet, redis):
    slack.scopes -= {"channels:manage", "pins:write", "groups:write"}
    slack.channels["C0HERE"] = {"private": False, "member": True, "members": [BOT_USER]}
    said = text_of(await team(digest_bot, "101 here", channel="C0HERE"))
    assert await Subscriptions(redis).get("T0TEAM", "C0HERE") is not None and len(meet.rooms) == 1
    assert "pinning the room: the app lacks the `pins:write` permission" in said
    assert "inviting the instructeurs: the app lacks the `channels:manage` permission" in said
    assert "1 of 4 instructeurs has no account" in said  # looking people up needed nothing more

    slack.scopes |= {"channels:manage", "pins:write"}  # reinstalled: running again completes
    again = text_of(await team(digest_bot, "101 here", channel="C0HERE"))
    assert "Not done" not in again and len(slack.pins["C0HERE"]) == 1 and len(meet.rooms) == 1
    assert {"U0ALICE", "U0BOB", "U0SUD"} <= set(slack.channels["C0HERE"]["members"])


async def test_check_names_the_team_space_scopes_and_says_the_rest_works(settings, slack: FakeSlack):
    slack.scopes -= {"pins:write", "groups:write"}
    result = await check_slack(settings)
    assert result.ok and result.warning and "without groups:write" in result.says and "without pins:write" in result.says
    assert "channels:manage" not in result.says and "/dossier team pins the team's standing room" in result.says


@pytest.mark.parametrize(("title", "group"), [
    ("Subvention <vélo> & co", None),
    ("Demande d'aide à l'Équipement — « ÉTÉ 2026 »", "Île-de-France (Nord)"),
    ("x" * 300, "y" * 200),
    ("日本語だけ", None),
])
def test_channel_names_follow_slacks_rules(title, group):
    name = channel_name(4242, title, group)
    assert re.fullmatch(r"[a-z0-9_-]{1,76}", name) and name.startswith("dn-4242")
    assert not name.endswith(("-", "_"))


async def test_a_name_taken_gets_the_next_number(digest_bot, demarche, slack: FakeSlack):
    slack.channels["C0OLD"] = {"private": False, "member": False, "name": "dn-101-subvention-velo", "team": None}
    await team(digest_bot, "101")
    assert [info["name"] for channel, info in made_channels(slack).items() if channel != "C0OLD"] == ["dn-101-subvention-velo-2"]
