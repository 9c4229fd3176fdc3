"""Point 9 of the seams issue: words, not engine notation, in every log line and replay step. A Ruhd and a Gomori
match are played to their end through the services; the table's log, every step of the replay (as each seat and
as a spectator) say places and tiles a person can find on the board, and each step says who did what."""

from __future__ import annotations

import html
import random
import re

import pytest
from factories import client_for, make_user
from history_helpers import play_random, start_match

pytestmark = pytest.mark.django_db

# What the engines write and a person should never read: board coordinates, tile codes, rotations by number.
NOTATION = re.compile(r"\[\s*-?\d+\s*,\s*-?\d+\s*\]|\bT\d{1,3}\b|rotation \d|\{s\d\}")


def text_of(page: str, element_id: str) -> str:
    """The text of the element with this id (its tags dropped)."""
    start = page.index(f'id="{element_id}"')
    chunk = page[start:]
    depth, end = 0, 0
    for tag in re.finditer(r"<(/?)(section|div|ol)\b[^>]*>", chunk):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            end = tag.end()
            break
    return html.unescape(re.sub(r"<[^>]+>", " ", chunk[:end or len(chunk)]))


@pytest.mark.parametrize("game", ["ruhd", "gomori"])
def test_logs_and_replay_steps_speak_words(game: str) -> None:
    alice, bob = make_user("alice", display_name="Alice"), make_user("bob", display_name="Bob")
    match = play_random(start_match(game, [alice, bob], seed=11), [alice, bob], random.Random(11))
    total = match.move_count
    for viewer in (alice, bob, None):
        log = text_of(client_for(viewer).get(f"/m/{match.pk}/").content.decode(), "log")
        assert not NOTATION.search(log), NOTATION.search(log)
    steps = sorted({1, 2, 3, total // 2, total - 1, total})
    for viewer, seat in ((alice, "0"), (bob, "1"), (None, "")):
        for number in steps:
            page = client_for(viewer).get(f"/m/{match.pk}/replay/", {"move": number, "seat": seat}).content.decode()
            found = re.search(r'<section class="status replay-status".*?</section>', page, re.S)
            assert found is not None
            said = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(0))).split())
            assert f"Move {number} of {total}:" in said
            assert not NOTATION.search(said), (number, said)
            # Each step names who did it and what they did (a verb after the name), in person for the viewer.
            assert re.search(r"(Alice|Bob|You) (played|drew|placed|took|turned|gathered|passed|scored|laid|"
                             r"covered|put|moved|flipped|discarded)", said), said
