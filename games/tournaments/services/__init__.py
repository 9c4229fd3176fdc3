"""Every change of a tournament, split by sub-domain: entering (entry), pairing (pairing), counting a finished match
and the standings (scoring), and the tournament's course and the runner's tick (ticks); base holds what they share.

Pairing is decided in one place per tournament, under its lock (PostgreSQL: a transaction-level advisory lock on
the tournament's id, so processes decide one after the other, each seeing what the other seated; SQLite: the
IMMEDIATE transaction already serialises writers). An entrant is free while their row's `match` is NULL; a
pairing sets it (only where it is still NULL) in the transaction that creates the match, and the transaction that
ends the match clears it and writes the points (games.tournaments.record). Nothing lives in memory: a restart
loses nothing, and every process's runner (`tick`) goes on pairing where the last one stopped.
"""

from .base import (
    ARENA_IS_REAL_TIME,
    ARENA_MINUTES,
    CLOCKS,
    CORRESPONDENCE_KEYS,
    SWISS_ROUNDS,
    clock_of,
    ends_at,
    min_table,
)
from .entry import NewTournament, check_new, create_tournament, join, may_enter, pause, resume, withdraw
from .pairing import pair_arena
from .scoring import (
    Ranked,
    count_ended,
    has_result,
    match_results,
    ordered,
    ranked,
    rebuild,
    swiss_games,
    tournaments_of_match,
)
from .ticks import settle, start, start_early, tick

__all__ = [
    "ARENA_IS_REAL_TIME", "ARENA_MINUTES", "CLOCKS", "CORRESPONDENCE_KEYS", "SWISS_ROUNDS", "NewTournament",
    "Ranked", "check_new", "clock_of", "count_ended", "create_tournament", "ends_at",
    "has_result", "join", "match_results", "may_enter", "min_table", "ordered", "pair_arena", "pause", "ranked",
    "rebuild", "resume", "settle", "start", "start_early", "swiss_games", "tick", "tournaments_of_match",
    "withdraw",
]
