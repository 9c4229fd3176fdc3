"""The bot levels as a person picks them: three per game, titled alike, each with a sentence on how it plays,
shown in the lobby where the level is chosen."""

from __future__ import annotations

import html
import importlib

import pytest
from django.conf import settings
from django.test import Client

from games.bots import LEVEL_RATINGS
from games.engines import SLUGS
from games.play.bot_accounts import LEVEL_TITLES, bot_level_blurb, bot_levels


@pytest.mark.parametrize("game", SLUGS)
def test_every_game_has_a_rookie_a_regular_and_a_shark_each_with_a_sentence(game: str) -> None:
    levels = bot_levels(game)
    assert [LEVEL_TITLES[level] for level in levels] == ["Rookie", "Regular", "Shark"]
    module = importlib.import_module(f"games.bots.{game}")
    assert set(module.LEVEL_BLURBS) == set(levels)
    for level in levels:
        blurb = bot_level_blurb(game, level)
        assert blurb == module.LEVEL_BLURBS[level]
        assert blurb[0].isupper() and blurb.endswith(".") and blurb.count(". ") == 0 and len(blurb) < 200
    assert bot_level_blurb(game, "no-such-level") == ""


@pytest.mark.django_db
def test_the_lobby_says_how_each_level_plays_and_its_measured_rating() -> None:
    page = html.unescape(Client().get("/play/").content.decode())
    for game in SLUGS:
        for level in bot_levels(game):
            rating = LEVEL_RATINGS[game][level]
            assert (f"<strong>{LEVEL_TITLES[level]}</strong> <span class=\"bot-rating\" "
                    f"title=\"Measured in bot-against-bot games\">rated {rating}</span>: "
                    f"{bot_level_blurb(game, level)}") in page
            # and in the seat's choice of a bot, on every game's create form
            assert f'value="bot:{level}"' in page
            assert f"Bot: {LEVEL_TITLES[level]} ({rating})</option>" in page


def test_columbo_card_actions_come_before_the_next_player_draws() -> None:
    """A bot's own 7-Q action is an optional move: the live service waits its level's reaction delay, while the
    next seat draws after GAMES_BOT_DELAY (and wins a tie), which ends the action. Every level must come first,
    or its 9s, 10s and Jacks lapse unused."""
    from games.bots.columbo import BOTS, REACTION_DELAY

    for level in BOTS:
        assert 0 < REACTION_DELAY[level] < settings.GAMES_BOT_DELAY, level


def test_columbo_regular_uses_its_9s_and_10s() -> None:
    """Whenever its own 9 or 10 gives it a look and one of its cards is still unknown to it, the Regular looks
    at one of them (the action is never skipped or left to lapse)."""
    import random

    from games.bots.columbo import BOTS
    from games.engines import get_engine

    engine = get_engine("columbo")
    looked = 0
    for seed in range(6):
        state = engine.new_game(2, seed=seed, options={"rounds": 1})
        levels = ["reference", "strong"] if seed % 2 else ["strong", "reference"]
        rng = random.Random(seed)
        for _ in range(600):
            if engine.is_over(state):
                break
            act = state.action
            if act is not None and levels[act["seat"]] == "reference" and act["kind"] == "look_own":
                seat = act["seat"]
                view = engine.view(state, seat)
                if any(not s["empty"] and s["card"] is None for s in view["hands"][seat]["slots"]):
                    action, _ = BOTS["reference"](view, engine.legal_actions(state, seat), rng)
                    assert action is not None and action["type"] in ("look", "slap"), action
                    looked += action["type"] == "look"
                    state = engine.apply(state, seat, action)
                    continue
            seat = next(s for s in engine.to_act(state) if s in engine.must_act(state))
            action, _ = BOTS[levels[seat]](engine.view(state, seat), engine.legal_actions(state, seat), rng)
            assert action is not None
            state = engine.apply(state, seat, action)
    assert looked >= 3


def test_rookies_never_let_a_gather_go_nor_throw_a_finished_pack() -> None:
    import random

    from games.bots.gomori import BOTS as GOMORI
    from games.bots.gomori import board_from_view, play_on_board
    from games.bots.rummy import BOTS as RUMMY
    from games.engines import get_engine
    from games.engines.rummy import best_meld

    engine = get_engine("gomori")
    gathers = 0
    for seed in range(4):
        state = engine.new_game(2, seed=seed)
        rng = random.Random(seed)
        while not engine.is_over(state):
            seat = engine.to_act(state)[0]
            view = engine.view(state, seat)
            board = board_from_view(view)
            best = max((play_on_board(board, a["card"], tuple(a["at"]),  # type: ignore[arg-type]
                                      tuple(a["king_target"]) if "king_target" in a else None)[1]
                        for a in view["legal"]), default=0) if board else 0
            action, _ = GOMORI["random"](view, view["legal"], rng)
            assert action is not None
            if best:
                gathers += 1
                target = tuple(action["king_target"]) if "king_target" in action else None
                assert play_on_board(board, action["card"], tuple(action["at"]), target)[1] == best  # type: ignore[arg-type]
            state = engine.apply(state, seat, action)
    assert gathers

    engine = get_engine("rummy")
    for seed in range(4):
        state = engine.new_game(2, seed=seed)
        rng = random.Random(seed)
        while not engine.is_over(state):
            (seat,) = engine.to_act(state)
            view = engine.view(state, seat)
            legal = engine.legal_actions(state, seat)
            action, _ = RUMMY["random"](view, legal, rng)
            assert action is not None
            if action["type"] == "discard" and len(view["hand"]) > 4:
                packs, _ = best_meld(view["hand"], keep=1)
                in_packs = sum(pack.count(action["card"]) for pack in packs)
                assert view["hand"].count(action["card"]) > in_packs, (view["hand"], packs, action)
            state = engine.apply(state, seat, action)
