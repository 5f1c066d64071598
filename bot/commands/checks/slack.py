"""Slack's lines of `check`: the bot's token and scopes, or with OAuth installs each installation's.

With one token (SLACK_BOT_TOKEN) there is one line; with OAuth installs, one for the app's
credentials and one per workspace or organisation that installed it, so a workspace that removed
the app, or installed it before a scope was added, is named.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from slack_sdk.errors import SlackApiError
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot import operator_advice as advice
from bot.commands.checks.result import Result, unset
from bot.commands.tables import clean
from bot.config import Settings
from bot.scopes import REQUIRED_SCOPES, TEAM_SPACE_SCOPES
from bot.serving.installations import InstallationStore
from bot.serving.slack_app import configure_slack_client, slack_client


async def check_slack(settings: Settings) -> Result:
    needed = ("slack_bot_token",) if settings.socket_mode else ("slack_bot_token", "slack_signing_secret")
    if settings.missing(*needed):
        return Result("Slack", False, unset(settings, *needed))
    client = slack_client(settings)
    try:
        answer = await client.auth_test()
    except Exception as error:  # SlackApiError, or the HTTP client's own connection errors
        return Result("Slack", False, advice.slack(error, settings))
    missing = _missing_scopes(answer)
    if missing:
        return Result("Slack", False, f"the app lacks the scopes {', '.join(missing)}: add them (manifest.yml) and reinstall the app"
                                      + _what_stops(missing))
    if settings.slack_app_token is not None:
        try:
            await client.apps_connections_open(app_token=settings.slack_app_token.get_secret_value())
        except SlackApiError as error:
            return Result("Slack", False, f"Slack refuses SLACK_APP_TOKEN ({error.response.get('error')}): make an "
                                          "app-level token with the connections:write scope")
    return Result("Slack", True, f"bot {answer.get('user')} in {answer.get('team')}, every scope granted")


async def check_installations(settings: Settings, redis: aioredis.Redis) -> list[Result]:
    """OAuth installs: the app's credentials (an exchange of a code that does not exist is refused
    as `invalid_code` only once the id and secret are right), then each installation's token."""
    needed = ("slack_signing_secret", "token_encryption_key") if not settings.socket_mode else ("token_encryption_key",)
    if settings.missing(*needed):
        return [Result("Slack", False, "OAuth installs (SLACK_CLIENT_ID), " + unset(settings, *needed))]
    assert settings.slack_client_id and settings.slack_client_secret
    client = configure_slack_client(AsyncWebClient(), settings)
    try:
        await client.oauth_v2_access(client_id=settings.slack_client_id, client_secret=settings.slack_client_secret.get_secret_value(),
                                     code="roombot-check")
    except SlackApiError as error:
        code = str(error.response.get("error"))
        if code in ("invalid_client_id", "bad_client_secret"):
            return [Result("Slack", False, f"Slack refuses the app's credentials ({code}): copy SLACK_CLIENT_ID and "
                                           "SLACK_CLIENT_SECRET from the app's Basic Information page")]
    except Exception as error:
        return [Result("Slack", False, advice.slack(error, settings))]
    try:
        installations, unreadable = await InstallationStore(redis, settings.secret_box).all()
    except RedisError as error:
        return [Result("Slack", False, advice.redis_problem(error, settings))]
    if unreadable:
        return [Result("Slack", False, f"{unreadable} of {unreadable + len(installations)} installation(s) do not open with "
                                       "TOKEN_ENCRYPTION_KEY: it was changed. Put the previous key back after the new one "
                                       "(comma separated, the new one first); nothing was deleted, and people are told "
                                       "the bot is being repaired until then")]
    results = [Result("Slack", True, f"OAuth installs of app {settings.slack_client_id}: {len(installations)} installation(s)"
                                     + ("" if installations else "; install it from /slack/install"), warning=not installations)]
    for installation in installations:
        results.append(await _installed(client, installation, settings))
    return results


async def _installed(client: AsyncWebClient, installation: Installation, settings: Settings) -> Result:
    org = bool(installation.is_enterprise_install)
    place = f"organisation {installation.enterprise_id}" if org else f"workspace {installation.team_id}"
    part = f"Slack {place} ({clean(installation.enterprise_name if org else installation.team_name or '')})"
    try:
        answer = await client.auth_test(token=installation.bot_token)
    except SlackApiError as error:
        code = str(error.response.get("error"))
        return Result(part, False, f"its token is refused ({code}): someone there removed the app; it can be installed "
                                   "again from /slack/install")
    except Exception as error:
        return Result(part, False, f"could not be checked: {advice.slack(error, settings)}")
    missing = _missing_scopes(answer)
    if missing:
        return Result(part, False, f"installed without the scopes {', '.join(missing)}: reinstall it from /slack/install"
                                   + _what_stops(missing))
    return Result(part, True, f"bot {answer.get('user')}, every scope granted")


def _what_stops(missing: list[str]) -> str:
    """When only team spaces' scopes are missing, the operator learns that the rest works meanwhile."""
    if set(missing) <= TEAM_SPACE_SCOPES:
        return " (until then `/dossier team` cannot make channels, invite or pin; the rest works)"
    return ""


def _missing_scopes(answer: AsyncSlackResponse) -> list[str]:
    """The scopes the bot needs that `auth.test`'s answer does not list as granted."""
    granted = {s.strip() for s in str(answer.headers.get("x-oauth-scopes", "")).split(",") if s.strip()}
    return sorted(REQUIRED_SCOPES - granted)
