"""In a real browser, at a phone's size (390x844): in every game, mid-game, the player's hand, the board's playable
area and the action buttons are on the first screen, without scrolling. SHOTS=<folder> also saves a desktop and
a phone screenshot of each table there."""

from __future__ import annotations

import os
from typing import Any

import pytest
from tables import DESKTOP, LAPTOP, PHONE, long_named_people, mid_game, people, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# What must be on the first screen, per game: (what it is, a selector that finds it).
FIRST_SCREEN = {
    "gomori": [("the hand", "#hand .hand-cards"), ("the field", "#board .gomori-field"),
               ("the status line", "#status")],
    "columbo": [("the hand", "#hand .cb-grid"), ("the piles", "#board .cb-piles"),
                ("the turn's buttons", "#board .cb-buttons")],
    "ruhd": [("the open hand", "#hand .ruhd-hand-tiles"), ("the board", "#board .ruhd-grid"),
             ("the status line", "#status")],
    "rummy": [("the hand", "#hand .rm-hand-cards"), ("the piles", "#board .rm-piles"),
              ("the status line", "#status")],
}
SETUP: dict[str, dict[str, Any]] = {
    "gomori": {"moves": 6},
    "columbo": {"moves": 6, "options": {"rounds": 1}},
    # A placing turn with tiles in the open hand (the search for a position is the reference bots' own).
    "ruhd": {"moves": 8, "until": lambda view: view.get("phase") == "place" and bool(view.get("hand"))},
    "rummy": {"moves": 8},
}


@pytest.mark.parametrize("game", ["gomori", "columbo", "ruhd", "rummy"])
def test_the_table_fits_the_first_screen_of_a_phone(browser: Any, asgi_server: str, game: str) -> None:
    users = people(2)
    match = mid_game(game, users, **SETUP[game])
    page = signed_in(browser, asgi_server, users[0], PHONE)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("#status[data-your-turn]")
        page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
        shots = os.environ.get("SHOTS")
        if shots:
            page.screenshot(path=f"{shots}/table-{game}-phone.png")
            page.screenshot(path=f"{shots}/table-{game}-phone-full.png", full_page=True)
        wide = page.evaluate(
            "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1)"
            ".slice(0, 4).map(e => e.tagName + '.' + e.className).join(', ')"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], f"scrolls sideways: {wide}"
        for what, selector in FIRST_SCREEN[game]:
            # The socket redraws the table once it opens: an element measured mid-swap has no box yet.
            box = None
            for _ in range(20):
                page.locator(selector).first.wait_for(state="visible", timeout=5000)
                box = page.locator(selector).first.bounding_box()
                if box is not None:
                    break
                page.wait_for_timeout(50)
            assert box is not None, f"{what} is not shown"
            assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (
                f"{game}: {what} ({selector}) spans {box['y']:.0f}-{box['y'] + box['height']:.0f} px, "
                f"beyond the first {PHONE['height']} px"
            )
        if shots:
            page.set_viewport_size(DESKTOP)
            page.screenshot(path=f"{shots}/table-{game}-desktop.png")
    finally:
        page.context.close()


# The start of a turn, with the longest names the site allows (issue: "The turn is on the first screen"). At
# 1280x800 and at 390x844, the player's own hand (cards, grid, tiles) is wholly in view; on the phone, so is every
# button of the turn, at its start and after its first step (a card or a tile chosen, a card drawn), and nothing
# scrolls sideways. A button in a strip that scrolls sideways of its own (Ruhd's board, Rummy's packs) only needs
# to be in view from top to bottom.
TURN: dict[str, dict[str, Any]] = {
    "gomori": {
        "hand": "#hand .hand-cards",
        "buttons": "#hand .card-button, #board .cell-button, #gomori-cancel",
        "step": ("#hand .card-button", "#board .cell-button"),
    },
    "columbo": {
        "hand": "#hand .cb-grid",
        "buttons": "#board .cb-pile-button, #board .cb-buttons .button, #board .cb-action-buttons .button, "
                   "#hand .cb-card-button",
        "step": ("#board .cb-pile-button", "#board .cb-drawn"),
    },
    "ruhd": {
        "hand": "#hand .ruhd-hand-tiles",
        "buttons": "#hand .tile-button, #hand .ruhd-turner button, #board .cell-button",
        "step": ("#hand .tile-button", "#ruhd-turn"),
    },
    "rummy": {
        "hand": "#hand .rm-hand-cards",
        "buttons": "#rm-stock, #rm-take, #hand .rm-hand-cards .card-button, #hand .rm-tools .button, "
                   "#hand .rm-actions .button, #board .rm-add-button",
        "step": ("#rm-stock", "#hand .rm-fresh", "#rm-card-0", "#rm-discard"),
    },
}
TURN_SETUP: dict[str, dict[str, Any]] = {
    "gomori": {"moves": 6},
    "columbo": {"moves": 6, "options": {"rounds": 1},
                "until": lambda view: view.get("step") == "draw" and not view.get("action")},
    "ruhd": SETUP["ruhd"],
    "rummy": {"moves": 8, "until": lambda view: view.get("phase") == "draw"},
}
MEASURE = """([selector, scrollers]) => [...document.querySelectorAll(selector)].flatMap(e => {
    const box = e.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(e).visibility === "hidden") return [];
    return [{what: e.id || (e.tagName.toLowerCase() + "." + [...e.classList].join(".")),
             text: (e.getAttribute("aria-label") || e.textContent).trim().slice(0, 40),
             top: box.top, bottom: box.bottom, left: box.left, right: box.right,
             strip: !!(scrollers && e.closest(scrollers))}];
})"""


def out_of_view(page: Any, selector: str, size: dict[str, int]) -> tuple[list[str], list[dict[str, Any]]]:
    """Which elements of `selector` reach beyond the first screen (and every element's box)."""
    boxes = page.evaluate(MEASURE, [selector, ".ruhd-scroll, .rm-packs"])
    beyond = [f"{b['what']} ({b['text']!r}) at x {b['left']:.0f}-{b['right']:.0f}, y {b['top']:.0f}-{b['bottom']:.0f}"
              for b in boxes
              if b["top"] < -1 or b["bottom"] > size["height"] + 1
              or (not b["strip"] and (b["left"] < -1 or b["right"] > size["width"] + 1))]
    return beyond, boxes


def table_drawn(page: Any) -> None:
    page.wait_for_selector("#status[data-your-turn]")
    page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
    page.wait_for_timeout(400)  # and the cards have settled (card-arrive)


@pytest.mark.parametrize(("game", "screen", "players"), [
    *[(game, screen, 2) for game in ("gomori", "columbo", "ruhd", "rummy") for screen in ("desktop", "phone")],
    ("columbo", "desktop", 3), ("columbo", "desktop", 4), ("ruhd", "desktop", 3), ("ruhd", "desktop", 4),
])
def test_the_turn_is_on_the_first_screen(browser: Any, asgi_server: str, game: str, screen: str,
                                         players: int) -> None:
    size = LAPTOP if screen == "desktop" else PHONE
    users = long_named_people(players)
    match = mid_game(game, users, **TURN_SETUP[game])
    page = signed_in(browser, asgi_server, users[0], size)
    turn = TURN[game]
    shots = os.environ.get("SHOTS")
    name = f"turn-{game}-{screen}" + (f"-{players}p" if players > 2 else "")
    problems: list[str] = []
    measured: list[str] = [f"page width {size['width']}"]
    try:
        page.goto(match.get_absolute_url())
        table_drawn(page)
        for stage in range(len(turn["step"]) // 2 + 1):
            if stage:
                click, wanted = turn["step"][2 * stage - 2:2 * stage]
                if page.locator(click).count():
                    page.locator(click).first.click()
                    page.locator(wanted).first.wait_for()
                    page.wait_for_timeout(400)
                page.evaluate("window.scrollTo(0, 0)")  # the first screen again
            if shots:
                page.screenshot(path=f"{shots}/{name}-{stage}.png")
            width = page.evaluate("document.documentElement.scrollWidth")
            measured.append(f"step {stage}: document width {width}")
            if width > size["width"]:
                wide = page.evaluate(
                    "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > "
                    "innerWidth + 0.5).slice(-3).map(e => e.tagName + '.' + e.className).join(', ')"
                )
                problems.append(f"step {stage}: the page is {width} px wide, it scrolls sideways ({wide})")
            hand, boxes = out_of_view(page, turn["hand"], size)
            assert boxes, f"{turn['hand']} is not shown"
            problems += [f"step {stage}: the hand {line}" for line in hand]
            measured += [f"step {stage}: the hand: y {b['top']:.0f}-{b['bottom']:.0f}" for b in boxes]
            if screen == "phone":
                buttons, boxes = out_of_view(page, turn["buttons"], size)
                problems += [f"step {stage}: the button {line}" for line in buttons]
                if boxes:
                    low = max(boxes, key=lambda b: b["bottom"])
                    measured.append(f"step {stage}: the lowest button: {low['what']} "
                                    f"y {low['top']:.0f}-{low['bottom']:.0f}")
        if shots:  # what was measured, beside the screenshots
            with open(f"{shots}/{name}.txt", "w") as out:
                out.write("\n".join(measured) + "\n")
        assert not problems, f"{game} at {size['width']}x{size['height']}, {players} players:\n" + "\n".join(problems)
    finally:
        page.context.close()


# Long names on a phone at every stage of a match (issue: "Phones, at the end of a match too"): at its start
# (against a bot, whose short name must not take the person's room), in its middle, at its end and in its replay
# (every hand at the last move, and one seat's view half-way), at 360 and 390 px wide and on a laptop, with the
# longest names the site allows on both sides. Nothing is wider than the screen, a name cut short is cut fairly
# (the person's own never narrower than another's) and whole in a title, and no badge lies on a card.
SCREENS = {"360": {"width": 360, "height": 800}, "390": PHONE, "desktop": LAPTOP}
# Every element reaching past the screen's sides, except inside a box that scrolls or clips sideways (that box is
# measured itself), and every box that scrolls sideways that is not meant to (Ruhd's board and Rummy's packs are
# strips that do).
BEYOND = """(strips) => {
    const out = [];
    const named = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + [...e.classList].map(c => "." + c).join("");
    for (const e of document.querySelectorAll("body *")) {
        const style = getComputedStyle(e);
        if (style.display === "none" || style.visibility === "hidden" || style.clip === "rect(0px, 0px, 0px, 0px)") {
            continue;
        }
        const box = e.getBoundingClientRect();
        if (!box.width || !box.height) continue;
        let inside = false;
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== "visible") { inside = true; break; }
        }
        if (!inside && (box.right > innerWidth + 0.5 || box.left < -0.5)) {
            out.push(`${named(e)} spans x ${Math.round(box.left)}-${Math.round(box.right)}`);
        }
        if (["auto", "scroll"].includes(style.overflowX) && e.scrollWidth > e.clientWidth + 1 && !e.matches(strips)) {
            out.push(`${named(e)} scrolls sideways (${e.scrollWidth} px in ${e.clientWidth})`);
        }
    }
    return out.slice(0, 8);
}"""
# Every text cut short with an ellipsis, and whether its title (its own or an ancestor's) holds it whole.
CUT = """() => [...document.querySelectorAll("body *")].filter(e => {
    const style = getComputedStyle(e);
    return style.textOverflow === "ellipsis" && e.scrollWidth > e.clientWidth + 1 && style.display !== "none"
        && style.clip !== "rect(0px, 0px, 0px, 0px)" && e.getBoundingClientRect().width > 1;
}).map(e => {
    const text = e.textContent.trim().replace(/\\s+/g, " ");
    const titled = e.closest("[title]");
    return {what: e.tagName.toLowerCase() + [...e.classList].map(c => "." + c).join(""), text: text.slice(0, 30),
            whole: !!titled && titled.getAttribute("title").replace(/\\s+/g, " ").includes(text)};
})"""
# The players' names on their chips: each one's shown width and whole width, the person's own marked.
CHIPS = """() => [...document.querySelectorAll("#players .player-name")].map(e => ({
    mine: !!e.closest(".player.me"), shown: e.clientWidth, whole: e.scrollWidth,
    title: e.getAttribute("title") || "", text: e.textContent.trim()}))"""
# A badge lying on a card (Rummy's "not laid down yet" over the other side's card backs).
ON_CARDS = """() => {
    const boxes = sel => [...document.querySelectorAll(sel)].map(e => [e, e.getBoundingClientRect()])
        .filter(([e, b]) => b.width && b.height);
    const out = [];
    for (const [badge, b] of boxes(".table-area :is(.badge, .rm-badge, .cb-badge)")) {
        for (const [card, c] of boxes(".table-area .card")) {
            const w = Math.min(b.right, c.right) - Math.max(b.left, c.left);
            const h = Math.min(b.bottom, c.bottom) - Math.max(b.top, c.top);
            if (w > 1 && h > 1 && !badge.contains(card) && !card.contains(badge)) {
                out.push(`"${badge.textContent.trim()}" lies on a card (${Math.round(w)}x${Math.round(h)} px)`);
            }
        }
    }
    return out.slice(0, 4);
}"""


def layout_problems(page: Any, where: str) -> list[str]:
    """What is wrong with the page as it is shown now (see BEYOND, CUT, CHIPS and ON_CARDS)."""
    problems: list[str] = []
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("innerWidth")
    if width > inner:
        problems.append(f"{where}: the page is {width} px wide on a {inner} px screen")
    problems += [f"{where}: {line}" for line in page.evaluate(BEYOND, ".ruhd-scroll, .rm-packs")]
    problems += [f"{where}: {c['what']} ({c['text']!r}) is cut short without its whole text in a title"
                 for c in page.evaluate(CUT) if not c["whole"]]
    chips = page.evaluate(CHIPS)
    problems += [f"{where}: the chip of {c['text'][:12]!r} has no title with the whole name"
                 for c in chips if c["title"] != c["text"]]
    for mine in (c for c in chips if c["mine"]):
        for other in (c for c in chips if not c["mine"]):
            if mine["shown"] + 1 < min(mine["whole"], other["shown"]):
                problems.append(f"{where}: the person's own name is shown {mine['shown']} px wide (of "
                                f"{mine['whole']}), the other's {other['shown']} px")
    problems += [f"{where}: {line}" for line in page.evaluate(ON_CARDS)]
    return problems


def bot_match(game: str, user: Any) -> Any:
    """A match of this person against the game's weakest bot, just dealt."""
    from games.catalog import GAMES
    from games.play.create import SeatSpec, create_match

    options = {"rounds": 1} if game == "columbo" else {}
    return create_match(creator=user, game=game, players=2, seats=[SeatSpec("bot", GAMES[game].levels[0])],
                        options=options, seed=3)


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("game", ["gomori", "columbo", "ruhd", "rummy"])
def test_long_names_fit_the_screen_at_every_stage(browser: Any, asgi_server: str, game: str, screen: str) -> None:
    from tables import finished

    size = SCREENS[screen]
    users = long_named_people(2)
    stages: list[tuple[str, str]] = []
    if screen != "desktop":  # the start and the middle on a laptop: test_the_turn_is_on_the_first_screen
        stages.append(("start", bot_match(game, users[0]).get_absolute_url()))
        stages.append(("mid", mid_game(game, users, **SETUP[game]).get_absolute_url()))
    ended = finished(game, users)
    from games.models import Move

    total = Move.objects.filter(match=ended).count()
    stages += [("end", ended.get_absolute_url()), ("replay", f"/m/{ended.pk}/replay/"),
               ("replay-seat", f"/m/{ended.pk}/replay/?move={total // 2}&seat=1")]
    page = signed_in(browser, asgi_server, users[0], size)
    shots = os.environ.get("SHOTS")
    problems: list[str] = []
    try:
        for stage, url in stages:
            page.goto(url)
            if not stage.startswith("replay"):
                page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
            page.wait_for_timeout(400)
            if shots:
                page.screenshot(path=f"{shots}/names-{game}-{stage}-{screen}.png", full_page=True)
            problems += layout_problems(page, stage)
        assert not problems, f"{game} at {size['width']}x{size['height']}:\n" + "\n".join(problems)
    finally:
        page.context.close()
