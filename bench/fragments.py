#!/usr/bin/env python3
"""The live table's fragments: time to draw each, and the HTML drawn, for fixed positions of every game.

    .venv/bin/python bench/fragments.py [--root TREE] --out run.json          # time and record one tree
    .venv/bin/python bench/fragments.py --compare old.json new.json            # the table, and HTML compared

--root draws with another checkout of the project (an older commit unpacked with `git archive`), so two
ways of drawing can be timed on the same positions. Each fragment is drawn 1,000 times for a mid-game
position of each game, for a seat and for a spectator; "move" is what a Gomori move costs both players'
pages (SocketPage.update: table context, then players, status, board, hand and the new log entry).
The record also holds the HTML of many more positions, selections and match states (--no-html skips
them), which --compare checks are the same page once parsed: same elements, attributes and text.
Time with DJANGO_DEBUG=false, as the site is served: in debug, Jinja2 looks at each template's file for
changes every time it is used.
"""

from __future__ import annotations

import argparse
import html.parser
import json
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

PLAYERS = {"gomori": 2, "columbo": 3, "ruhd": 3, "rummy": 2}  # the timed positions
# The positions whose HTML is recorded: every game, and Columbo solo, Ruhd for two and four.
TABLES = (("gomori", 2), ("columbo", 3), ("columbo", 1), ("ruhd", 2), ("ruhd", 3), ("ruhd", 4), ("rummy", 2))
NAMES = ["Alice", "Bob <b>&'\"", "Chloé", "Dan"]
FRAGMENTS = ("players", "status", "error", "board", "hand", "log", "log_entries")
# An away player's claim deadline: still running (an hour ahead: a slow run never passes it), and passed.
AWAY_UNTIL = datetime.now(UTC) + timedelta(seconds=3600.5)
AWAY_SINCE = datetime.now(UTC) - timedelta(seconds=1)


def setup(root: Path) -> None:
    sys.path.insert(0, str(root))
    os.chdir(root)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def as_meta(meta: dict[str, Any]) -> Any:
    """A TableMeta from meta_for's dict (the positions below edit the dict first)."""
    from games.play.meta import PlayerLine, TableMeta

    return TableMeta(**{**meta, "players": tuple(PlayerLine(**p) for p in meta["players"]),
                        "rematch_votes": tuple(meta["rematch_votes"]), "handovers": tuple(meta["handovers"])})


def meta_for(game: str, players: int, status: str = "active", **extra: Any) -> dict[str, Any]:
    """What games.play.meta.table_meta makes of a match (as a dict: as_meta makes it one), without a database."""
    from games.catalog import GAMES

    return {
        "id": 42,
        "game": game,
        "game_name": GAMES[game].name,
        "status": status,
        "version": 17,
        "players": [
            {
                "index": i, "name": NAMES[i], "username": f"user{i}", "avatar": f"/media/a{i}.png?v=1&s=40",
                "profile_url": f"/u/user{i}/", "is_bot": i == 2, "program": False, "left": False, "bot_name": "",
                "clock": None, "due_at": None, "opening": False,
                "clock_text": "",
                "user_id": i + 1, "open": False,
                "invite_only": False, "present": True, "claim_at": None, "score": None, "place": None,
                "reasons": ["it <scores> 'most'"] if i == 2 else [],
            }
            for i in range(players)
        ],
        "result": None,
        "is_public": True,
        "rated": True,
        "rematch_votes": [],
        "rematch_url": "",
        "rematch_declined": None,
        "abort_allowed": False,
        "handovers": [],
        "watchers": 0,
        "created_by_id": 1,
        "cancellers": (0,) if status == "waiting" else (),
        "invite_code": "",
        "clock": {},
        "turn_age": None,
        "url": "/m/42/",
        "elapsed": 33 if status == "active" else None,
        **extra,
    }


def game_states(game: str, seed: int, players: int | None = None, prefer: tuple[str, ...] = (),
                avoid: tuple[str, ...] = ()) -> tuple[Any, list[Any]]:
    """The engine and every state of a random game (playing the `prefer` kinds of action when it can, and
    the `avoid` kinds only when nothing else is legal)."""
    from games.engines import get_engine

    engine = get_engine(game)
    rng = random.Random(seed)
    state = engine.new_game(players or PLAYERS[game], seed=seed)
    seen = [state]
    while not engine.is_over(state) and len(seen) < 3000:
        seat = rng.choice(engine.to_act(state))
        legal = engine.legal_actions(state, seat)
        if legal:
            liked = [a for a in legal if a.get("type") in prefer]
            allowed = [a for a in legal if a.get("type") not in avoid] or legal
            state = engine.apply(state, seat, rng.choice(liked or allowed))
            seen.append(state)
    return engine, seen


def play(game: str, seed: int, fraction: float, players: int | None = None) -> tuple[Any, Any]:
    """The engine and a state `fraction` of the way through a random game."""
    engine, seen = game_states(game, seed, players)
    return engine, seen[min(len(seen) - 1, int(len(seen) * fraction))]


# Rarer moments, found by the acting seat's legal actions: Columbo's card actions, Rummy's lay-downs.
SPECIAL = {"columbo": {"look", "exchange", "skip"}, "rummy": {"meld"}}


def special_states(game: str, seed: int, players: int, limit: int = 4) -> list[tuple[Any, int, list[Any]]]:
    if game == "columbo":
        engine, seen = game_states(game, seed, players, prefer=("discard", "look", "exchange"), avoid=("tap", "slap"))
    else:
        engine, seen = game_states(game, seed, players)
    found = []
    for state in seen:
        if engine.is_over(state):
            continue
        seat = mover(engine, state)
        legal = [a for a in engine.legal_actions(state, seat) if a.get("type") in SPECIAL.get(game, ())]
        if legal:
            found.append((state, seat, legal))
            if len(found) == limit:
                break
    return found


def mover(engine: Any, state: Any) -> int:
    acting = engine.to_act(state)
    return acting[0] if acting else 0


def per_render(draw: Any, count: int, repeats: int) -> float:
    """Microseconds per call, the best of `repeats` runs of `count` calls."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(count):
            draw()
        best = min(best, (time.perf_counter() - start) / count)
    return best * 1e6


def timings(count: int, repeats: int) -> dict[str, float]:
    from games.play.display import FragmentCache, SocketPage, log_count, page_view, render_fragment, table_context

    out: dict[str, float] = {}
    for game in PLAYERS:
        engine, state = play(game, seed=7, fraction=0.5)
        meta = as_meta(meta_for(game, PLAYERS[game]))
        seat = mover(engine, state)
        for who, viewer in (("seat", seat), ("spectator", None)):
            view = page_view(engine.view(state, viewer))
            context = table_context(meta, view, viewer, {}, log_from=log_count(view) - 1)
            out[f"{game} {who} context"] = per_render(lambda v=view, s=viewer, m=meta: table_context(m, v, s, {}),
                                                      count, repeats)
            for name in FRAGMENTS:
                out[f"{game} {who} {name}"] = per_render(lambda n=name, c=context: render_fragment(n, c),
                                                         count, repeats)
    # A Gomori move as both players' sockets get it: every fragment but the error slot, the board drawn once.
    engine, state = play("gomori", seed=7, fraction=0.5)
    meta = as_meta(meta_for("gomori", 2))
    views = {s: page_view(engine.view(state, s)) for s in (0, 1)}

    def move() -> None:
        cache = FragmentCache()
        for s, view in views.items():
            page = SocketPage()
            page.log_shown, page.log_names = log_count(view) - 1, [*meta.names, meta.drawn_from("log")]
            page.update(meta, view, s, {}, fragments=("players", "status", "board", "hand", "log"), cache=cache)

    out["gomori move"] = per_render(move, count, repeats)
    # The same drawing alone: each seat's players, status, hand and new log entry, and the shared board once.
    contexts = {s: table_context(meta, view, s, {}, log_from=log_count(view) - 1) for s, view in views.items()}

    def move_fragments() -> None:
        for s, context in contexts.items():
            for name in ("players", "status", "board", "hand", "log_entries") if s == 0 else (
                    "players", "status", "hand", "log_entries"):
                render_fragment(name, context)

    out["gomori move, fragments only"] = per_render(move_fragments, count, repeats)
    return out


def ui_choices(html_text: str, limit: int = 6) -> list[dict[str, Any]]:
    """The selections the page's own controls would make (their hx-vals with a "ui"), in order."""
    import re
    from html import unescape

    found: list[dict[str, Any]] = []
    for raw in re.findall(r'hx-vals="([^"]*)"', html_text):
        try:
            values = json.loads(unescape(raw))
        except ValueError:
            continue
        if isinstance(values, dict) and isinstance(values.get("ui"), dict) and values["ui"] not in found:
            found.append(values["ui"])
    return found[:limit]


def table_part(part: str, context: dict[str, Any]) -> str:
    from games.play.display import render_fragment

    if "table_template" in context:
        return render_fragment(f"table_{part}", context)
    from django.template.loader import render_to_string  # the Django templates' partials, before the port

    return render_to_string(context[f"{part}_template"], context)


def pages() -> dict[str, str]:
    """The HTML of every fragment for many positions, viewers, selections and match states."""
    from games.catalog import GAMES
    from games.play.display import error_fragment, log_count, page_view, render_fragment, table_context

    out: dict[str, str] = {}

    def draw(label: str, raw_meta: dict[str, Any], view: Any, viewer: int | None, ui: dict[str, Any]) -> str:
        meta = as_meta(raw_meta)
        context = table_context(meta, view, viewer, ui, error="It's <b>not</b> yours")
        drawn = ""
        for name in FRAGMENTS:
            if name == "log_entries":
                context = table_context(meta, view, viewer, ui, log_from=max(0, log_count(view) - 2))
            out[f"{label} {name}"] = html_text = render_fragment(name, context)
            drawn += html_text
        if view is not None:  # the board and hand alone, as the replay shows them
            for part in ("board", "hand"):
                out[f"{label} {part} alone"] = table_part(part, context)
        return drawn

    for game, players in TABLES:
        for seed in (1, 2, 3):
            for fraction in [n / 20 for n in range(21)]:
                engine, state = play(game, seed, fraction, players)
                over = engine.is_over(state)
                extra: dict[str, Any] = {}
                if over:
                    result = engine.result(state)
                    extra = {"result": result, "rematch_votes": [1], "rematch_url": "" if seed != 2 else "/m/43/"}
                meta = meta_for(game, players, "finished" if over else "active", **extra)
                if over:
                    for p, score in zip(meta["players"], result.get("scores") or [], strict=False):
                        p["score"] = score
                elif seed == 3:
                    meta["players"][-1].update(present=False, claim_at=AWAY_UNTIL if fraction < 0.5 else AWAY_SINCE)
                    meta["elapsed"] = 100_000  # Columbo solo: the time bonus is over
                for viewer in [*range(players), None]:
                    view = page_view(engine.view(state, viewer))
                    label = f"{game}{players} s{seed} f{fraction} v{viewer}"
                    drawn = draw(label, meta, view, viewer, {})
                    if viewer is None or over:
                        continue
                    for n, raw in enumerate(ui_choices(drawn)):
                        draw(f"{label} ui{n}", meta, view, viewer, GAMES[game].presenter.clean_ui(view, viewer, raw))
                    # A walk through the selections, each step a click on one of the page's own controls.
                    rng = random.Random(label)
                    for n in range(12):
                        choices = ui_choices(drawn, 100)
                        if not choices:
                            break
                        ui = GAMES[game].presenter.clean_ui(view, viewer, rng.choice(choices))
                        drawn = draw(f"{label} walk{n}", meta, view, viewer, ui)
        for seed in (1, 2, 3) if game in SPECIAL else ():
            engine, _ = game_states(game, seed, players)
            meta = meta_for(game, players)
            for n, (state, seat, legal) in enumerate(special_states(game, seed, players)):
                view = page_view(engine.view(state, seat))
                label = f"{game}{players} s{seed} special{n} v{seat}"
                drawn = draw(label, meta, view, seat, {})
                uis = [GAMES[game].presenter.clean_ui(view, seat, raw) for raw in ui_choices(drawn, 100)]
                for action in legal[:3] if game == "rummy" else ():
                    # A lay-down built but for its last pack, which is selected; and the whole lay-down built.
                    *built, last = action["packs"]
                    rest = list(view["hand"])
                    for code in last:
                        rest.remove(code)
                    uis.append({"building": built, "order": [*last, *rest], "selected": list(range(len(last)))})
                    uis.append({"building": action["packs"]})
                for m, raw in enumerate(uis):
                    ui = GAMES[game].presenter.clean_ui(view, seat, raw)
                    sub = draw(f"{label} ui{m}", meta, view, seat, ui)
                    for k, deeper in enumerate(ui_choices(sub, 4)):
                        draw(f"{label} ui{m}.{k}", meta, view, seat, GAMES[game].presenter.clean_ui(view, seat, deeper))
    for game in PLAYERS:
        for status in ("waiting", "aborted"):
            meta = meta_for(game, PLAYERS[game], status)
            meta["players"][-1].update(open=True, name="", avatar="", profile_url="", invite_only=status == "waiting")
            if status == "aborted":
                meta["result"] = {"reason": "cancelled", "winners": []}
            for viewer in (0, None):
                context = table_context(as_meta(meta), None, viewer)
                for name in ("players", "status", "board", "hand", "log"):
                    out[f"{game} {status} v{viewer} {name}"] = render_fragment(name, context)
    out["error"] = error_fragment("Spectators can't <play> & \"watch\"")
    out["no error"] = error_fragment("")
    return out


class Tokens(html.parser.HTMLParser):
    """An HTML text as a list of (start tag, attributes sorted) / end tag / text with its spaces squeezed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tokens: list[Any] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tokens.append(("<", tag, sorted(attrs, key=lambda a: a[0])))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.tokens.append(("/", tag))

    def handle_endtag(self, tag: str) -> None:
        self.tokens.append(("/", tag))

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text:
            if self.tokens and self.tokens[-1][0] == "t":
                self.tokens[-1] = ("t", self.tokens[-1][1] + " " + text)
            else:
                self.tokens.append(("t", text))


def tokens(text: str) -> list[Any]:
    parser = Tokens()
    parser.feed(text)
    parser.close()
    return parser.tokens


def comparable(found: list[Any]) -> list[Any]:
    """The tokens with a claim countdown's seconds set aside: they are the run's own clock (the seconds left to
    AWAY_UNTIL when the page was drawn), not how it is drawn."""
    out: list[Any] = []
    counting = False
    for token in found:
        if token[0] == "<" and any(name == "data-seconds" for name, _ in token[2]):
            token, counting = (token[0], token[1], [(n, "N" if n == "data-seconds" else v) for n, v in token[2]]), True
        elif counting and token[0] == "t":
            token, counting = ("t", "N"), False
        out.append(token)
    return out


def compare(old_path: str, new_path: str) -> int:
    old, new = (json.loads(Path(p).read_text()) for p in (old_path, new_path))
    rows = sorted(set(old["timings"]) & set(new["timings"]), key=lambda k: (k.split()[0], k))
    print(f"{'µs per render':36} {'old':>9} {'new':>9} {'speed-up':>9}")
    for key in rows:
        a, b = old["timings"][key], new["timings"][key]
        print(f"{key:36} {a:9.1f} {b:9.1f} {a / b:8.2f}x")
    for game in PLAYERS:
        for who in ("seat", "spectator"):
            keys = [f"{game} {who} {n}" for n in FRAGMENTS]
            a = sum(old["timings"].get(k, 0) for k in keys)
            b = sum(new["timings"].get(k, 0) for k in keys)
            if a and b:
                print(f"{game + ' ' + who + ' all fragments':36} {a:9.1f} {b:9.1f} {a / b:8.2f}x")
    differ = 0
    shared = sorted(set(old["html"]) & set(new["html"]))
    for key in shared:
        if comparable(tokens(old["html"][key])) != comparable(tokens(new["html"][key])):
            differ += 1
            if differ <= 5:
                a, b = tokens(old["html"][key]), tokens(new["html"][key])
                at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
                print(f"\nDIFFERENT: {key}\n  old: {a[max(0, at - 3):at + 3]}\n  new: {b[max(0, at - 3):at + 3]}")
    missing = set(old["html"]) ^ set(new["html"])
    print(f"\nHTML compared: {len(shared)} fragments, {differ} different, {len(missing)} in one record only")
    return 1 if differ or missing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--out")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-html", action="store_true")
    parser.add_argument("--no-timings", action="store_true")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    setup(Path(args.root).resolve())
    record = {
        "html": {} if args.no_html else pages(),
        "timings": {} if args.no_timings else timings(args.count, args.repeats),
    }
    for key, value in record["timings"].items():
        print(f"{key:36} {value:9.1f} µs")
    if args.out:
        Path(args.out).write_text(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
