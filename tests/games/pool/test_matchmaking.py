"""Quick pairing's rules (games.pool.matchmaking), pure: nearest ratings first, the range widening with waiting
(±100, ±200 after 10 s, anyone after 30 s), never the same two twice in a row while a third waits. Time is
given, never slept: every seeker's `since` and the decision's `now` are chosen here."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from games.pool.matchmaking import Seeker, tables, window

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def seeker(sid: int, rating: float, since: float = 0.0, last: tuple[int, ...] = ()) -> Seeker:
    return Seeker(id=sid, user_id=100 + sid, rating=rating, since=at(since),
                  last_opponents=frozenset(100 + o for o in last))


def ids(made: list[tuple[Seeker, ...]]) -> list[set[int]]:
    return [{s.id for s in table} for table in made]


def test_the_window_widens_with_waiting() -> None:
    assert window(0) == 100 and window(9.99) == 100
    assert window(10) == 200 and window(29.9) == 200
    assert window(30) == float("inf")


def test_nearest_ratings_are_seated_first() -> None:
    people = [seeker(1, 1500), seeker(2, 1550), seeker(3, 1560), seeker(4, 1900)]
    # 1500 could sit with 1550 (within 100), but 1550 and 1560 are nearer: they go first; 1500 and 1900 wait.
    assert ids(tables(people, 2, at(1))) == [{2, 3}]
    four = [seeker(1, 1500), seeker(2, 1590), seeker(3, 1600), seeker(4, 1620)]
    assert ids(tables(four, 2, at(1))) == [{2, 3}]  # 1620 is 20 from 1600 but 30 from 1590: 1500 can't reach it


def test_ratings_more_than_100_apart_wait_then_200_after_10_seconds_then_anyone_after_30() -> None:
    near, far, very_far = seeker(1, 1500), seeker(2, 1650), seeker(3, 2400, since=5)
    assert tables([near, far], 2, at(9.9)) == []
    assert ids(tables([near, far], 2, at(10))) == [{1, 2}]
    # The longer waiter's range counts: at 30 s the first will sit with anyone, even someone who just came.
    assert tables([near, very_far], 2, at(29.9)) == []
    assert ids(tables([near, very_far], 2, at(30))) == [{1, 3}]


def test_never_the_same_two_twice_in_a_row_while_a_third_waits() -> None:
    a, b = seeker(1, 1500, last=(2,)), seeker(2, 1505, last=(1,))
    assert ids(tables([a, b], 2, at(1))) == [{1, 2}]  # nobody else waits: they may play again
    c_far = seeker(3, 2000)
    assert tables([a, b, c_far], 2, at(1)) == []  # a third waits (too far yet): not the same two again
    made = tables([a, b, c_far], 2, at(31))  # once the third's range reaches them, one of them sits with it
    assert len(made) == 1 and 3 in ids(made)[0] and ids(made)[0] != {1, 2}
    c_near = seeker(3, 1510)
    assert ids(tables([a, b, c_near], 2, at(1))) == [{2, 3}]
    # One-sided memory is enough (the other played someone else since).
    assert tables([seeker(1, 1500, last=(2,)), seeker(2, 1500), seeker(3, 2000)], 2, at(1)) == []


def test_tables_of_three_take_the_tightest_group() -> None:
    people = [seeker(1, 1400), seeker(2, 1500), seeker(3, 1520), seeker(4, 1540), seeker(5, 1800)]
    assert ids(tables(people, 3, at(1))) == [{2, 3, 4}]
    assert tables(people[:2], 3, at(60)) == []  # two cannot fill a table of three


def test_everyone_is_at_one_table_at_most_and_ties_go_to_the_longest_waiting() -> None:
    rng = random.Random(7)
    people = [seeker(i, rng.uniform(1200, 1800), since=rng.uniform(0, 40)) for i in range(60)]
    for size in (2, 3, 4):
        made = tables(people, size, at(40))
        seated = [s.id for table in made for s in table]
        assert len(seated) == len(set(seated)) and all(len(table) == size for table in made)
    # Two equally near pairs: the one holding the longest waiter goes first (here both can be made).
    old, new = seeker(1, 1500, since=0), seeker(2, 1500, since=5)
    assert tables([seeker(3, 1500, since=6), new, old], 2, at(7))[0][0] == old
