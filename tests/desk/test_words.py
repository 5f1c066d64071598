"""A motivation or message goes to the applicant as it was written, or not at all: words made only
of invisible characters are refused in the window, and words longer than the window takes (a forged
submission) are refused in words, never cut."""

from __future__ import annotations

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from tests.conftest import Bot
from tests.desk.conftest import acts, submit

INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff \u3164\u00ad"  # zero-width space, joiners, word joiner, BOM, filler, soft hyphen


async def test_invisible_words_are_refused_in_the_window(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    for callback, act in (("dossier_message_modal", "MESSAGE"), ("dossier_decision", "REFUSE"), ("dossier_decision", "ACCEPT")):
        answer = await submit(digest_bot, callback, f"{act}:{found.number}", INVISIBLE, view_id=f"V0{act}")
        assert answer["response_action"] == "errors" and "invisible characters" in answer["errors"]["words"], act
    assert acts(ds) == [] and found.messages == [] and found.state == "en_instruction"


async def test_words_over_the_windows_limit_are_refused_in_words_not_cut(digest_bot: Bot, ds: FakeDS,
                                                                         demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    answer = await submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "a" * 100_000, view_id="V0HUGE")
    assert answer["response_action"] == "errors"
    assert answer["errors"]["words"] == "At most 3000 characters: this text has 100000. Shorten it; nothing was sent."
    assert acts(ds) == [] and found.messages == []
    fits = await submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "é" * 3000, view_id="V0FITS")
    assert fits == {} and [len(m.body) for m in found.messages] == [3000]
