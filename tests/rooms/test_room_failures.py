"""Every failure a person can meet gets a short private answer, and the next command works."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

from bot.demo.meet import FakeMeet, Fault
from bot.demo.meet_tokens import ALL_SCOPES, Application
from clients.redis_keys import key as redis_key
from clients.rooms import user_rooms
from tests.conftest import start_bot, text_of
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
    assert "then try again in a few minutes" in words


async def test_an_unknown_account_is_remembered_for_a_few_minutes(bot, slack: FakeSlack, meet: FakeMeet, redis):
    """Each command and pasted link of a person without an account would cost a token request."""
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="en-US")
    for _ in range(3):
        assert "no account for bob@example.gouv.fr" in text_of(await bot.reply("list", user="U0BOB"))
    assert len(meet.token_requests) == 1
    meet.add_user("bob@example.gouv.fr")  # Bob signs in; a few minutes later the answer is forgotten:
    [memo] = await redis.keys(redis_key("no-account:*"))
    assert 120 <= await redis.ttl(memo) <= 180
    await redis.delete(memo)
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


async def test_a_call_the_service_does_not_route_says_it_is_not_offered_not_that_the_bot_is_misconfigured(
        bot, meet: FakeMeet, alice):
    """An older or differently set-up instance answers 405 to a call it lacks (a new verb's)."""
    meet.faults.append(Fault("GET", ROOMS, 405, {"detail": 'Method "GET" not allowed.'}))
    words = text_of(await bot.reply("list"))
    assert "does not offer that (yet): nothing was done" in words and "not set up correctly" not in words


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


async def test_a_fresh_tokens_401_is_final(bot, meet: FakeMeet, alice):
    await bot.reply("list")  # a token is cached
    meet.faults.append(Fault("GET", ROOMS, 401, {"detail": "Token expired."}, times=2))
    assert "refused to let the bot act for you" in text_of(await bot.reply("list"))
    assert len(meet.token_requests) == 2 and meet.count("GET", ROOMS) == 3


async def test_a_disabled_account_is_told_who_can_re_enable_it(bot, meet: FakeMeet, alice, redis):
    """The service still issues tokens to a disabled person, then answers 401 to every call."""
    await bot.reply("list")  # a token is cached
    meet.users[alice]["active"] = False
    words = text_of(await bot.reply("new"))
    assert "Your account on the room service is disabled" in words and f"administrator of <{meet.base}|" in words
    assert len(meet.token_requests) == 1 and meet.count("POST", ROOMS) == 1  # no new token can help
    await redis.delete(*await redis.keys(redis_key("token:*")))  # cold cache: one token request, one room call
    assert "is disabled" in text_of(await bot.reply("list"))
    assert len(meet.token_requests) == 2 and meet.count("GET", ROOMS) == 2


async def test_provisioning_race_409_is_retried_once(bot, meet: FakeMeet, alice):
    meet.faults.append(Fault("POST", TOKEN, 409, {"error": "Failed to create or retrieve provisional user."}))
    assert "no video room yet" in text_of(await bot.reply("list"))


async def test_a_missing_scope_is_believed_a_few_minutes_then_a_granted_scope_works(bot, meet: FakeMeet, alice, redis):
    """Tokens carry the scopes of their issue time: a cached token's 403 is retried with a fresh one,
    and a fresh token's 403 is the application's, believed a few minutes for everyone."""
    meet.app_config.scopes = "rooms:list rooms:retrieve"
    await bot.reply("list")  # a token without rooms:create is cached
    assert "missing the room service permission `rooms:create`" in text_of(await bot.reply("new"))
    assert len(meet.token_requests) == 2 and meet.count("POST", ROOMS) == 2  # the cached token's 403, then a fresh one's
    for _ in range(3):  # meanwhile every /room new is answered at once: no token request, no call
        assert "missing the room service permission `rooms:create`" in text_of(await bot.reply("new"))
    assert len(meet.token_requests) == 2 and meet.count("POST", ROOMS) == 2
    [memo] = await redis.keys(redis_key("scope-missing:*"))
    assert 0 < await redis.ttl(memo) <= 180
    meet.app_config.scopes = ALL_SCOPES  # the administrator grants the scope; a few minutes later:
    await redis.delete(memo)
    assert "Your video room is ready" in text_of(await bot.reply("new"))
    # the token cached before the grant is refused once more, then a fresh one creates the room
    assert len(meet.token_requests) == 3 and meet.count("POST", ROOMS) == 4


async def test_a_scope_another_process_found_missing_is_believed_here_within_seconds(settings, redis, slack: FakeSlack,
                                                                                     meet: FakeMeet, alice, monkeypatch):
    """That no scope is missing is not asked of Redis at every command, only every
    `NOT_MISSING_SECONDS`: after that, what another process found refused is answered at once."""
    async for first in start_bot(settings, redis, slack):
        async for second in start_bot(settings, redis, slack):
            assert "Your video room is ready" in text_of(await second.reply("new"))  # rooms:create works, here
            meet.app_config.scopes = "rooms:list rooms:retrieve"  # then the administrator takes it away,
            await redis.delete(*await redis.keys(redis_key("token:*")))  # and the tokens issued before have expired
            assert "missing the room service permission `rooms:create`" in text_of(await first.reply("new"))
            tried, tokens = meet.count("POST", ROOMS), len(meet.token_requests)
            window_over = time.monotonic() + user_rooms.NOT_MISSING_SECONDS
            monkeypatch.setattr(user_rooms, "monotonic", lambda: window_over)  # noqa: B023  (used in this iteration only)
            assert "missing the room service permission `rooms:create`" in text_of(await second.reply("new"))
            assert (meet.count("POST", ROOMS), len(meet.token_requests)) == (tried, tokens)  # no call, no token


async def test_a_burst_of_commands_reads_the_scope_mark_once(bot, redis, meet: FakeMeet, alice, monkeypatch):
    """Commands that find the scope mark's memo expired while another reads it wait for that read:
    in a burst, each asked Redis before the first answer came (a round trip of every command)."""
    await bot.reply("list")  # the profile and the token cached; the mark read once
    window_over = time.monotonic() + user_rooms.NOT_MISSING_SECONDS
    monkeypatch.setattr(user_rooms, "monotonic", lambda: window_over)
    reads: list[str] = []
    watched, seen_all = asyncio.Event(), asyncio.Event()

    async def watch() -> None:
        async with redis.monitor() as monitor:  # in place once Redis has said OK to MONITOR
            watched.set()
            async for said in monitor.listen():
                if said["command"].startswith("GET ") and ":scope-missing:" in said["command"]:
                    reads.append(said["command"])
                if said["command"] == "GET burst-over":
                    seen_all.set()

    watching = asyncio.create_task(watch())
    await watched.wait()
    before = len(bot.slack.responses)
    await asyncio.gather(*(bot.command("list") for _ in range(10)))
    replies = await bot.slack.wait_responses(before + 10, timeout=12)
    await redis.get("burst-over")  # MONITOR tells commands in order: every read before it has been told
    await asyncio.wait_for(seen_all.wait(), 10)
    watching.cancel()
    assert all("no video room yet" in text_of(reply) for reply in replies[before:])
    assert len(reads) == 1


async def test_without_rooms_retrieve_details_come_from_the_list_just_shown(bot, meet: FakeMeet, alice):
    meet.app_config.scopes = "rooms:list rooms:create"  # a list-only application, as far as reading goes
    room = meet.add_room(alice, slug="abc-defg-hij")
    listed = text_of(await bot.reply("list"))
    assert "abc-defg-hij" in listed
    shown = text_of(await bot.click_reply("room_show", room["id"]))  # its Details button
    assert "abc-defg-hij" in shown and room["url"] in shown
    unknown = text_of(await bot.click_reply("room_show", "00000000-0000-4000-8000-000000000000"))
    assert "missing the room service permission `rooms:retrieve`" in unknown


async def test_a_cached_token_serves_only_the_application_that_obtained_it(settings, redis, slack: FakeSlack, meet: FakeMeet, alice):
    meet.app_config = Application(client_id="list-only", scopes="rooms:list rooms:retrieve")
    async for bot in start_bot(settings.model_copy(update={"meet_client_id": "list-only"}), redis, slack):
        await bot.reply("list")
    meet.app_config = Application(client_id="full-app")  # the operator switches MEET_CLIENT_ID
    async for bot in start_bot(settings.model_copy(update={"meet_client_id": "full-app"}), redis, slack):
        assert "Your video room is ready" in text_of(await bot.reply("new"))
    assert len(meet.token_requests) == 2 and meet.count("POST", ROOMS) == 1  # the old app's token was not tried


async def test_links_are_normalised_when_the_service_base_url_ends_in_a_slash(bot, meet: FakeMeet, alice):
    meet.room_base_url = "https://visio.example.gouv.fr/"  # the service answers https://visio.example.gouv.fr//slug
    reply = await bot.reply("new")
    [room] = meet.rooms.values()
    assert room["url"].count("//") == 2
    good = f"https://visio.example.gouv.fr/{room['slug']}"
    words = json.dumps(reply)
    assert good in words and "gouv.fr//" not in words


@pytest.mark.parametrize("switch", ["external_api_enabled", "applications_enabled"])
async def test_a_room_service_switched_off_is_a_setup_problem_not_a_missing_page(bot, meet: FakeMeet, alice, switch, caplog):
    assert "no video room yet" in text_of(await bot.reply("list"))  # a token is cached now
    setattr(meet, switch, False)
    with caplog.at_level(logging.ERROR):
        words = text_of(await bot.reply("list"))
    assert "not set up correctly to reach the room service" in words and "no page 1" not in words
    assert any("misconfiguration" in record.getMessage() for record in caplog.records)


async def test_people_are_sent_to_sign_in_where_the_room_links_point_not_to_the_api(bot, slack: FakeSlack, meet: FakeMeet, alice):
    """The API and the web app live on different hosts: the room links tell where people sign in."""
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="en-US")
    assert f"Sign in once at <{meet.base}|" in text_of(await bot.reply("new", user="U0BOB"))  # nothing learned yet
    meet.add_room(alice)
    await bot.reply("list")  # a room link seen: its origin is the web app
    await bot.runtime.redis.delete(*await bot.runtime.redis.keys(redis_key("no-account:*")))
    said = text_of(await bot.reply("new", user="U0BOB"))
    assert "Sign in once at <https://visio.example.gouv.fr|" in said and meet.base not in said
