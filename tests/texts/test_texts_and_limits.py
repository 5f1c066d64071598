"""Both languages say everything, with the same placeholders; messages stay inside Slack's limits."""

from __future__ import annotations

import re
import string

import pytest

from clients.rooms.models import AccessLevel, Room, RoomPage, Telephony
from domain.rooms.invitations import Invited, Skip
from handlers.core.room_messages import help_message, room_list_message, room_message
from handlers.core.sharing_messages import DmTarget, dm_modal, dm_result, invitation
from handlers.home.messages import home_view
from handlers.i18n import LANGUAGES, catalog, language_for, text
from tests.conftest import ROOT

HANDLERS = ROOT / "handlers"


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_languages_are_the_catalogs_on_disk():
    on_disk = {path.parts[-3] for path in (ROOT / "handlers" / "locales").glob("*/LC_MESSAGES/messages.po")}
    assert set(LANGUAGES) == on_disk and "en" in on_disk  # English is the reference catalog


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_key_is_written_twice_in_a_catalog(lang):
    """A second entry of a key silently replaces the first: two features meaning two things by one key
    would each show the other's words."""
    keys = re.findall(r'^msgid "(.+)"$', (HANDLERS / "locales" / lang / "LC_MESSAGES" / "messages.po").read_text("utf-8"), re.M)
    assert sorted({key for key in keys if keys.count(key) > 1}) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalog_says_what_english_says_with_the_same_placeholders(lang):
    """Singular forms (`key.one`) are each language's own: where its plural rule needs one."""
    theirs, english = catalog(lang), catalog("en")
    assert {key for key in theirs if not key.endswith(".one")} == {key for key in english if not key.endswith(".one")}
    mismatched = {key for key in theirs if key in english and placeholders(theirs[key]) != placeholders(english[key])}
    assert mismatched == set()
    singular = {key.removesuffix(".one"): key for key in theirs if key.endswith(".one")}
    assert all(base in theirs and placeholders(theirs[one]) <= placeholders(theirs[base]) for base, one in singular.items())


def test_every_key_the_code_names_exists():
    named = set()
    for source in HANDLERS.rglob("*.py"):
        named |= set(re.findall(r'(?:text|counted)\(\s*lang,\s*"([\w.]+)"', source.read_text()))
        named |= set(re.findall(r'"((?:usage|error)\.[\w.]+)"', source.read_text()))
    named |= {f"{prefix}.{level}" for prefix in ("level", "level_short", "level_guest") for level in ("public", "trusted", "restricted")}
    named |= {f"dm.reason.{reason}" for reason in ("self", "bot", "deactivated", "already", "unreachable")}
    assert len(named) > 40
    assert named - set(catalog("en")) == set()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_language_follows_the_slack_locale_with_the_configured_default(lang):
    other = next(language for language in LANGUAGES if language != lang)
    assert language_for(f"{lang}-ZZ", other) == lang and language_for(lang, other) == lang
    for locale in ("zz-ZZ", None, ""):  # no catalog for these: the configured default
        assert language_for(locale, lang) == lang


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_catalog_text_holds_what_slack_would_read_as_a_link_or_a_mention(lang):
    """Slack reads `<…>` as a link or a mention: `/room show <id>` would lose its `<id>`."""
    raw = {key: words for key, words in catalog(lang).items() if "<" in words or ">" in words}
    assert raw == {}


def test_person_and_service_text_is_escaped():
    assert text("en", "usage.unknown", words="<@U1> & <!here>") == "I don't know `&lt;@U1&gt; &amp; &lt;!here&gt;`. Here is what I can do:"


def _room(index: int = 0, slug: str | None = None) -> Room:
    slug = slug or f"{'x' * 60}-{index:04d}"
    return Room(id=f"00000000-0000-4000-8000-{index:012d}", slug=slug, access_level="restricted",
                url=f"https://visio.example.gouv.fr/{slug}",
                telephony=Telephony(enabled=True, phone_number="+33 1 85 14 90 00", pin_code="0123456789"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_largest_messages_pass_slack_sdk_validation_and_block_caps(lang):
    page = RoomPage(count=9999, next="https://x/rooms/?page=3", previous="https://x/rooms/", results=[_room(i) for i in range(20)])
    messages = [
        room_message(lang, _room(slug="<b>&" * 40), "https://visio", created=True),
        room_list_message(lang, page, 2, "https://visio"),
        help_message(lang, text(lang, "usage.unknown", words="w" * 2000)),
        invitation(lang, _room(), "https://visio", "U0ALICE", note="n" * 500),
        dm_result(lang, Invited([f"U{i:010d}" for i in range(10)], [(f"U{i:010d}", Skip.UNREACHABLE) for i in range(10)])),
    ]
    for message in messages:
        payload = message.payload()  # to_dict() raises SlackObjectFormationError past a limit
        assert len(payload["blocks"]) <= 50
        assert all(len(b.get("text", {}).get("text", "")) <= 3000 for b in payload["blocks"])
    home = home_view(lang, page, "https://visio", [messages[0], messages[2]],
                     recent=[_room(i + 100) for i in range(5)], levels=list(AccessLevel))
    assert len(home.to_dict()["blocks"]) <= 100
    modal = dm_modal(lang, DmTarget("00000000-0000-4000-8000-000000000000", "C0CHAN")).to_dict()
    assert len(modal["title"]["text"]) <= 24 and len(modal["private_metadata"]) <= 3000


def _past_limits() -> list:
    from slack_sdk.models.blocks import ActionsBlock, ButtonElement, HeaderBlock, PlainTextObject, SectionBlock
    from slack_sdk.models.views import View

    return [
        ButtonElement(text="b" * 76, action_id="a"),
        ButtonElement(text="b", action_id="a" * 256),
        SectionBlock(text="s" * 3001),
        HeaderBlock(text="h" * 151),
        ActionsBlock(elements=[ButtonElement(text=str(i), action_id=f"a{i}") for i in range(26)]),
        View(type="modal", title=PlainTextObject(text="t" * 25), blocks=[]),
        View(type="modal", title="t", blocks=[SectionBlock(text="s")] * 101),
    ]


@pytest.mark.parametrize("past", range(len(_past_limits())))
def test_slack_limits_are_still_checked_as_messages_become_json(past):
    """handlers/blocks.py finds slack_sdk's validators once per class: each limit still refuses."""
    from slack_sdk.errors import SlackObjectFormationError

    with pytest.raises(SlackObjectFormationError):
        _past_limits()[past].to_dict()


def test_the_validators_found_once_per_class_are_those_slack_sdk_finds_on_each_object():
    from slack_sdk.models.blocks import (
        ActionsBlock,
        ButtonElement,
        ContextBlock,
        HeaderBlock,
        InputBlock,
        Option,
        PlainTextInputElement,
        SectionBlock,
        StaticSelectElement,
    )
    from slack_sdk.models.views import View

    import handlers.blocks

    button = ButtonElement(text="b", action_id="a", url="https://example.org")
    objects = [button, ActionsBlock(elements=[button]), ContextBlock(elements=[handlers.blocks.mrkdwn("c")]),
               HeaderBlock(text="h"), SectionBlock(text=handlers.blocks.mrkdwn("s"), accessory=button),
               InputBlock(label="l", element=PlainTextInputElement(action_id="i")),
               StaticSelectElement(action_id="s", options=[Option(value="v", text="t")]),
               View(type="modal", title="t", blocks=[HeaderBlock(text="h")])]
    for thing in objects:
        thing.to_dict()
        per_object = sorted(name for name in dir(thing) if not name.startswith("__")
                            and callable(getattr(thing, name, None)) and hasattr(getattr(thing, name), "validator"))
        assert list(handlers.blocks._VALIDATORS[type(thing)]) == per_object, type(thing).__name__


def test_messages_become_the_json_slack_sdk_itself_makes(monkeypatch):
    """handlers/blocks.py turns objects into dicts without slack_sdk's per-call closures: the same
    keys in the same order, empty values left out but rich text's empty lists, nested objects."""
    import importlib.util
    import json

    from slack_sdk.models import basic_objects
    from slack_sdk.models.blocks import RichTextBlock, RichTextSectionElement

    spec = importlib.util.spec_from_file_location("slack_sdk_basic_objects_as_shipped", basic_objects.__file__)
    assert spec and spec.loader
    shipped = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shipped)

    page = RoomPage(count=9999, next="https://x/rooms/?page=3", previous="https://x/rooms/", results=[_room(i) for i in range(20)])
    things = [*room_message("fr", _room(slug="<b>&"), "https://visio", created=True).blocks,
              *room_list_message("en", page, 2, "https://visio").blocks, *help_message("fr", "lead").blocks,
              home_view("en", page, "https://visio", [], recent=[_room(100)], levels=list(AccessLevel)),
              dm_modal("fr", DmTarget("00000000-0000-4000-8000-000000000000", "C0CHAN")),
              RichTextBlock(elements=[RichTextSectionElement(elements=[])])]
    ours = [json.dumps(thing.to_dict()) for thing in things]
    monkeypatch.setattr(basic_objects.JsonObject, "get_non_null_attributes", shipped.JsonObject.get_non_null_attributes)
    for thing, made in zip(things, ours, strict=True):
        assert made == json.dumps(thing.to_dict()), type(thing).__name__


def test_a_replys_body_is_the_one_slack_sdks_webhook_client_sends():
    """Replies skip slack_sdk's `_build_body` when the message holds only dicts; the body Slack
    gets must be the same bytes, and its metadata object still made a dict."""
    import json

    from slack_bolt.context.respond.internals import _build_message
    from slack_sdk.models.metadata import Metadata
    from slack_sdk.webhook.internal_utils import _build_body

    from handlers.responses import body_of

    page = RoomPage(count=12, next=None, previous=None, results=[_room(i) for i in range(12)])
    for blocks in (room_list_message("fr", page, 1, "https://visio").blocks, help_message("en").blocks):
        for extra in ({}, {"replace_original": True, "thread_ts": None}, {"metadata": {"event_type": "a", "event_payload": {}}},
                      {"metadata": Metadata(event_type="b", event_payload={"n": 1})}):
            message = _build_message(text="texte <&>", blocks=blocks, response_type="ephemeral", **extra)
            assert json.dumps(body_of(message)) == json.dumps(_build_body(message))
