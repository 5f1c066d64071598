"""Texts from a service enter blocks cut to Slack's limits (handlers/blocks.py): an ellipsis where
words were left out, never half a link or half an escape, and the lines around a long one kept."""

from __future__ import annotations

import re

from handlers.blocks import fit, header, link_mrkdwn, mrkdwn
from handlers.i18n import escape

TITLE = escape("Subvention <vélo> & co " * 200)  # 6,000 characters once escaped


def whole(words: str) -> bool:
    """No `<` without its `>`, no `&` that does not begin an escape Slack knows."""
    return re.sub(r"<[^<>]*>", "", words).count("<") == 0 and not re.search(r"&(?!amp;|lt;|gt;)", words)


def test_a_long_line_is_shortened_in_its_middle_and_the_lines_around_it_stay():
    link = link_mrkdwn("https://ds.example/procedures/101/dossiers/7", "Open it on the dossier service")
    card = f"*Dossier n° 7* · {TITLE} (n° 101)\nunder review since 2 Jan · group Nord\n{link}"
    shown = mrkdwn(card).text
    assert len(shown) <= 3000 and " … " in shown and whole(shown)
    assert shown.startswith("*Dossier n° 7* · Subvention &lt;vélo&gt;")
    assert shown.endswith(f"(n° 101)\nunder review since 2 Jan · group Nord\n{link}")


def test_a_cut_never_splits_a_link_a_mention_or_an_escape():
    words = "a &amp; b <https://x.example/y|a link> <@U0ALICE> c &lt;d&gt; " + escape("Subvention <vélo> & co " * 3)
    for most in range(1, len(words) + 2):
        shown = fit(words, most)
        assert len(shown) <= most and whole(shown), most
        assert shown == words or shown.endswith("…"), most


def test_headers_are_cut_to_150_characters_with_an_ellipsis():
    shown = header(TITLE).to_dict()["text"]["text"]  # to_dict() raises past Slack's limit
    assert len(shown) <= 150 and shown.endswith("…") and whole(shown)
