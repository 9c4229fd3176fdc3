"""Words for people: the one function that names the seats in an engine's sentence, and the one that words a
match's result, for every page (the table, the replay, the history, the profile).

Engines write a seat as a token, {s0}, and in the third person ("{s0} wins", "{s1} plays again", "their"); said
to that seat's own viewer they read "You win", "you play again", "your".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..catalog import GAMES
from ..results import Outcome, Termination

# Third-person verbs of the engines' sentences, and their second-person forms; a game's own verbs are in its kit
# (Kit.log_verbs), and every game's are read together once (_verbs).
COMMON_VERBS: Mapping[str, str] = {
    "begins": "begin", "wins": "win", "plays": "play", "has": "have", "is": "are", "was": "were",
    "takes": "take", "passes": "pass", "gets": "get", "loses": "lose", "shares": "share", "needs": "need",
    "does": "do", "starts": "start", "leads": "lead", "must": "must", "may": "may", "can": "can",
    "cannot": "cannot", "deals": "deal", "skips": "skip", "uses": "use", "holds": "hold", "finishes": "finish",
    "ends": "end", "keeps": "keep", "goes": "go", "scores": "score", "draws": "draw", "discards": "discard",
}
_TOKEN = re.compile(r"\{s(\d)\}('s|&#x27;s)?")
_YOU = "\x00"


@cache
def _verbs() -> tuple[dict[str, str], re.Pattern[str]]:
    """Every verb (the common ones and each game's), and the viewer's token (marked \\x00) followed by one of
    them, directly or after "and" in the same sentence ("You played the K♣: turned the 5♥ face-down, and play
    again": a colon does not end the sentence, a full stop or a semicolon does)."""
    verbs = dict(COMMON_VERBS)
    for kit in GAMES.values():
        verbs.update(kit.log_verbs)
    return verbs, re.compile(r"(\x00(?:'s)?\s(?:[^.;]*?\band\s)?)(" + "|".join(verbs) + r")\b")


def distinct_names(names: list[str]) -> list[str]:
    """The seats' names with a number added to repeats (two Regular bots in one match), so the log is never
    ambiguous: "Columbo Regular (bot)", "Columbo Regular 2 (bot)"."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1 or not name:
            out.append(name)
        elif name.endswith(" (bot)"):
            out.append(f"{name[:-6]} {seen[name]} (bot)")
        else:
            out.append(f"{name} ({seen[name]})")
    return out


_NUMBERED = re.compile(r"^(?:(?P<bot>.+) \d+ \(bot\)|(?P<person>.+) \(\d+\))$", re.IGNORECASE)


def undistinct_name(name: str) -> str | None:
    """The name distinct_names numbered, without its number ("Ruhd Regular 2 (bot)" -> "Ruhd Regular (bot)",
    "Bob (2)" -> "Bob"), so a name copied from a history row finds its player; None for a name it never numbers."""
    found = _NUMBERED.match(name)
    if found is None:
        return None
    return f"{found['bot']} (bot)" if found["bot"] is not None else found["person"]


def name_seats(text: str, names: list[str], viewer: int | None, *, html: bool = False) -> str:
    """An engine sentence with its {sN} tokens as the players' names, and "you"/"your" (with the verbs agreeing)
    for the viewer's own seat. With `html`, the text is escaped and each name is a <strong> the table styles."""
    out = str(escape(text)) if html else text
    if viewer is not None:
        verbs, pattern = _verbs()
        out = pattern.sub(lambda m: m.group(1) + verbs[m.group(2)], out.replace(f"{{s{viewer}}}", _YOU))
        out = out.replace(_YOU, f"{{s{viewer}}}")
        if out.startswith(f"{{s{viewer}}}"):
            out = re.sub(r"\btheir\b", "your", out)

    def name(found: re.Match[str]) -> str:
        index = int(found.group(1))
        if index == viewer:
            word = "your" if found.group(2) else "you"
            sentence_start = found.start() == 0 or out[: found.start()].endswith((". ", ": "))
            word = word.capitalize() if sentence_start else word
            return f'<strong class="you">{word}</strong>' if html else word
        label = names[index] if index < len(names) else f"Seat {index + 1}"
        if html:
            return f'<strong class="seat-{index}">{escape(label)}</strong>{found.group(2) or ""}'
        return label + (found.group(2) or "")

    return _TOKEN.sub(name, out)


def told_of(text: str, seat: int) -> str:
    """A line an engine wrote to the seat that acted, in the second person ("You drew the 9♥", "You looked at your
    top-left card"; the engines' other lines name every seat by its token), told of that seat instead: "{s1} drew
    the 9♥", "{s1} looked at their top-left card" (a replay seen from another's seat names its player)."""
    if not text.startswith("You "):
        return text
    rest = re.sub(r"\byou\b", "they", re.sub(r"\byour\b", "their", text[4:]))
    return f"{{s{seat}}} {rest}"


def format_event(text: str, names: list[str], viewer: int | None) -> SafeString:
    """An engine log sentence as the table's log shows it (escaped HTML)."""
    return mark_safe(name_seats(text, names, viewer, html=True))


# The end of a sentence as the log writes it, before any closing tag: "… face-down.", "… <strong>you</strong>!".
_SENTENCE_END = re.compile(r"[.!?…](?:\s*</[a-z]+>)*\s*$")


def sentences(parts: list[SafeString]) -> SafeString:
    """Log entries told one after another (a replay's step): each a sentence ending with its full stop (the engines'
    entries may lack one), joined by a space: "… face-down. The deck …", never "… face-down.; The deck …"."""
    return mark_safe(" ".join(part if _SENTENCE_END.search(part) else part + "." for part in map(str.strip, parts)
                              if part))


def handover_events(handovers: tuple[dict[str, object], ...] | list[dict[str, object]]) -> list[tuple[int, str]]:
    """The record's own log lines: (the number of engine entries before it, the sentence with {sN})."""
    events = []
    for h in handovers:
        seat = h["seat"]
        why = "ran out of time" if h.get("why") == "time" else "left"
        events.append((int(h["log"]), f"{{s{seat}}} {why}; a bot plays their seat from move {h['move']}."))  # type: ignore[call-overload]
        if "until_log" in h:
            events.append((int(h["until_log"]), f"{{s{seat}}} took their seat back at move {h['until_move']}."))  # type: ignore[call-overload]
    return events


def _seat_list(seats: list[int]) -> str:
    tokens = [f"{{s{i}}}" for i in seats]
    return tokens[0] if len(tokens) == 1 else ", ".join(tokens[:-1]) + " and " + tokens[-1]


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _places_behind(outcome: Outcome) -> str:
    """The places behind the first at a table of three or more ("{s2} came 3rd."), from the places the outcome
    is decided by; a seat that resigned or left is said so instead."""
    named = {outcome.loser, *outcome.left}
    behind: dict[int, list[int]] = {}
    for seat, place in enumerate(outcome.places):
        if place != 1 and seat not in named:
            behind.setdefault(place, []).append(seat)
    return "".join(f" {_seat_list(seats)} came {ordinal(place)}." if len(seats) == 1
                   else f" {_seat_list(seats)} shared {ordinal(place)} place."
                   for place, seats in sorted(behind.items()))


def _tokens(outcome: Outcome, players: int, *, brief: bool = False) -> str:
    """A result as a sentence with the seats as {sN} tokens: who won and who ended it (resigned, left, ran out of
    time), whoever reads it. `brief` leaves out why a player who left loses (the history's rows)."""
    end, by, loser = outcome.termination, outcome.by, outcome.loser
    if end == Termination.CANCELLED:
        return "The match was cancelled before it started."
    if end == Termination.ABORTED:
        if outcome.why and outcome.absent is not None:
            what = "ran out of time" if outcome.why == "time" else "left"
            return (f"{{s{outcome.absent}}} {what} before their first move: the match is aborted and counts for "
                    "nothing.")
        if by is None:
            return "An administrator aborted the match: it counts for nothing."
        return f"The match was aborted by {{s{by}}} before everyone had moved: it counts for nothing."
    if players == 1 and outcome.scores and end == Termination.NORMAL:
        return f"{{s0}}'s solo score: {outcome.scores[0]:,}."
    firsts = outcome.firsts
    if outcome.everyone_drew:
        text = "A draw."
    elif not firsts:
        text = "Nobody won."
    elif len(firsts) == 1:
        text = f"{{s{firsts[0]}}} won."
    else:
        text = _seat_list(firsts) + " shared first place."
    if players > 2 and not brief:
        text += _places_behind(outcome)
    why = {Termination.RESIGN: "resigned", Termination.ABANDON: "left the match", Termination.TIME: "ran out of time",
           Termination.SUSPENDED: "was suspended"}
    if end in why and loser is not None:
        text += f" {{s{loser}}} {why[end]}."
    for index in outcome.left:
        if index != loser and index < players:
            text += f" {{s{index}}} left the table." if brief else (
                f" {{s{index}}} left the table: a loss, whatever the bot achieved.")
    return text


def describe_result(result: dict[str, Any] | None, names: list[str], seat: int | None, *, brief: bool = False,
                    ) -> str:
    """The result in a sentence, for this viewer ("You won.", "Alice won. You resigned."): the one wording of a
    result for every page (the table, its log's closing line, the replay, the history); names are the seats'
    players. Plain text."""
    outcome = Outcome.of(result, len(names))
    if outcome is None:
        return ""
    return name_seats(_tokens(outcome, len(names), brief=brief), names, seat)


def closing_line(result: dict[str, Any] | None, players: int) -> str | None:
    """The record's last line of a finished match's log, with {sN} tokens (the log names them): the result as the
    site keeps it, wherever the game's own last line does not say it all (a resignation, a time-out, a player who
    left, the places at a table of three or more); None when a game of two was played to its end by those who sat
    down (its own last line names the winner)."""
    outcome = Outcome.of(result, players)
    if outcome is None or players == 1 or (
            outcome.termination == Termination.NORMAL and not outcome.left and players == 2):
        return None
    return _tokens(outcome, players)
