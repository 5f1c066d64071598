"""The installation and state stores keep the contract slack_sdk's own stores are tested against
(`slackapi/python-slack-sdk`, tests/slack_sdk/oauth/installation_store/test_file.py,
test_async_sqlalchemy.py and state_store/*, commit ae87985e): the same scenarios and lookups,
written here against the Redis stores. Where the SDK's stores disagree (deleting the installer's
own installation), the file store's answer is kept: the workspace's installation stays."""

from __future__ import annotations

import json
import time

import pytest
import redis.asyncio as aioredis
from cryptography.fernet import Fernet
from pydantic import SecretStr
from slack_sdk.oauth.installation_store import Bot, Installation

from bot.serving.installations import InstallationStore, InstallationUnreadable
from bot.serving.oauth_state import StateStore
from clients.redis_keys import key
from clients.secret_box import SecretBox

pytestmark = pytest.mark.asyncio


def workspace() -> Installation:
    return Installation(app_id="A111", enterprise_id="E111", team_id="T111", user_id="U111", bot_id="B111",
                        bot_token="xoxb-111", bot_scopes=["chat:write"], bot_user_id="U222")


def organisation() -> Installation:
    return Installation(app_id="AO111", enterprise_id="EO111", user_id="UO111", bot_id="BO111", bot_token="xoxb-O111",
                        bot_scopes=["chat:write"], bot_user_id="UO222", is_enterprise_install=True)


@pytest.fixture
def store(redis: aioredis.Redis) -> InstallationStore:
    return InstallationStore(redis, SecretBox(SecretStr(Fernet.generate_key().decode())))


async def found(store: InstallationStore, enterprise: str | None, team: str | None, user: str | None = None,
                org: bool = False) -> bool:
    return await store.async_find_installation(enterprise_id=enterprise, team_id=team, user_id=user,
                                               is_enterprise_install=org) is not None


async def bot_found(store: InstallationStore, enterprise: str | None, team: str | None, org: bool = False) -> bool:
    return await store.async_find_bot(enterprise_id=enterprise, team_id=team, is_enterprise_install=org) is not None


async def test_a_workspace_installation_is_found_by_its_organisation_and_workspace(store: InstallationStore) -> None:
    await store.async_save(workspace())
    assert [await bot_found(store, e, t) for e, t in (("E111", "T111"), ("E111", "T222"), (None, "T111"))] == [True, False, False]
    assert [await found(store, e, t) for e, t in (("E111", "T111"), ("E111", "T222"), (None, "T111"))] == [True, False, False]
    people = [("E111", "T111", "U111"), ("E111", "T111", "U222"), ("E111", "T222", "U111")]
    assert [await found(store, e, t, u) for e, t, u in people] == [True, False, False]

    await store.async_delete_bot(enterprise_id="E111", team_id="T222")  # another workspace's: nothing here changes
    assert await bot_found(store, "E111", "T111")

    await store.async_delete_installation(enterprise_id="E111", team_id="T111", user_id="U111")
    assert not await found(store, "E111", "T111", "U111") and await found(store, "E111", "T111")
    await store.async_delete_installation(enterprise_id="E111", team_id="T111")
    assert not await found(store, "E111", "T111")

    await store.async_save(workspace())
    await store.async_delete_all(enterprise_id="E111", team_id="T111")
    assert not await found(store, "E111", "T111") and not await found(store, "E111", "T111", "U111")
    assert not await bot_found(store, "E111", "T111")


async def test_an_organisation_installation_is_found_from_any_of_its_workspaces(store: InstallationStore) -> None:
    await store.async_save(organisation())
    assert await bot_found(store, "EO111", None)
    assert await bot_found(store, "EO111", "TO222", org=True)  # a request from one of its workspaces
    assert not await bot_found(store, "EO111", "TO222")  # a workspace's own installation: there is none
    assert not await bot_found(store, None, "TO111")

    await store.async_delete_bot(enterprise_id="EO111", team_id="TO222")
    assert await bot_found(store, "EO111", None)
    await store.async_delete_bot(enterprise_id="EO111", team_id=None)  # the bot only
    assert not await bot_found(store, "EO111", None) and await found(store, "EO111", None)
    assert (await store.async_find_installation(enterprise_id="EO111", team_id=None)).bot_token is None

    assert await found(store, "EO111", "T111", org=True) and not await found(store, "EO111", "T222")
    assert not await found(store, None, "T111")
    assert await found(store, "EO111", None, "UO111")
    assert not await found(store, "E111", "T111", "U222", org=True) and not await found(store, None, "T222", "U111")

    await store.async_delete_installation(enterprise_id="E111", team_id=None)  # another organisation's
    assert await found(store, "EO111", None)
    await store.async_save(organisation())
    await store.async_delete_all(enterprise_id="EO111", team_id=None)
    assert not await found(store, "EO111", None) and not await found(store, "EO111", None, "UO111")


async def test_a_persons_own_grant_leaves_the_workspace_bot(store: InstallationStore) -> None:
    await store.async_save(workspace())
    await store.async_save(Installation(app_id="A111", enterprise_id="E111", team_id="T111", user_id="U111",
                                        bot_scopes=["openid"], user_token="xoxp-111"))
    bot = await store.async_find_bot(enterprise_id="E111", team_id="T111")
    latest = await store.async_find_installation(enterprise_id="E111", team_id="T111")
    assert bot is not None and bot.bot_token == "xoxb-111"
    assert latest is not None and latest.bot_token == "xoxb-111" and latest.user_token == "xoxp-111"
    assert await store.count() == 1


async def test_a_bot_saved_alone_is_found(store: InstallationStore) -> None:
    await store.async_save_bot(Bot(app_id="A111", enterprise_id=None, team_id="T333", bot_token="xoxb-333", bot_id="B333",
                                   bot_user_id="U333", bot_scopes=["chat:write"], installed_at=time.time()))
    bot = await store.async_find_bot(enterprise_id=None, team_id="T333")
    assert bot is not None and bot.bot_token == "xoxb-333"


async def test_a_rotated_token_replaces_the_kept_one(store: InstallationStore) -> None:
    first = Installation(**{**workspace().__dict__, "bot_token": "xoxe.xoxb-1-initial", "bot_refresh_token": "xoxe-1-initial",
                            "bot_token_expires_at": int(time.time()) + 43200})
    await store.async_save(first)
    await store.async_save(Installation(**{**first.__dict__, "bot_token": "xoxe.xoxb-1-refreshed",
                                           "bot_refresh_token": "xoxe-1-refreshed"}))
    bot = await store.async_find_bot(enterprise_id="E111", team_id="T111")
    assert bot is not None and bot.bot_refresh_token == "xoxe-1-refreshed"


async def test_an_installation_kept_by_the_previous_version_is_found_and_moved(redis: aioredis.Redis) -> None:
    box = SecretBox(SecretStr(Fernet.generate_key().decode()))
    old = key("slack-install", "team", "T111")
    await redis.set(old, box.seal(json.dumps(workspace().__dict__)))
    store = InstallationStore(redis, box)
    kept = await store.async_find_installation(enterprise_id="E111", team_id="T111")
    assert kept is not None and kept.bot_token == "xoxb-111"
    assert await redis.get(old) is None and await store.async_find_bot(enterprise_id="E111", team_id="T111") is not None


async def test_an_installation_sealed_with_another_key_is_reported_not_lost(redis: aioredis.Redis) -> None:
    first, second = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    await InstallationStore(redis, SecretBox(SecretStr(first))).async_save(workspace())
    changed = InstallationStore(redis, SecretBox(SecretStr(second)))
    with pytest.raises(InstallationUnreadable):
        await changed.async_find_installation(enterprise_id="E111", team_id="T111")
    assert await changed.all() == ([], 1) and await changed.count() == 1  # kept, and counted as unreadable

    rotated = InstallationStore(redis, SecretBox(SecretStr(f"{second},{first}")))  # the new key first, the old one after
    assert await found(rotated, "E111", "T111")
    # read once, it is sealed again with the new key: the old one can go
    assert await found(InstallationStore(redis, SecretBox(SecretStr(second))), "E111", "T111")


async def test_a_state_is_good_once(redis: aioredis.Redis) -> None:
    store = StateStore(redis, "client-secret", expiration_seconds=10)
    state = await store.async_issue(foo=123, bar="baz")
    assert await store.async_consume(state) is True
    assert await store.async_consume(state) is False
    assert await store.async_consume("not-a-state") is False


async def test_a_state_lasts_its_expiration_seconds(redis: aioredis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    store = StateStore(redis, "client-secret", expiration_seconds=10)
    state, now = await store.async_issue(), time.time()
    monkeypatch.setattr("bot.serving.oauth_state.time.time", lambda: now + 11)
    assert await store.async_consume(state) is False
    monkeypatch.setattr("bot.serving.oauth_state.time.time", lambda: now + 9)
    assert await store.async_consume(state) is True


async def test_a_state_is_signed_by_this_app(redis: aioredis.Redis) -> None:
    ours, theirs = StateStore(redis, "client-secret"), StateStore(redis, "another-app's-secret")
    assert await ours.async_consume(await theirs.async_issue()) is False
    state = await ours.async_issue()
    body, _, signature = state.rpartition(".")
    assert await ours.async_consume(f"{body}.{signature[::-1]}") is False
    assert await ours.async_consume(state) is True
