"""The gomori_judge management command, run against the small protocol bot in gomori_protocol_bot.py."""

from __future__ import annotations

import io
import re
import shlex
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

BOT = Path(__file__).with_name("gomori_protocol_bot.py")


def bot(*flags: str) -> str:
    return shlex.join([sys.executable, str(BOT), *flags])


def judge(black: str, red: str, games: int = 2, seed: int = 1, **options: object) -> str:
    out = io.StringIO()
    call_command("gomori_judge", black=black, red=red, games=games, seed=seed, stdout=out, **options)
    return out.getvalue()


def tally(output: str, colour: str) -> tuple[int, int, int, int]:
    """(wins, draws, losses, illegal) of one colour from the summary."""
    match = re.search(rf"^{colour} .*?(\d+) wins, (\d+) draws, (\d+) losses, (\d+) illegal", output, re.M)
    assert match, output
    wins, draws, losses, illegal = (int(g) for g in match.groups())
    return wins, draws, losses, illegal


def test_two_legal_bots_play_every_game_without_illegal_moves() -> None:
    output = judge(bot(), bot(), games=4)
    assert "illegal move" not in output
    assert "4 games, seed 1" in output
    black, red = tally(output, "black"), tally(output, "red")
    assert sum(black[:3]) == sum(red[:3]) == 4
    assert black[0] == red[2] and black[2] == red[0] and black[1] == red[1]
    assert black[3] == red[3] == 0


def test_the_same_seed_gives_the_same_match() -> None:
    assert judge(bot(), bot(), games=3, seed=7) == judge(bot(), bot(), games=3, seed=7)


def test_an_illegal_turn_loses_the_game_and_is_reported() -> None:
    output = judge(bot(), bot("--mode", "illegal"), games=3)
    assert tally(output, "red") == (0, 0, 3, 3)
    assert tally(output, "black")[0] == 3
    lines = [line for line in output.splitlines() if "illegal move" in line]
    assert len(lines) == 3
    assert all(re.match(r"game \d \(seed \d+\): red \(.*--mode illegal\) loses by an illegal move: Play 1: "
                        r"You don't hold the .+\.", line) for line in lines)
    assert "    answer: [{\"card\"" in output


def test_ending_a_chain_too_early_is_illegal() -> None:
    output = judge(bot("--mode", "early"), bot(), games=3)
    assert "the player must play again" in output
    assert tally(output, "black")[3] >= 1


@pytest.mark.parametrize(("mode", "reason"), [
    ("crash", "the bot exited with code 3"),
    ("garbage", "The answer is not JSON"),
    ("slow", "did not answer within 1 s"),
])
def test_a_crashing_garbled_or_slow_bot_loses_and_is_restarted(mode: str, reason: str) -> None:
    output = judge(bot(), bot("--mode", mode), games=2, timeout=1.0)
    assert tally(output, "red") == (0, 0, 2, 2)
    assert output.count(reason) == 2  # restarted after the first game, it fails again in the second


def test_a_bot_that_misbehaves_later_still_plays_legally_first() -> None:
    output = judge(bot(), bot("--mode", "illegal", "--after", "4"), games=2)
    red = tally(output, "red")
    assert red[3] >= 1 and sum(red[:3]) == 2


def test_stop_on_first_illegal_move() -> None:
    output = judge(bot(), bot("--mode", "illegal"), games=5, stop_on_first_illegal_move=True)
    assert "1 games, seed 1" in output
    assert tally(output, "red") == (0, 0, 1, 1)


def test_bad_arguments() -> None:
    with pytest.raises(CommandError):
        judge(bot(), bot(), games=0)
    with pytest.raises(CommandError, match="Could not start the bot"):
        judge("/nonexistent/gomori-bot", bot(), games=1)
