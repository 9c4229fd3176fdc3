"""Play Gomori between two external "Computer Gomori" bots on our engine, like the reference Rust judge.

    python manage.py gomori_judge --black "python my_bot.py" --red "./other_bot" -n 100 --seed 1

Each bot is one long-running process speaking newline-delimited JSON on stdin/stdout (see
games/engines/gomori_protocol.py); its stderr passes through. A bot that answers with a malformed or illegal
turn, times out or crashes loses that game; a bot that timed out, crashed or wrote unreadable output is
restarted for the next game.
"""

from __future__ import annotations

import queue
import random
import shlex
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engines.base import IllegalAction
from games.engines.gomori import ENGINE
from games.engines.gomori_protocol import (
    BYE,
    COLOR_NAMES,
    ProtocolError,
    ProtocolSeat,
    check_okay,
    decode,
    encode,
    play_answer,
)

STARTUP_GRACE = 10.0  # seconds the first answer of a freshly started bot may take (interpreters, JITs)


class BotFailure(Exception):
    """The bot process timed out, exited or could not be started; it has to be restarted."""


class BotProcess:
    """One external bot: a subprocess fed one request per line, read with a per-message timeout."""

    def __init__(self, command: str, timeout: float) -> None:
        self.command = command
        self.timeout = timeout
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.last_line = ""
        self.fresh = True

    def start(self) -> None:
        """Spawn the process (shlex-split command line) and a thread that forwards its output lines."""
        try:
            self.proc = subprocess.Popen(
                shlex.split(self.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1,
            )
        except (OSError, ValueError) as error:
            raise CommandError(f"Could not start the bot {self.command!r}: {error}") from None
        self.lines = queue.Queue()
        self.fresh = True
        threading.Thread(target=self._pump, args=(self.proc, self.lines), daemon=True).start()

    @staticmethod
    def _pump(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def ask(self, message: dict[str, Any]) -> Any:
        """Send one request and read one answer line as JSON (ProtocolError if it is not JSON)."""
        if self.proc is None or self.proc.poll() is not None:
            raise BotFailure("the bot is not running")
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(encode(message))
            self.proc.stdin.flush()
        except OSError:
            raise BotFailure("the bot exited (it stopped reading its input)") from None
        timeout = max(self.timeout, STARTUP_GRACE) if self.fresh else self.timeout
        self.fresh = False
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise BotFailure(f"the bot did not answer within {timeout:g} s") from None
        if line is None:
            raise BotFailure(f"the bot exited with code {self.proc.wait()}")
        self.last_line = line.strip()
        return decode(line)

    def stop(self, polite: bool = True) -> None:
        """Say Bye (when polite) and make sure the process is gone."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if polite and proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(encode(BYE))
                proc.stdin.flush()
            except OSError:
                pass
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=1 if polite else 0.1)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def restart(self) -> None:
        self.stop(polite=False)
        self.start()


@dataclass
class Outcome:
    """One game's end: the winning seat (None for a draw), the scores, and the illegal move if any."""

    seed: int
    winner: int | None
    scores: list[int]
    offender: int | None = None
    reason: str = ""
    answer: str = ""


@dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    illegal: int = 0
    points: list[int] = field(default_factory=list)


def play_game(bots: list[BotProcess], seed: int) -> Outcome:
    """One game on our engine: black (seat 0) against red (seat 1)."""
    state = ENGINE.new_game(2, seed=seed)
    seats = [ProtocolSeat(0), ProtocolSeat(1)]
    seat = 0
    for bot in bots:
        bot.last_line = ""
    try:
        for seat in (0, 1):
            answer = bots[seat].ask(seats[seat].new_game())
            check_okay(answer)
        while not ENGINE.is_over(state):
            seat = ENGINE.to_act(state)[0]
            request = seats[seat].request(ENGINE.view(state, seat))
            bots[seat].last_line = ""
            answer = bots[seat].ask(request)
            state, _ = play_answer(state, seat, request, answer)
    except (IllegalAction, BotFailure) as error:
        shown = _short(bots[seat].last_line)
        if isinstance(error, (ProtocolError, BotFailure)):
            bots[seat].restart()  # its output may be out of step with our requests
        return Outcome(seed, 1 - seat, ENGINE.scores(state), seat, str(error), shown)
    result = ENGINE.result(state)
    return Outcome(seed, None if result["draw"] else result["winners"][0], result["scores"])


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of every game, derived from --seed alone."""
    return [random.Random(f"gomori-judge:{seed}:{n}").getrandbits(31) for n in range(games)]


class Command(BaseCommand):
    help = "Play Gomori games between two external bots speaking the Computer Gomori JSON protocol."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--black", required=True, help="command line of the bot playing black (seat 0)")
        parser.add_argument("--red", required=True, help="command line of the bot playing red (seat 1)")
        parser.add_argument("-n", "--games", type=int, default=100, help="number of games (default 100)")
        parser.add_argument("--seed", type=int, default=0, help="seed from which every game's seed is derived")
        parser.add_argument("--timeout", type=float, default=5.0,
                            help=f"seconds a bot may take per message (its very first answer: at least "
                                 f"{STARTUP_GRACE:g})")
        parser.add_argument("--stop-on-first-illegal-move", action="store_true",
                            help="stop the match at the first illegal move")

    def handle(self, *args: Any, **options: Any) -> None:
        games: int = options["games"]
        if games < 1:
            raise CommandError("--games must be at least 1.")
        if options["timeout"] <= 0:
            raise CommandError("--timeout must be positive.")
        commands = [options["black"], options["red"]]
        bots = [BotProcess(command, options["timeout"]) for command in commands]
        tallies = [Tally(), Tally()]
        played = 0
        try:
            for bot in bots:
                bot.start()
            for n, seed in enumerate(game_seeds(options["seed"], games), 1):
                outcome = play_game(bots, seed)
                played += 1
                for seat, tally in enumerate(tallies):
                    tally.points.append(outcome.scores[seat])
                    if outcome.winner is None:
                        tally.draws += 1
                    elif outcome.winner == seat:
                        tally.wins += 1
                    else:
                        tally.losses += 1
                if outcome.offender is not None:
                    tallies[outcome.offender].illegal += 1
                    line = (f"game {n} (seed {outcome.seed}): {COLOR_NAMES[outcome.offender]} "
                            f"({commands[outcome.offender]}) loses by an illegal move: {outcome.reason}")
                    if outcome.answer:
                        line += f"\n    answer: {outcome.answer}"
                    self.stdout.write(line)
                    if options["stop_on_first_illegal_move"]:
                        break
        finally:
            for bot in bots:
                bot.stop()
        self.stdout.write(f"{played} games, seed {options['seed']}")
        width = max(len(c) for c in commands)
        for seat, tally in enumerate(tallies):
            average = sum(tally.points) / len(tally.points) if tally.points else 0.0
            self.stdout.write(
                f"{COLOR_NAMES[seat]:5} {commands[seat]:{width}}  {tally.wins} wins, {tally.draws} draws, "
                f"{tally.losses} losses, {tally.illegal} illegal; {average:.1f} cards gathered per game"
            )
