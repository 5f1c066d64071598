"""Every control the bot draws has a listener: the bot is driven through what people do (rooms made
and listed, a meeting planned, Home opened by an instructeur and an administrator, dossier cards in
every state and role, a digest posted, a watch's news), then every button and menu found in every
message, reply, Home and window it sent Slack is clicked — signed as Slack signs, end to end — and
so is every control those clicks drew in turn, and every window it opened is submitted. Slack shows
the app failing when the bot answers anything but 200 (Bolt answers 404 to an action nobody
listens to), so each must be 200. Nothing here names a button: a control added tomorrow is clicked
as soon as something the bot draws shows it."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeAnnotation, FakeDemarche
from tests.conftest import Bot
from tests.desk.conftest import BOB, demarche, dossier
from tests.digest.commands import digest
from tests.fakes.slack import TEAM, FakeSlack, json_arg
from tests.slack_requests import home_opened, new_trigger_id, send_event

#: Slack's calls that carry blocks the bot drew, and where the blocks are in each
DRAWING = ("chat.postMessage", "chat.postEphemeral", "chat.update", "chat.scheduleMessage", "views.open", "views.update",
           "views.push", "views.publish", "chat.unfurl")
#: the elements Slack sends a block_actions for when they are used outside an input block
MENUS = ("static_select", "overflow", "radio_buttons", "checkboxes", "multi_static_select")


def surfaces(slack: FakeSlack) -> Iterator[dict[str, Any]]:
    """Everything the bot drew: replies to response_url, messages, Home tabs, windows, previews,
    each as {"kind": "message" | "view", "blocks": [...], "view": the view when it is one}."""
    for reply in slack.responses:
        yield {"kind": "message", "blocks": reply.get("blocks") or []}
    for call in slack.calls:
        if call.method not in DRAWING:
            continue
        if call.method.startswith("views."):
            view = json_arg(call.args.get("view")) or {}
            yield {"kind": "view", "blocks": view.get("blocks") or [], "view": view}
        elif call.method == "chat.unfurl":
            for shown in (json_arg(call.args.get("unfurls")) or {}).values():
                yield {"kind": "message", "blocks": shown.get("blocks") or []}
        else:
            yield {"kind": "message", "blocks": json_arg(call.args.get("blocks")) or []}
            for attachment in json_arg(call.args.get("attachments")) or []:
                yield {"kind": "message", "blocks": attachment.get("blocks") or []}


def controls(blocks: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(block id, element) of each control that sends Slack's block_actions when used."""
    for block in blocks:
        found: list[dict[str, Any]] = []
        if block.get("type") == "actions":
            found = block.get("elements") or []
        elif block.get("type") == "section" and block.get("accessory"):
            found = [block["accessory"]]
        elif block.get("type") == "input" and block.get("dispatch_action"):
            found = [block["element"]]
        for element in found:
            if element.get("action_id") and (element.get("type") == "button" or element.get("type") in MENUS
                                             or element.get("type", "").endswith(("_select", "picker"))):
                yield str(block.get("block_id") or "b"), element


def used(block_id: str, element: dict[str, Any]) -> dict[str, Any]:
    """The action Slack sends for this element, as a person would use it."""
    action: dict[str, Any] = {"action_id": element["action_id"], "block_id": block_id, "type": element["type"],
                              "action_ts": f"{time.time():.6f}"}
    if element["type"] == "button":
        action["value"] = element.get("value", "")
    options = element.get("options") or [o for group in element.get("option_groups") or [] for o in group.get("options", [])]
    if options:
        chosen = {"text": options[0].get("text"), "value": options[0].get("value")}
        action["selected_options" if element["type"] in ("checkboxes", "multi_static_select") else "selected_option"] = \
            [chosen] if element["type"] in ("checkboxes", "multi_static_select") else chosen
    return action


def block_actions(slack: FakeSlack, surface: dict[str, Any], action: dict[str, Any], user: str) -> str:
    payload: dict[str, Any] = {
        "type": "block_actions", "team": {"id": TEAM, "domain": "example"}, "user": {"id": user, "team_id": TEAM},
        "api_app_id": "A0APP", "token": "legacy-verification-token", "trigger_id": new_trigger_id(), "actions": [action]}
    if surface["kind"] == "view":
        view = surface["view"]
        view_id = view.get("id") or ("V0HOME" if view.get("type") == "home" else "V0MODAL")
        payload["container"] = {"type": "view", "view_id": view_id}
        payload["view"] = {**view, "id": view_id, "team_id": TEAM, "state": {"values": {}}, "hash": "1.2"}
    else:
        payload["container"] = {"type": "message", "message_ts": "1700000000.000100", "channel_id": "C0CHAN", "is_ephemeral": True}
        payload["channel"] = {"id": "C0CHAN", "name": "general"}
        payload["response_url"] = slack.response_url(f"walk-{user}")
    return urlencode({"payload": json.dumps(payload)})


def submission(view: dict[str, Any], user: str) -> str:
    payload = {"type": "view_submission", "team": {"id": TEAM, "domain": "example"}, "user": {"id": user, "team_id": TEAM},
               "api_app_id": "A0APP", "trigger_id": new_trigger_id(),
               "view": {**view, "id": view.get("id") or "V0MODAL", "team_id": TEAM, "state": {"values": {}}, "hash": "1.2"}}
    return urlencode({"payload": json.dumps(payload)})


async def draw_everything(bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    """What people do that makes the bot draw: each feature's messages, Home, cards, digests, news."""
    slack.add_user("U0ADMIN", "admin@example.gouv.fr", locale="en-US", is_admin=True)
    demarche.label("Urgent")  # the card's windows draw the démarche's labels and annotations
    demarche.annotations = [FakeAnnotation(1, "DropDownList", "Priorité", ["haute", "basse"]), FakeAnnotation(2, "YesNo", "Conforme")]
    await bot.reply("new restricted")
    await bot.reply("new public")
    await bot.reply("list")
    await bot.reply("help")
    await bot.reply('new at 10:00 tomorrow "Budget" <@U0BOB|bob> <#C0TEAM|team>')
    for state in ("en_construction", "en_instruction", "accepte", "refuse", "sans_suite"):
        found = ds.deposit(101, state)
        await dossier(bot, str(found.number))  # Alice, an instructeur of its group, not following it
        await dossier(bot, str(found.number), user="U0ADA")  # an administrator of the démarche
        found.followers.add(BOB)
        await dossier(bot, str(found.number), user="U0BOB")  # an instructeur following it
    sva = ds.deposit(101, "en_instruction", sva=dt.date.today() + dt.timedelta(days=20))
    await dossier(bot, str(sva.number))
    await dossier(bot, "help")
    await dossier(bot, "watch 101")
    await dossier(bot, "team 101 group 1")  # Alice's group's team space: its pinned room's buttons
    watching = bot.runtime.watching
    assert watching is not None
    await watching.round(dt.datetime.now(dt.UTC))  # marks where reading starts
    ds.now = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)
    ds.deposit(101)
    await watching.round(dt.datetime.now(dt.UTC))  # the news of a deposit, by DM
    await digest(bot, "subscribe 101")
    await digest(bot, "now")
    rooms = [e["url"] for surface in surfaces(slack) for _, e in controls(surface["blocks"]) if e.get("url")]
    base = ds.url.removesuffix("/api/v2/graphql")
    await send_event(bot, {"type": "link_shared", "channel": "C0CHAN", "user": "U0ALICE", "message_ts": "1700000000.000300",
                           "unfurl_id": "C0CHAN.1700000000.000300.abc", "source": "conversations_history",
                           "links": [{"domain": "example", "url": url} for url in [*rooms[:1], f"{base}/procedures/101/dossiers/1"]]},
                     event_id="EvLinks")  # link previews
    for user, event in (("U0ALICE", "EvHomeA"), ("U0BOB", "EvHomeB"), ("U0ADMIN", "EvHomeC")):
        await send_event(bot, home_opened(user), event_id=event)
    await bot.runtime.tasks.drain(20)


@pytest.mark.usefixtures(demarche.__name__)  # the desk's people and démarche 101
async def test_every_control_the_bot_draws_is_answered(digest_bot: Bot, ds: FakeDS, slack: FakeSlack) -> None:
    await draw_everything(digest_bot, ds, slack, ds.demarches[101])
    clicked: set[tuple[str, str]] = set()
    submitted: set[str] = set()
    unanswered: list[tuple[str, str, int]] = []
    for _ in range(4):  # what the clicks drew (a list shown, a window opened) is clicked in turn
        todo = [(surface, block, element) for surface in surfaces(slack) for block, element in controls(surface["blocks"])
                if (element["action_id"], str(element.get("value", ""))) not in clicked]
        windows = [s["view"] for s in surfaces(slack) if s["kind"] == "view" and s["view"].get("type") == "modal"
                   and s["view"].get("callback_id") not in submitted]
        if not todo and not windows:
            break
        for surface, block, element in todo:
            if (element["action_id"], str(element.get("value", ""))) in clicked:
                continue
            clicked.add((element["action_id"], str(element.get("value", ""))))
            answer = await digest_bot.post(block_actions(slack, surface, used(block, element), "U0ALICE"))
            if answer.status_code != 200:
                unanswered.append((element["action_id"], str(element.get("value", "")), answer.status_code))
        for view in windows:
            if view["callback_id"] in submitted:
                continue
            submitted.add(view["callback_id"])
            answer = await digest_bot.post(submission(view, "U0ALICE"))
            if answer.status_code != 200:
                unanswered.append((f"window {view['callback_id']}", "", answer.status_code))
        await digest_bot.runtime.tasks.drain(20)
    assert unanswered == [], f"controls the bot draws and does not answer: {unanswered}"
    drawn = {re.sub(r"_\d+$", "", action) for action, _ in clicked}  # dossier_open_<n> is one kind of button
    # the walk reached each feature's controls (a scenario that stops drawing would make it vacuous)
    assert {"dossier_start", "dossier_accept", "dossier_reopen", "dossier_follow", "dossier_unfollow", "dossier_message",
            "dossier_open", "digest_show_needs", "room_cancel", "home_new_room", "dossier_labels", "dossier_regroup",
            "dossier_annotations", "dossier_elsewhere", "team_call", "team_plan", "team_home"} <= drawn, sorted(drawn)
    assert {"dossier_decision", "dossier_message_modal", "dossier_labels_modal", "dossier_regroup_modal",
            "dossier_annotations_modal"} <= submitted, submitted
    assert slack.called("chat.unfurl"), "no link preview was drawn"
