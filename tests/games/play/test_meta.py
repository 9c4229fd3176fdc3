"""The typed meta of a table (games.play.meta.TableMeta): every field says which fragments it redraws, and a
socket's page sends those fragments again when that field, and only it, changes."""

from __future__ import annotations

import re
from dataclasses import fields, replace
from typing import Any

import pytest

from games.models import Match
from games.play.display import SocketPage, page_view
from games.play.meta import FRAGMENTS, PlayerLine, TableMeta, table_meta
from games.play.snapshot import engine_of, state_of
from games.play.store import load

pytestmark = pytest.mark.django_db


def other_value(name: str, value: Any) -> Any:
    """A different value of the same kind, that the table can still draw."""
    if name == "status":
        return "waiting" if value != "waiting" else "active"
    if name == "result":
        return {"reason": "resign", "scores": [1, 2], "winners": [1], "draw": False, "loser": 0}
    if name == "players":
        first: PlayerLine = value[0]
        return (replace(first, name=first.name + " Jr", present=not first.present), *value[1:])
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return (*value, 1) if not value or isinstance(value[0], int) else ()
    if isinstance(value, dict):
        return {"kind": "turn", "seconds": 30}
    if value is None:
        return 1
    raise AssertionError(f"no other value for {name}")


def sent(html: str) -> set[str]:
    """The fragments an update sends, by their root element's id."""
    return {name for name in FRAGMENTS if re.search(rf'id="{name}"', html)}


def test_every_field_says_what_it_redraws() -> None:
    for field in fields(TableMeta):
        assert "redraws" in field.metadata, field.name
        assert set(field.metadata["redraws"]) <= set(FRAGMENTS), field.name


def test_a_fragments_meta_is_the_values_of_the_fields_that_redraw_it(gomori_match: Match) -> None:
    """drawn_from reads each fragment's fields as it was made (issue 47: read once, not from fields() each call)."""
    snap = load(gomori_match.pk)
    assert snap is not None
    meta = table_meta(snap, {})
    for name in (*FRAGMENTS, "log_entries"):
        named = tuple(getattr(meta, f.name) for f in fields(TableMeta) if name in f.metadata["redraws"])
        assert meta.drawn_from(name) == named, name
    assert meta.drawn_from("board") == (meta.status, meta.version) and meta.drawn_from("error") == ()


def test_a_changed_field_redraws_the_fragments_it_names(gomori_match: Match) -> None:
    snap = load(gomori_match.pk)
    assert snap is not None
    view = page_view(engine_of(snap).view(state_of(snap), 0))
    meta = table_meta(snap, {})
    checked = 0
    for field in fields(TableMeta):
        redrawn = {name for name in field.metadata["redraws"] if name not in ("log", "error")}
        if not redrawn:
            continue
        page = SocketPage()
        page.update(meta, view, 0, {})
        assert page.update(meta, view, 0, {}) == ""  # nothing changed: nothing sent
        changed = replace(meta, **{field.name: other_value(field.name, getattr(meta, field.name))})
        assert redrawn <= sent(page.update(changed, view, 0, {})), field.name
        checked += 1
    assert checked >= 10


def test_a_new_name_redraws_the_log_entries_that_carry_it(gomori_match: Match) -> None:
    snap = load(gomori_match.pk)
    assert snap is not None
    view = page_view(engine_of(snap).view(state_of(snap), 0))
    meta = table_meta(snap, {})
    page = SocketPage()
    page.update(meta, view, 0, {})
    handed = replace(meta, handovers=({"seat": 1, "name": "Bob", "bot": "Gomori Regular (bot)", "move": 1, "log": 0,
                                       "why": "away"},))
    assert "log" in sent(page.update(handed, view, 0, {}))
