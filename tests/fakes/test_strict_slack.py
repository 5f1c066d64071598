"""The Slack fake refuses what Slack refuses (slack-platform.md §12): a fake that accepts a call
Slack rejects would hide the bug. Called here as the bot calls it, through slack_sdk."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack import FakeSlack, requested_scopes


@pytest.fixture
def client(slack: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token="xoxb-test", base_url=f"{slack.base}/api/")


async def refused(call) -> dict:
    with pytest.raises(SlackApiError) as raised:
        await call
    return dict(raised.value.response.data)


def section(words: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": words}}


def button(action_id: str, value: str) -> dict:
    return {"type": "button", "action_id": action_id, "value": value, "text": {"type": "plain_text", "text": "Open"}}


async def test_unknown_and_missing_arguments_are_invalid_arguments(client: AsyncWebClient, slack: FakeSlack):
    answer = await refused(client.chat_postMessage(channel="C1", text="x", unfurl_link=False))
    assert answer["error"] == "invalid_arguments" and answer["response_metadata"]["messages"] == ["[ERROR] unknown argument 'unfurl_link'"]
    answer = await refused(client.api_call("users.info", params={}))
    assert answer["response_metadata"]["messages"] == ["[ERROR] missing required field: user"]
    assert (await refused(client.api_call("chat.frobnicate", params={})))["error"] == "unknown_method"
    slack.refusals.clear()  # refused on purpose: not the bot's


@pytest.mark.parametrize(("blocks", "path"), [
    ([section("x")] * 51, "/blocks"),
    ([{"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}], "/blocks/0/text/text"),
    ([{"type": "header", "text": {"type": "mrkdwn", "text": "x"}}], "/blocks/0/text/type"),
    ([{"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "x" * 76}}]}],
     "/blocks/0/elements/0/text/text"),
    ([{"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "x"}}] * 26}], "/blocks/0/elements"),
    ([{"type": "input", "label": {"type": "plain_text", "text": "x"}, "element": {"type": "plain_text_input"}}], "/blocks/0/type"),
    ([section("x" * 3001)], "/blocks/0/text/text"),
    ([{"type": "section", "text": {"type": "plain_text", "text": "x", "verbatim": True}}], "/blocks/0/text/verbatim"),
    ([{**section("x"), "block_id": "a"}, {**section("y"), "block_id": "a"}], "/blocks/1/block_id"),
    ([{"type": "context", "elements": []}], "/blocks/0/elements"),
    ([{"type": "actions", "elements": [button("dossier_open", "1"), button("dossier_open", "2")]}], "/blocks/0/elements/1/action_id"),
    ([{"type": "actions", "elements": [{**button("dossier_start", "1"), "confirm": {
        "title": {"type": "plain_text", "text": "x" * 101}, "text": {"type": "mrkdwn", "text": "x"}}}]}],
     "/blocks/0/elements/0/confirm/title/text"),
    ([{"type": "actions", "elements": [{**button("dossier_start", "1"), "confirm": {
        "title": {"type": "plain_text", "text": "x"}, "text": {"type": "mrkdwn", "text": "x" * 301}}}]}],
     "/blocks/0/elements/0/confirm/text/text"),
])
async def test_blocks_past_block_kits_limits_are_invalid_blocks_with_their_path(client: AsyncWebClient, slack: FakeSlack,
                                                                                blocks, path):
    answer = await refused(client.chat_postMessage(channel="C1", text="x", blocks=blocks))
    assert answer["error"] == "invalid_blocks" and f"[json-pointer:{path}]" in answer["response_metadata"]["messages"][0]
    assert slack.messages == []
    slack.refusals.clear()


async def test_views_are_checked_for_their_surface(client: AsyncWebClient, slack: FakeSlack):
    title = {"type": "plain_text", "text": "A title far too long for a modal"}
    answer = await refused(client.views_open(trigger_id="t", view={"type": "modal", "title": title, "blocks": []}))
    assert "[json-pointer:/view/title/text]" in answer["response_metadata"]["messages"][0]
    inputs = [{"type": "input", "label": {"type": "plain_text", "text": "x"}, "element": {"type": "plain_text_input"}}]
    short = {"type": "plain_text", "text": "Title"}
    answer = await refused(client.views_open(trigger_id="t", view={"type": "modal", "title": short, "blocks": inputs}))
    assert "[json-pointer:/view/submit]" in answer["response_metadata"]["messages"][0]
    home = {"type": "home", "blocks": [section("x")] * 101}
    assert (await refused(client.views_publish(user_id="U1", view=home)))["error"] == "invalid_blocks"
    await client.views_publish(user_id="U1", view={**home, "blocks": [section("x")] * 100})  # a view takes 100, a message 50
    modal = {"type": "modal", "title": short, "blocks": [section("x")] * 101}
    answer = await refused(client.views_open(trigger_id="t", view=modal))
    assert "[json-pointer:/view/blocks]" in answer["response_metadata"]["messages"][0]
    twice = {"type": "home", "blocks": [{"type": "actions", "elements": [button("dossier_open", "1"), button("dossier_open", "2")]}]}
    answer = await refused(client.views_publish(user_id="U1", view=twice))
    assert "[json-pointer:/view/blocks/0/elements/1/action_id]" in answer["response_metadata"]["messages"][0]
    # the same action id in two blocks is what Slack takes (each block its own namespace)
    apart = [{"type": "actions", "elements": [button("dossier_open", "1")]}, {"type": "actions", "elements": [button("dossier_open", "2")]}]
    await client.views_publish(user_id="U1", view={"type": "home", "blocks": apart})
    slack.refusals.clear()


async def test_a_reply_through_response_url_is_checked_as_a_message(slack: FakeSlack):
    import httpx

    twice = [{"type": "actions", "elements": [button("dossier_open", "1"), button("dossier_open", "2")]}]
    async with httpx.AsyncClient() as http:
        answer = await http.post(slack.response_url(), json={"text": "x", "blocks": twice})
        assert answer.status_code == 400 and answer.text == "invalid_blocks"
        answer = await http.post(slack.response_url(), json={"text": "x", "blocks": [section("x")] * 51})
        assert answer.status_code == 400 and slack.responses == []
    slack.refusals.clear()


async def test_scopes_are_those_the_manifest_requests_and_a_dm_needs_its_own(client: AsyncWebClient, slack: FakeSlack):
    assert slack.scopes == requested_scopes()
    answer = await refused(client.conversations_info(channel="D0ALICE"))
    assert answer["error"] == "missing_scope" and answer["needed"] == "im:read"
    slack.scopes.discard("files:write")
    answer = await refused(client.files_getUploadURLExternal(filename="a.png", length=3))
    assert answer["needed"] == "files:write"


async def test_uploads_need_the_bot_in_the_channel_and_posts_follow_the_channels_rules(client: AsyncWebClient, slack: FakeSlack):
    slack.channels["C0PUB"] = {"private": False, "member": False}
    await client.chat_postMessage(channel="C0PUB", text="x")  # chat:write.public covers messages...
    upload = await client.files_getUploadURLExternal(filename="a.png", length=3)
    answer = await refused(client.files_completeUploadExternal(files=[{"id": upload["file_id"]}], channel_id="C0PUB"))
    assert answer["error"] == "not_in_channel"  # ...not files
    await client.conversations_join(channel="C0PUB")
    await client.files_completeUploadExternal(files=[{"id": upload["file_id"]}], channel_id="C0PUB")
    slack.channels["C0NEWS"] = {"private": False, "member": True, "restricted": "restricted_action_read_only_channel"}
    assert (await refused(client.chat_postMessage(channel="C0NEWS", text="x")))["error"] == "restricted_action_read_only_channel"
