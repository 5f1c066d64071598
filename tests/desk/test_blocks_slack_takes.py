"""What the desk, Home's "My dossiers" and the digest's "Show them" send, Slack takes (issue 41):
every "Open" button of one block has its own action id (Slack refuses a block where two share
one, and Home is then not published at all), each still opens its own card; and a démarche's
title of 3,000 characters, cut with an ellipsis, costs no answer."""

from __future__ import annotations

import json

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from tests.conftest import Bot, text_of
from tests.desk.conftest import click, dossier
from tests.fakes.slack import TEAM, FakeSlack
from tests.slack_requests import home_opened, send_event


async def late_dossiers(bot: Bot, ds: FakeDS, count: int) -> list[int]:
    """`count` dossiers of démarche 101 under review for too long, as the digest keeps them."""
    late = [ds.deposit(101, "en_instruction").number for _ in range(count)]  # under review since early January
    job = bot.runtime.digests
    assert job is not None
    account = await job.account(TEAM)
    assert account is not None
    await job.counting.compute(ds.now.date(), account=account, demarches=[101])
    return late


async def home_of(bot: Bot, slack: FakeSlack, event_id: str = "Ev0001") -> dict:
    """Home as published for Alice: the view Slack accepted."""
    await send_event(bot, home_opened("U0ALICE"), event_id=event_id)
    published = [call for call in slack.called("views.publish") if call.args.get("user_id") == "U0ALICE"]
    assert published, "Home was not published"
    view = published[-1].args["view"]
    assert not [refusal for method, refusal in slack.refusals if method == "views.publish"], slack.refusals
    return view if isinstance(view, dict) else json.loads(view)


def open_buttons(blocks: list[dict]) -> list[dict]:
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"] if e["action_id"].startswith("dossier_open")]


def unique_within_each_block(blocks: list[dict]) -> bool:
    return all(len({e["action_id"] for e in b["elements"]}) == len(b["elements"]) for b in blocks if b["type"] == "actions")


async def test_homes_open_buttons_have_their_own_ids_and_each_opens_its_card(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                             demarche: FakeDemarche) -> None:
    late = await late_dossiers(digest_bot, ds, 3)
    await dossier(digest_bot, "watch 101")
    home = await home_of(digest_bot, slack)
    buttons = open_buttons(home["blocks"])
    assert sorted(int(b["value"]) for b in buttons) == late and unique_within_each_block(home["blocks"])
    for button in buttons:  # the listener knows every id it gave
        [card] = await click(digest_bot, button["action_id"], button["value"])
        assert f"Dossier n° {button['value']}" in text_of(card)


async def test_show_them_lists_buttons_slack_takes_and_each_opens_its_card(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                           demarche: FakeDemarche) -> None:
    late = await late_dossiers(digest_bot, ds, 7)
    [shown] = await click(digest_bot, "digest_show_needs", "101:")
    buttons = open_buttons(shown["blocks"])
    assert sorted(int(b["value"]) for b in buttons) == late and unique_within_each_block(shown["blocks"])
    [card] = await click(digest_bot, buttons[6]["action_id"], buttons[6]["value"])
    assert f"Dossier n° {buttons[6]['value']}" in text_of(card)
    # a button of a message sent before ids had a suffix still opens its card
    [card] = await click(digest_bot, "dossier_open", str(late[0]))
    assert f"Dossier n° {late[0]}" in text_of(card)


async def test_a_title_of_3000_characters_is_cut_and_every_answer_still_comes(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                             demarche: FakeDemarche) -> None:
    demarche.title = "Subvention " + "très longue " * 250  # 3,011 characters, as the service may hold
    late = await late_dossiers(digest_bot, ds, 2)
    card = await dossier(digest_bot, str(late[0]))
    assert f"Dossier n° {late[0]}" in text_of(card) and "Subvention très longue" in text_of(card) and "…" in text_of(card)
    assert "under review since" in text_of(card) and "Open it on the dossier service" in text_of(card)  # what follows stays

    await dossier(digest_bot, "watch 101")
    home = await home_of(digest_bot, slack)
    assert "Subvention très longue" in text_of(home) and "…" in text_of(home) and "* (n° 101): 2 waiting too long" in text_of(home)
    assert len(open_buttons(home["blocks"])) == 2

    [shown] = await click(digest_bot, "digest_show_needs", "101:")
    assert "Subvention très longue" in text_of(shown) and "…" in text_of(shown) and len(open_buttons(shown["blocks"])) == 2
