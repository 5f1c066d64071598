"""The house keeps its rule: imports go bot → handlers → domain → clients, the wings and clients know nothing of Slack,
and no modules import each other in a circle — type-only imports included."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

LAYERS = ("clients", "domain", "handlers", "bot")  # each may import only those before it


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def named_in(source: str, module: str, *, package: bool = False) -> set[str]:
    """The modules `source` (the text of `module`) names, wherever the import stands — in a function
    (a lazy import), under `if TYPE_CHECKING:` (a type-only one) — relative ones made absolute."""
    here = module.split(".") if package else module.split(".")[:-1]
    named: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*here[:len(here) - node.level + 1], *([node.module] if node.module else [])])
            named.add(base)
            named |= {f"{base}.{alias.name}" for alias in node.names}
    return named


def imports() -> dict[str, set[str]]:
    """Every module of the four floors → the modules it names."""
    return {module_name(path): named_in(path.read_text(), module_name(path), package=path.name == "__init__.py")
            for layer in LAYERS for path in (ROOT / layer).rglob("*.py")}


def crossings(graph: dict[str, set[str]]) -> list[str]:
    """`a imports b` for each import up the floors, and for each Slack import in a wing or a client."""
    wrong = []
    for module, named in graph.items():
        layer = LAYERS.index(module.split(".")[0])
        for target in sorted(named):
            top = target.split(".")[0]
            if top in LAYERS and LAYERS.index(top) > layer:
                wrong.append(f"{module} imports {target}")
            if layer <= LAYERS.index("domain") and top in ("slack_bolt", "slack_sdk"):
                wrong.append(f"{module} imports {target}")
    return wrong


def test_imports_go_one_way_and_the_wings_and_clients_know_nothing_of_slack():
    assert crossings(imports()) == []


def test_the_floor_rule_catches_a_wing_importing_slack_lazily_or_for_types_only():
    lazy = named_in("def post():\n    from slack_sdk.web.async_client import AsyncWebClient\n", "domain.dossiers.news")
    typed = named_in("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from slack_bolt import App\n", "domain.rooms.sharing")
    upward = named_in("def words():\n    import handlers.i18n\n", "clients.rooms.errors")
    assert crossings({"domain.dossiers.news": lazy, "domain.rooms.sharing": typed, "clients.rooms.errors": upward}) == [
        "domain.dossiers.news imports slack_sdk.web.async_client",
        "domain.dossiers.news imports slack_sdk.web.async_client.AsyncWebClient",
        "domain.rooms.sharing imports slack_bolt", "domain.rooms.sharing imports slack_bolt.App",
        "clients.rooms.errors imports handlers.i18n"]


def circles(edges: dict[str, set[str]]) -> list[str]:
    """Each loop of imports found by a depth-first walk, as `a → b → a`."""
    found: list[str] = []
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(edges.get(module, ())):
            if state.get(target) == "open":
                found.append(" → ".join([*path[path.index(target):], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    return found


def test_no_modules_import_each_other_in_a_circle():
    graph = imports()
    assert len(graph) > 80
    assert circles({module: {t for t in named if t in graph and t != module} for module, named in graph.items()}) == []


def test_the_circle_finder_finds_a_type_only_loop_like_the_one_there_was():
    assert circles({"handlers.services": {"handlers.digest_command"}, "handlers.digest_command": {"handlers.services"},
                    "bot.wiring": {"handlers.services"}}) == ["handlers.services → handlers.digest_command → handlers.services"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


#: what several features share lives in these packages, below every feature
SHARED_PACKAGES = {"core"}


def features() -> set[str]:
    return {path.parent.name for path in (ROOT / "handlers").glob("*/__init__.py")} - SHARED_PACKAGES


def feature_imports(graph: dict[str, set[str]]) -> list[str]:
    """`a imports b` for each module of a feature that names another feature's module, and for each
    shared module (the core, or one at handlers/' top) that names any: only handlers.listeners, which
    registers them all, may."""
    wrong = []
    every = features()
    for module, named in graph.items():
        parts = module.split(".")
        if parts[0] != "handlers" or module == "handlers.listeners":
            continue
        mine = parts[1] if len(parts) > 1 and parts[1] in every else None
        for target in sorted(named):
            theirs = target.split(".")
            if theirs[0] == "handlers" and len(theirs) > 1 and theirs[1] in every and theirs[1] != mine:
                wrong.append(f"{module} imports {target}")
    return wrong


def test_a_feature_imports_no_other_feature_and_the_core_none():
    """Features are leaves: what two of them need goes below them (handlers/core, or handlers/ itself);
    only handlers/listeners.py, which registers them all, names them."""
    assert len(features()) >= 8
    assert feature_imports(imports()) == []


def test_the_feature_rule_catches_a_feature_importing_another():
    graph = {"handlers.rooms.command": {"handlers.sharing.messages", "handlers.core.room_messages", "handlers.i18n"},
             "handlers.core.creation": {"handlers.new_room.messages"}, "handlers.listeners": {"handlers.rooms.command"}}
    assert feature_imports(graph) == ["handlers.rooms.command imports handlers.sharing.messages",
                                      "handlers.core.creation imports handlers.new_room.messages"]


def test_the_feature_rule_catches_relative_lazy_and_type_only_imports_and_a_shared_module_at_the_top():
    relative = named_in("from ..digest import job\nfrom . import messages\n", "handlers.desk.command")
    lazy = named_in("async def later():\n    from handlers.home.tab import publish_home\n", "handlers.rooms.buttons")
    typed = named_in("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from handlers.digest.job import DigestJob\n",
                     "handlers.services")
    in_a_package = named_in("from .. import digest\n", "handlers.desk", package=True)
    graph = {"handlers.desk.command": relative, "handlers.rooms.buttons": lazy, "handlers.services": typed, "handlers.desk": in_a_package}
    assert "handlers.desk.messages" in relative  # a feature's own module, named relatively: allowed
    assert feature_imports(graph) == [
        "handlers.desk.command imports handlers.digest", "handlers.desk.command imports handlers.digest.job",
        "handlers.rooms.buttons imports handlers.home.tab", "handlers.rooms.buttons imports handlers.home.tab.publish_home",
        "handlers.services imports handlers.digest.job", "handlers.services imports handlers.digest.job.DigestJob",
        "handlers.desk imports handlers.digest"]


def package_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The packages of bot/ (serving, commands, demo, and bot's own modules) → the others they import."""
    def package(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:2]) if len(parts) > 2 else parts[0]

    edges: dict[str, set[str]] = {}
    for module, named in graph.items():
        if module.split(".")[0] == "bot" and len(module.split(".")) > 2:
            mine = package(module)
            edges.setdefault(mine, set()).update(
                package(t) for t in named if t.split(".")[0] == "bot" and len(t.split(".")) > 2 and package(t) != mine)
    return edges


def test_the_packages_of_bot_import_each_other_in_no_circle():
    """serving imports no operator command (it imported check's, while the commands import serving)."""
    assert circles(package_edges(imports())) == []
    assert circles(package_edges({"bot.serving.server": {"bot.commands.check.log_failures"},
                                  "bot.commands.check": {"bot.serving.slack_app"}})) == ["bot.commands → bot.serving → bot.commands"]


def test_handlers_keeps_at_most_twelve_modules_at_its_top():
    top = sorted(path.name for path in (ROOT / "handlers").glob("*.py") if path.name != "__init__.py")
    assert len(top) <= 12, top


def test_tests_name_redis_keys_through_the_key_builder():
    """A test that spells a key out (roombot:token:…) breaks when the key's layout changes, not when
    the behaviour does: keys come from clients.redis_keys.key."""
    import re

    spelled = [f"{path.relative_to(ROOT)}:{number}" for path in (ROOT / "tests").rglob("*.py")
               for number, line in enumerate(path.read_text().splitlines(), 1) if re.search('"' + r'roombot:[^" ]', line)]
    assert spelled == []
