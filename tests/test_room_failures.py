"""Every failure a person can meet gets a short private answer, and the next command works."""

from __future__ import annotations

import logging

import pytest

from tests.conftest import start_bot, text_of
from tests.fakes.meet import FakeMeet, Fault
from tests.fakes.slack import FakeSlack

ROOMS = "/external-api/v1.0/rooms/"
TOKEN = "/external-api/v1.0/application/token/"


async def test_no_email_on_profile_when_the_app_lacks_the_email_scope(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.scopes.discard("users:read.email")
    words = text_of(await bot.reply("new"))
    assert "users:read.email" in words and "e-mail" in words
    assert meet.token_requests == []


async def test_unconfirmed_email_and_bot_users_are_refused(bot, slack: FakeSlack, meet: FakeMeet):
    slack.add_user("U0NEW", "new@example.gouv.fr", locale="en-GB", is_email_confirmed=False)
    slack.add_user("U0ROBOT", "robot@example.gouv.fr", locale="en-GB", is_bot=True)
    assert "not confirmed" in text_of(await bot.reply("new", user="U0NEW"))
    assert "not for bots" in text_of(await bot.reply("new", user="U0ROBOT"))
    assert meet.token_requests == []


async def test_slack_profile_unreadable(bot, slack: FakeSlack, alice):
    slack.broken.add("users.info")
    # no profile, so no locale: the configured default language (French) answers
    assert "Je n'ai pas pu lire votre profil Slack" in text_of(await bot.reply("list"))


async def test_account_not_found_says_to_sign_in_once_then_works_after_sign_in(bot, slack: FakeSlack, meet: FakeMeet):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="en-US")
    words = text_of(await bot.reply("new", user="U0BOB"))
    assert "no account for bob@example.gouv.fr" in words
    assert f"Sign in once at <{meet.base}|" in words
    meet.add_user("bob@example.gouv.fr")
    assert "Your video room is ready" in text_of(await bot.reply("new", user="U0BOB"))


async def test_email_domain_not_authorised(bot, meet: FakeMeet, alice):
    meet.app_config.domains = ("interieur.gouv.fr",)
    words = text_of(await bot.reply("list"))
    assert "does not allow this app for example.gouv.fr addresses" in words


async def test_malformed_email_is_explained(bot, slack: FakeSlack, meet: FakeMeet):
    slack.add_user("U0ODD", "odd@", locale="en-US")
    assert "does not accept odd@ as an e-mail address" in text_of(await bot.reply("list", user="U0ODD"))


@pytest.mark.parametrize("break_app", ["inactive", "wrong secret"])
async def test_bad_application_credentials_tell_the_admin_detail_only_in_log(
    bot, meet: FakeMeet, alice, caplog: pytest.LogCaptureFixture, break_app: str
):
    if break_app == "inactive":
        meet.app_config.active = False
        detail = "Application is inactive"
    else:
        meet.app_config.client_secret = "rotated-on-the-server"
        detail = "Invalid credentials"
    with caplog.at_level(logging.ERROR):
        words = text_of(await bot.reply("new"))
    assert "not set up correctly" in words and "administrator" in words
    assert detail not in words
    assert detail in caplog.text
    assert meet.app_config.client_secret not in caplog.text and "app-secret-value" not in caplog.text


async def test_missing_scope_is_named(bot, meet: FakeMeet, alice):
    meet.app_config.scopes = "rooms:list rooms:retrieve"
    assert "permission `rooms:create`" in text_of(await bot.reply("new"))


async def test_public_rooms_refused(bot, meet: FakeMeet, alice):
    words = text_of(await bot.reply("new public"))
    assert "Public rooms are disabled" in words and "/room new restricted" in words
    assert meet.rooms == {}


async def test_room_not_found_and_not_yours(bot, meet: FakeMeet, alice):
    meet.add_user("other@example.gouv.fr")
    theirs = meet.add_room("other@example.gouv.fr", slug="their-room-abc")
    assert "not one of yours" in text_of(await bot.reply(f"show {theirs['id']}"))
    assert "found no room of yours for `" in text_of(await bot.reply("show 00000000-0000-4000-8000-000000000000"))
    assert "found no room of yours" in text_of(await bot.reply(f"show {theirs['url']}"))


async def test_service_down_html_5xx_and_recovery(bot, meet: FakeMeet, alice):
    meet.faults.append(Fault("GET", ROOMS, 502, "<html><body>Bad gateway</body></html>", "text/html", times=3))
    words = text_of(await bot.reply("list"))
    assert "unavailable right now" in words and "<html" not in words
    assert meet.count("GET", ROOMS) == 3  # a GET is retried
    assert "no video room yet" in text_of(await bot.reply("list"))


async def test_create_is_not_retried_after_a_5xx(bot, meet: FakeMeet, alice):
    meet.faults.append(Fault("POST", ROOMS, 500, "<h1>Server Error (500)</h1>", "text/html"))
    assert "unavailable right now" in text_of(await bot.reply("new"))
    assert meet.count("POST", ROOMS) == 1


async def test_service_unreachable(settings, redis, slack: FakeSlack, meet: FakeMeet, alice):
    dead = settings.model_copy(update={"meet_api_url": "http://127.0.0.1:9/external-api/v1.0"})
    async for bot in start_bot(dead, redis, slack):
        assert "unavailable right now" in text_of(await bot.reply("list"))


async def test_service_slow(settings, redis, slack: FakeSlack, meet: FakeMeet, alice):
    meet.faults.append(Fault("GET", ROOMS, 200, {"count": 0, "next": None, "previous": None, "results": []}, delay=1.0, times=3))
    async for bot in start_bot(settings, redis, slack, timeout=0.2):
        assert "slow to answer" in text_of(await bot.reply("list"))


async def test_redirect_is_never_followed_on_create(bot, meet: FakeMeet, alice):
    meet.faults.append(Fault("POST", ROOMS, 301, "", "text/html"))
    words = text_of(await bot.reply("new"))
    assert "not set up correctly" in words
    assert meet.count("GET", ROOMS) == 0 and meet.rooms == {}


async def test_expired_token_is_refreshed_once_and_the_call_retried(bot, meet: FakeMeet, alice):
    await bot.reply("list")
    meet.expire_tokens()  # the server now answers 401 "Token expired." to the cached token
    assert "no video room yet" in text_of(await bot.reply("list"))
    assert len(meet.token_requests) == 2
    assert meet.count("GET", ROOMS) == 3


async def test_a_second_401_is_final(bot, meet: FakeMeet, alice):
    meet.users[alice]["active"] = False  # token issued, then every room call is 401
    assert "refused to let the bot act for you" in text_of(await bot.reply("list"))
    assert len(meet.token_requests) == 2 and meet.count("GET", ROOMS) == 2


async def test_provisioning_race_409_is_retried_once(bot, meet: FakeMeet, alice):
    meet.faults.append(Fault("POST", TOKEN, 409, {"error": "Failed to create or retrieve provisional user."}))
    assert "no video room yet" in text_of(await bot.reply("list"))
