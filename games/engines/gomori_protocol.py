"""The "Computer Gomori" bot protocol (github.com/nnmm/gomori), translated to and from our Gomori engine.

Bots written for that judge read one compact JSON request per line on stdin and answer one line on stdout:

    {"type": "NewGame", "color": "black" | "red"}          -> any okay value ({} or [], the Rust bots send [])
    {"type": "PlayFirstTurn", "cards": [5 cards]}           -> one card, which goes on (0, 0)
    {"type": "PlayTurn", "cards": [5 cards], "fields": [...], "cards_won_by_opponent": [cards]}
                                                            -> [{"card": c, "i": i, "j": j,
                                                                 "target_field_for_king_ability": [i, j]}, ...]
    {"type": "Bye"}                                         -> nothing; the bot exits

A card is {"suit": "♣", "rank": "10"}. As in the reference judge: `i` is the row and `j` the column (our "at"
is [i, j]); fields are the occupied cells sorted by i, then j; `top_card` is null when the top card is face-down,
and `hidden_cards` holds every card below the top plus a face-down top, in the Rust card order (suits ♦ ♥ ♠ ♣,
ranks 2..10 J Q K A). A turn's answer lists all its plays in order; it is applied play by play through our engine.
The king's target may be left out when not needed and is ignored on a play that is not a stacked king (as the
reference judge does). `cards_won_by_opponent` lists what the opponent gathered since this bot's last request.

Standard library only; no Django.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Action, IllegalAction, View, card_name, rank_of, refusing_malformed, suit_of
from .gomori import ENGINE, State

SYMBOL: dict[str, str] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
LETTER: dict[str, str] = {symbol: letter for letter, symbol in SYMBOL.items()}
PROTOCOL_RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
COLOR_NAMES: tuple[str, str] = ("black", "red")
# The order of the Rust `Card` (derived Ord: suit, then rank), used for `hidden_cards`.
_SUIT_ORDER = {"D": 0, "H": 1, "S": 2, "C": 3}
_RANK_ORDER = {rank: i for i, rank in enumerate(PROTOCOL_RANKS)}
_I8 = range(-128, 128)

BYE: dict[str, str] = {"type": "Bye"}


class ProtocolError(IllegalAction):
    """A bot's answer that the protocol cannot read (malformed JSON, wrong shape, unknown card)."""


# ---------------------------------------------------------------------------------------------------------
# cards and messages
# ---------------------------------------------------------------------------------------------------------

def to_card(code: str) -> dict[str, str]:
    """Our card code as a protocol card: "10H" -> {"suit": "♥", "rank": "10"}."""
    return {"suit": SYMBOL[suit_of(code)], "rank": rank_of(code)}


def from_card(value: object, what: str = "card") -> str:
    """A protocol card as our code; ProtocolError if it is not one (extra keys are ignored, as serde does)."""
    if not isinstance(value, dict):
        raise ProtocolError(f"The {what} must be an object with a suit and a rank.")
    suit, rank = value.get("suit"), value.get("rank")
    if not isinstance(suit, str) or suit not in LETTER:
        raise ProtocolError(f"The {what} has no valid suit (one of ♦ ♥ ♠ ♣).")
    if not isinstance(rank, str) or rank not in _RANK_ORDER:
        raise ProtocolError(f"The {what} has no valid rank (2-10, J, Q, K, A).")
    return rank + LETTER[suit]


def _card_key(code: str) -> tuple[int, int]:
    return _SUIT_ORDER[suit_of(code)], _RANK_ORDER[rank_of(code)]


def encode(message: object) -> str:
    """One protocol line: compact JSON (no newlines inside) and the newline."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"


def decode(line: str) -> Any:
    """A bot's answer line as JSON; ProtocolError if it is not JSON."""
    try:
        return json.loads(line)
    except ValueError as error:
        raise ProtocolError(f"The answer is not JSON: {error}.") from None


def fields_of(view: View) -> list[dict[str, Any]]:
    """The field of a view as protocol fields, sorted by i then j."""
    fields = []
    for entry in sorted(view["field"], key=lambda f: (f["at"][0], f["at"][1])):
        stack = entry["stack"]
        hidden = list(stack[:-1]) if entry["face_up"] else list(stack)
        fields.append({
            "i": entry["at"][0],
            "j": entry["at"][1],
            "top_card": to_card(stack[-1]) if entry["face_up"] else None,
            "hidden_cards": [to_card(code) for code in sorted(hidden, key=_card_key)],
        })
    return fields


def new_game_request(seat: int) -> dict[str, str]:
    """{"type": "NewGame", "color": ...}: seat 0 plays black, seat 1 red."""
    return {"type": "NewGame", "color": COLOR_NAMES[seat]}


def check_okay(answer: object) -> None:
    """The answer to NewGame: any JSON object or array (the Rust `Okay()` serialises as [])."""
    if not isinstance(answer, (dict, list)):
        raise ProtocolError("The answer to NewGame must be a JSON object or array, such as {}.")


class ProtocolSeat:
    """Builds one seat's requests from its views, remembering what the opponent had gathered when last asked."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.opponent_seen = 0

    def new_game(self) -> dict[str, str]:
        """The NewGame request (and a fresh memory)."""
        self.opponent_seen = 0
        return new_game_request(self.seat)

    def request(self, view: View) -> dict[str, Any]:
        """The request for the turn the view waits on: PlayFirstTurn on an empty field, else PlayTurn."""
        cards = [to_card(code) for code in view["hand"]]
        if not view["field"]:
            return {"type": "PlayFirstTurn", "cards": cards}
        won = view["gathered"][1 - self.seat]
        fresh, self.opponent_seen = won[self.opponent_seen:], len(won)
        return {
            "type": "PlayTurn",
            "cards": cards,
            "fields": fields_of(view),
            "cards_won_by_opponent": [to_card(code) for code in fresh],
        }


# ---------------------------------------------------------------------------------------------------------
# answers
# ---------------------------------------------------------------------------------------------------------

def _coordinate(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in _I8:
        raise ProtocolError(f"{what} must be an integer from -128 to 127.")
    return value


def parse_turn(answer: object) -> list[tuple[str, int, int, tuple[int, int] | None]]:
    """A PlayTurn answer as (card, i, j, king target or None) per play; ProtocolError when malformed."""
    if not isinstance(answer, list):
        raise ProtocolError("The answer to PlayTurn must be a list of cards to place.")
    plays = []
    for n, item in enumerate(answer, 1):
        if not isinstance(item, dict):
            raise ProtocolError(f"Play {n} must be an object with card, i and j.")
        for key in ("card", "i", "j"):
            if key not in item:
                raise ProtocolError(f"Play {n} lacks '{key}'.")
        card = from_card(item["card"], f"card of play {n}")
        i = _coordinate(item["i"], f"The i of play {n}")
        j = _coordinate(item["j"], f"The j of play {n}")
        raw = item.get("target_field_for_king_ability")
        target: tuple[int, int] | None = None
        if raw is not None:
            if not isinstance(raw, list) or len(raw) != 2:
                raise ProtocolError(f"The king's target of play {n} must be a pair [i, j].")
            target = (_coordinate(raw[0], f"The king's target of play {n}"),
                      _coordinate(raw[1], f"The king's target of play {n}"))
        plays.append((card, i, j, target))
    return plays


def turn_answer(actions: list[Action]) -> list[dict[str, Any]]:
    """Our play actions as a PlayTurn answer (the inverse of parse_turn)."""
    answer = []
    for action in actions:
        item: dict[str, Any] = {"card": to_card(action["card"]), "i": action["at"][0], "j": action["at"][1]}
        if "king_target" in action:
            item["target_field_for_king_ability"] = list(action["king_target"])
        answer.append(item)
    return answer


def _turn_continues(state: State, seat: int) -> bool:
    """Whether seat is in the middle of a chained turn (it stacked and must play again)."""
    return not ENGINE.is_over(state) and ENGINE.to_act(state) == [seat] and state.chain


def play_answer(state: State, seat: int, request: dict[str, Any], answer: object) -> tuple[State, list[Action]]:
    """Apply a bot's answer to `request` through the engine: the new state and the actions it made.

    Raises IllegalAction (ProtocolError when malformed) with a readable reason, and nothing else whatever the
    answer; `state` is never changed.
    """
    if request["type"] not in ("PlayFirstTurn", "PlayTurn"):
        raise ValueError(f"No turn is played in answer to {request['type']}.")
    with refusing_malformed("That answer is not one the protocol knows."):
        return _play_answer(state, seat, request, answer)


def _play_answer(state: State, seat: int, request: dict[str, Any], answer: object) -> tuple[State, list[Action]]:
    if request["type"] == "PlayFirstTurn":
        action: Action = {"type": "play", "card": from_card(answer, "card to play first"), "at": [0, 0]}
        return ENGINE.apply(state, seat, action), [action]
    plays = parse_turn(answer)
    if not plays:
        raise IllegalAction("The bot played no card although it could play.")
    actions: list[Action] = []
    for n, (card, i, j, target) in enumerate(plays, 1):
        if actions and not _turn_continues(state, seat):
            raise IllegalAction(f"Play {n} ({card_name(card)}) comes after the turn ended: only a card stacked onto "
                                "another card lets the player play again.")
        action = {"type": "play", "card": card, "at": [i, j]}
        if card[0] == "K" and (i, j) in state.stacks:
            if target is None:
                raise IllegalAction(f"Play {n}: the {card_name(card)} goes onto a card, so it needs "
                                    "target_field_for_king_ability.")
            action["king_target"] = [target[0], target[1]]
        try:
            state = ENGINE.apply(state, seat, action)
        except IllegalAction as error:
            raise IllegalAction(f"Play {n}: {error}") from None
        actions.append(action)
    if _turn_continues(state, seat):
        raise IllegalAction(f"The turn ended after play {len(plays)}, a stacked card, although a card in hand could "
                            "still be played: the player must play again.")
    return state, actions


__all__ = [
    "BYE",
    "COLOR_NAMES",
    "ProtocolError",
    "ProtocolSeat",
    "check_okay",
    "decode",
    "encode",
    "fields_of",
    "from_card",
    "new_game_request",
    "parse_turn",
    "play_answer",
    "to_card",
    "turn_answer",
]
