"""A tournament's places, pure: who has one, which are shared, and how a place is written.

The standings list every entrant in the tournament's order (games.tournaments.services.scoring.ordered). A place
goes to whoever has a result on their sheet, a counted game or a Swiss bye; an entrant with none (who never
played, or whose only matches were aborted or annulled) has no place and stands below everyone who has one.
Places are numbered in that order, and entrants equal on every tie-break of the order share a place: the best of
theirs, the next one skipping as many as share it (1, =2, =2, 4). The order's last keys (who joined first, the
id) only list them, they separate nobody. One style everywhere: "=2" on the standings, the player's box and the
profile, "=2nd" on the podium.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from ..play.wording import ordinal

PODIUM = 3  # the places that stand on the podium


@dataclass(frozen=True)
class Place:
    """An entrant's place (None: no result, no place) and whether someone else has the same one."""

    number: int | None
    shared: bool = False

    @property
    def label(self) -> str:
        """"2", "=2", or "" for no place."""
        if self.number is None:
            return ""
        return f"={self.number}" if self.shared else str(self.number)

    @property
    def ordinal(self) -> str:
        """"2nd", "=2nd", or "" for no place (the podium's words)."""
        if self.number is None:
            return ""
        return f"={ordinal(self.number)}" if self.shared else ordinal(self.number)

    @property
    def on_podium(self) -> bool:
        return self.number is not None and self.number <= PODIUM


NO_PLACE = Place(None)


def assign_places(keys: Sequence[Hashable | None]) -> list[Place]:
    """Each entrant's place from their tie-break keys, listed in the standings' order (equal keys side by side);
    None for an entrant without a result. Raises on a placed entrant listed after one without a place, or on a
    tie that the order did not keep together: either would write two different places for one standing."""
    counts = Counter(key for key in keys if key is not None)
    found: list[Place] = []
    seen: set[Hashable] = set()
    previous: Hashable | None = None
    for index, key in enumerate(keys):
        if key is None:
            found.append(Place(None))
            continue
        if index and found[-1].number is None:
            raise ValueError("an entrant with a result is listed after one without")
        if index and key == previous:
            found.append(Place(found[-1].number, True))
        else:
            if key in seen:
                raise ValueError("equal standings are not listed together")
            found.append(Place(index + 1, counts[key] > 1))
        seen.add(key)
        previous = key
    return found


def shared_places(numbers: Sequence[int | None]) -> set[int]:
    """The stored places of one tournament that more than one entrant holds (to write "=2" from stored places)."""
    return {number for number, count in Counter(numbers).items() if number is not None and count > 1}
