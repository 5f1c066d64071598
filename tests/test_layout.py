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


def imports() -> dict[str, set[str]]:
    """Every module of the four floors → the modules it names, wherever the import stands."""
    found: dict[str, set[str]] = {}
    for layer in LAYERS:
        for path in (ROOT / layer).rglob("*.py"):
            named: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    named |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    named.add(node.module)
                    named |= {f"{node.module}.{alias.name}" for alias in node.names}
            found[module_name(path)] = named
    return found


def test_imports_go_one_way_and_the_wings_and_clients_know_nothing_of_slack():
    wrong = []
    for module, named in imports().items():
        layer = LAYERS.index(module.split(".")[0])
        for target in named:
            top = target.split(".")[0]
            if top in LAYERS and LAYERS.index(top) > layer:
                wrong.append(f"{module} imports {target}")
            if layer <= LAYERS.index("domain") and top in ("slack_bolt", "slack_sdk"):
                wrong.append(f"{module} imports {target}")
    assert wrong == []


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
    """`a imports b` for each module of a feature (or of the shared core) that names another
    feature's module."""
    wrong = []
    for module, named in graph.items():
        parts = module.split(".")
        if parts[0] != "handlers" or len(parts) < 3:
            continue
        mine = parts[1]
        for target in sorted(named):
            theirs = target.split(".")
            if theirs[0] == "handlers" and len(theirs) > 2 and theirs[1] in features() and theirs[1] != mine:
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
