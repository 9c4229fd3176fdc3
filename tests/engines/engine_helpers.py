"""Checks every engine test shares: a refused action, a snapshot of a state.

Named engine_helpers (not helpers) because pytest puts each test folder on sys.path and these modules share
one namespace: a plain name would shadow, or be shadowed by, a module of the same name in another folder.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engines import IllegalAction


def snapshot(engine: Any, state: Any) -> str:
    """The state's dump as canonical JSON text.

    Text, not the dump dict itself: a dump that shared a list with the state would change along with it, and
    a comparison of the two would then pass however the state was mutated.
    """
    return json.dumps(engine.dump(state), sort_keys=True)


def refused(engine: Any, state: Any, seat: Any, action: Any, *, match: str | None = None,
            kind: type[IllegalAction] = IllegalAction) -> str:
    """Assert `apply` refuses the action with `kind` (IllegalAction or a subclass) and leaves the state as it
    was (ENGINES.md: "raises IllegalAction(reason) and leaves `state` untouched"); returns the message."""
    before = snapshot(engine, state)
    with pytest.raises(kind, match=match) as info:
        engine.apply(state, seat, action)
    assert snapshot(engine, state) == before, f"a refused {action!r} changed the state"
    return str(info.value)
