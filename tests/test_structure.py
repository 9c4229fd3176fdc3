"""The shape of games/, read from its imports (README, "How the code is laid out"): the packages and loose modules
form layers, none imports back up into one that imports it (no circle between packages, none between files), the
composers (games/site) are imported by no feature, notify sits below every feature, and games/core below all.

A failure names the imports that close the circle: move the shared piece down (or the composing piece up to
games/site) rather than hide the import inside a function."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
# Every feature package: what each may import is below it; notify and core are below all of them.
FEATURES = ("lobby", "challenges", "pool", "tournaments", "history", "review", "mine", "play", "ratings", "api")


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(GAMES.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if "migrations" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _imports(module: str, path: Path) -> Iterator[str]:
    """The games modules this one imports, whole names, relative imports resolved."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], set[str]]]:
    """Files: module -> the games modules it imports. Rooms (a package under games/, or a loose module): room ->
    room, with the files that make each arrow."""
    modules = dict(_modules())
    files: dict[str, set[str]] = defaultdict(set)
    rooms: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module, path in modules.items():
        for target in _imports(module, path):
            if target in modules and target != module:
                files[module].add(target)
                source_room, target_room = _room(module), _room(target)
                if source_room and target_room and source_room != target_room:
                    rooms[(source_room, target_room)].add(module)
    return files, rooms


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_two_packages_import_each_other_even_through_others() -> None:
    _, rooms = _graph()
    edges: dict[str, set[str]] = defaultdict(set)
    for source, target in rooms:
        edges[source].add(target)
    circles = _circles(edges)
    told = [f"{a} -> {b} ({', '.join(sorted(rooms[(a, b)]))})" for circle in circles for a in circle for b in circle
            if (a, b) in rooms]
    assert not circles, "packages that import each other:\n" + "\n".join(told)


def test_no_circle_between_files() -> None:
    files, _ = _graph()
    assert not _circles(files)


def test_the_composers_are_imported_by_no_feature_and_notify_and_core_by_no_one_above() -> None:
    _, rooms = _graph()
    up = sorted(f"{a} -> {b}: {', '.join(sorted(who))}" for (a, b), who in rooms.items()
                if (b == "site" and a in (*FEATURES, "notify", "core"))
                or (a == "notify" and b in (*FEATURES, "site") and b not in ("play",))
                or (a == "core" and b != "core"))
    assert not up, "\n".join(up)


def test_the_check_sees_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
