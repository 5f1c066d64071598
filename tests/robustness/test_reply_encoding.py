"""Replies on `response_url` are written by orjson, and by json where orjson refuses."""

from __future__ import annotations

import aiohttp

from handlers.responses import KeptAliveRespond


async def test_a_reply_repeating_a_lone_surrogate_still_goes_on_response_url(slack):
    """A JSON payload may carry `\\ud800` in what a person typed; orjson refuses to write it, the
    reply is written escaped instead and still reaches the person where they asked."""
    async with aiohttp.ClientSession() as session:
        answer = await KeptAliveRespond(slack.response_url(), session)(text="I do not know \ud800.")
    assert answer.status_code == 200 and slack.responses[-1]["text"] == "I do not know \ud800."
