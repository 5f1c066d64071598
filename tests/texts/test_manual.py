"""The manual cannot drift from the code: every variable documented, every link resolving inside
the repository, every Slack and room-service scope explained, every subcommand in the help."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
import yaml

from bot.config import Settings
from clients.rooms.service import OPTIONAL_SCOPES as ROOM_OPTIONAL_SCOPES
from clients.rooms.service import REQUIRED_SCOPES as ROOM_SCOPES
from handlers.digest.request import VERBS as DIGEST_VERBS
from handlers.i18n import LANGUAGES, catalog
from handlers.rooms.command import VERBS as ROOM_VERBS
from tests.conftest import ROOT

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def page_text(page: Path) -> str:
    return _FENCE.sub("", page.read_text())  # a link shown inside a code block is an example, not a link


def anchors(page: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens."""
    found = set()
    for heading in re.findall(r"^#+\s+(.+?)\s*$", page_text(page), re.M):
        plain = "".join(c for c in heading.lower().replace("`", "")
                        if c in " -_" or unicodedata.category(c)[0] in "LN")
        found.add(plain.replace(" ", "-"))
    return found


def manifest() -> dict:
    return yaml.safe_load((ROOT / "manifest.yml").read_text())


def test_the_manual_has_its_pages_and_the_readme_stays_short():
    assert {p.name for p in DOCS.glob("*.md")} >= {"user-guide.md", "configuration.md", "operating.md", "troubleshooting.md",
                                                   "digest.md", "architecture.md", "benchmarks.md", "slack-app.md"}
    assert (ROOT / "README.md").stat().st_size <= 12 * 1024


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves_inside_the_repository(page: Path):
    broken = []
    for target in _LINK.findall(page_text(page)):
        if re.match(r"[a-z]+:", target):  # https:, mailto: — public documents by address
            continue
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if ROOT.resolve() not in resolved.parents and resolved != ROOT.resolve():
            broken.append(f"{target} (outside the repository: a clone lacks it)")
        elif not resolved.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{target} (no such heading in {resolved.name})")
    assert broken == []


def test_the_link_check_catches_what_it_is_for(tmp_path: Path):
    (tmp_path / "a.md").write_text("# Title here\n")
    assert anchors(tmp_path / "a.md") == {"title-here"}
    assert anchors(DOCS / "configuration.md") >= {"room-service-la-suite-meet", "the-room-services-application"}
    assert _LINK.findall("see [x](../shared/ref.md) and [y](https://a.b/c)") == ["../shared/ref.md", "https://a.b/c"]


def test_every_setting_is_on_the_configuration_page():
    documented = (DOCS / "configuration.md").read_text()
    missing = [name.upper() for name in Settings.model_fields if f"`{name.upper()}`" not in documented]
    assert missing == []


def test_every_scope_the_app_asks_for_is_explained_on_the_slack_app_page():
    explained = (DOCS / "slack-app.md").read_text()
    scopes = manifest()["oauth_config"]["scopes"]["bot"]
    assert len(scopes) > 5
    assert [scope for scope in scopes if f"`{scope}`" not in explained] == []


def test_every_room_service_scope_the_client_needs_is_on_the_configuration_page():
    documented = (DOCS / "configuration.md").read_text()
    assert [scope for scope in (*ROOM_SCOPES, *ROOM_OPTIONAL_SCOPES) if f"`{scope}`" not in documented] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_subcommand_is_in_each_languages_help(lang):
    words = catalog(lang)
    assert [verb for verb in ROOM_VERBS if f"`/room {verb}" not in words["help.body"]] == []
    assert [verb for verb in DIGEST_VERBS if f"`/digest {verb}" not in words["digest_cmd.help"]] == []


def test_every_subcommand_is_in_the_manifests_usage_hints():
    hints = {command["command"]: command["usage_hint"] for command in manifest()["features"]["slash_commands"]}
    assert [verb for verb in ROOM_VERBS if not re.search(rf"(^|\| ){verb}\b", hints["/room"])] == []
    assert [verb for verb in DIGEST_VERBS if not re.search(rf"(^|\| ){verb}\b", hints["/digest"])] == []
