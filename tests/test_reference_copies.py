"""The outside world's published files the tests and the dossier stand-in run on are copies (tests/data/README.md
says whence): each is pinned by its SHA-256, recorded beside it when it was checked against its source, so that an
edit made to let a test pass (a field added to a schema, an error code to Slack's reference) fails here instead."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
#: each list of sums, and the folder its names are relative to
SUMS = {DATA / "SHA256SUMS": DATA, ROOT / "bot" / "demo" / "ds-schema.graphql.sha256": ROOT / "bot" / "demo"}
#: what tests/data holds besides copies
NOT_COPIES = {"README.md", "SHA256SUMS"}


def recorded(sums: Path) -> dict[str, str]:
    """name → SHA-256, from `sha256sum`'s lines (comments apart)."""
    lines = [line.split() for line in sums.read_text().splitlines() if line and not line.startswith("#")]
    return {name: digest for digest, name in lines}


def copies() -> list[tuple[Path, str]]:
    return [(folder / name, digest) for sums, folder in SUMS.items() for name, digest in recorded(sums).items()]


@pytest.mark.parametrize(("copy", "digest"), copies(), ids=[str(copy.relative_to(ROOT)) for copy, _ in copies()])
def test_each_copy_is_the_file_taken_from_its_source(copy: Path, digest: str):
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == digest, (
        f"{copy.relative_to(ROOT)} is no longer the file taken from its source: take a newer published one, "
        "and record its SHA-256, source and date")


def test_every_copy_in_tests_data_has_its_sum():
    present = {str(path.relative_to(DATA)) for path in DATA.rglob("*") if path.is_file()} - NOT_COPIES
    assert present == set(recorded(DATA / "SHA256SUMS"))
    assert set(recorded(ROOT / "bot" / "demo" / "ds-schema.graphql.sha256")) == {"ds-schema.graphql"}
