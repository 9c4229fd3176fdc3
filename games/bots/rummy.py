"""Rummy bots: they see only a seat's view and its legal actions (see games/engines/base.py, Bot).

- random (Rookie): protects its packs, lays down and adds to its own packs at once, otherwise discards at random.
- reference (Regular): the original self-playing app's strategy (shared/rules/rummy.md, "Bots").
- strong (Shark): the same plan with card counting (the table and the discard pile, read from the public log),
  a one-draw lookahead for its discard, care not to feed the opponent (a discard it would likely take to
  complete a pair: judged from the unseen cards, what it passed over and what it throws), discards taken
  only when they go straight into a pack or onto the table, jokers kept in hand until they let it go out, and
  so are cards that would open a new place on a run (the opponent could fill it from its hand).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

from games.bots.rummy_cards import (
    DREW_STOCK,
    completions,
    discarded_cards,
    duo_missing,
    highest,
    spare_naturals,
    table_counts,
    taken_cards,
    view_pack,
    without_packs,
)
from games.bots.rummy_playout import discard_values
from games.engines.base import Action, Bot, View, card_name
from games.engines.rummy import (
    JOKER_SUITS,
    POS_RANK,
    RANK,
    SUIT,
    Pack,
    add_card,
    add_placements,
    best_meld,
    card_key,
    card_penalty,
    card_places,
    full_deck,
    new_pack,
    pack_short,
)


def _by_type(legal: list[Action]) -> dict[str, list[Action]]:
    """The legal actions grouped by type, in their listed order."""
    out: dict[str, list[Action]] = {"draw": [], "meld": [], "add": [], "discard": []}
    for action in legal:
        out[action["type"]].append(action)
    return out


# ---------------------------------------------------------------------------------------------------------
# random
# ---------------------------------------------------------------------------------------------------------

def random_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The Rookie: draws from the stock only, lays down the first combination it finds as soon as it may
    (the rest in later lay-downs), adds what fits to its own packs (never to the opponent's), and discards
    at random among the cards outside its packs, never a joker while it has another card."""
    if not legal:
        return None, "nothing to do"
    kinds = _by_type(legal)
    hand: list[str] = view["hand"]
    if kinds["draw"]:
        stock = [a for a in kinds["draw"] if a["from"] == "stock"]
        if stock:
            return stock[0], "draws from the stock"
        top = view["discard_top"]
        return kinds["draw"][0], f"takes the {card_name(top)}: the stock is empty"
    if kinds["meld"]:
        # the first lay-down it finds, not the best one: the rest follows in later lay-downs
        action = kinds["meld"][0]
        value = sum(new_pack(list(cards), 0).value for cards in action["packs"])
        return action, f"lays down {value}: {describe_meld(action['packs'])}"
    # a beginner's blind spot: it adds only to its own packs, never to the opponent's
    own = [a for a in kinds["add"] if view["packs"][a["pack"]]["owner"] == view["seat"]]
    if own:
        action = min(own, key=_add_order)
        return action, f"adds the {card_name(action['card'])} to pack {action['pack'] + 1}"
    rest = hand if view["laid_down"][view["seat"]] else without_packs(hand, best_meld(hand, keep=1)[0])
    spare = [c for c in rest if c not in JOKER_SUITS] or [c for c in hand if c not in JOKER_SUITS] or hand
    card = rng.choice(spare)
    action = next(a for a in kinds["discard"] if a["card"] == card)
    return action, f"discards the {card_name(card)}"


# ---------------------------------------------------------------------------------------------------------
# reference: the original app
# ---------------------------------------------------------------------------------------------------------

def describe_meld(packs: tuple[tuple[str, ...], ...] | list[list[str]]) -> str:
    """"K-K-K and 2-3-4-5 of clubs"."""
    parts = [pack_short(new_pack(list(cards), 0)) for cards in packs]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _meld_action(legal_melds: list[Action], packs: tuple[tuple[str, ...], ...]) -> Action | None:
    """The legal lay-down made of exactly these packs (in any order)."""
    want = sorted(packs)
    for action in legal_melds:
        if len(action["packs"]) == len(want) and sorted(tuple(p) for p in action["packs"]) == want:
            return action
    return None


def _draw_choice(view: View, kinds: dict[str, list[Action]], hand: list[str],
                 fits_table: bool = False) -> tuple[Action, str]:
    """Take the discard only when it makes the best combination of packs in hand more valuable (or, with
    `fits_table`, when it fits a pack on the table); else the stock."""
    top = view["discard_top"]
    stock = [a for a in kinds["draw"] if a["from"] == "stock"]
    take = [a for a in kinds["draw"] if a["from"] == "discard"]
    if take and top is not None:
        _, before = best_meld(hand, keep=0)
        _, after = best_meld([*hand, top], keep=1)
        if after > before:
            # Not which pack it completes: the rest of that pack is hidden in the hand (a reason is public).
            return take[0], f"takes the {card_name(top)} from the discard pile: it makes its packs worth more"
        if fits_table and top not in JOKER_SUITS and _fits_table(top, _table_packs(view)):
            return take[0], f"takes the {card_name(top)} from the discard pile: it fits a pack on the table"
    if stock:
        return stock[0], "draws from the stock"
    return take[0], f"takes the {card_name(top)}: the stock is empty"


def _add_order(action: Action) -> int:
    """Natural cards first (some free a joker), jokers last."""
    return 1 if action["card"] in JOKER_SUITS else 0


def _discard_choice(view: View, kinds: dict[str, list[Action]], hand: list[str],
                    gone: Counter[str]) -> tuple[Action, str]:
    """Never a joker while other cards remain; keep packs waiting for the first lay-down and live duos;
    otherwise the highest card."""
    rest = hand if view["laid_down"][view["seat"]] else without_packs(hand, best_meld(hand, keep=1)[0])
    spare = spare_naturals(rest, gone)
    if spare:
        card = highest(spare)
    else:
        others = [c for c in hand if c not in JOKER_SUITS]
        card = highest(others) if others else hand[0]
    # The reason is public: it names the discarded card only, not what the rest of the hand holds.
    return _discard(kinds, card, "highest card")


def _discard(kinds: dict[str, list[Action]], card: str, why: str) -> tuple[Action, str]:
    """The legal discard of this card, with its reason (a joker's needs none: it goes only when nothing else
    is left to throw)."""
    action = next(a for a in kinds["discard"] if a["card"] == card)
    if card in JOKER_SUITS:
        return action, f"discards the {card_name(card)}"
    return action, f"discards the {card_name(card)}: {why}"


def _lay_down_or_add(kinds: dict[str, list[Action]], hand: list[str]) -> tuple[Action, str] | None:
    """The Regular's and the Shark's lay-down (the most valuable packs, jokers kept back when they can be) or
    else an addition to a pack (naturals first); None when neither is possible."""
    if kinds["meld"]:
        # jokers stay in hand (one fits any run on the table later) rather than wait in a pack to be taken
        naturals = [c for c in hand if c not in JOKER_SUITS]
        packs, value = best_meld(naturals, keep=0 if len(naturals) < len(hand) else 1)
        action = _meld_action(kinds["meld"], packs) if packs else None
        if action is None:
            packs, value = best_meld(hand, keep=1)
            action = _meld_action(kinds["meld"], packs)
        if action is not None:
            return action, f"lays down {value}: {describe_meld(action['packs'])}"
    if kinds["add"]:
        action = sorted(kinds["add"], key=_add_order)[0]
        return action, f"adds the {card_name(action['card'])} to pack {action['pack'] + 1}"
    return None


def _shed_meld(kinds: dict[str, list[Action]], hand: list[str], table: list[Pack]) -> tuple[Action, str] | None:
    """The lay-down after which the fewest cards stay in hand (cards laid, plus those that then fit a pack on the
    table, ours included); ties: the more valuable; jokers kept back when another lay-down does as well."""
    best: tuple[tuple[int, int, int], Action] | None = None
    for action in kinds["meld"]:
        packs = [new_pack(list(cards), 0) for cards in action["packs"]]
        used = Counter(c for cards in action["packs"] for c in cards)
        rest = list((Counter(hand) - used).elements())
        fits = sum(1 for c in rest if c not in JOKER_SUITS and _fits_table(c, [*table, *packs]))
        jokers = sum(used[j] for j in JOKER_SUITS)
        out = len(rest) - fits <= 1  # it goes out this turn: the jokers leave the hand too
        key = (sum(used.values()) - (0 if out else jokers) + fits, -jokers, sum(p.value for p in packs))
        if best is None or key > best[0]:
            best = (key, action)
    if best is None:
        return None
    action = best[1]
    value = sum(new_pack(list(cards), 0).value for cards in action["packs"])
    return action, f"lays down {value}: {describe_meld(action['packs'])}"


def reference_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The original app: lay down the most valuable combination once it reaches the minimum, take the discard
    only when it improves that combination, add what fits, keep live pairs, never throw a joker, else the
    highest card."""
    if not legal:
        return None, "nothing to do"
    kinds = _by_type(legal)
    hand: list[str] = view["hand"]
    if kinds["draw"]:
        return _draw_choice(view, kinds, hand)
    laid = _lay_down_or_add(kinds, hand)
    if laid is not None:
        return laid
    return _discard_choice(view, kinds, hand, table_counts(view))


# ---------------------------------------------------------------------------------------------------------
# strong
# ---------------------------------------------------------------------------------------------------------

DUO_WEIGHT = 1.0        # per live card that would complete a duo
NEAR_WEIGHT = 0.15      # per live card that would make a duo of a lone card
HIGH_CARD_WEIGHT = 0.08  # per point of a card before the first lay-down (it helps reach the minimum)
JOKER_KEEP = 100.0
HIGH_DUO = 1.0          # extra for a duo's missing card of 10 points: the opponent throws its highest cards
FIT_KEEP = 3.0          # a card that fits a pack on the table, before the first lay-down
FREE_KEEP = 6.0         # ... and one that would free a joker there
CANDIDATES = 3          # discards weighed by the one-draw lookahead
HOLD_JOKERS = True      # jokers stay in hand until they let the bot go out
DANGER = 0.25           # per point of a card, near the opponent's last cards: high cards go first
RANK_TIE = 0.001        # the lookahead's ties go to the card the keep scores rank lower
VALUE_SCALE = 1000.0    # the expected value of the best combination only breaks ties
BUDGET_SCALE = 1.0      # bench/bots.py --budget-scale: the share of the candidates weighed
PLAYOUTS = 0            # determinized play-outs per candidate discard (rummy_playout.py; 0: off, see bench/README.md)
PLAYOUT_WIDTH = 4       # candidate discards played out
PLAYOUT_TIME = 0.12     # seconds at most for them
_DECK: tuple[str, ...] = tuple(dict.fromkeys(full_deck()))


def gone_cards(view: View) -> Counter[str]:
    """Copies of each card out of play as far as this seat has seen: in the packs on the table and gone to the
    discard pile (read from the public log; a card taken back from the pile is in play again)."""
    gone = table_counts(view)
    for entry in view["log"]:
        text = entry["text"]
        for code in discarded_cards(text):
            gone[code] += 1
        for code in taken_cards(text):
            if gone[code] > 0:
                gone[code] -= 1
    return gone


def _live(card: str, gone: Counter[str], held: Counter[str]) -> int:
    """How many copies of a natural card may still come this seat's way."""
    return max(0, 2 - gone[card] - held[card])


def _table_packs(view: View) -> list[Pack]:
    return [view_pack(p) for p in view["packs"]]


def _fits_table(card: str, packs: list[Pack]) -> bool:
    return any(add_placements(pack, card) for pack in packs)


def _joker_freers(view: View) -> set[str]:
    """The natural cards that would free a joker lying in a pack on the table."""
    return {j["rank"] + suit for p in view["packs"] for j in p["jokers"] for suit in j["suits"]}


def _keep_scores(cards: list[str], gone: Counter[str], held: Counter[str], laid: bool,
                 table: list[Pack] | None = None, freers: set[str] | None = None) -> dict[str, float]:
    """How much each loose card is worth keeping: the live cards that would turn it into a pack with another
    loose card (a duo), a little for the live neighbours of a lone card, and before the first lay-down its
    points (they help reach the minimum)."""
    naturals = [c for c in cards if c not in JOKER_SUITS]
    score = {c: 0.0 for c in cards}
    for c in cards:
        if c in JOKER_SUITS:
            score[c] = JOKER_KEEP
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            # the opponent throws its highest loose cards: a duo waiting for a 10-point card is completed sooner
            outs = sum(_live(m, gone, held) * (1.0 + HIGH_DUO * (card_penalty(m) >= 10)) for m in duo_missing(a, b))
            if outs:
                score[a] += DUO_WEIGHT * outs
                score[b] += DUO_WEIGHT * outs
    for c in naturals:
        near = 0
        for other in _neighbours(c):
            near += _live(other, gone, held)
        score[c] += NEAR_WEIGHT * near
        if not laid:
            score[c] += HIGH_CARD_WEIGHT * card_penalty(c)
            # it goes onto the table right after the first lay-down; a joker freed comes with it
            if table is not None and _fits_table(c, table):
                score[c] += FIT_KEEP
            if freers is not None and c in freers:
                score[c] += FREE_KEEP
    return score


def _neighbours(card: str) -> list[str]:
    """The cards that would make a duo with this one: same rank other suits, same suit within two places."""
    suit = SUIT[card]
    out = [RANK[card] + s for s in "CDHS" if s != suit]
    for place in card_places(card):
        for p in (place - 2, place - 1, place + 1, place + 2):
            if 1 <= p <= 14 and POS_RANK[p] != RANK[card]:
                out.append(POS_RANK[p] + suit)
    return out


def _unseen(gone: Counter[str], held: Counter[str]) -> list[tuple[str, int]]:
    """(card, copies) of every card that may still be drawn, as far as this seat knows."""
    return [(code, left) for code in _DECK if (left := _live(code, gone, held)) > 0]


def _prospect(hand: list[str], laid: bool, minimum: int, unseen: list[tuple[str, int]],
              table: list[Pack]) -> float:
    """What the hand promises after the next draw, averaged over the cards that may come: before the first
    lay-down the chance to reach the minimum (plus a little of the value it expects), after it the cards that
    would leave the hand (laid down in packs or added to the table)."""
    total = 0.0
    weight = 0
    reach = 0.0
    for card, copies in unseen:
        packs, value = best_meld([*hand, card], keep=1)
        if laid:
            used = sum(len(p) for p in packs)
            left = Counter([*hand, card]) - Counter(c for p in packs for c in p)
            # the cards that fit the table one after another count too (8 then 9 on 5-6-7)
            rest = list(left.elements())
            total += (used + len(rest) - len(_left_after_adds(rest, table))) * copies
        else:
            total += value * copies
            if value >= minimum:
                reach += copies
        weight += copies
    if not weight:
        return 0.0
    if laid:
        return total / weight
    return reach / weight + total / weight / VALUE_SCALE


# Feeding: the opponent, once laid down, takes our discard when it makes a pack with two cards in its hand.
# Its hand is hidden, but the view tells how many cards it holds, which cards are unseen, and which of our
# discards it passed over while laid down (it then held no pair that card completes, and its hand changes
# by about a card a turn).
FEED_WEIGHT = 10.0      # keep-score points per unit of feeding risk (the chance the opponent takes the card)
FEED_LOOK = 1.0         # the same in the lookahead's units (cards leaving the hand after the next draw)
FINAL_FEED = 3.0        # a card the opponent would take at 3 cards lets it go out at once
LOW_FACTOR = 1.6       # the feeding risk's factor for cards of 2-6 points
MID_FACTOR = 0.8       # ... 7-8 points
HIGH_FACTOR = 0.45     # ... 9-10 points
PAIR_BIAS = 2.0         # an opponent that keeps pairs holds them more often than a random hand would
PASSED_FACTOR = 0.25    # a pair the opponent showed it did not hold (it passed over a card completing it)
PASSED_MEMORY = 3       # ... for this many of its turns


def _passed_over(view: View) -> list[str]:
    """Our discards the opponent passed over (drew from the stock instead) while laid down, in its last few
    turns: it then held no pair they complete."""
    seat = view["seat"]
    other = 1 - seat
    laid = False
    top: str | None = None
    passed: list[str] = []
    for entry in view["log"]:
        text = entry["text"]
        if entry["seat"] == other:
            if "laid down" in text:
                laid = True
            elif DREW_STOCK.search(text):
                passed.append(top if laid and top is not None else "")
        if entry["seat"] == seat:
            for code in discarded_cards(text):
                top = code
    return [card for card in passed[-PASSED_MEMORY:] if card]


def feed_risks(view: View, cards: list[str], gone: Counter[str], held: Counter[str]) -> dict[str, float]:
    """For each card, the estimated chance that the opponent takes it from the discard pile to make a pack:
    0 while it has not laid down (it may not take the discard yet) or holds fewer than 3 cards (a pack of its
    2 cards and ours would leave it nothing to discard); counted FINAL_FEED times at 3 cards (it would go out)."""
    other = 1 - view["seat"]
    count = view["hand_counts"][other]
    if not view["laid_down"][other] or count < 3:
        return dict.fromkeys(cards, 0.0)
    scale = FINAL_FEED if count == 3 else 1.0
    unseen = sum(_live(c, gone, held) for c in _DECK if c not in JOKER_SUITS) or 1
    share = view["hand_counts"][other] / unseen
    passed = _passed_over(view)
    out: dict[str, float] = {}
    for card in cards:
        if card in JOKER_SUITS:
            out[card] = 0.0
            continue
        miss = 1.0
        for a, b in completions(card):
            p = PAIR_BIAS * min(1.0, _live(a, gone, held) * share) * min(1.0, _live(b, gone, held) * share)
            if p and any(d in duo_missing(a, b) for d in passed):
                p *= PASSED_FACTOR
            miss *= 1.0 - min(1.0, p)
        out[card] = min(1.0, (1.0 - miss) * _value_factor(card)) * scale
    return out


def _value_factor(card: str) -> float:
    """The Romme-style opponent throws its highest loose cards first, so what it keeps is mostly pairs and low
    cards: a low discard completes its pairs far more often than a high one (measured against the bench's
    opponent: 13-28% against 1-10% at the same pair count)."""
    points = card_penalty(card)
    return LOW_FACTOR if points <= 6 else MID_FACTOR if points <= 8 else HIGH_FACTOR


def _strong_discard(view: View, kinds: dict[str, list[Action]], hand: list[str],
                    rng: random.Random) -> tuple[Action, str]:
    """The discard after which the next draw promises most (see _prospect), among the few loose cards least
    worth keeping; never one of the packs waiting for the first lay-down, never a joker while another card
    remains; near the opponent's last cards, high cards go first."""
    seat = view["seat"]
    laid = view["laid_down"][seat]
    gone = gone_cards(view)
    held = Counter(hand)
    out = _going_out(hand, _table_packs(view)) if laid else None
    # when everything else can go to the table the last card goes; otherwise packs wait in hand (see strong_bot)
    rest = [out[1]] if out is not None and not out[0] else without_packs(hand, best_meld(hand, keep=1)[0])
    if laid and HOLD_OPENING_ADDS:
        # the cards kept back although they fit the table leave the hand when it goes out
        table = _table_packs(view)
        rest = [c for c in rest if not _fits_table(c, table)] or rest
    if not rest:
        rest = list(hand)
    scores = _keep_scores(rest, gone, held, laid, _table_packs(view), _joker_freers(view))
    danger = DANGER if view["hand_counts"][1 - seat] <= 4 and view["laid_down"][1 - seat] else 0.0
    risks = feed_risks(view, rest, gone, held)
    ranked = sorted(dict.fromkeys(rest), key=lambda c: (scores[c] + FEED_WEIGHT * risks[c] - danger * card_penalty(c),
                                                         -card_penalty(c), card_key(c)))
    width = max(1, round(CANDIDATES * BUDGET_SCALE))
    candidates = [c for c in ranked if c not in JOKER_SUITS][:width] or ranked[:1]
    wide = [c for c in ranked if c not in JOKER_SUITS][:PLAYOUT_WIDTH]
    if PLAYOUTS and len(wide) > 1:
        values = discard_values(view, hand, wide, rng, max(1, round(PLAYOUTS * BUDGET_SCALE)),
                                time.perf_counter() + PLAYOUT_TIME * BUDGET_SCALE)
        card = max(wide, key=lambda c: (values[c], -wide.index(c)))
    elif len(candidates) > 1:
        unseen = _unseen(gone, held)
        table = _table_packs(view)
        minimum = view["options"]["min_first_meld"]
        best = None
        for rank, card in enumerate(candidates):
            after = list(hand)
            after.remove(card)
            value = _prospect(after, laid, minimum, unseen, table) - RANK_TIE * rank - FEED_LOOK * risks[card]
            if best is None or value > best[0]:
                best = (value, card)
        assert best is not None
        card = best[1]
    else:
        card = candidates[0]
    return _discard(kinds, card, "the card least likely to join a pack")


def _left_after_adds(cards: list[str], table: list[Pack]) -> list[str]:
    """The cards left after adding to the table every one that fits, one after another (a card kept back may
    open the place of the next)."""
    left = list(cards)
    packs = list(table)
    added = True
    while added and left:
        added = False
        for card in list(left):
            for i, pack in enumerate(packs):
                places = add_placements(pack, card)
                if places:
                    packs[i], freed = add_card(pack, card, places[0][1])
                    left.remove(card)
                    if freed is not None:
                        left.append(freed)
                    added = True
                    break
    return left


def _going_out(hand: list[str], table: list[Pack]) -> tuple[tuple[tuple[str, ...], ...], str] | None:
    """(the packs to lay down, the card to discard last) when the whole hand can leave this turn: every card
    but one in packs or fitting a pack on the table; None otherwise."""
    for last in dict.fromkeys(sorted(hand, key=lambda c: (c in JOKER_SUITS, -card_penalty(c)))):
        rest = list(hand)
        rest.remove(last)
        loose = _left_after_adds(rest, table)
        if not loose:
            return (), last
        packs, _ = best_meld(loose, keep=0)
        if sum(len(p) for p in packs) == len(loose):
            return packs, last
    return None


HOLD_OPENING_ADDS = True  # a card that would open a new place on a run stays in hand until the bot goes out


def _opens_place(pack: dict[str, Any], card: str, gone: Counter[str], held: Counter[str]) -> bool:
    """Whether adding this natural card at an end of a run on the table opens a place the opponent may fill
    from its hand: the opponent in the manner of the original app holds no card that fits the table (it adds
    them all), so only a newly opened place can take one of its cards; a card kept back can still be added
    later (the same place stays open to the opponent's draws only)."""
    if pack["kind"] != "run" or card in JOKER_SUITS:
        return False
    low, high = pack["low_place"], pack["high_place"]
    opened: list[int] = []
    for place in card_places(card):
        if SUIT[card] != pack["suit"]:
            continue
        if place == high + 1 and place < 14:
            opened.append(place + 1)
        elif place == low - 1 and place > 1:
            opened.append(place - 1)
    return any(_live(POS_RANK[p] + pack["suit"], gone, held) > 0 for p in opened)


def strong_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The original app's plan played sharper: it lays down and adds like the Regular, counts the cards gone to
    the table and the discard pile, takes the discard only when the card goes straight into a pack or onto the
    table (a card that merely pairs up is worth less than a stock card that may fit), and discards after a
    one-draw lookahead, avoiding the cards the opponent would likely pick up to complete a pair; its jokers stay
    in hand until they let it go out."""
    if not legal:
        return None, "nothing to do"
    kinds = _by_type(legal)
    hand: list[str] = view["hand"]
    if kinds["draw"]:
        # also a discard that fits the table, but not one that only pairs up: that measured worse than a stock
        # card, which may fit the table at once
        return _draw_choice(view, kinds, hand, fits_table=True)
    if HOLD_JOKERS and any(a["card"] in JOKER_SUITS for a in kinds["add"]) \
            and _going_out(hand, _table_packs(view)) is None:
        # a joker on the table is one the opponent may take back; in hand it fits any run of its colour later
        kinds["add"] = [a for a in kinds["add"] if a["card"] not in JOKER_SUITS]
    if HOLD_OPENING_ADDS and kinds["add"] and _going_out(hand, _table_packs(view)) is None:
        gone = gone_cards(view)
        held = Counter(hand)
        kinds["add"] = [a for a in kinds["add"]
                        if not _opens_place(view["packs"][a["pack"]], a["card"], gone, held)]
    if kinds["meld"]:
        # the fewest cards left, not the most points: only going out wins, and the 40 are reached either way
        shed = _shed_meld(kinds, hand, _table_packs(view))
        if shed is not None:
            return shed
    laid = _lay_down_or_add(kinds, hand)
    if laid is not None:
        return laid
    return _strong_discard(view, kinds, hand, rng)


LEVEL_BLURBS: dict[str, str] = {
    "random": "Lays down and adds to its own packs as soon as it can, but keeps no pairs, never takes the discard "
              "and throws cards away at random.",
    "reference": "Plays like the original Romme app: lays down its most valuable packs, keeps pairs that can still "
                 "be completed and throws its highest card.",
    "strong": "Counts the cards already gone, keeps the pairs most likely to be completed, picks up any discard "
              "that goes straight into a pack and avoids throwing you the cards you are waiting for.",
}

BOTS: dict[str, Bot] = {"random": random_bot, "reference": reference_bot, "strong": strong_bot}

__all__ = ["BOTS", "LEVEL_BLURBS", "random_bot", "reference_bot", "strong_bot"]
