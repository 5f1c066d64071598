"""Fuzzing (hypothesis): arbitrary `/room` text, arbitrary action payload values and arbitrary
answers from the room service never raise out of a handler, and always give the person a reply."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.demo.meet import Fault
from handlers.i18n import catalog
from handlers.rooms.command import Help, List, New, Show, parse
from tests.conftest import text_of
from tests.slack_requests import view_submission_body

INTERNAL = {catalog(lang)["error.internal"].split("{")[0] for lang in ("fr", "en")}
E2E = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def assert_a_real_answer(reply: dict) -> None:
    words = text_of(reply)
    assert words.strip()
    assert not any(internal in words for internal in INTERNAL), words


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_parse_never_fails_and_never_echoes_long_text(text: str):
    request = parse(text)
    assert isinstance(request, (New, List, Show, Help))
    if isinstance(request, Help):
        assert all(len(value) <= 80 for value in request.params.values())


words = st.one_of(
    st.text(max_size=300),
    st.builds(lambda verb, rest: f"{verb} {rest}", st.sampled_from(["new", "list", "show", "help", "NEW", "Show"]),
              st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=120)),
)


@E2E
@given(text=words)
async def test_any_room_text_gets_an_answer(bot, alice, text: str):
    assert_a_real_answer(await bot.reply(text))


@E2E
@given(action=st.sampled_from(["room_show", "room_list_page_next", "room_list_page_previous", "room_share_channel"]),
       value=st.text(max_size=2000))
async def test_any_button_value_gets_an_answer(bot, alice, action: str, value: str):
    before = len(bot.slack.responses)
    response = await bot.click(action, value)
    assert response.status_code == 200
    assert_a_real_answer((await bot.slack.wait_responses(before + 1))[before])


@E2E
@given(metadata=st.text(max_size=300), people=st.lists(st.text(min_size=1, max_size=12), max_size=25))
async def test_any_modal_submission_gets_an_answer(bot, alice, metadata: str, people: list[str]):
    values = {"people": {"people": {"type": "multi_users_select", "selected_users": people}}}
    response = await bot.post(view_submission_body("room_send_dm_modal", values, metadata, "U0ALICE"))
    assert response.status_code == 200
    assert response.json()["response_action"] in ("errors", "update")


statuses = st.integers(min_value=200, max_value=599).filter(lambda s: s not in (204, 304))
bodies = st.one_of(
    st.text(max_size=200),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                 lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                 max_leaves=12).map(lambda value: __import__("json").dumps(value)),
)


@E2E
@given(status=statuses, body=bodies, path=st.sampled_from(["/external-api/v1.0/rooms/", "/external-api/v1.0/application/token/"]),
       command=st.sampled_from(["list", "new restricted"]))
async def test_any_room_service_answer_gets_a_clear_reply(bot, alice, meet, status: int, body: str, path: str, command: str):
    meet.faults[:] = [Fault("GET" if command == "list" and path.endswith("rooms/") else "POST", path, status, body,
                            "application/json", times=3)]
    await bot.runtime.redis.flushdb()  # a cold token cache, so the token endpoint is asked too
    assert_a_real_answer(await bot.reply(command))
