"""Acks before work: after its ack, a listener's work waits while other requests wait for theirs."""

from __future__ import annotations

import asyncio

import pytest

from handlers import ack_first
from handlers.ack_first import AckThenYield, PendingAcks


async def test_work_after_an_ack_waits_for_the_other_pending_acks_and_slack_has_its_answer_at_once():
    pending = PendingAcks()
    pending.started()  # another command, read and dispatched, not yet acked
    ack = AckThenYield(pending)
    listener = asyncio.create_task(ack())
    while ack.response is None:  # Bolt answers Slack as soon as it sees this
        await asyncio.sleep(0)
    for _ in range(20):
        await asyncio.sleep(0)
    assert ack.response.status == 200 and not listener.done()  # the work has not gone on
    pending.answered()
    await asyncio.wait_for(listener, 5)


async def test_a_steady_stream_of_requests_delays_work_a_little_and_never_starves_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ack_first, "MOST_SECONDS", 0.05)
    pending = PendingAcks()
    pending.started()  # never answered
    await asyncio.wait_for(AckThenYield(pending)(), 5)
