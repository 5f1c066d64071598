"""The pages a browser sees at the end of an "Add to Slack" install, in the reader's language.

Bolt runs the flow (a signed one-time `state` in the link and in a cookie, `oauth.v2.access`, the store);
these say what happened and what to do next. A failure is a short page with a way to start
again — never a traceback, never the code or a token.
"""

from __future__ import annotations

import html
import logging
import re

import aiohttp
from redis.exceptions import RedisError
from slack_bolt.adapter.starlette.async_handler import to_async_bolt_request, to_starlette_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.oauth.async_callback_options import AsyncCallbackOptions, AsyncFailureArgs, AsyncSuccessArgs
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.serving.authorize import Members
from handlers.i18n import LANGUAGES, file_text

log = logging.getLogger(__name__)

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
APP_NAME = "Salles de visio"
STATE_COOKIE = "slack-app-oauth-state"  # Bolt's
WORKSPACE_ID = re.compile(r"[TE][A-Z0-9]{2,20}")

#: Bolt's failure reasons → what the page says.
REASONS = {
    "access_denied": "install.denied",
    "invalid_browser": "install.stale",
    "invalid_state": "install.stale",
    "missing_code": "install.bad_code",
    "invalid_code": "install.bad_code",
    "storage_error": "install.not_kept",
}


def language(accept: str | None, default: str) -> str:
    """The first language of `Accept-Language`, by preference, that the bot speaks."""
    ranked = []
    for index, part in enumerate((accept or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        ranked.append((-weight, index, tag.split("-")[0].lower()))
    return next((lang for _, _, lang in sorted(ranked) if lang in LANGUAGES), default)


def page(lang: str, title_key: str, body: str, link: tuple[str, str] | None) -> str:
    title = html.escape(file_text(lang, title_key))
    button = f'<p><a href="{html.escape(link[0])}">{html.escape(link[1])}</a></p>' if link else ""
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
            '<meta name="viewport" content="width=device-width"></head>'
            f'<body style="font-family:sans-serif;max-width:36em;margin:3em auto"><h1>{title}</h1>'
            f"<p>{html.escape(body)}</p>{button}</body></html>")


def callbacks(default_language: str, members: Members) -> AsyncCallbackOptions:
    """The pages at the end of the flow; both clear the state's cookie, as Bolt's own pages do."""

    async def success(args: AsyncSuccessArgs) -> BoltResponse:
        found = args.installation
        lang = language(args.request.headers.get("accept-language", [None])[0], default_language)
        org = bool(found.is_enterprise_install)
        if org and found.enterprise_id and found.bot_token:
            members.installed(found.enterprise_id, found.bot_token)  # the workspaces it already serves, from Slack
        where = (found.enterprise_name if org else found.team_name) or ""
        body = file_text(lang, "install.ok_org" if org else "install.ok", app=APP_NAME, team=where)
        # an organisation's install has no one workspace to open: Slack asks which
        link = f"https://slack.com/app_redirect?app={found.app_id or ''}" + ("" if org else f"&team={found.team_id}")
        return _html(200, page(lang, "install.title_ok", body, (link, file_text(lang, "install.open_slack"))), args.settings)

    async def failure(args: AsyncFailureArgs) -> BoltResponse:
        lang = language(args.request.headers.get("accept-language", [None])[0], default_language)
        reason = REASONS.get(args.reason)
        body = file_text(lang, reason) if reason else file_text(lang, "install.other", reason=args.reason[:40])
        status = args.suggested_status_code if args.reason != "storage_error" else 503
        return _html(status, page(lang, "install.title_failed", body, (INSTALL_PATH, file_text(lang, "install.again"))),
                     args.settings)

    return AsyncCallbackOptions(success=success, failure=failure)


def _html(status: int, body: str, settings: AsyncOAuthSettings) -> BoltResponse:
    return BoltResponse(status=status, body=body, headers={
        "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
        "Set-Cookie": [settings.state_utils.build_set_cookie_for_deletion()]})


def install_routes(app: AsyncApp, default_language: str) -> list[Route]:
    """`GET /slack/install` (a redirect to Slack with a one-time `state`, also set as a cookie) and
    `GET /slack/oauth_redirect`; Redis or Slack not answering is a page saying to try again, not a 500."""
    flow = app.oauth_flow
    assert flow is not None

    async def install(request: Request) -> Response:
        team = request.query_params.get("team", "")
        # Bolt pastes `team` into Slack's URL as given: only a Slack id goes through
        query = f"team={team}" if WORKSPACE_ID.fullmatch(team) else ""
        bolt_request = AsyncBoltRequest(body="", query=query, headers=request.headers)  # type: ignore[arg-type]
        return to_starlette_response(await flow.handle_installation(bolt_request))

    async def redirect(request: Request) -> Response:
        try:
            return to_starlette_response(await flow.handle_callback(to_async_bolt_request(request, b"")))
        except RedisError as error:
            log.error("an install could not go on: Redis did not answer (%s); check REDIS_URL", type(error).__name__)
            return _unavailable(request, "install.not_kept")
        except (aiohttp.ClientError, TimeoutError) as error:
            log.error("an install could not go on: Slack did not answer (%s); check SLACK_API_URL and the way out to Slack",
                      type(error).__name__)
            return _unavailable(request, "install.slack_down")

    def _unavailable(request: Request, reason: str) -> Response:
        lang = language(request.headers.get("accept-language"), default_language)
        body = page(lang, "install.title_failed", file_text(lang, reason), (INSTALL_PATH, file_text(lang, "install.again")))
        response = Response(body, status_code=503, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})
        response.delete_cookie(STATE_COOKIE, secure=True, httponly=True)
        return response

    return [Route(INSTALL_PATH, install, methods=["GET"]), Route(REDIRECT_PATH, redirect, methods=["GET"])]
