"""Acks before work: after its ack, a listener's work waits while other requests wait for theirs."""

from __future__ import annotations

import asyncio

import pytest
from slack_bolt.response import BoltResponse

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


async def test_bolts_runner_still_looks_for_the_ack_with_the_sleep_the_bot_replaces(bot):
    """The premise of the wake-up: a Bolt upgrade that waits otherwise leaves every ack 10 ms late
    again, silently — this fails then."""
    import inspect

    from slack_bolt.listener import asyncio_runner

    assert "asyncio.sleep(" in inspect.getsource(asyncio_runner.AsyncioListenerRunner.run)
    assert asyncio_runner.asyncio.sleep == ack_first.WAKEUPS.sleep


async def test_an_ack_wakes_bolts_look_for_it_at_once(bot):
    """Bolt's runner looks for the ack every 10 ms in the request's task: the ack ends that wait (here
    one of a minute, which only the ack can end within the test's 5 s)."""
    from slack_bolt.listener import asyncio_runner

    pending = PendingAcks()

    async def dispatch() -> BoltResponse | None:
        ack = AckThenYield(pending, asyncio.current_task())
        listener = asyncio.ensure_future(ack())  # as Bolt starts it
        while ack.response is None:
            await asyncio_runner.asyncio.sleep(60)  # Bolt's look, as the bot's register leaves it
        await listener
        return ack.response

    answer = await asyncio.wait_for(dispatch(), 5)
    assert answer is not None and answer.status == 200


async def test_a_listener_that_acks_after_a_wait_is_looked_for_again_only_when_it_acks(bot):
    """Bolt's first look gives the listener one turn of the loop (most ack in it); one that acks later,
    after a call of its own, ends the next look's wait when it acks — no look in between."""
    from slack_bolt.listener import asyncio_runner

    pending = PendingAcks()
    before_its_ack = asyncio.Event()
    looks = 0

    async def listener(ack: AckThenYield) -> None:
        await before_its_ack.wait()  # a call before the ack (the person's language, files.info)
        await ack()

    async def dispatch() -> BoltResponse | None:
        nonlocal looks
        ack = AckThenYield(pending, asyncio.current_task())
        started = asyncio.ensure_future(listener(ack))  # as Bolt starts it
        while ack.response is None:
            looks += 1
            await asyncio_runner.asyncio.sleep(60)  # Bolt's look, as the bot's register leaves it
        await started
        return ack.response

    dispatching = asyncio.create_task(dispatch())
    for _ in range(50):
        await asyncio.sleep(0)
    assert looks == 1 and not dispatching.done()  # waiting for the ack, not looking again and again
    before_its_ack.set()
    answer = await asyncio.wait_for(dispatching, 5)
    assert answer is not None and answer.status == 200 and looks == 1
