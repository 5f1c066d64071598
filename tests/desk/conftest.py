"""The desk's people and démarche: démarche 101 "Subvention" administered by Ada; its group 1
(Nord) instructed by Alice and Bob, its group 2 (Sud) by Sud; Mallory works on nothing. The bot
answers `/dossier`, its buttons and windows."""

from __future__ import annotations

import json

import pytest

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from tests.conftest import Bot, text_of
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, command_body, view_submission_body

BOB, SUD, ADA = "bob.durand@example.gouv.fr", "sud@example.gouv.fr", "ada@example.gouv.fr"


@pytest.fixture
def demarche(ds: FakeDS, slack: FakeSlack) -> FakeDemarche:
    slack.add_user("U0BOB", "Bob.Durand@Example.gouv.fr", locale="fr-FR")
    slack.add_user("U0SUD", SUD, locale="en-US")
    slack.add_user("U0ADA", ADA, locale="en-US")
    slack.add_user("U0MAL", "mallory@example.gouv.fr", locale="en-US")
    return ds.add_demarche(101, "Subvention <vélo>", admins=(ADA,), groups={1: ("Nord", [ALICE, BOB]), 2: ("Sud", [SUD])})


async def dossier(bot: Bot, words: str, user: str = "U0ALICE") -> dict:
    """`/dossier <words>` as `user`: the private answer."""
    return await bot.last_reply(command_body(words, user, bot.slack.response_url(f"cmd-{user}"), command="/dossier"))


def buttons(reply: dict) -> dict[str, dict]:
    return {e["action_id"]: e for b in reply.get("blocks", []) for e in [*b.get("elements", []), b.get("accessory") or {}]
            if isinstance(e, dict) and e.get("type") == "button"}


async def click(bot: Bot, action_id: str, value: str, user: str = "U0ALICE") -> list[dict]:
    """A button of a card: what was posted to the card's response_url after it."""
    before = len(bot.slack.responses)
    answer = await bot.post(action_body(action_id, value, user, bot.slack.response_url(f"card-{user}")))
    assert answer.status_code == 200
    await bot.runtime.tasks.drain(20)
    return bot.slack.responses[before:]


async def submit(bot: Bot, callback: str, metadata: str, words: str, user: str = "U0ALICE", view_id: str = "V0MODAL",
                 correction: str | None = None) -> dict:
    values: dict = {"words": {"words": {"type": "plain_text_input", "value": words}}}
    if correction:
        values["correction"] = {"correction": {"type": "static_select", "selected_option": {"value": correction}}}
    answer = await bot.post(view_submission_body(callback, values, metadata, user, view_id=view_id))
    assert answer.status_code == 200
    await bot.runtime.tasks.drain(20)
    return answer.json() if answer.text else {}


def acts(ds: FakeDS) -> list[tuple[str, dict]]:
    return ds.acts.done


def said(reply: dict) -> str:
    return text_of(reply)


def dumped(reply: dict) -> str:
    return json.dumps(reply, ensure_ascii=False)
