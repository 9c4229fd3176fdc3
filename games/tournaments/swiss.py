"""Swiss pairing and tie-breaks: the rules of a Swiss tournament as plain functions.

Standard library only, like the engines: the services read the tournament's rows, hand plain values in here and
write back what comes out, so every rule below can be tested (and explained) without a database.

Points (decided in games.tournaments.points)
    At a table of two: a win 2, a draw 1, a loss 0. At a larger table, by place: sole first 2, shared first 1,
    last (and not first) 0, any place between 1. A bye is worth a win: 2 points.

Pairing a round (``pair_round``)
    1. Order the players by score (highest first), then rating at the start of the tournament (highest first),
       then id (lowest first). "Higher" and "lower" below mean earlier and later in this order.
    2. Byes and table sizes. Write the number of players as n = k × table_size + r (0 ≤ r < table_size).
       If r = 0 every table is full. If r ≥ min_table, there are k full tables and one smaller table of r players,
       the last (bottom) table. If 0 < r < min_table, r players get a bye: those with the fewest byes so far,
       and among them the lowest; so nobody has a second bye while someone still has none. A two-player Swiss
       (table_size 2, min_table 2) therefore gives one bye when the count is odd, to the lowest player among
       those with the fewest byes. If there are fewer than min_table players, all of them get a bye.
    3. Tables are formed from the top: the highest player not yet seated sits with the next highest players
       not yet seated whom nobody at the table has met. This is Monrad-style "top-down" pairing (1 v 2, 3 v 4
       within the order), simpler than the Dutch system's top half against bottom half, and it keeps players of
       equal score together because the order is by score first.
    4. When that greedy choice leads to a dead end (the players left can only be seated with a rematch),
       earlier choices are revised depth-first, latest first: a table takes the next candidates in order (for a
       table of more than two, the next combination in order), and so on up to the top table. The result is the
       first pairing in top-down order with no rematch at all, top-down order meaning: the top table's players
       compared first (higher players earlier), then the second table's, and so on.
    5. If every pairing has a rematch, the pairing with the fewest rematches is taken (a rematch counts once
       per pair of players at a table who have met before), again the first one in top-down order.
    6. The search is bounded (SEARCH_BUDGET candidates examined per round), so a large field pairs in
       milliseconds even when no rematch-free pairing exists; if the bound is reached, the pairing is made
       greedily instead: each seat goes to the highest player left who has met the fewest of those already at
       the table.
    Every table lists its players in order (the higher seed first), the tables run from the top table down,
    and the byes are listed in order too. The same input always gives the same round.

Tie-breaks (``tiebreaks``, ``standing_keys``, ``standing_order``)
    The standings are ordered by score, then Buchholz, then Sonneborn-Berger, then rating at the start, then id
    (the id only lists them: players equal on all the others share a place, games.tournaments.places).
    Buchholz: the sum of the final scores of everyone the player sat with, one term per table (a rematch counts
    twice; a bye adds nothing). Sonneborn-Berger, generalised to 2/1/0 points and to tables: for each table,
    (the points the player scored there / 2) × (the sum of the final scores of the others at that table); at a
    table of two this is the chess rule, the opponent's score in full for a win and half for a draw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# A win's points (games.tournaments.points): Sonneborn-Berger counts a win as 1 and a draw as 1/2.
_WIN = 2

# Candidates examined in one round's search before it gives up and pairs greedily. A round with no rematch
# to avoid examines about one candidate per player; spending all 20,000 took about 12 ms for 200 players.
SEARCH_BUDGET = 20_000


@dataclass(frozen=True)
class Entrant:
    """One player as the pairing sees them before a round."""

    id: int  # the person's id
    score: int  # points so far (byes included)
    rating: float  # their rating at the start of the tournament (seeding order after score)
    met: frozenset[int]  # ids of everyone they have played a counted table with in this tournament
    byes: int  # byes they have had


@dataclass(frozen=True)
class Round:
    """One round's pairing: who sits together, and who rests with a bye."""

    tables: list[list[int]]  # ids per table, each table in seeding order (the higher seed first)
    byes: list[int]  # ids given a bye this round


@dataclass(frozen=True)
class Game:
    """One table's result, as the tie-breaks read it."""

    points: dict[int, int]  # id -> points scored at this table (0, 1, 2)


# --- pairing ----------------------------------------------------------------------------------------------------


def pair_round(entrants: Sequence[Entrant], *, table_size: int = 2, min_table: int = 2) -> Round:
    """The next round's tables and byes, by the rule in this module's docstring."""
    _check(entrants, table_size, min_table)
    ordered = sorted(entrants, key=_seed_key)
    byes = _byes(ordered, table_size, min_table)
    playing = [entrant for entrant in ordered if entrant.id not in byes]
    sizes = _table_sizes(len(playing), table_size)
    met = _met_masks(playing)
    seating = _seat(met, sizes)
    tables = [[playing[position].id for position in table] for table in _split(seating, sizes)]
    return Round(tables=tables, byes=[entrant.id for entrant in ordered if entrant.id in byes])


def _check(entrants: Sequence[Entrant], table_size: int, min_table: int) -> None:
    """Refuse arguments the rule has no answer for, rather than pair them somehow."""
    if table_size < 2:
        raise ValueError(f"table_size must be at least 2, not {table_size}")
    if not 2 <= min_table <= table_size:
        raise ValueError(f"min_table must be between 2 and table_size ({table_size}), not {min_table}")
    ids = [entrant.id for entrant in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("an entrant appears twice")


def _seed_key(entrant: Entrant) -> tuple[int, float, int]:
    """Score, then rating, both highest first, then the lowest id: the order every rule of the pairing reads."""
    return (-entrant.score, -entrant.rating, entrant.id)


def _byes(ordered: Sequence[Entrant], table_size: int, min_table: int) -> set[int]:
    """The ids that rest this round: the remainder too small for a table, the fewest byes first, lowest first."""
    resting = len(ordered) if len(ordered) < min_table else len(ordered) % table_size
    if resting >= min_table:
        return set()  # they make the smaller table instead
    # Lowest first among the fewest byes: walk the order from the bottom, stable-sorted by byes.
    bottom_up = sorted(reversed(ordered), key=lambda entrant: entrant.byes)
    return {entrant.id for entrant in bottom_up[:resting]}


def _table_sizes(players: int, table_size: int) -> list[int]:
    """Full tables from the top, and the smaller remainder table (if any) at the bottom."""
    full, remainder = divmod(players, table_size)
    return [table_size] * full + ([remainder] if remainder else [])


def _met_masks(playing: Sequence[Entrant]) -> list[int]:
    """Who has met whom, by position in the order, as bit masks: a table's rematches are one AND and a count."""
    position = {entrant.id: index for index, entrant in enumerate(playing)}
    masks = [0] * len(playing)
    for index, entrant in enumerate(playing):
        for other in entrant.met:
            other_index = position.get(other)
            if other_index is not None and other_index != index:
                # Both directions: one side's record is enough to count the meeting.
                masks[index] |= 1 << other_index
                masks[other_index] |= 1 << index
    return masks


def _split(seating: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    """Seat positions cut into tables, each table sorted so the higher seed comes first."""
    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(sorted(seating[start : start + size]))
        start += size
    return tables


def _seat(met: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """Positions in seating order: greedy when that has no rematch (the common case, about one look per player),
    otherwise the first pairing in top-down order with the fewest rematches, found within the search budget."""
    greedy, rematches = _greedy(met, sizes)
    if rematches == 0:
        return greedy
    budget = _Budget(SEARCH_BUDGET)
    for allowed in range(rematches + 1):
        found = _search(met, sizes, allowed, budget)
        if found is not None:
            return found
        if budget.spent:
            break
    return greedy


def _rematches(met_mask: int, table_mask: int) -> int:
    """How many of the players already at a table this player has met."""
    return (met_mask & table_mask).bit_count()


def _greedy(met: Sequence[int], sizes: Sequence[int]) -> tuple[list[int], int]:
    """Each table from the top: the highest free player, then at each seat the highest free player who has met
    the fewest of those already seated. Returns the seating and its rematch count."""
    free = list(range(len(met)))
    seating: list[int] = []
    total = 0
    for size in sizes:
        table_mask = 0
        for seat in range(size):
            if seat == 0:
                pick = 0
            else:
                pick, cost = _fewest_met(met, free, table_mask)
                total += cost
            position = free.pop(pick)
            table_mask |= 1 << position
            seating.append(position)
    return seating, total


def _fewest_met(met: Sequence[int], free: Sequence[int], table_mask: int) -> tuple[int, int]:
    """The index in free of the highest player who has met the fewest at the table, and that number."""
    best_index, best_cost = 0, len(met) + 1
    for index, position in enumerate(free):
        cost = _rematches(met[position], table_mask)
        if cost < best_cost:
            best_index, best_cost = index, cost
            if cost == 0:
                break
    return best_index, best_cost


class _Budget:
    """Candidates the search may still examine this round, shared by all its passes."""

    def __init__(self, left: int) -> None:
        self.left = left

    @property
    def spent(self) -> bool:
        return self.left <= 0

    def take(self) -> bool:
        """Use one look; False once none are left."""
        self.left -= 1
        return self.left >= 0


def _search(met: Sequence[int], sizes: Sequence[int], allowed: int, budget: _Budget) -> list[int] | None:
    """The first seating in top-down order with at most `allowed` rematches, or None (none, or budget spent).

    Depth-first over seats, kept iterative so a large field cannot hit Python's recursion limit. The first seat
    of a table is always the highest free player; each further seat takes, in order, a free player below the
    previous one at that table (so a table's players are a combination, tried in lexicographic order).
    """
    count = len(met)
    first_seat, room_after = _seat_shape(sizes)
    free = [True] * count
    seating: list[int] = []
    cursor = [0] * count  # next position to look at, per seat (seat 0: the top player, position 0)
    last = [0] * count  # last position a seat may take (the forced one for a first seat)
    cost_before = [0] * (count + 1)
    mask_before = [0] * count  # the seat's table as it stands before this seat
    seat = 0
    while seat < count:
        candidate = _next_candidate(
            met, free, cursor[seat], last[seat], mask_before[seat], allowed - cost_before[seat], budget
        )
        if candidate is None:
            if seat == 0 or budget.spent:
                return None
            seat -= 1
            free[seating.pop()] = True
            continue
        cursor[seat] = candidate + 1
        free[candidate] = False
        seating.append(candidate)
        cost = cost_before[seat] + _rematches(met[candidate], mask_before[seat])
        seat += 1
        if seat == count:
            break
        cost_before[seat] = cost
        if first_seat[seat]:
            top = free.index(True)
            cursor[seat] = last[seat] = top
            mask_before[seat] = 0
        else:
            cursor[seat] = candidate + 1
            last[seat] = count - 1 - room_after[seat]
            mask_before[seat] = mask_before[seat - 1] | 1 << candidate
    return seating


def _seat_shape(sizes: Iterable[int]) -> tuple[list[bool], list[int]]:
    """Per seat: whether it opens its table, and how many seats of its table come after it."""
    first_seat: list[bool] = []
    room_after: list[int] = []
    for size in sizes:
        for seat in range(size):
            first_seat.append(seat == 0)
            room_after.append(size - 1 - seat)
    return first_seat, room_after


def _next_candidate(
    met: Sequence[int], free: Sequence[bool], start: int, stop: int, table_mask: int, allowance: int, budget: _Budget
) -> int | None:
    """The first free position from start to stop (inclusive) that adds at most `allowance` rematches."""
    for position in range(start, stop + 1):
        if not budget.take():
            return None
        if free[position] and _rematches(met[position], table_mask) <= allowance:
            return position
    return None


# --- tie-breaks -------------------------------------------------------------------------------------------------


def tiebreaks(scores: Mapping[int, int], games: Sequence[Game]) -> dict[int, tuple[float, float]]:
    """(Buchholz, Sonneborn-Berger) per id, from the final scores and every table played (byes are not tables).

    Every player at a table must be in scores: a withdrawn player's final score still counts for their opponents.
    """
    buchholz = dict.fromkeys(scores, 0.0)
    berger = dict.fromkeys(scores, 0.0)
    for game in games:
        for person, points in game.points.items():
            others = sum(scores[other] for other in game.points if other != person)
            buchholz[person] += others
            berger[person] += points / _WIN * others
    return {person: (buchholz[person], berger[person]) for person in scores}


def standing_keys(scores: Mapping[int, int], games: Sequence[Game], ratings: Mapping[int, float],
                  ) -> dict[int, tuple[int, float, float, float]]:
    """Per id, what the standings compare: score, Buchholz, Sonneborn-Berger, rating at the start (the larger
    first, so each is negated). Two ids with equal keys share a place (games.tournaments.places)."""
    breaks = tiebreaks(scores, games)
    return {person: (-scores[person], -breaks[person][0], -breaks[person][1], -ratings[person]) for person in scores}


def standing_order(scores: Mapping[int, int], games: Sequence[Game], ratings: Mapping[int, float]) -> list[int]:
    """The ids of scores from first to last: score, Buchholz, Sonneborn-Berger, rating at the start, then id."""
    keys = standing_keys(scores, games, ratings)
    return sorted(scores, key=lambda person: (keys[person], person))
