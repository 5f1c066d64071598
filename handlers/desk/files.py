"""A file shared in an act's window (Block Kit's `file_input`), on its way to the dossier service.

Only the file's id is read from the submission; what it is — its name, type, size and where it can
be read — comes from Slack (`files.info`, which needs `files:read`), and the bot's token goes only
to an address on Slack's own hosts. Refusals come before anything is read: the scope missing (the
person may act without a file), a file the service would refuse (20 MB and more, a type it does
not take). The bytes go into an unnamed temporary file, closed once the act is over (no copy kept).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.uploads import MOST_BYTES, TooLarge, Upload, refusal
from handlers.blocks import view_input
from handlers.core.slack_refusals import code_of
from handlers.i18n import text
from handlers.on_behalf import PRE_ACK_SECONDS

FILE = "file"  # the block and action id of the file input
#: Slack's most for a file_input's upload (10 MB, below the service's 20 MB)
SLACK_MOST_BYTES = 10 * 1024 * 1024
READ_SECONDS = 60.0  # reading 10 MB from Slack


@dataclass(frozen=True)
class SlackFile:
    """A file as Slack describes it."""

    name: str
    mimetype: str
    size: int
    url: str


class Unread(Exception):
    """Slack did not give the file's bytes (an answer other than the file, or none)."""


def file_block(lang: str) -> dict[str, Any]:
    """The optional file input of a Message or decision window (slack_sdk 3.47 has no class for it:
    Slack's limits kept here — one file, an action id of 4 characters, a label and hint under 2,000)."""
    return {"type": "input", "block_id": FILE, "optional": True,
            "label": {"type": "plain_text", "text": text(lang, "desk.file.label")},
            "hint": {"type": "plain_text", "text": text(lang, "desk.file.hint")},
            "element": {"type": "file_input", "action_id": FILE, "max_files": 1}}


def shared_file(view: dict[str, Any]) -> str:
    """The id of the file given in the window, if any (all else about it is asked of Slack)."""
    files = view_input(view, FILE).get("files")
    first = files[0] if isinstance(files, list) and files and isinstance(files[0], dict) else {}
    found = str(first.get("id") or "")
    return found if found.isalnum() and len(found) <= 40 else ""


async def described(client: AsyncWebClient, file_id: str, lang: str) -> SlackFile | str:
    """The file as Slack describes it, or why it cannot go (in the person's words), within the second
    a window's answer may wait."""
    try:
        async with asyncio.timeout(PRE_ACK_SECONDS):
            answer = await client.files_info(file=file_id)
    except SlackApiError as error:
        if code_of(error) == "missing_scope":
            return text(lang, "desk.file.no_scope")
        return text(lang, "desk.file.unseen")
    except TimeoutError:
        return text(lang, "desk.file.unseen")
    info = answer.get("file") or {}
    found = SlackFile(str(info.get("name") or "fichier"), str(info.get("mimetype") or ""), int(info.get("size") or 0),
                      str(info.get("url_private_download") or info.get("url_private") or ""))
    why = refusal(found.size, found.mimetype)
    if why == "too_large":
        return text(lang, "desk.file.too_large", most=MOST_BYTES // (1024 * 1024))
    if why == "type":
        return text(lang, "desk.file.type", type=found.mimetype or "?")
    if not _on_slack(found.url, client.base_url):
        return text(lang, "desk.file.unseen")
    return found


async def fetched(client: AsyncWebClient, found: SlackFile) -> Upload:
    """The file's bytes read from Slack with the bot's token into an `Upload` (closed by the caller)."""
    held = Upload(found.name, found.mimetype)
    try:
        assert client.session is not None
        headers = {"Authorization": f"Bearer {client.token}"}
        async with client.session.get(found.url, headers=headers, allow_redirects=False,
                                      timeout=_timeout()) as answer:
            kind = answer.headers.get("content-type", "")
            if answer.status != 200 or (kind.startswith("text/html") and not found.mimetype.startswith("text/html")):
                raise Unread(f"Slack answered {answer.status} {kind.split(';')[0]}")  # a sign-in page, not the file
            await held.take(answer.content.iter_chunked(64 * 1024))
    except (TooLarge, Unread):
        held.close()
        raise
    except Exception as error:
        held.close()
        raise Unread(type(error).__name__) from None
    return held


def _timeout() -> Any:
    import aiohttp

    return aiohttp.ClientTimeout(total=READ_SECONDS)


def _on_slack(url: str, api: str) -> bool:
    """Whether `url` is on Slack's hosts (or the host the Web API is called on): the only places the
    bot's token may go."""
    where, called = urlsplit(url), urlsplit(api)
    host = (where.hostname or "").lower()
    if host and host == (called.hostname or "").lower() and where.scheme == called.scheme:
        return True
    return where.scheme == "https" and (host == "slack.com" or host.endswith(".slack.com"))
