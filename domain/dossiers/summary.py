"""The AI line's request: one or two sentences about the day's changes, written by the inference
service from the counts. The surface gives the instructions (in the digest's language) and words
the sentence that comes back.

Only numbers leave: démarche numbers, counts and changes, no title and nothing about a person.
Any failure, or more than `TIME_LIMIT` seconds, and the digest goes out without the line.
"""

from __future__ import annotations

import asyncio
import json
import logging

from clients.inference.errors import InferenceError, InferenceUnavailable
from clients.inference.service import InferenceService
from domain.dossiers.lines import DigestLine

log = logging.getLogger(__name__)

TIME_LIMIT = 30.0
MAX_CHARS = 400


def facts(lines: list[DigestLine]) -> list[dict[str, object]]:
    """What the model may see: numbers only."""
    return [
        {
            "demarche": line.counts.number,
            "total": line.counts.total,
            "by_state": line.counts.by_state,
            "change_since_previous": None if line.previous is None else line.counts.total - line.previous.total,
            "deposited_since_previous": None if line.previous is None else line.counts.deposited_since,
            "waiting_longer_than_days": {"days": line.late_days, **line.counts.needs.late},
            "decided_since_previous": line.counts.needs.decided,
            "sva_svr_due_within_7_days": line.counts.needs.due_soon,
            "sva_svr_past_due": line.counts.needs.overdue,
        }
        for line in lines
    ]


async def summary_sentence(service: InferenceService, instructions: str, lines: list[DigestLine]) -> str | None:
    """The service's sentence, on one line and at most `MAX_CHARS`; None when there is nothing to
    say or the service did not answer in time."""
    if not lines:
        return None
    messages = [
        {"role": "system", "content": instructions},
        {"role": "user", "content": json.dumps(facts(lines), ensure_ascii=False)},
    ]
    try:
        written = await asyncio.wait_for(service.complete(messages, max_tokens=150), TIME_LIMIT)
    except TimeoutError:
        log.warning("no AI line in the digest: the inference service took more than %.0f s", TIME_LIMIT)
        return None
    except InferenceUnavailable as error:  # passing: the next digest tries again
        log.warning("no AI line in the digest: %s", service.advise(error))
        return None
    except InferenceError as error:  # the key, the address or the model: the operator's to change
        log.error("no AI line in the digest: %s", service.advise(error))
        return None
    sentence = " ".join(written.split())
    if not sentence:
        return None
    if len(sentence) > MAX_CHARS:
        sentence = sentence[: MAX_CHARS - 1] + "…"
    return sentence
