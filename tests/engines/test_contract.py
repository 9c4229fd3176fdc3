"""Every rules-engine module keeps to the standard library (ENGINES.md): no Django, nothing third-party.

One check for all of them, each module its own test case, so a new engine file is covered the day it lands.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from games.engines import ENGINES, SLUGS

ENGINE_DIR = Path(__file__).resolve().parents[2] / "games" / "engines"
MODULES = sorted(path.name for path in ENGINE_DIR.glob("*.py"))


def imported_modules(path: Path) -> list[str]:
    """The absolute module names a file imports (relative imports stay inside games.engines)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return names


@pytest.mark.parametrize("module", MODULES)
def test_engine_module_imports_only_the_standard_library(module: str) -> None:
    for name in imported_modules(ENGINE_DIR / module):
        top = name.split(".")[0]
        assert top in sys.stdlib_module_names or name.startswith("games.engines"), f"{module} imports {name}"


def test_every_game_has_an_engine_module_and_the_registry_finds_it() -> None:
    assert {f"{slug}.py" for slug in SLUGS} <= set(MODULES)
    assert [engine.slug for engine in ENGINES.values()] == list(SLUGS)
