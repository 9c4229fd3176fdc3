"""The bot worker command: one pass lets every due bot act, with nobody connected."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from games.play.create import SeatSpec, create_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_run_bots_once_plays_due_bot_moves_in_a_bot_only_match(settings: Any, make_user: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    watcher = make_user()
    match = create_match(
        creator=watcher, game="gomori", players=2, seats=[SeatSpec("bot", "random")],
        first_seat_bot="reference",
    )
    assert match.seats.get(index=0).user.is_bot
    out = StringIO()
    call_command("run_bots", "--once", stdout=out)
    assert "1 bot move(s) made." in out.getvalue()
    match.refresh_from_db()
    assert (match.version, match.move_count) == (1, 1)  # dealt at creation (version 0), then one move
    assert match.moves.get().seat == 0
