"""Room links as the bot shows them, whatever form the service gave them in."""

from __future__ import annotations

import pytest

from clients.rooms.models import Room

ID = "8b1c1f0e-3c4b-4f4e-9d55-1d2c3b4a5f60"


@pytest.mark.parametrize(("given", "shown"), [
    ("https://visio.example.gouv.fr/abc-defg-hij", "https://visio.example.gouv.fr/abc-defg-hij"),
    ("http://127.0.0.1:8071/abc-defg-hij/", "http://127.0.0.1:8071/abc-defg-hij/"),
    ("https://visio.example.gouv.fr", "https://visio.example.gouv.fr"),
    ("https://visio.example.gouv.fr//abc-defg-hij", "https://visio.example.gouv.fr/abc-defg-hij"),  # base ending in /
    ("https://visio.example.gouv.fr/a//b///c", "https://visio.example.gouv.fr/a/b/c"),
    ("https://visio.example.gouv.fr/<b>salle 1", "https://visio.example.gouv.fr/%3Cb%3Esalle%201"),
    ("https://visio.example.gouv.fr/r%C3%A9union", "https://visio.example.gouv.fr/r%C3%A9union"),
    ("HTTPS://Visio.Example.gouv.fr/abc", "https://Visio.Example.gouv.fr/abc"),
    ("https://visio.example.gouv.fr/abc?x=1#here", "https://visio.example.gouv.fr/abc?x=1#here"),
    ("https://visio.example.gouv.fr/abc?", "https://visio.example.gouv.fr/abc"),
    ("https://visio.example.gouv.fr/ab c\n", "https://visio.example.gouv.fr/ab%20c"),
])
def test_a_link_is_shown_with_one_slash_and_nothing_a_url_may_not_hold(given: str, shown: str):
    assert Room.model_validate({"id": ID, "slug": "abc", "url": given}).url == shown
