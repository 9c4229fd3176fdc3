"""The Rummy table over real sockets: a whole game played through the rendered controls by two players with a
spectator watching, with per-seat leak checks after every frame; the hand's selection (sorting, moving, packs
under construction) as the presenter keeps it; bot reasons in a match of bots."""

from __future__ import annotations

import asyncio
import html as html_module
import json
import random
import re
from collections import Counter, deque
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from fragments import error_text, section
from markupsafe import escape

from games.bots.rummy import reference_bot
from games.engines import get_engine
from games.engines.base import card_name
from games.engines.rummy import ALL_CODES, POS_RANK, best_meld
from games.models import Match
from games.play import store
from games.play.create import SeatSpec, create_match
from games.play.display import render_fragment, table_context
from games.play.meta import table_meta
from games.play.presence import presence_of
from games.presenters import rummy as presenter
from games.presenters import spoken_name

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = get_engine("rummy")
# Seed 309 with the default 40 minimum: a short game (24 moves) with a first lay-down of several packs, a card
# taken from the discard pile, a joker added at a chosen end of a run and a joker freed from a pack.
SEED = 309
PACE = 12  # frames a second at most, per socket


# ---------------------------------------------------------------------------------------------
# Helpers


def start(first: Any, second: Any, *, seed: int = SEED, options: dict[str, Any] | None = None) -> Match:
    match = create_match(
        creator=first, game="rummy", players=2, seats=[SeatSpec("open")], seed=seed, options=options
    )
    playing.join(match_id=match.pk, user=second)
    return Match.objects.get(pk=match.pk)


@database_sync_to_async
def load(match_id: int) -> Match:
    return Match.objects.get(pk=match_id)


def mentions(text: str, code: str) -> bool:
    """Whether the text shows this card, by its code ("7C") or its name ("7♣")."""
    return any(
        re.search(rf"(?<![0-9A-Za-z]){re.escape(token)}(?![0-9A-Za-z])", text) for token in (code, card_name(code))
    )


FACE = re.compile(r'<span class="card(?: card-red)?(?: card-joker)?" title="([^"]+)"')


def visible_codes(view: dict[str, Any]) -> list[str]:
    """Every card the view shows face-up right now: the own hand, the packs, the discard pile's top, final hands."""
    codes = list(view["hand"] or [])
    codes += [code for pack in view["packs"] for code in pack["cards"]]
    if view["discard_top"]:
        codes.append(view["discard_top"])
    for hand in view["final_hands"] or []:
        codes += hand
    return codes


def check_view(html: str, state: Any, seat: int | None) -> None:
    """This viewer's HTML shows no card face beyond its view, and names no card its view does not know."""
    text = html_module.unescape(html)
    view = ENGINE.view(state, seat)
    faces = Counter(FACE.findall(text))
    allowed = Counter(card_name(code) for code in visible_codes(view))
    # A card face shows the name twice (title and hidden text) but is matched once.
    assert not faces - allowed, f"seat {seat} sees faces {faces - allowed}"
    # Besides the view itself, the table names what the public packs imply: a joker's stand-in card and the
    # cards a run's ends would take (a joker added there stands for them).
    implied = [joker["rank"] + suit for pack in view["packs"] for joker in pack["jokers"] for suit in joker["suits"]]
    for pack in view["packs"]:
        if pack["kind"] == "run":
            ends = (pack["low_place"] - 1, pack["high_place"] + 1)
            implied += [POS_RANK[p] + pack["suit"] for p in ends if 1 <= p <= 14]
    told = json.dumps(view, ensure_ascii=False) + " " + " ".join(implied)
    leaked = sorted(code for code in ALL_CODES if mentions(text, code) and not mentions(told, code))
    assert not leaked, f"seat {seat} was shown {leaked}"
    if seat is not None and not view["over"]:
        other = view["hand_counts"][1 - seat]
        assert f"{other} card{'s' if other != 1 else ''}</span>" in text




BUTTON = re.compile(r"<button\b([^>]*)>(.*?)</button>", re.S)
ATTR = re.compile(r'([\w-]+)="([^"]*)"')


def buttons(html: str) -> list[dict[str, Any]]:
    """The socket controls of a fragment: their attributes, text and decoded hx-vals."""
    out = []
    for found in BUTTON.finditer(html):
        head = found.group(1)
        if "ws-send" not in head:
            continue
        attrs: dict[str, Any] = {key: html_module.unescape(value) for key, value in ATTR.findall(head)}
        attrs["text"] = html_module.unescape(re.sub(r"<[^>]+>", " ", found.group(2))).strip()
        attrs["vals"] = json.loads(attrs["hx-vals"]) if "hx-vals" in attrs else None
        out.append(attrs)
    return out


HAND_CARD = re.compile(r'id="rm-card-\d+"[^>]*>\s*<span class="card[^"]*" title="([^"]+)"')


def hand_order(html: str) -> list[str]:
    """The hand's cards in the order shown."""
    return HAND_CARD.findall(html_module.unescape(html))


class Player:
    """One seat's socket and what it shows: clicks its controls like a browser would."""

    def __init__(self, seat: int, socket: Any, html: str) -> None:
        self.seat = seat
        self.socket = socket
        self.html = html
        self.frames = 0
        self.sent: deque[float] = deque(maxlen=PACE)

    async def send(self, text: str) -> None:
        """Send a frame, no faster than a quick person clicks (the socket closes above 20 frames a second)."""
        loop = asyncio.get_running_loop()
        if len(self.sent) == PACE and loop.time() - self.sent[0] < 1.0:
            await asyncio.sleep(1.0 - (loop.time() - self.sent[0]))
        self.sent.append(loop.time())
        await self.socket.send_to(text_data=text)

    def find(self, **want: Any) -> dict[str, Any] | None:
        for button in buttons(self.html):
            if all(button.get(key) == value for key, value in want.items()):
                return button
        return None

    def need(self, **want: Any) -> dict[str, Any]:
        button = self.find(**want)
        assert button is not None, f"seat {self.seat} has no control {want}"
        return button

    async def click_ui(self, button: dict[str, Any], state: Any) -> None:
        """A control that changes this socket's selection: only this socket hears back."""
        assert "ui" in button["vals"], button
        await self.send(button["hx-vals"])
        self.html = await self.socket.receive_from(timeout=10)
        self.frames += 1
        assert error_text(self.html).strip() == ""
        check_view(self.html, state, self.seat)

    async def select(self, code: str, state: Any) -> None:
        # A hand card is a toggle named by its words (the card face's own hidden name), pressed when chosen.
        chosen = next(
            (b for b in buttons(self.html) if b.get("id", "").startswith("rm-card-")
             and " ".join(b["text"].split()).removesuffix(" (new)").endswith(f" {spoken_name(code)}")
             and b["aria-pressed"] == "false"),
            None,
        )
        assert chosen is not None, f"seat {self.seat} can't select the {card_name(code)}"
        await self.click_ui(chosen, state)

    async def clear(self, state: Any) -> None:
        button = self.find(id="rm-clear")
        if button is not None:
            await self.click_ui(button, state)


def meld_key(packs: list[list[str]]) -> list[tuple[str, ...]]:
    return sorted(tuple(pack) for pack in packs)


async def perform(player: Player, state: Any, action: dict[str, Any]) -> str:
    """Make the action by clicking: returns the hx-vals of the control that sends it."""
    kind = action["type"]
    if kind == "draw":
        return player.need(vals={"action": action})["hx-vals"]
    await player.clear(state)
    if kind in ("discard", "add"):
        await player.select(action["card"], state)
        return player.need(vals={"action": action})["hx-vals"]
    packs = action["packs"]
    if len(packs) == 1 and player.find(id="rm-reset") is None:
        for code in packs[0]:
            await player.select(code, state)
        lay = player.need(id="rm-lay-one")
        assert lay["vals"]["action"]["packs"] == packs
        return lay["hx-vals"]
    for index, pack in enumerate(packs):
        for code in pack:
            await player.select(code, state)
        assert player.find(id="rm-lay-one") is None or index == 0
        await player.click_ui(player.need(id="rm-make"), state)
        for _ in range(3):  # the pack is laid as the engine wants it: flip its joker to the other end if need be
            built = json.loads(html_module.unescape(re.search(r'data-rm-ui="([^"]*)"', player.html).group(1)))
            if built["building"][index] == pack:
                break
            await player.click_ui(player.need(id=f"rm-flip-{index}"), state)
        assert built["building"][index] == pack
    lay = player.need(id="rm-lay")
    assert meld_key(lay["vals"]["action"]["packs"]) == meld_key(packs)
    return lay["hx-vals"]


# ---------------------------------------------------------------------------------------------
# A whole game


async def test_two_players_and_a_spectator_play_a_whole_game_by_the_controls(
    ws_client: Any, alice: Any, bob: Any, make_user: Any
) -> None:
    dave = await database_sync_to_async(make_user)("dave", display_name="Dave")
    match = await database_sync_to_async(start)(alice, bob)
    sockets: dict[int | None, Any] = {}
    pages: dict[int | None, str] = {}
    for seat, user in ((None, dave), (0, alice), (1, bob)):
        ok, _, sockets[seat] = await ws_client(match.pk, user)
        assert ok
        pages[seat] = await sockets[seat].receive_from(timeout=10)
    for seat, socket in sockets.items():  # presence updates as the others came in
        while not await socket.receive_nothing(timeout=0.3):
            pages[seat] = await socket.receive_from(timeout=5)
    state = ENGINE.load(match.state)
    for viewer, html in pages.items():
        check_view(html, state, viewer)
    assert "data-rm-ui" not in pages[None] and "rm-hand-cards" not in pages[None]
    assert "rummy.js" not in pages[0]  # a script in a swapped fragment never runs: the page's head loads it
    players = {seat: Player(seat, sockets[seat], pages[seat]) for seat in (0, 1)}

    # Bob sorts by rank, then moves his first card two places right: his own order from then on.
    bob_player = players[1]
    await bob_player.click_ui(bob_player.need(id="rm-sort-rank"), state)
    order = hand_order(bob_player.html)
    assert order == [card_name(c) for c in sorted(state.hands[1], key=presenter.rank_key)]
    await bob_player.click_ui(bob_player.need(id="rm-card-0"), state)
    assert bob_player.need(id="rm-card-0")["aria-pressed"] == "true"
    assert bob_player.find(id="rm-left") is None  # at the left edge: shown, but sends nothing
    for _ in range(2):
        await bob_player.click_ui(bob_player.need(id="rm-right"), state)
    moved = hand_order(bob_player.html)
    assert moved == [order[1], order[2], order[0], *order[3:]]
    assert bob_player.need(id="rm-card-2")["aria-pressed"] == "true"
    assert "your own order" in bob_player.html
    await bob_player.clear(state)
    bob_order = hand_order(bob_player.html)

    seen: Counter[str] = Counter()
    rng = random.Random(SEED)
    for _ in range(200):
        match = await load(match.pk)
        if match.status != Match.Status.ACTIVE:
            break
        state = ENGINE.load(match.state)
        seat = ENGINE.to_act(state)[0]
        view = ENGINE.view(state, seat)
        action, _ = reference_bot(view, view["legal"], rng)
        player = players[seat]
        assert "Your turn." in player.html
        if action["type"] == "draw" and not state.laid[seat] and state.discard:
            assert player.find(id="rm-take") is None
            assert "once you have laid down" in player.html
        frame = await perform(player, state, action)
        await player.send(frame)
        updates = {viewer: await sockets[viewer].receive_from(timeout=10) for viewer in sockets}
        after = await load(match.pk)
        assert after.version == match.version + 1, f"{action} was refused: {error_text(updates[seat])}"
        new_state = ENGINE.load(after.state)
        for viewer, html in updates.items():
            check_view(html, new_state, viewer)
            assert error_text(html).strip() == ""
            if viewer is not None and after.status == Match.Status.ACTIVE:
                assert ("Your turn." in html) == (viewer in ENGINE.must_act(new_state))
        for index in (0, 1):
            players[index].html = updates[index]
        kind = action["type"] + (f"-{action['from']}" if action["type"] == "draw" else "")
        seen[kind] += 1
        last = new_state.last["actions"][-1] if new_state.last else {}
        if action["type"] == "add":
            seen["add-end"] += "end" in action
            if last.get("freed"):
                seen["freed"] += 1
                joker = card_name(last["freed"])
                assert f"took the {joker} back from pack {action['pack'] + 1}" in updates[None]
                assert f"You took the {joker} back" in updates[seat]
                fresh = (rf'class="rm-fresh">\s*<button[^>]*>\s*<span class="card[^"]*" title="{joker}">'
                         r'.*?</span></span><span class="visually-hidden"> \(new\)</span></button>')
                assert re.search(fresh, updates[seat])
        if action["type"] == "meld":
            seen["packs"] += len(action["packs"])
            laid = sum(len(a["packs"]) for a in new_state.last["actions"] if a["type"] == "meld")
            assert section(updates[None], "board").count("rm-pack rm-new") == laid
            assert section(updates[seat], "board").count("rm-pack rm-mine rm-new") == laid
        # Bob's own order holds: the cards he kept stay in their order, new ones come in on the right.
        if after.status == Match.Status.ACTIVE:
            now = hand_order(updates[1])
            kept = Counter(now)
            survivors = []
            for name in bob_order:
                if kept[name] > 0:
                    kept[name] -= 1
                    survivors.append(name)
            assert now[: len(survivors)] == survivors, (bob_order, now)
            bob_order = now
    match = await load(match.pk)
    assert match.status == Match.Status.FINISHED
    assert seen["draw-discard"] and seen["meld"] and seen["freed"] and seen["add-end"], seen
    assert players[0].frames + players[1].frames > 40
    state = ENGINE.load(match.state)
    result = ENGINE.result(state)
    assert match.result["scores"] == result["scores"]
    for html in updates.values():
        board = section(html, "board")
        assert "Final hands" in board
        loser = 1 - result["winners"][0]
        assert f"{result['scores'][loser]} penalty point" in board
        for code in state.final_hands[loser]:
            assert card_name(code) in board
    assert "You won." in updates[result["winners"][0]]


async def test_a_refused_lay_down_is_explained_and_changes_nothing(ws_client: Any, alice: Any, bob: Any) -> None:
    match = await database_sync_to_async(start)(alice, bob, seed=SEED)
    _, _, socket = await ws_client(match.pk, alice)
    await socket.receive_from(timeout=10)
    while not await socket.receive_nothing(timeout=0.3):
        await socket.receive_from(timeout=5)
    state = ENGINE.load(match.state)
    frame = json.dumps({"action": {"type": "meld", "packs": [state.hands[0][:3]]}})
    await socket.send_to(text_data=frame)
    reply = await socket.receive_from(timeout=10)
    assert "Draw a card first" in error_text(reply)
    assert (await load(match.pk)).version == match.version


# ---------------------------------------------------------------------------------------------
# The selection, without sockets


def view_of(hand: list[str], **extra: Any) -> dict[str, Any]:
    """A seat-0 view in its play phase with this hand, laid down or not, and the given legal actions."""
    view = {
        "seat": 0, "hand": hand, "over": False, "must_act": [0], "phase": "play", "turns": [3, 2],
        "laid_down": [False, False], "options": {"min_first_meld": 40}, "packs": [], "legal": [],
        "last": None, "hand_counts": [len(hand), 13], "stock_count": 50, "discard_top": "2C", "discard_count": 3,
        "final_hands": None, "result": None,
    }
    view.update(extra)
    return view


def test_arrangements_offer_each_place_of_a_joker_most_valuable_first() -> None:
    assert presenter.arrangements(["5H", "4H", "XR"]) == [(["4H", "5H", "XR"], 15), (["XR", "4H", "5H"], 12)]
    assert presenter.arrangements(["4H", "XR", "6H"]) == [(["4H", "XR", "6H"], 15)]
    assert presenter.arrangements(["KH", "QH", "AH"]) == [(["QH", "KH", "AH"], 30)]
    assert presenter.arrangements(["AH", "2H", "XR"]) == [(["AH", "2H", "XR"], 6)]
    assert presenter.arrangements(["7S", "7H", "XB"]) == [(["7H", "7S", "XB"], 21)]
    assert presenter.arrangements(["7S", "7H", "XB", "XB"]) == []  # one black joker only: clubs is the one left
    assert presenter.arrangements(["4H", "5H", "XB"]) == []  # a joker of the run's colour only
    assert presenter.arrangements(["KH", "AH", "2H"]) == []  # runs don't wrap
    assert "a pack has at least 3 cards" in presenter.why_not_pack(["4H", "5H"]).lower()
    assert "K-A-2 is not" in presenter.why_not_pack(["KH", "AH", "2H"])
    # Two cards: a hint while they may still grow into a pack, the reason when they never can.
    view = view_of(["4H", "9H", "KH", "KS", "2C"])
    ui = presenter.clean_ui(view, 0, {})
    assert ui["order"] == ["2C", "4H", "9H", "KH", "KS"]
    ui = presenter.clean_ui(view, 0, {**ui, "selected": [1, 2]})
    assert "third card" in presenter.present(view, 0, ui, ["A", "B"])["selection"]["more"]
    ui = presenter.clean_ui(view, 0, {**ui, "selected": [0, 1]})
    assert "can't be in one pack" in presenter.present(view, 0, ui, ["A", "B"])["selection"]["problem"]


def test_the_selection_sorts_moves_builds_and_keeps_its_order() -> None:
    hand = ["4H", "5H", "9C", "KS", "XR", "KD", "KC", "2D"]
    view = view_of(hand)
    ui = presenter.clean_ui(view, 0, {})
    assert ui["order"] == ["9C", "KC", "2D", "KD", "4H", "5H", "KS", "XR"] and ui["sort"] == "suit"
    ui = presenter.clean_ui(view, 0, {**ui, "op": "sort", "by": "rank"})
    assert ui["order"] == ["2D", "4H", "5H", "9C", "KC", "KD", "KS", "XR"]
    # Select two cards apart and move them right together, then one back left: the order becomes custom.
    ui = presenter.clean_ui(view, 0, {**ui, "op": "select", "at": 0})
    ui = presenter.clean_ui(view, 0, {**ui, "op": "select", "at": 2})
    ui = presenter.clean_ui(view, 0, {**ui, "op": "shift", "by": 1})
    assert ui["order"] == ["4H", "2D", "9C", "5H", "KC", "KD", "KS", "XR"] and ui["selected"] == [1, 3]
    assert ui["sort"] == "custom"
    ui = presenter.clean_ui(view, 0, {**ui, "op": "move", "from": 7, "to": 0})
    assert ui["order"][0] == "XR" and ui["selected"] == [2, 4]
    # Make a pack of 4♥ 5♥ and the joker: laid at its most valuable (joker as 6♥), then flipped to 3♥.
    ui = presenter.clean_ui(view, 0, {**ui, "op": "clear"})
    positions = [ui["order"].index(code) for code in ("4H", "5H", "XR")]
    for at in positions:
        ui = presenter.clean_ui(view, 0, {**ui, "op": "select", "at": at})
    ui = presenter.clean_ui(view, 0, {**ui, "op": "make"})
    assert ui["building"] == [["4H", "5H", "XR"]] and ui["selected"] == []
    assert sorted(ui["order"]) == sorted(["2D", "9C", "KC", "KD", "KS"])
    ui = presenter.clean_ui(view, 0, {**ui, "op": "flip", "at": 0})
    assert ui["building"] == [["XR", "4H", "5H"]]
    # A pack the hand no longer holds falls away; a made-up pack is refused.
    smaller = view_of(["4H", "9C", "KS", "XR", "KD", "KC", "2D", "7S"])
    kept = presenter.keep_ui(smaller, 0, ui)
    assert kept["building"] == [] and kept["order"] == ["2D", "9C", "KC", "KD", "KS", "4H", "7S", "XR"]
    junk = presenter.clean_ui(view, 0, {**ui, "building": [["KC", "KD", "9C"]]})
    assert junk["building"] == []
    # Take the pack back: its cards return to the hand on the right (custom order).
    ui = presenter.clean_ui(view, 0, {**ui, "op": "unmake", "at": 0})
    assert ui["building"] == [] and sorted(ui["order"]) == sorted(hand)
    # Spectators and finished games have no selection.
    assert presenter.clean_ui(view, None, ui) == {}
    assert presenter.clean_ui({**view, "over": True}, 0, ui) == {}


def test_the_lay_down_button_needs_a_legal_lay_down_and_says_why_not() -> None:
    hand = ["KH", "KD", "KS", "QC", "QD", "QS", "2C", "9H"]
    packs = [["KD", "KH", "KS"], ["QC", "QD", "QS"]]
    meld = {"type": "meld", "packs": packs}
    view = view_of(hand, legal=[meld, {"type": "discard", "card": "2C"}])
    ui = {"sort": "suit", "order": ["2C", "QC", "QD", "9H", "QS"], "selected": [], "building": [packs[0]]}
    table = presenter.present(view, 0, presenter.clean_ui(view, 0, ui), ["Alice", "Bob"])
    assert table["building"]["total"] == 30 and table["building"]["minimum"] == 40
    assert "10 more to go" in table["building"]["why"] and "lay" not in table["building"]
    ui = presenter.clean_ui(view, 0, {**ui, "selected": [1, 2, 4]})
    table = presenter.present(view, 0, ui, ["Alice", "Bob"])
    assert table["selection"]["pack"]["value"] == 30 and table["building"]["with_selection"] == 60
    ui = presenter.clean_ui(view, 0, {**ui, "op": "make"})
    table = presenter.present(view, 0, ui, ["Alice", "Bob"])
    assert json.loads(table["building"]["lay"]) == {"action": meld}
    assert "Lay down" in table["prompt"]
    # Not this seat's turn: the packs wait, and the panel says so.
    table = presenter.present({**view, "must_act": [1], "legal": []}, 0, ui, ["Alice", "Bob"])
    assert table["building"]["why"] == "You can lay them down on your turn."
    # After the lay-down the packs under construction are gone, and so is the selection.
    laid = view_of(["2C", "9H"], laid_down=[True, False], last={"seat": 0, "actions": [
        {"type": "draw", "from": "stock", "card": "9H"}, {"type": "meld", "packs": [0, 1]}]})
    assert presenter.keep_ui(laid, 0, ui)["building"] == []


def test_adding_a_joker_to_a_run_asks_for_its_end_and_a_natural_card_frees_a_joker() -> None:
    run = {"id": 0, "kind": "run", "cards": ["4H", "5H", "6H"], "jokers": [], "owner": 1, "value": 15,
           "full": False, "suit": "H", "low": "4", "high": "6", "low_place": 4, "high_place": 6}
    held = {"id": 1, "kind": "set", "cards": ["9C", "9S", "XR"], "owner": 0, "value": 27, "full": False,
            "rank": "9", "jokers": [{"at": 2, "rank": "9", "suits": ["D", "H"]}]}
    legal = [
        {"type": "add", "card": "XR", "pack": 0, "end": "low"},
        {"type": "add", "card": "XR", "pack": 0, "end": "high"},
        {"type": "add", "card": "9D", "pack": 1},
    ]
    view = view_of(["XR", "9D", "KS"], laid_down=[True, True], packs=[run, held], legal=legal)
    ui = presenter.clean_ui(view, 0, {"op": "select", "at": 2})  # by suit: 9♦, K♠, red joker
    table = presenter.present(view, 0, ui, ["Alice", "Bob"])
    targets = table["packs"][0]["targets"]
    assert [t["text"] for t in targets] == ["Low end (as 3♥)", "High end (as 7♥)"]
    assert table["packs"][0]["owner"] == "Bob" and table["packs"][1]["cards"][2]["caption"] == "as 9♦ or 9♥"
    assert table["choosing_pack"] and "highlighted pack" in table["prompt"]
    ui = presenter.clean_ui(view, 0, {**ui, "op": "select", "at": 2})
    ui = presenter.clean_ui(view, 0, {**ui, "op": "select", "at": 0})
    table = presenter.present(view, 0, ui, ["Alice", "Bob"])
    (target,) = table["packs"][1]["targets"]
    assert target["label"] == "Add the 9♦ to pack 2 and take back the red joker"
    # The freed joker comes to the hand highlighted, and the table says where it came from.
    after = view_of(["XR", "KS"], laid_down=[True, True], packs=[run, {**held, "cards": ["9C", "9D", "9S"]}],
                    last={"seat": 0, "actions": [{"type": "draw", "from": "stock", "card": "KS"},
                                                 {"type": "add", "card": "9D", "pack": 1, "end": None, "freed": "XR"}]})
    table = presenter.present(after, 0, presenter.keep_ui(after, 0, ui), ["Alice", "Bob"])
    assert [c["name"] for c in table["hand"]["cards"] if c["fresh"]] == ["K♠", "red joker"]
    assert table["freed"] == ["You took the red joker back from pack 2."]
    assert table["packs"][1]["changed"] and [c["added"] for c in table["packs"][1]["cards"]] == [False, True, False]


# ---------------------------------------------------------------------------------------------
# Bot reasons


def start_bot_match(creator: Any, seed: int) -> Match:
    """A match of two bots (no person: the creator only watches), dealt and ready for its bots."""
    return create_match(
        creator=creator, game="rummy", players=2, seats=[SeatSpec("bot", "random")], options={"min_first_meld": 40},
        seed=seed, first_seat_bot="reference",
    )


def meta_of(match_id: int) -> dict[str, Any]:
    """What the table shows of the match now (as the live core draws it)."""
    snap = store.load(match_id)
    assert snap is not None
    return table_meta(snap, presence_of(match_id))


def test_a_match_of_bots_shows_each_bots_reasons_and_a_match_with_a_person_does_not(
    settings: Any, alice: Any
) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = start_bot_match(alice, 4)
    assert [s.user.bot_level for s in match.seats.select_related("user").order_by("index")] == ["reference", "random"]
    for _ in range(7):
        assert playing.bot_turn(match_id=match.pk, expected_version=Match.objects.get(pk=match.pk).version)
    match = Match.objects.get(pk=match.pk)
    meta = meta_of(match.pk)
    notes = list(match.moves.order_by("number").values_list("seat", "note"))
    latest = notes[-1][0]
    run = []
    for seat, note in reversed(notes):
        if seat != latest:
            break
        run.insert(0, note)
    assert meta.players[latest].reasons == run
    other = meta.players[1 - latest].reasons
    assert other and all(note in [n for s, n in notes if s == 1 - latest] for note in other)
    engine = get_engine("rummy")
    view = engine.view(engine.load(match.state), None)
    players = render_fragment("players", table_context(meta, view, None))
    assert "player-reasons" in players and escape(run[-1]) in players

    person = create_match(
        creator=alice, game="rummy", players=2, seats=[SeatSpec("bot", "reference")], seed=4
    )
    for _ in range(3):
        playing.bot_turn(match_id=person.pk, expected_version=Match.objects.get(pk=person.pk).version)
        current = Match.objects.get(pk=person.pk)
        if engine.to_act(engine.load(current.state)) == [0]:
            state = engine.load(current.state)
            playing.act(match_id=person.pk, user=alice, seat=0, action=engine.legal_actions(state, 0)[0])
    person = Match.objects.get(pk=person.pk)
    assert person.moves.exclude(note="").exists()
    meta = meta_of(person.pk)
    assert all(p.reasons == [] for p in meta.players)


def test_junk_selections_are_cleaned_and_never_break_the_table() -> None:
    """Frames from a tampered page (wrong types, unknown operations, positions and cards that aren't there) mixed
    with a person's clicks: the selection always fits the hand, and the table always renders."""
    rng = random.Random(7)
    junk_values: list[Any] = [None, True, -1, 0, 3, 99, 1.5, "x", "5C", [], [0, 0], [[]], ["XR"] * 20, {"a": 1},
                              [["4H", "5H", "6H"]], [["KH", "KD"]], list(range(30))]
    ops = ["select", "clear", "shift", "move", "sort", "make", "unmake", "reset", "flip", "bogus", None, 3]
    built = 0
    for seed in (SEED, 169):
        state = ENGINE.new_game(2, seed=seed)
        while not ENGINE.is_over(state):
            seat = ENGINE.to_act(state)[0]
            view = ENGINE.view(state, seat)
            ui: dict[str, Any] = presenter.clean_ui(view, seat, {})
            for _ in range(12):
                raw = dict(ui)
                packs, _ = best_meld(ui["order"], keep=0)
                if packs and rng.random() < 0.3:  # select the cards of a pack the hand holds, and make it
                    free = list(enumerate(ui["order"]))
                    chosen = []
                    for code in rng.choice(packs):
                        spot = next(i for i, c in free if c == code)
                        free.remove((spot, code))
                        chosen.append(spot)
                    raw.update(selected=chosen, op="make")
                elif rng.random() < 0.25:
                    for key in rng.sample(["sort", "order", "selected", "building", "at", "by", "from", "to"], 2):
                        raw[key] = rng.choice(junk_values)
                    raw["op"] = rng.choice(ops)
                else:
                    size = max(1, len(ui["order"]))
                    raw.update(rng.choice([
                        {"op": "select", "at": rng.randrange(size)},
                        {"op": "select", "at": rng.randrange(size)},
                        {"op": "make"},
                        {"op": "flip", "at": rng.randrange(2)},
                        {"op": "unmake", "at": rng.randrange(2)},
                        {"op": "shift", "by": rng.choice((-1, 1))},
                        {"op": "move", "from": rng.randrange(size), "to": rng.randrange(size)},
                        {"op": "sort", "by": rng.choice(("suit", "rank"))},
                    ]))
                ui = presenter.clean_ui(view, seat, json.loads(json.dumps(raw)))
                in_hand = Counter(ui["order"]) + Counter(c for p in ui["building"] for c in p)
                assert in_hand == Counter(view["hand"])
                assert all(0 <= i < len(ui["order"]) for i in ui["selected"])
                built += len(ui["building"])
                table = presenter.present(view, seat, ui, ["A", "B"])
                assert table["hand"]["count"] == len(view["hand"])
                assert presenter.clean_ui(view, seat, ui) == ui  # a clean selection is its own cleaning
            action, _ = reference_bot(view, view["legal"], rng)
            state = ENGINE.apply(state, seat, action)
    assert built > 50


def test_the_match_page_loads_the_table_script_in_its_head(client: Any, alice: Any) -> None:
    match = create_match(creator=alice, game="rummy", players=2, seats=[SeatSpec("bot", "random")])
    client.force_login(alice)
    html = client.get(f"/m/{match.pk}/").content.decode()
    head = html[: html.index("</head>")]
    assert '<script src="/static/js/rummy.js" defer></script>' in head
