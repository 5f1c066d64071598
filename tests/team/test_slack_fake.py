"""The Slack fake against Slack's own method reference (tests/data/slack-methods; slack-common-errors.json: the errors
any method may answer), for every method it serves: it takes the arguments Slack takes and requires those Slack
requires, each error code it can answer is one Slack lists for that method (or one of `SEEN_UNLISTED`, each with
where Slack was seen answering it), and a list Slack pages answers its cursor. Each check also runs on a fake
broken on purpose, and must find every break. Then what Slack refuses for team spaces (conversations.create,
conversations.invite, users.lookupByEmail, pins.add), so that the bot's handling of each is tested against the
real refusal; and the bot words the one a workspace's settings cause."""

from __future__ import annotations

import ast
import inspect
import json
import textwrap
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.conftest import text_of
from tests.fakes.slack import BOT_USER, METHODS, TEAM, FakeSlack, Grant, reference
from tests.team.conftest import made_channels, team

SERVED = sorted(path.stem for path in METHODS.glob("*.json"))
COMMON = frozenset(json.loads((METHODS.parent / "slack-common-errors.json").read_text()))
#: codes the fake answers that a method's reference does not list, and why Slack is known to answer them
SEEN_UNLISTED = {
    ("chat.postMessage", "cannot_dm_bot"): "undocumented; Slack's support quoted on it in HubSpot/slack-client#90",
    ("chat.scheduleMessage", "cannot_dm_bot"): "as chat.postMessage: a user id's DM is opened as conversations.open opens it",
    ("conversations.open", "cannot_dm_bot"): "seen from conversations.open (yokonsan/claude-in-slack-api#8)",
    ("chat.postMessage", "user_disabled"): "a user id's DM opened as conversations.open opens it: its refusal of a deactivated person",
    ("chat.scheduleMessage", "user_disabled"): "as chat.postMessage",
    ("chat.postMessage", "msg_too_long"): "slack-platform.md §12, seen when the bot's traffic was checked",
    ("conversations.invite", "too_many_users"): "in Slack's OpenAPI errors of conversations.invite (slackapi/slack-api-specs); "
                                                "1,000 ids at most (slack-platform.md §14)",
    ("chat.unfurl", "invalid_blocks"): "answered to blocks Slack refuses in an unfurl (getsentry/sentry#101303)",
    **{(method, "invalid_blocks"): "slack-platform.md §14: seen refusing a view's blocks (views.publish/open/update)"
       for method in ("views.open", "views.update", "views.publish", "views.push")},
}
#: what any method takes besides its own: the token, and the workspace an organisation's token acts in
ANY_METHOD = frozenset({"token", "team_id"})
#: what the fake adds to a call's arguments itself (the token the call came with)
ADDED = frozenset({"_token"})
#: an argument no method of Slack's takes
UNKNOWN = "not_slacks_argument"


def slacks(method: str, code: str) -> bool:
    """Whether Slack answers `method` with `code`, by its reference or as seen."""
    return code in (reference(method) or {}).get("errors", {}) or code in COMMON or (method, code) in SEEN_UNLISTED


def handler(method: str) -> str:
    return "_" + method.replace(".", "_")


def trees(fake: type[FakeSlack]) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The fake's own functions as syntax trees (a subclass's where it overrides)."""
    found = {}
    for name, function in inspect.getmembers(fake, inspect.isfunction):
        if name.startswith("_") and not name.startswith("__"):
            node = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            found[name] = node
    return found


def reached(functions: dict[str, Any], name: str) -> list[ast.AST]:
    """`name`'s function and every function of the fake it calls (`self._x(…)`), however deep."""
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in functions:
            continue
        seen.add(current)
        todo += [node.func.attr for node in ast.walk(functions[current]) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"]
    return [functions[one] for one in sorted(seen)]


def codes(functions: list[ast.AST], top: ast.AST) -> set[str]:
    """The error codes written in `functions`: `{"error": "…"}`, and a called helper's `return "…"`."""
    found: set[str] = set()
    for function in functions:
        for node in ast.walk(function):
            if isinstance(node, ast.Dict):
                found |= {str(value.value) for key, value in zip(node.keys, node.values, strict=True)
                          if isinstance(key, ast.Constant) and key.value == "error" and isinstance(value, ast.Constant)}
            if function is not top and isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                found.add(node.value.value)
    return found


def reads(functions: list[ast.AST]) -> set[str]:
    """The arguments `functions` read: `args.get("…")`, `args["…"]`, `"…" in args`."""
    found: set[str] = set()
    for function in functions:
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "args" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                found.add(str(node.args[0].value))
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "args" \
                    and isinstance(node.slice, ast.Constant):
                found.add(str(node.slice.value))
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and len(node.comparators) == 1 \
                    and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == "args":
                found.add(str(node.left.value))
    return found


def unlike_slack_in_its_code(fake: type[FakeSlack]) -> list[str]:
    """What each method's handler may answer or read that Slack's reference does not have."""
    functions, found = trees(fake), []
    for method in SERVED:
        if handler(method) not in functions:  # answered {"ok": true} whatever it is given
            continue
        described, within = reference(method) or {}, reached(functions, handler(method))
        found += [f"{method} answers {code}, which Slack's reference does not list"
                  for code in sorted(codes(within, functions[handler(method)])) if not slacks(method, code)]
        found += [f"{method} reads {name}, an argument Slack does not take"
                  for name in sorted(reads(within) - set(described["args"]) - ANY_METHOD - ADDED)]
    return found


async def answer(client: AsyncWebClient, method: str, args: dict[str, Any]) -> dict[str, Any]:
    try:
        data = (await client.api_call(method, json=args)).data
    except SlackApiError as error:
        data = error.response.data
    return dict(data) if isinstance(data, dict) else {"answered": data}


def placeholders(method: str) -> dict[str, Any]:
    """A value for each argument `method` requires, of the kind Slack takes."""
    kinds = {"view": {"type": "home", "blocks": []}, "blocks": [], "files": [{"id": "F0"}], "outputs": {}}
    described = reference(method) or {"args": {}}
    return {name: kinds.get(name, "x") for name, arg in described["args"].items() if arg.get("required")}


async def unlike_slack_on_the_wire(slack: FakeSlack) -> list[str]:
    """What the fake answers, method by method, that Slack would not: a call with an argument Slack does not
    know taken, required ones missing not named, a refusal before the method runs (a message or view past
    Block Kit's limits, a text past 40,000 characters, a channel or person of another workspace) that the
    method's reference does not list, a list Slack pages answered without its cursor."""
    client, found = AsyncWebClient(token="xoxb-probe", base_url=f"{slack.base}/api/"), []
    slack.grants["xoxb-probe"] = Grant(TEAM)
    slack.channels |= {"C0ELSE": {"private": False, "member": True, "team": "T0ELSE"},
                       "C0LIST": {"private": False, "member": True}}
    slack.add_user("U0ELSE", "else@example.gouv.fr", team="T0ELSE")
    too_many = [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}] * 101
    for method in SERVED:
        described, given = reference(method) or {"args": {}}, placeholders(method)
        taken = await answer(client, method, {**given, UNKNOWN: "x"})
        if taken.get("response_metadata", {}).get("messages") != [f"[ERROR] unknown argument '{UNKNOWN}'"]:
            found.append(f"{method} took an argument Slack does not know: {taken}")
        if given:
            missing = await answer(client, method, {})
            if missing.get("response_metadata", {}).get("messages") != [f"[ERROR] missing required field: {name}" for name in given]:
                found.append(f"{method} did not name its required arguments {sorted(given)}: {missing}")
        probes: list[dict[str, Any]] = []
        if "blocks" in described["args"]:
            probes.append({"blocks": too_many})
        if "view" in described["args"]:
            probes.append({"view": {"type": "home", "blocks": too_many}})
        if "unfurls" in described["args"]:
            probes.append({"unfurls": {"https://x": {"blocks": too_many}}})
        if "text" in described["args"]:
            probes.append({"text": "x" * 40_001})
        probes += [{name: "C0ELSE"} for name in ("channel", "channel_id") if name in described["args"]]
        probes += [{name: "U0ELSE"} for name in ("user", "users", "user_id") if name in described["args"]]
        for probe in probes:
            refused = await answer(client, method, {**given, **probe})
            if refused.get("ok") is not False or not slacks(method, str(refused.get("error"))):
                found.append(f"{method} answered {str(probe)[:60]} with {str(refused)[:200]}, which Slack's reference does not list")
    shared = slack.share_file("U0ALICE", "a.pdf", "application/pdf", b"%PDF")
    for method, args in (("conversations.members", {"channel": "C0LIST"}), ("users.conversations", {}),
                         ("auth.teams.list", {}), ("files.info", {"file": shared["id"]})):
        assert "cursor" in (reference(method) or {})["args"]  # Slack pages it
        page = await answer(client, method, args)
        if page.get("ok") is not True or not isinstance(page.get("response_metadata", {}).get("next_cursor"), str):
            found.append(f"{method} answered a page without its next_cursor: {page}")
    slack.refusals.clear()  # refused on purpose
    return found


def test_each_method_answers_only_errors_slack_lists_and_reads_only_arguments_slack_takes():
    assert unlike_slack_in_its_code(FakeSlack) == []


async def test_each_method_takes_and_requires_slacks_arguments_and_refuses_in_slacks_words(slack: FakeSlack):
    assert await unlike_slack_on_the_wire(slack) == []


class UnlikeSlack(FakeSlack):
    """Broken on purpose, once in each way the checks must find."""

    def _refusal(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        known = set((reference(method) or {"args": {}})["args"]) | ANY_METHOD
        return super()._refusal(method, {name: value for name, value in args.items() if name in known})  # takes any argument

    def _pins_add(self, args: dict) -> dict:
        if args.get("reason"):  # an argument Slack does not take, and a code it does not answer
            return {"ok": False, "error": "pin_refused"}
        return super()._pins_add(args)

    def _conversations_members(self, args: dict) -> dict:
        return {key: value for key, value in super()._conversations_members(args).items() if key != "response_metadata"}

    def _views_publish(self, args: dict) -> dict:
        return {"ok": False, "error": "channel_not_found"}  # not a refusal views.publish has


async def test_the_checks_find_a_fake_unlike_slack(slack_server):
    assert unlike_slack_in_its_code(UnlikeSlack) == ["pins.add answers pin_refused, which Slack's reference does not list",
                                                     "pins.add reads reason, an argument Slack does not take",
                                                     "views.publish answers channel_not_found, which Slack's reference does not list"]
    server, app = slack_server
    broken = UnlikeSlack(base=server.url)
    app.target = broken.asgi()
    found = await unlike_slack_on_the_wire(broken)
    took = [line.partition(" took an argument Slack does not know: ")[::2] for line in found[:-1]]
    assert [method for method, _ in took] == SERVED and all(answered for _, answered in took)  # every method took it
    assert found[-1] == "conversations.members answered a page without its next_cursor: {'ok': True, 'members': ['U0BOT']}"


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
