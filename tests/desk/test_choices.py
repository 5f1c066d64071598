"""What a person hears of the watch, as they choose it (issue 43, item 2): a level per démarche and
kind (`all`, `followed`, `off`, the service's defaults), set by `/dossier watch <n> <kind> <level>`
in either language or by the DM's Mute button; why each item came; quiet hours and snoozes that
hold the news and send it in one DM after; `/room forget me` erases the choices."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from clients.dossiers.choices import PersonHours
from clients.redis_keys import key as redis_key
from tests.conftest import Bot, text_of
from tests.desk.conftest import click, dossier
from tests.desk.test_watch import a_round, news
from tests.digest.commands import ALICE, digest
from tests.fakes.slack import TEAM, FakeSlack
from tests.slack_requests import _interaction, home_opened, send_event, view_submission_body

ALICE_ID = "U0ALICE"


def later(seconds: int = 5) -> dt.datetime:
    return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)


async def watching(bot: Bot, *users: str) -> None:
    for user in users:
        await dossier(bot, "watch 101", user=user)
    await a_round(bot)  # the first round marks where reading starts


async def test_each_level_lets_through_what_it_says(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    followed = ds.deposit(101, "en_construction")
    followed.followers.add(ALICE)
    other = ds.deposit(101, "en_construction")
    await watching(digest_bot, ALICE_ID)
    # the defaults: every deposit of her groups; an applicant's message only on what she follows
    ds.now = later()
    deposited = ds.deposit(101)
    ds.acts.write(demarche, followed, followed.usager, "Mon justificatif")
    ds.acts.write(demarche, other, other.usager, "Et moi ?")
    await a_round(digest_bot)
    [first] = news(slack, ALICE_ID)
    assert f"Dossier n° {deposited.number} was deposited" in text_of(first)
    assert f"The applicant wrote on dossier n° {followed.number}" in text_of(first)
    assert f"dossier n° {other.number}" not in text_of(first)

    assert "only for the dossiers you follow" in text_of(await dossier(digest_bot, "watch 101 deposits followed"))
    assert "for every dossier of your groups" in text_of(await dossier(digest_bot, "watch messages all 101"))
    ds.now = later(10)
    ds.deposit(101)  # followed by nobody: not told at `followed`
    ds.acts.write(demarche, other, other.usager, "Toujours rien ?")  # not followed, but messages at `all`
    await a_round(digest_bot)
    second = news(slack, ALICE_ID)[1]
    assert "was deposited" not in text_of(second)
    assert f"The applicant wrote on dossier n° {other.number}" in text_of(second)
    assert "on n° 101 you hear applicants' messages for every dossier of your groups" in text_of(second)

    assert "You no longer hear applicants' messages on n° 101" in text_of(await dossier(digest_bot, "watch 101 messages off"))
    ds.now = later(15)
    ds.acts.write(demarche, followed, followed.usager, "Encore un")
    await a_round(digest_bot)
    assert len(news(slack, ALICE_ID)) == 2  # nothing she hears: no DM


async def test_the_command_in_both_languages_and_its_typos(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    await watching(digest_bot, ALICE_ID, "U0BOB")
    said = text_of(await dossier(digest_bot, "watch 101 dépôts aucun", user="U0BOB"))
    assert "Vous ne recevez plus les dépôts sur la démarche n° 101. `/dossier watch 101 dépôts tous` (ou `suivis`) les rétablit." in said
    assert await digest_bot.runtime.redis.hget(redis_key("desk-choices", TEAM, "U0BOB", "101"), "deposited") == "off"
    typo = text_of(await dossier(digest_bot, "watch 101 depsits off"))
    assert "I don't know the kind `depsits`" in typo and "`deposits`: deposits" in typo and "`labels`: changes of labels" in typo
    typo_fr = text_of(await dossier(digest_bot, "watch 101 étiqettes tous", user="U0BOB"))
    assert "Je ne connais pas le type `étiqettes`" in typo_fr and "`étiquettes` : les changements d'étiquettes" in typo_fr
    assert "You do not watch n° 202" in text_of(await dossier(digest_bot, "watch 202 deposits off"))
    assert "I don't know the level `al`: type `all`" in text_of(await dossier(digest_bot, "watch 101 deposits al"))
    assert "Je ne connais pas le niveau `tou`" in text_of(await dossier(digest_bot, "watch 101 tou dépôts", user="U0BOB"))
    # a kind alone says what is set, and how to change it; a word alone that is no kind lists the kinds
    assert "On n° 101 you hear deposits of every dossier of your groups. `/dossier watch 101 deposits followed`" \
        in text_of(await dossier(digest_bot, "watch 101 deposits"))
    assert "Sur la démarche n° 101, vous ne recevez pas les dépôts. `/dossier watch 101 dépôts tous` (ou `suivis`) les rétablit." \
        in text_of(await dossier(digest_bot, "watch 101 dépôts", user="U0BOB"))
    assert "vous recevez les messages des usagers des seuls dossiers que vous suivez" \
        in text_of(await dossier(digest_bot, "watch 101 messages", user="U0BOB"))
    assert "vous recevez les dépôts de tous les dossiers" in text_of(await dossier(digest_bot, "watch 101 dépot tous", user="U0BOB"))
    said = text_of(await dossier(digest_bot, "watch 101 aucun", user="U0BOB"))  # a level, and no kind
    assert "Quel type de nouvelles ? Tapez `/dossier watch &lt;démarche&gt; &lt;type&gt; aucun`" in said and "`dépôts` : les dépôts" in said
    assert "`/dossier watch off` stops watching altogether" in text_of(await dossier(digest_bot, "watch 101 off"))
    assert "Je ne connais pas le type `courriels`" in text_of(await dossier(digest_bot, "watch 101 courriels", user="U0BOB"))
    assert "You do not watch n° 202" in text_of(await dossier(digest_bot, "watch 202 deposits"))


async def test_the_mute_button_changes_only_the_clickers_choices(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                 demarche: FakeDemarche) -> None:
    await watching(digest_bot, ALICE_ID, "U0BOB")
    ds.now = later()
    ds.deposit(101)
    await a_round(digest_bot)
    [alices] = news(slack, ALICE_ID)
    assert "Why: a dossier of your group Nord; on n° 101 you hear deposits for every dossier of your groups." in text_of(alices)
    ids = [e["action_id"] for b in alices["blocks"] for e in [*b.get("elements", []), b.get("accessory") or {}] if "action_id" in e]
    assert "news_mute_101_deposited" in ids and len(ids) == len(set(ids))
    [answer] = await click(digest_bot, "news_mute_101_deposited", "101:deposited")
    assert "You no longer hear deposits on n° 101" in text_of(answer)
    forged = await click(digest_bot, "news_mute_101_x", "101:nothing")
    assert "not one the bot made" in text_of(forged[-1])
    ds.now = later(10)
    ds.deposit(101)
    await a_round(digest_bot)
    assert len(news(slack, ALICE_ID)) == 1 and len(news(slack, "U0BOB")) == 2  # Bob's choices are his


async def test_quiet_hours_hold_the_news_and_send_it_in_one_dm_after(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                      demarche: FakeDemarche) -> None:
    await watching(digest_bot, ALICE_ID)
    paris = dt.datetime.now(dt.UTC).astimezone(ds_zone())
    start, end = (paris - dt.timedelta(hours=1)).strftime("%H:%M"), (paris + dt.timedelta(hours=1)).strftime("%H:%M")
    assert f"Quiet hours from {start} to {end}" in text_of(await dossier(digest_bot, f"quiet {start} {end}"))
    ds.now = later()
    first = ds.deposit(101)
    await a_round(digest_bot)
    ds.now = later(10)
    second = ds.deposit(101)
    await a_round(digest_bot)
    assert news(slack, ALICE_ID) == []
    await a_round(digest_bot, dt.datetime.now(dt.UTC) + dt.timedelta(hours=2))  # their quiet hours are over
    [held] = news(slack, ALICE_ID)
    assert f"n° {first.number} was deposited" in text_of(held) and f"n° {second.number} was deposited" in text_of(held)
    await a_round(digest_bot, dt.datetime.now(dt.UTC) + dt.timedelta(hours=3))
    assert len(news(slack, ALICE_ID)) == 1  # sent once
    assert "No more quiet hours" in text_of(await dossier(digest_bot, "quiet off"))
    assert "can't read `25:00` as two hours" in text_of(await dossier(digest_bot, "quiet 25:00"))
    assert "start and end at two different hours (here, 22:00 twice)" in text_of(await dossier(digest_bot, "quiet 22:00 22:00"))
    assert "Heures calmes de 22 h à 7 h (votre heure)" in text_of(await dossier(digest_bot, "quiet de 22 h à 7 h", user="U0BOB"))
    assert "Quiet hours from 22:00 to 07:00" in text_of(await dossier(digest_bot, "quiet from 10pm to 7am"))


async def test_a_snooze_holds_the_news_an_hour_or_until_their_morning(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                      demarche: FakeDemarche) -> None:
    await watching(digest_bot, ALICE_ID)
    assert "Snoozed until" in text_of(await dossier(digest_bot, "snooze 1h"))
    ds.now = later()
    ds.deposit(101)
    await a_round(digest_bot)
    assert news(slack, ALICE_ID) == []
    await a_round(digest_bot, dt.datetime.now(dt.UTC) + dt.timedelta(minutes=61))
    assert len(news(slack, ALICE_ID)) == 1  # the held deposit, once the hour is over
    [answer] = await click(digest_bot, "news_snooze_tomorrow", "tomorrow")  # from the DM
    assert "Snoozed until 08:00 (your time)" in text_of(answer)
    until = await PersonHours(digest_bot.runtime.redis).snoozed_until(TEAM, ALICE_ID)
    assert until is not None and until.astimezone(ds_zone()).time() == dt.time(8) and until > dt.datetime.now(dt.UTC)
    assert "Snoozed until 08:00" in text_of(await dossier(digest_bot, "snooze"))
    assert "Snooze ended" in text_of(await dossier(digest_bot, "snooze off"))
    assert "You are not snoozed" in text_of(await dossier(digest_bot, "snooze"))
    assert "can't read `forever`" in text_of(await dossier(digest_bot, "snooze forever"))


async def test_forget_me_erases_the_choices(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    await watching(digest_bot, ALICE_ID)
    await dossier(digest_bot, "watch 101 deposits off")
    await dossier(digest_bot, "quiet 22:00 07:00")
    await dossier(digest_bot, "daily 08:30")
    assert "What you chose to hear of your watches" in text_of(await digest_bot.reply("forget me"))
    assert "Erased." in text_of(await digest_bot.click_reply("privacy_forget", "me"))
    redis = digest_bot.runtime.redis
    assert [name async for name in redis.scan_iter(match=redis_key("desk-*", TEAM, ALICE_ID, "*"))] == []
    assert not await redis.exists(redis_key("desk-hours", TEAM, ALICE_ID))
    assert not await redis.hexists(redis_key("desk-daily"), f"{TEAM}/{ALICE_ID}")


def ds_zone() -> ZoneInfo:
    return ZoneInfo("Europe/Paris")  # Alice's zone in the fake Slack


def home_action(action_id: str, value: str, user: str = ALICE_ID) -> str:
    """A button of the Home tab, as Slack posts it (no response_url: the answer is Home itself)."""
    return _interaction("block_actions", user, container={"type": "view", "view_id": "V0HOME"},
                        view={"id": "V0HOME", "type": "home", "team_id": TEAM},
                        actions=[{"action_id": action_id, "block_id": "b", "type": "button", "value": value,
                                  "action_ts": "1700000001.000200"}])


def last_view(slack: FakeSlack, method: str) -> dict:
    view = slack.called(method)[-1].args["view"]
    return view if isinstance(view, dict) else json.loads(view)


async def test_home_opens_a_window_per_demarche_and_saves_the_choices(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                      demarche: FakeDemarche) -> None:
    await watching(digest_bot, ALICE_ID)
    await send_event(digest_bot, home_opened(ALICE_ID))
    home = last_view(slack, "views.publish")
    assert "What you hear" in text_of(home) and "as the dossier service would e-mail you" in text_of(home)
    assert "No daily message (`/dossier daily 08:30`)" in text_of(home) and "Snooze for an hour" in json.dumps(home)
    assert (await digest_bot.post(home_action("hear_open_101", "101"))).status_code == 200
    await digest_bot.runtime.tasks.drain(20)
    window = last_view(slack, "views.open")
    assert window["callback_id"] == "hear_choices" and window["private_metadata"] == "101"
    selects = {b["block_id"]: b["element"]["initial_option"]["value"] for b in window["blocks"] if b["type"] == "input"}
    assert selects["kind_deposited"] == "all" and selects["kind_wrote"] == "followed" and len(selects) == 11

    chosen = {f"kind_{kind}": {"level": {"type": "static_select", "selected_option": {"value": level}}}
              for kind, level in (("deposited", "off"), ("state", "all"), ("wrote", "followed"))}
    assert (await digest_bot.post(view_submission_body("hear_choices", chosen, "101", ALICE_ID))).status_code == 200
    await digest_bot.runtime.tasks.drain(20)
    levels = await digest_bot.runtime.redis.hgetall(redis_key("desk-choices", TEAM, ALICE_ID, "101"))
    assert levels == {"deposited": "off", "state": "all"}  # the service's defaults are not kept
    home = last_view(slack, "views.publish")
    assert "Saved: what you hear of n° 101" in text_of(home)
    assert "deposits: nothing · changes of state: every dossier of your groups" in text_of(home)
    # a window forged for a démarche she does not watch changes nothing
    await digest_bot.post(view_submission_body("hear_choices", chosen, "202", ALICE_ID))
    await digest_bot.runtime.tasks.drain(20)
    assert "You do not watch n° 202" in text_of(last_view(slack, "views.publish"))
    assert not await digest_bot.runtime.redis.exists(redis_key("desk-choices", TEAM, ALICE_ID, "202"))

    await dossier(digest_bot, "daily 08:30")
    assert (await digest_bot.post(home_action("news_snooze_hour", "hour"))).status_code == 200  # snooze from Home
    await digest_bot.runtime.tasks.drain(20)
    assert "snoozed until" in text_of(last_view(slack, "views.publish"))
    assert "Daily message at 08:30 (`/dossier daily`)" in text_of(last_view(slack, "views.publish"))
    ds.now = later()
    ds.deposit(101)
    await a_round(digest_bot)
    assert news(slack, ALICE_ID) == []


async def test_an_uninstall_erases_the_workspaces_choices(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    from clients.workspace_erasure import forget_team

    await watching(digest_bot, ALICE_ID)
    await dossier(digest_bot, "watch 101 deposits off")
    await dossier(digest_bot, "quiet 22:00 07:00")
    await dossier(digest_bot, "daily 08:30")
    redis = digest_bot.runtime.redis
    await PersonHours(redis).hold(TEAM, ALICE_ID, ["{}"])
    await forget_team(redis, TEAM)
    assert [name async for name in redis.scan_iter(match=redis_key("desk-*", TEAM, "*"))] == []
    assert await redis.hgetall(redis_key("desk-daily")) == {} and await redis.smembers(redis_key("desk-holding")) == set()


async def test_help_is_understood_as_a_french_speaker_types_it(digest_bot: Bot) -> None:
    """`/dossier aide` and `/digest aide` are the help, not an unknown word."""
    words = text_of(await dossier(digest_bot, "aide"))
    assert "I don't know" not in words and "/dossier help" in words
    said = await digest(digest_bot, "aide")
    assert "I don't know" not in said and "/digest subscribe" in said
