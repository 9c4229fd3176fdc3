"""Every fact of a game lives in its kit (games/kits/), and generic code asks the kit, never names a game.

Two checks keep a fifth game to its own files (README, "Adding a fifth game"): every registered kit fills what
a kit must (`test_every_kit_fills_what_a_kit_must`), and no module outside the games' own packages names a game
(`test_no_generic_module_names_a_game`). The kits themselves import nothing above them and no Django, so the
post-match analysis, which asks them, stays pure.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from games.catalog import GAMES
from games.engines import SLUGS
from games.kits import Kit
from games.kits.analysis_spec import AnalysisSpec, Budget, Thresholds, Tracker
from games.kits.registry import KITS

ROOT = Path(__file__).resolve().parents[2]
GAMES_DIR = ROOT / "games"


ENGINE_CALLS = ("new_game", "apply", "view", "legal_actions", "to_act", "must_act", "is_over", "scores", "dump", "load")


def _thresholds_ordered(t: Thresholds) -> bool:
    return 0 < t.inaccuracy < t.mistake < t.blunder <= 1


# What a kit must fill, each with what makes it filled. A new field every game must give belongs here.
REQUIRED: dict[str, Callable[[Kit], bool]] = {
    "engine": lambda k: k.engine.slug == k.slug and all(callable(getattr(k.engine, m, None)) for m in ENGINE_CALLS),
    "blurb": lambda k: bool(k.blurb),
    "score_label": lambda k: bool(k.score_label),
    "bots": lambda k: bool(k.bots) and all(callable(bot) for bot in k.bots.values()),
    "level_blurbs": lambda k: set(k.level_blurbs) == set(k.bots),
    "presenter": lambda k: callable(getattr(k.presenter, "present", None))
    and callable(getattr(k.presenter, "clean_ui", None)),
    "usual_players": lambda k: k.usual_players in k.player_counts and k.usual_players >= 2,
    "analysis": lambda k: isinstance(k.analysis, AnalysisSpec) and k.analysis.slug == k.slug
    and k.analysis.engine is k.engine and k.analysis.bot_module.BOTS is k.bots,
    "analysis.sampler": lambda k: callable(k.analysis.sampler),
    "analysis.classify": lambda k: callable(k.analysis.classify) and callable(k.analysis.rank),
    "analysis.tracker": lambda k: isinstance(k.analysis.tracker(0), Tracker),
    "analysis.rollout": lambda k: k.analysis.rollout_level in k.bots,
    "analysis.scale": lambda k: k.analysis.scale > 0 and k.analysis.lower_wins == k.lower_is_better,
    "analysis.budget": lambda k: isinstance(k.analysis.budget, Budget) and k.analysis.budget.playouts() > 0,
    "analysis.thresholds": lambda k: isinstance(k.analysis.thresholds, Thresholds)
    and _thresholds_ordered(k.analysis.thresholds),
    "rules_examples": lambda k: bool(k.rules_examples()),
    "table template": lambda k: (ROOT / "templates/jinja2/games/tables" / f"{k.slug}.html").is_file(),
    "rules template": lambda k: (ROOT / "templates/jinja2/games/rules" / f"{k.slug}.html").is_file(),
    "table_css": lambda k: not k.table_css or (ROOT / "static" / k.table_css).is_file(),
    "table_js": lambda k: not k.table_js or (ROOT / "static" / k.table_js).is_file(),
}


def test_every_engine_has_one_registered_kit() -> None:
    assert tuple(k.slug for k in KITS) == SLUGS
    assert all(GAMES[k.slug] is k for k in KITS)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_kit_fills_what_a_kit_must(slug: str) -> None:
    game = GAMES[slug]
    unfilled = [name for name, filled in REQUIRED.items() if not filled(game)]
    assert not unfilled, f"{slug}'s kit does not fill {unfilled}"


# ---------------------------------------------------------------------------------------------------------
# No generic module names a game

# The games' own packages: each module there is one game's (or says what a game's must give).
OWN = {"kits", "engines", "bots", "presenters", "migrations", "templates"}

# The Computer Gomori protocol is Gomori's by definition (games/engines/gomori_protocol.py): its routes, its
# game check, its bridge for a bot's author (and the page offering it) and its judge name the game they speak.
ALLOWED: dict[str, str] = {
    "games/api/urls.py": "the Computer Gomori protocol's routes",
    "games/api/gomori.py": "the Computer Gomori protocol's request and turn (its game check)",
    "games/api/pages.py": "the Computer Gomori bridge's download",
    "games/management/commands/gomori_judge.py": "the Computer Gomori protocol's judge",
}

# A game's module named by string (an import no tool sees): "games.bots." + slug.
BY_STRING = re.compile(r"^games\.(kits|engines|bots|presenters)\.")


def _names() -> tuple[set[str], re.Pattern[str]]:
    """The games' slugs and names (as whole strings), and a pattern finding a slug inside a code string."""
    whole = {k.slug for k in KITS} | {k.name.lower() for k in KITS}
    inside = re.compile(r"(?<![A-Za-z])(" + "|".join(re.escape(k.slug) for k in KITS) + r")(?![A-Za-z])")
    return whole, inside


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _hits(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) for every place this module names a game: a string that is a game's slug or name or holds a
    slug as a token ("/gomori/turn", "hourly-rummy"), a game's module by string, an import of a game's module,
    a name or attribute that is a slug. Docstrings and comments may mention games as examples."""
    whole, inside = _names()
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
            if text.strip().lower() in whole or inside.search(text) or BY_STRING.match(text):
                yield node.lineno, repr(text)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            parts = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            parts += [alias.name for alias in node.names]
            if any(piece in whole for part in parts for piece in part.split(".")):
                yield node.lineno, f"import of {', '.join(p for p in parts if p)}"
        elif isinstance(node, ast.Name) and node.id.lower() in whole:
            yield node.lineno, f"name {node.id}"
        elif isinstance(node, ast.Attribute) and node.attr.lower() in whole:
            yield node.lineno, f"attribute .{node.attr}"


def _generic_modules() -> Iterator[Path]:
    for path in sorted(GAMES_DIR.rglob("*.py")):
        if not OWN.intersection(path.relative_to(GAMES_DIR).parts):
            yield path


def test_no_generic_module_names_a_game() -> None:
    found = []
    for path in _generic_modules():
        where = path.relative_to(ROOT).as_posix()
        if where in ALLOWED:
            continue
        for line, what in _hits(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{where}:{line}: {what}")
    assert not found, "generic code names a game (ask its kit instead):\n" + "\n".join(sorted(found))


def test_the_scan_finds_what_it_looks_for() -> None:
    """The scanner itself: each way of naming a game is caught, a docstring's example is not."""
    source = '''
"""Gomori's moves, as an example."""
import games.bots.gomori
from games.kits import rummy
SIZES = {"ruhd": 3}
if game == "Columbo":
    path = f"/gomori/{match}/turn"
module = importlib.import_module(f"games.bots.{slug}")
kit = kits.columbo
'''
    lines = sorted(line for line, _ in _hits(ast.parse(source)))
    assert lines == [3, 4, 5, 6, 7, 8, 9], list(_hits(ast.parse(source)))


def test_every_allowance_is_still_needed() -> None:
    """An allowance whose module no longer names a game (or is gone) is dropped from ALLOWED."""
    for where in ALLOWED:
        path = ROOT / where
        assert path.is_file() and any(_hits(ast.parse(path.read_text(encoding="utf-8")))), where


# ---------------------------------------------------------------------------------------------------------
# The kits import nothing above them

BELOW = ("games.kits", "games.engines", "games.bots", "games.presenters")


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module) of each import of a kit module (relative ones resolved in games.kits)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = "games.kits" if node.level == 1 else "games"
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            yield node.lineno, module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name


def test_the_kits_import_nothing_above_them() -> None:
    above = [f"games/kits/{path.name}:{line}: {module}" for path in sorted((GAMES_DIR / "kits").glob("*.py"))
             for line, module in _imports(path)
             if (module.startswith("games") and not module.startswith(BELOW)) or module.startswith("django")]
    assert not above, "a kit imports above the kits:\n" + "\n".join(above)


def test_the_kits_and_the_analysis_load_without_django() -> None:
    """Importing every kit (through the catalog) and the analysis loads no Django module: the analysis runs
    where Django is not set up, and a presenter reads the site's settings only when it draws a live table."""
    script = ("import sys, games.catalog, games.analysis; "
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))")
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout
