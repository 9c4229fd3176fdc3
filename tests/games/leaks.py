"""A leak scanner: what a viewer received (a socket's page, the match page's HTML) against what that viewer may
see of the engine's state at that moment.

The definition of "may see" is the engine's own view(state, seat): a card (tile) instance at a place of the full
state that is not at a place of the viewer's view is hidden. The check is by place, not by code alone: Rummy
plays two decks (one copy of a code may lie on the table while the other is in a hand) and Columbo reshuffles
(a code seen in the discard pile earlier, and named in the log, may be face down in the stock now). So:

- faces: the HTML may draw no more faces of a hidden code than the view has copies of it at its places
  (a drawn face is `<span class="card..." title="NAME">`, games/templatetags/cards.py);
- places the HTML marks (a Columbo slot `data-at="seat-slot"`, its drawn card, a Gomori or Rummy hand, a Rummy
  opponent's row of backs) show only what the view has at that very place;
- words: a hidden code of which the view has no visible copy may be named (as "7♣", as "red joker", or as the
  code "7C" in hx-vals and data attributes) only where the view names it: in the log if the view's log does,
  elsewhere if the view outside its log does (its `last`, a finished round's hands...);
- Ruhd tiles are unique and never come back to the deck: a hidden tile (the deck, the tiles set aside) may not
  be named, nor drawn, anywhere;
- a bot's reasons (shown to spectators of bot-only matches, in #players) name only codes the viewer's view holds.
"""

from __future__ import annotations

import html as html_module
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from games.engines.base import RANKS, SUITS, card_name

CODES: tuple[str, ...] = (*(rank + suit for suit in SUITS for rank in RANKS), "XR", "XB")
CODE_OF_NAME: dict[str, str] = {card_name(code): code for code in CODES}
_CODE_SET = frozenset(CODES)

# A card named in words ("7♣", "10♥", "red joker"), or its code as a JSON string ("7C" in hx-vals, data-rm-ui).
CARD_WORD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([♣♦♥♠])|\b(red|black) joker\b")
# A card's name in words, as screen readers hear it ("7 of hearts", "queen of spades": games.tables.spoken_name).
SPOKEN_WORD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9]|ace|jack|queen|king) of (clubs|diamonds|hearts|spades)\b", re.I)
_SPOKEN_RANK = {"ace": "A", "jack": "J", "queen": "Q", "king": "K"}
QUOTED_CODE = re.compile(r'"((?:10|[2-9AJQK])[CDHS]|X[RB])"')
TILE_WORD = re.compile(r"(?<![0-9A-Za-z])(T[0-4][0-9])(?![0-9A-Za-z])")
FACE = re.compile(r'<span class="card(?: card-red)?(?: card-joker)?" title="([^"]*)">')
RUHD_TILE = re.compile(r'<svg class="ruhd-tile[^"]*"[^>]*aria-label="(T\d\d)[:"]')
COLUMBO_SLOT = re.compile(r'<div data-at="(\d+)-(\d+)" class="cb-slot[^"]*">(.*?)</div>', re.S)
COLUMBO_DRAWN = re.compile(r'<div class="cb-pile cb-drawn">(.*?)</div>', re.S)
RUMMY_BACKS = re.compile(r'<div class="rm-backs"[^>]*>(.*?)</div>', re.S)
# What a Rummy joker stands for, on the table ("as 7♠ or 7♣") or on an add button ("as 10♠"): no card's place.
STAND_IN = re.compile(r"\bas (?:10|[2-9AJQK])[♣♦♥♠](?: or (?:10|[2-9AJQK])[♣♦♥♠])*")
REASONS = re.compile(r'<span class="player-reasons"[^>]*>(.*?)</span>', re.S)
_SUIT_LETTER = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
_STRIP = (
    re.compile(r"<head>.*?</head>", re.S),
    re.compile(r"<script\b.*?</script>", re.S),
    re.compile(r'\s(?:src|href|hx-headers|value)="[^"]*"'),
    re.compile(r"\shx-headers='[^']*'"),
)


# ---------------------------------------------------------------------------------------------
# Places: where each card (tile) instance lies, in the full state and in a view


def state_places(game: str, state: Any) -> Counter[str]:
    """Every card (tile) instance at a place of the full state (engine.load(match.state)), by code."""
    found: Counter[str] = Counter()
    if game == "gomori":
        for cards in (*state.hands, *state.piles, *state.stacks.values(), *state.gathered):
            found.update(cards)
    elif game == "columbo":
        found.update(c for hand in state.hands for c in hand if c is not None)
        found.update(state.stock)
        found.update(state.discard)
        if state.drawn is not None:
            found[state.drawn] += 1
    elif game == "ruhd":
        from games.engines.ruhd import TILE_IDS

        found.update(TILE_IDS[t] for t in (*state.hand, *state.deck, *state.set_aside))
        for tile, _rotation, cover in state.board.values():
            found[TILE_IDS[tile]] += 1
            if cover >= 0:
                found[TILE_IDS[cover]] += 1
    elif game == "rummy":
        for cards in (*state.hands, state.stock, state.discard, *(pack.cards for pack in state.packs)):
            found.update(cards)
    else:
        raise KeyError(game)
    return found


def view_places(game: str, view: dict[str, Any]) -> Counter[str]:
    """The instances a view shows at places of the game now (its hands, piles, table), by code."""
    found: Counter[str] = Counter()
    if game == "gomori":
        found.update(view.get("hand") or [])
        for cell in view["field"]:
            found.update(cell["stack"])
        for cards in view["gathered"]:
            found.update(cards)
    elif game == "columbo":
        for hand in view["hands"]:
            found.update(slot["card"] for slot in hand["slots"] if slot["card"] is not None)
        found.update(view["discard"]["cards"])
        if view["drawn"] is not None and view["drawn"]["card"] is not None:
            found[view["drawn"]["card"]] += 1
    elif game == "ruhd":
        found.update(view["hand"])
        for cell in view["board"]:
            found[cell["tile"]] += 1
            if cell["cover"] is not None:
                found[cell["cover"]] += 1
    elif game == "rummy":
        if view.get("final_hands") is not None:
            for cards in view["final_hands"]:
                found.update(cards)
        else:
            found.update(view.get("hand") or [])
        if view.get("discard_top"):
            found[view["discard_top"]] += 1
        for pack in view["packs"]:
            found.update(pack["cards"])
    else:
        raise KeyError(game)
    return found


def view_faces_allowed(game: str, view: dict[str, Any]) -> Counter[str]:
    """How many faces of each code the viewer may be drawn: the view's places, plus what it records openly
    (a finished Columbo round's hands, shown in its results; both Rummy hands once the game is over)."""
    allowed = view_places(game, view)
    if game == "columbo" and view.get("last_round"):
        for hand in view["last_round"].get("hands") or []:
            allowed.update(c for c in hand if c is not None)
    if game == "rummy" and view.get("final_hands") is not None:
        allowed.update(view.get("hand") or [])
    return allowed


def hidden_places(game: str, state: Any, view: dict[str, Any]) -> Counter[str]:
    """The instances of the full state the view does not show: what this viewer may not see."""
    return state_places(game, state) - view_places(game, view)


# ---------------------------------------------------------------------------------------------
# Words: the codes a text names


def _json_strings(data: Any, skip: frozenset[str] = frozenset()) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            if key in skip:
                continue
            yield str(key)
            yield from _json_strings(value)
    elif isinstance(data, (list, tuple)):
        for value in data:
            yield from _json_strings(value)


# A Ruhd tile in a sentence's words (the kit writes a tile id so: games/kits/ruhd.py): its four printed sides.
RUHD_TILE_WORDS = re.compile(r"the ((?:green|yellow|blue|red) \d(?:–(?:green|yellow|blue|red) \d){3}) tile")


def _ruhd_tiles_by_words() -> dict[str, str]:
    from games.engines.ruhd import COLOUR_NAMES, TILES

    return {"–".join(f"{COLOUR_NAMES[s[0]]} {s[1:]}" for s in sides): tile for tile, sides in TILES.items()}


def named_in_text(game: str, text: str) -> set[str]:
    """The codes a piece of text (HTML entities unescaped) names: in words, or as a quoted code."""
    if game == "ruhd":
        by_words = _ruhd_tiles_by_words()
        return set(TILE_WORD.findall(text)) | {by_words[w] for w in RUHD_TILE_WORDS.findall(text) if w in by_words}
    out = set(QUOTED_CODE.findall(text))
    for found in CARD_WORD.finditer(text):
        rank, symbol, joker = found.groups()
        out.add({"red": "XR", "black": "XB"}[joker] if joker else rank + _SUIT_LETTER[symbol])
    for rank, suit in SPOKEN_WORD.findall(text):
        out.add(_SPOKEN_RANK.get(rank.lower(), rank) + suit[0].upper())
    return out


def named_in_view(game: str, data: Any, skip: frozenset[str] = frozenset()) -> set[str]:
    """The codes a view (or part of one) names anywhere: as values, or in its texts (log lines, reasons)."""
    out: set[str] = set()
    for text in _json_strings(data, skip):
        if text in _CODE_SET or (game == "ruhd" and TILE_WORD.fullmatch(text)):
            out.add(text)
        elif len(text) > 3:
            out |= named_in_text(game, text)
    return out


def exact_codes(game: str, data: Any, skip: frozenset[str] = frozenset()) -> set[str]:
    """The codes a view holds as values (not in sentences): what it shows somewhere right now."""
    return {text for text in _json_strings(data, skip)
            if text in _CODE_SET or (game == "ruhd" and TILE_WORD.fullmatch(text))}


def stands_for(game: str, view: dict[str, Any]) -> set[str]:
    """The cards the view's Rummy jokers stand for ("as 7♠" under a joker): named, though no such card lies there."""
    if game != "rummy":
        return set()
    return {joker["rank"] + suit for pack in view["packs"] for joker in pack["jokers"] for suit in joker["suits"]}


def faces(html: str) -> Counter[str]:
    """The card faces drawn in an HTML text, by code."""
    return Counter(CODE_OF_NAME[name] for name in FACE.findall(html) if name in CODE_OF_NAME)


def clean_page(html: str) -> str:
    """A whole page without what is no part of the match (head, scripts, URLs, tokens)."""
    for pattern in _STRIP:
        html = pattern.sub("", html)
    return html


ANNOUNCED = re.compile(r'<div id="announce"[^>]*>.*?</div>', re.S)


def page_parts(html: str) -> tuple[str, str]:
    """(the log, everything else) of an HTML page or a socket's page. What the live region says of a change
    (#announce) is the log's new lines, so it counts with the log."""
    said = "".join(ANNOUNCED.findall(html))
    html = ANNOUNCED.sub("", html)
    start = html.find('<section id="log"')
    if start < 0:
        return said, html
    end = html.find("</section>", start)
    end = len(html) if end < 0 else end + len("</section>")
    return html[start:end] + said, html[:start] + html[end:]


def _section(html: str, element_id: str) -> str:
    start = html.find(f'<section id="{element_id}"')
    if start < 0:
        return ""
    end = html.find('<section id="', start + 10)
    return html[start:] if end < 0 else html[start:end]


class SocketPage:
    """What a socket's page shows after its messages (as tests/games/fragments.Page, without an HTML parser: the
    match socket's messages are its fragments one after the other, games/play/meta.py FRAGMENTS)."""

    SPLIT = re.compile(r'<section id="(players|status|board|hand|log)"|<div id="(error|announce)"'
                       r'|<ol id="log-entries" hx-swap-oob="afterbegin">')

    def __init__(self) -> None:
        self.parts: dict[str, str] = {}

    def apply(self, message: str) -> str:
        starts = [(found.start(), found.group(1) or found.group(2) or "log-entries")
                  for found in self.SPLIT.finditer(message)]
        assert not message[: starts[0][0] if starts else len(message)].strip(), f"not a page update: {message[:200]!r}"
        for (start, name), (end, _) in zip(starts, [*starts[1:], (len(message), "")], strict=True):
            part = message[start:end]
            if name == "log-entries":
                inner = part[part.index(">") + 1: part.rindex("</ol>")]
                log = self.parts.get("log", "")
                at = log.find("<ol id=\"log-entries\"")
                assert at >= 0, "new log entries for a page without a log"
                at = log.index(">", at) + 1
                self.parts["log"] = log[:at] + inner + log[at:]
            else:
                self.parts[name] = part
        return self.html()

    def html(self) -> str:
        return "".join(self.parts.values())


# ---------------------------------------------------------------------------------------------
# The scan


class Scan:
    """Counts of what was checked, over a whole run."""

    def __init__(self) -> None:
        self.frames = 0
        self.pages = 0
        self.hidden_checked = 0  # (viewer, hidden code) pairs checked
        self.faces_checked = 0
        self.reasons = 0
        self.ui_frames = 0

    def summary(self) -> str:
        return (f"{self.frames} socket frames, {self.pages} match pages, {self.ui_frames} selections, "
                f"{self.faces_checked} faces and {self.hidden_checked} hidden codes checked, "
                f"{self.reasons} bot reasons read")


class Knowledge:
    """What one viewer may know of one state, worked out once for every frame and page shown at that state."""

    def __init__(self, game: str, state: Any, view: dict[str, Any], seat: int | None) -> None:
        self.game, self.state, self.view, self.seat = game, state, view, seat
        self.hidden = hidden_places(game, state, view)
        self.places = view_places(game, view)
        self.allowed = view_faces_allowed(game, view)
        self.named_log = named_in_view(game, view.get("log") or [])
        self.named_rest = named_in_view(game, view, skip=frozenset({"log"})) | stands_for(game, view)
        self.values = exact_codes(game, view, skip=frozenset({"legal", "log"}))


def problems(
    game: str, html: str, state: Any, view: dict[str, Any] | None, seat: int | None, *,
    know: Knowledge | None = None, latest_reason: tuple[int, str] | None = None, scan: Scan | None = None,
) -> list[str]:
    """What this viewer (seat None: a spectator) received that it may not see; [] when nothing leaked.

    `latest_reason` is (seat, reason) of the move just made, when a bot made it in a bot-only match: that
    reason is checked against the view right after its move, as the spectator then sees it."""
    if know is None:
        assert view is not None
        know = Knowledge(game, state, view, seat)
    hidden, places, allowed = know.hidden, know.places, know.allowed
    text = html_module.unescape(html)
    found: list[str] = []
    shown = faces(html)
    log_html, rest_html = page_parts(text)
    # A bot's reasons are sentences about its latest turn, like log lines: checked on their own below.
    rest_html = REASONS.sub("", rest_html)
    if game == "rummy":
        rest_html = STAND_IN.sub("", rest_html)
    named_log = named_in_text(game, log_html)
    named_rest = named_in_text(game, rest_html)
    if scan is not None:
        scan.hidden_checked += len(hidden)
        scan.faces_checked += sum(shown.values()) + len(RUHD_TILE.findall(html))

    for code, copies in sorted(hidden.items()):
        if shown[code] > allowed[code]:
            found.append(f"{code}: {shown[code]} faces drawn, the view shows {allowed[code]} "
                         f"({copies} hidden)")
        if places[code]:
            continue  # a copy is visible somewhere: words can't tell which copy they name
        if code in named_rest and code not in know.named_rest:
            found.append(f"{code} (hidden) is named outside the log: {_context(rest_html, game, code)}")
        if code in named_log and code not in know.named_log:
            found.append(f"{code} (hidden) is named in the log: {_context(log_html, game, code)}")

    found += _places(game, html, know.view, seat, hidden)

    for reasons_html in REASONS.findall(html):
        reasons = html_module.unescape(reasons_html)
        if scan is not None:
            scan.reasons += 1
        for code in sorted(named_in_text(game, reasons)):
            if hidden[code] and not places[code] and code not in know.named_rest and code not in know.named_log:
                found.append(f"a bot's reasons name {code}, hidden from this viewer: {reasons!r}")
    if latest_reason is not None:
        mover, reason = latest_reason
        for code in sorted(named_in_text(game, reason) - know.values):
            found.append(f"seat {mover}'s reason {reason!r} names {code}, not in this viewer's view right after")
    return found


def _places(game: str, html: str, view: dict[str, Any], seat: int | None, hidden: Counter[str]) -> list[str]:
    """Places the HTML marks show only what the view has there."""
    found: list[str] = []
    if game == "columbo":
        hands = view["hands"]
        for s, k, inner in COLUMBO_SLOT.findall(html):
            s, k = int(s), int(k)
            slots = hands[s]["slots"] if s < len(hands) else []
            expected = slots[k]["card"] if k < len(slots) else None
            for code in faces(inner):
                if code != expected:
                    found.append(f"Columbo slot {s}-{k} shows {code}; the view has {expected} there")
        drawn = (view.get("drawn") or {}).get("card")
        for inner in COLUMBO_DRAWN.findall(html):
            for code in faces(inner):
                if code != drawn:
                    found.append(f"Columbo's drawn card shows {code}; the view has {drawn}")
    elif game in ("gomori", "rummy"):
        hand_html = _section(html, "hand")
        extra = faces(hand_html) - Counter(view.get("hand") or [])
        if extra:
            found.append(f"the hand of seat {seat} shows {sorted(extra.elements())}, not in its view's hand")
        if game == "rummy":
            for inner in RUMMY_BACKS.findall(html):
                if faces(inner):
                    found.append(f"a Rummy player's row of backs shows {sorted(faces(inner).elements())}")
    elif game == "ruhd":
        for tile in RUHD_TILE.findall(html):
            if hidden[tile]:
                found.append(f"Ruhd tile {tile} is drawn, hidden from this viewer")
    return found


def _context(text: str, game: str, code: str) -> str:
    words: Iterable[str] = [code]
    if game != "ruhd":
        words = [code, card_name(code)]
    for word in words:
        at = text.find(word)
        if at >= 0:
            return repr(re.sub(r"\s+", " ", text[max(0, at - 120): at + 60]))
    return "?"
