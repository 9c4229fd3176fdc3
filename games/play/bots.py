"""Bots at the table: when a bot seat acts (its pause), and what it plays (its level's bot, from that seat's view).

The bot that takes over a person's seat is chosen by games.play.bot_accounts.takeover_bot (it reads the account).
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from ..catalog import kit
from ..engines.base import Action
from .snapshot import Snapshot, State, Status, engine_of

log = logging.getLogger(__name__)


def reaction_delay(game: str, level: str) -> float:
    """A bot level's pause before an optional move (a slap)."""
    return float(kit(game).reaction_delay.get(level, settings.GAMES_BOT_DELAY))


def bot_delay(snap: Snapshot, state: State, seat: int, must: bool) -> float:
    """How long a bot seat waits: a short pause for its turn (longer where its bots ask for patience,
    e.g. to leave a person time for a card action), its level's reaction time for an optional move."""
    actor = snap.seats[seat].actor
    if not must:
        return reaction_delay(snap.game, actor.bot_level if actor else "")
    delay: float = settings.GAMES_BOT_DELAY
    patience = kit(snap.game).patience
    if patience is not None and any(s.is_person for s in snap.seats):
        delay = max(delay, patience(engine_of(snap).view(state, seat)))
    return delay


def bot_due_at(snap: Snapshot, state: State) -> datetime | None:
    """When a bot seat should next be asked to act; None when no bot is to act."""
    engine = engine_of(snap)
    if snap.status != Status.ACTIVE or engine.is_over(state):
        return None
    bots = {s.index for s in snap.seats if s.is_bot}
    if not bots:
        return None
    start = snap.turn_started_at or timezone.now()
    must = set(engine.must_act(state))
    due = [start + timedelta(seconds=bot_delay(snap, state, seat, seat in must))
           for seat in engine.to_act(state) if seat in bots]
    return min(due) if due else None


def due_bot_seats(snap: Snapshot, state: State, now: datetime) -> list[int]:
    """The bot seats whose pause is over, those the game must wait on first."""
    engine = engine_of(snap)
    bots = {s.index for s in snap.seats if s.actor and s.is_bot}
    must = set(engine.must_act(state))
    started = snap.turn_started_at or now
    return [seat for seat in sorted((s for s in engine.to_act(state) if s in bots), key=lambda s: (s not in must, s))
            if started + timedelta(seconds=bot_delay(snap, state, seat, seat in must)) <= now]


def bot_action(snap: Snapshot, state: State, seat: int) -> tuple[Action | None, str, random.Random, list[Action]]:
    """What the seat's bot plays, and why: it sees only that seat's view and legal actions. A bot that fails
    plays a random legal action instead, so a bot bug never stops a match. Also returns the bot's random
    source and the legal actions, for the caller's fallback on an illegal answer."""
    engine = engine_of(snap)
    actor = snap.seats[seat].actor
    level = actor.bot_level if actor else ""
    rng = random.Random(f"{snap.seed}:{snap.move_count}:{seat}")
    legal = engine.legal_actions(state, seat)
    try:
        action, reason = kit(snap.game).bots[level](engine.view(state, seat), legal, rng)
    except Exception:  # a bot bug must not stop the match
        log.exception("bot %s failed in match %s", level, snap.id)
        action, reason = (rng.choice(legal), "plays at random") if legal else (None, "")
    return action, reason, rng, legal
