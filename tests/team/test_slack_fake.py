"""The Slack fake refuses what Slack refuses for team spaces (tests/data/slack-methods: conversations.create,
conversations.invite, users.lookupByEmail, pins.add), so that the bot's handling of each is tested
against the real refusal; and the bot words the one a workspace's settings cause."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.conftest import text_of
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.team.conftest import made_channels, team


async def refused(call) -> str:
    with pytest.raises(SlackApiError) as error:
        await call
    return str(error.value.response["error"])


async def test_the_fake_refuses_as_slack_does(slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-test-bot-token", base_url=f"{slack.base}/api/")
    slack.add_user("U0BOB", "bob@example.gouv.fr")
    assert await refused(client.conversations_create(name="Équipe Nord", is_private=True)) == "invalid_name_specials"
    assert await refused(client.conversations_create(name="x" * 81, is_private=True)) == "invalid_name_maxlength"
    made = (await client.conversations_create(name="equipe-nord", is_private=True))["channel"]["id"]
    assert await refused(client.conversations_create(name="equipe-nord", is_private=True)) == "name_taken"
    assert await refused(client.conversations_invite(channel=made, users=BOT_USER)) == "cant_invite_self"
    assert await refused(client.conversations_invite(channel=made, users="U0NOBODY")) == "user_not_found"
    await client.conversations_invite(channel=made, users="U0BOB")
    assert await refused(client.conversations_invite(channel=made, users="U0BOB")) == "already_in_channel"
    assert await refused(client.users_lookupByEmail(email="nobody@example.gouv.fr")) == "users_not_found"
    assert (await client.users_lookupByEmail(email="BOB@example.gouv.fr"))["user"]["id"] == "U0BOB"
    ts = (await client.chat_postMessage(channel=made, text="room"))["ts"]
    await client.pins_add(channel=made, timestamp=ts)
    assert await refused(client.pins_add(channel=made, timestamp=ts)) == "already_pinned"
    slack.creation_restricted = True
    assert await refused(client.conversations_create(name="autre", is_private=True)) == "restricted_action"
    slack.scopes -= {"pins:write"}
    assert await refused(client.pins_add(channel=made, timestamp=ts)) == "missing_scope"


async def test_a_workspace_that_forbids_making_channels_is_said_and_here_still_works(digest_bot, demarche, slack: FakeSlack):
    slack.creation_restricted = True
    said = text_of(await team(digest_bot, "101"))
    assert "the channel: this workspace does not let the app do that" in said and not made_channels(slack)
    slack.channels["C0HERE"] = {"private": False, "member": True, "members": [BOT_USER]}
    assert "ready" in text_of(await team(digest_bot, "101 here", channel="C0HERE"))
