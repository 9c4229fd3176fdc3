"""One person, one board (games.boards): the gate's rule as a table of cases, its claim when a match is dealt and
its release when it ends, and every road to a seat asking it: quick pairing, the lobby, a rematch, the arena and
the Swiss. (Challenges: tests/games/challenges; joining from the lobby or by invite: tests/games/lobby; the race
between roads on two processes: tests/games/test_boards_servers.py.)"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from factories import client_for, make_user
from tournament_play import opponent, win

from games import boards, moderation
from games.boards import Held, Sitter, refusal
from games.models import Board, Entrant, Match, PlayerStats, Seek, Tournament
from games.play.create import create_table
from games.play.decide import decide_rematch
from games.play.snapshot import ServiceError
from games.play.sync import run_change
from games.pool import pairing
from games.tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

LIVE = {"kind": "fischer", "base": 300.0, "increment": 3}
ARENA = Held(7, "Friday Arena")


# ---------------------------------------------------------------------------------------------
# The rule, pure


def sitter(*, bot: bool = False, active: bool = True, held: Held | None = None) -> Sitter:
    return Sitter(name="Pat", is_bot=bot, is_active=active, held=held)


CASES = [
    # (who, clocked, match_id, own) -> reason (None: may sit)
    (sitter(), True, None, True, None),
    (sitter(), False, None, True, None),
    (sitter(held=ARENA), False, None, True, None),  # a match without a clock binds no one
    (sitter(held=ARENA), True, 7, True, None),  # the board they already play
    (sitter(held=ARENA), True, 8, True,
     "You are playing in Friday Arena: you can sit down again when that match ends."),
    (sitter(held=ARENA), True, None, False, "Pat is playing in Friday Arena: try again when that match ends."),
    (sitter(active=False), False, None, True, "Your account cannot play at the moment."),
    (sitter(active=False, held=ARENA), True, 7, False, "Pat cannot play at the moment."),
    (sitter(bot=True, held=ARENA), True, 8, True, None),  # bots play any number of matches
    (sitter(bot=True, active=False), True, None, True, None),
]


@pytest.mark.parametrize(("who", "clocked", "match_id", "own", "reason"), CASES)
def test_the_gate_s_rule(who: Sitter, clocked: bool, match_id: int | None, own: bool, reason: str | None) -> None:
    assert refusal(who, clocked=clocked, match_id=match_id, own=own) == reason


# ---------------------------------------------------------------------------------------------
# The claim and its release


def person(name: str) -> Any:
    user = make_user(name, display_name=name.title())
    PlayerStats.objects.create(user=user, game="gomori", rating=1500)
    return user


def test_a_clocked_deal_claims_each_person_s_board_and_a_second_is_refused_until_the_first_ends() -> None:
    pat, rosa, sam = person("pat"), person("rosa"), person("sam")
    first = create_table(game="gomori", people=[pat, rosa], clock=LIVE)
    assert set(Board.objects.filter(match=first).values_list("user_id", flat=True)) == {pat.pk, rosa.pk}
    with pytest.raises(ServiceError, match="Pat is playing in a match of Gomori"):
        create_table(game="gomori", people=[pat, sam], clock=LIVE)
    assert Match.objects.count() == 1  # the refused match was rolled back with its claim
    # Without a clock nobody is bound; bots are never bound.
    untimed = create_table(game="gomori", people=[pat, sam])
    assert not Board.objects.filter(match=untimed).exists()
    with_bot = create_table(game="gomori", people=[sam], bots=("reference",), clock=LIVE)
    assert list(Board.objects.filter(match=with_bot).values_list("user_id", flat=True)) == [sam.pk]
    # The first match ends: both are free again.
    moderation.abort_match(first.pk)
    assert not Board.objects.filter(user__in=[pat, rosa]).exists()
    again = create_table(game="gomori", people=[pat, rosa], clock=LIVE)
    assert Board.objects.get(user=pat).match_id == again.pk


def test_a_rematch_is_refused_with_the_reason_while_a_player_sits_at_another_board() -> None:
    pat, rosa, sam = person("pat"), person("rosa"), person("sam")
    first = win(create_table(game="gomori", people=[pat, rosa], clock=LIVE), pat)
    create_table(game="gomori", people=[rosa, sam], clock=LIVE)  # Rosa sat down elsewhere meanwhile
    run_change(first.pk, decide_rematch, user_id=pat.pk)
    with pytest.raises(ServiceError, match="Rosa is playing in a match of Gomori"):
        run_change(first.pk, decide_rematch, user_id=rosa.pk)
    assert Match.objects.get(pk=first.pk).rematch_id is None
    assert not Board.objects.filter(user=pat).exists()


# ---------------------------------------------------------------------------------------------
# The roads


def test_quick_pairing_refuses_a_seek_from_a_clocked_board_and_passes_by_a_seek_of_someone_seated_since() -> None:
    pat, rosa, sam, tom = person("pat"), person("rosa"), person("sam"), person("tom")
    create_table(game="gomori", people=[pat, rosa], clock=LIVE)
    with pytest.raises(ServiceError, match="You are playing in a match of Gomori"):
        pairing.seek(pat, "gomori-2-live")
    assert pairing.seek(pat, "gomori-2-none").match is None  # a pool without a clock binds no one
    # Sam waits; then the arena (another road) seats Sam; Tom's seek must not pair with Sam's stale one.
    now = timezone.now()
    pairing.seek(sam, "gomori-2-live", now=now)
    create_table(game="gomori", people=[sam], bots=("reference",), clock=LIVE)
    assert pairing.seek(tom, "gomori-2-live", now=now).match is None
    assert Seek.objects.filter(user=sam, match__isnull=True).exists()  # passed by, not paired


def test_the_lobby_opens_no_second_clocked_match_and_says_why() -> None:
    pat, rosa = person("pat"), person("rosa")
    create_table(game="gomori", people=[pat, rosa], clock=LIVE)
    response = client_for(pat).post("/play/new/gomori/", {
        "gomori-players": 2, "gomori-seat_0": "me", "gomori-seat_1": "open", "gomori-is_public": "on",
        "gomori-rated": "on", "gomori-clock": "fischer", "gomori-clock_minutes": 5, "gomori-clock_increment": 3,
    })
    assert response.status_code == 400
    assert "You are playing in a match of Gomori" in response.content.decode()
    assert Match.objects.count() == 1


def arena(**kw: Any) -> Tournament:
    staff = make_user("staff", is_staff=True)
    return services.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                      starts_at=timezone.now(), table_size=2, **kw)


def test_an_entrant_seated_elsewhere_is_paused_in_the_arena_until_that_match_ends() -> None:
    t = arena()
    ann, ben, cat = person("ann"), person("ben"), person("cat")
    elsewhere = create_table(game="gomori", people=[ann], bots=("reference",), clock=LIVE)
    for user in (ann, ben, cat):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    entrants = {e.user_id: e for e in Entrant.objects.filter(tournament=t)}
    assert entrants[ann.pk].match is None  # Ann plays elsewhere: not paired
    assert entrants[ben.pk].match is not None and entrants[ben.pk].match == entrants[cat.pk].match
    assert Board.objects.get(user=ann).match_id == elsewhere.pk
    # Ann's other match ends: the arena pairs her as soon as someone is free.
    moderation.abort_match(elsewhere.pk)
    arena_match = entrants[ben.pk].match
    assert arena_match is not None
    win(arena_match, ben)
    services.tick(now=timezone.now() + timedelta(seconds=30))
    paired = Entrant.objects.get(tournament=t, user=ann).match
    assert paired is not None and Board.objects.get(user=ann).match_id == paired.pk
    assert opponent(paired, ann) in (ben, cat)


def swiss_of_four_dan_elsewhere() -> tuple[Tournament, list[Any]]:
    """A Swiss of ann, ben, cat and dan, due to start, with dan seated at a clocked match elsewhere."""
    staff = make_user("swiss_staff", is_staff=True)
    t = services.create_tournament(creator=staff, kind="swiss", game="gomori", clock_key="5+3", rounds=3,
                                   starts_at=timezone.now(), table_size=2)
    entrants = [person("ann"), person("ben"), person("cat"), person("dan")]
    for user in entrants:
        services.join(tournament_id=t.pk, user=user)
    create_table(game="gomori", people=[entrants[3]], bots=("reference",), clock=LIVE)
    return t, entrants


def seated_in(t: Tournament, users: list[Any]) -> set[Any]:
    return {u for u in users if Board.objects.filter(user=u, match__tournament_game__tournament=t)}


def test_a_swiss_round_leaves_out_whoever_plays_elsewhere() -> None:
    t, entrants = swiss_of_four_dan_elsewhere()
    services.tick()
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    seated = seated_in(t, entrants)
    assert entrants[3] not in seated and len(seated) == 2
    for user in seated:
        assert Board.objects.get(user=user).match.clock["kind"] == "fischer"


def test_why_not_names_the_tournament_of_the_board() -> None:
    t = arena(name="Friday Arena")
    ann, ben = person("ann"), person("ben")
    for user in (ann, ben):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    assert boards.why_not(ann) == "You are playing in Friday Arena: you can sit down again when that match ends."
    assert boards.why_not(ann, clocked=False) is None


def test_the_tournament_page_tells_an_entrant_seated_elsewhere_why_they_wait() -> None:
    t = arena(name="Friday Arena")
    ann, ben = person("ann"), person("ben")
    create_table(game="gomori", people=[ann], bots=("reference",), clock=LIVE)
    for user in (ann, ben):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    page = client_for(ann).get(t.get_absolute_url()).content.decode()
    assert ("<strong>You are playing in a match of Gomori:</strong> this tournament pairs you again when that match"
            " ends.") in page
    assert "this tournament pairs you again" not in client_for(ben).get(t.get_absolute_url()).content.decode()


def test_a_swiss_round_refused_by_the_gate_at_its_claim_is_paired_at_the_next_tick_without_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another road seats an entrant between the pairing's look at the boards and its claim (holders() is made to
    miss it here, as a race would): the round is not paired half, the tick goes on to the other tournaments, and
    the next tick pairs the round without the one seated elsewhere."""
    swiss, entrants = swiss_of_four_dan_elsewhere()
    dan = entrants[3]
    other = arena(name="Later Arena")
    eve, fay = person("eve"), person("fay")
    for user in (eve, fay):
        services.join(tournament_id=other.pk, user=user)
    real_holders = boards.holders
    monkeypatch.setattr(boards, "holders", lambda user_ids: set())
    services.tick()  # must not raise
    swiss.refresh_from_db()
    assert swiss.status == Tournament.Status.UPCOMING and swiss.round == 0  # nothing of the round was written
    assert not Entrant.objects.filter(tournament=swiss, match__isnull=False).exists()
    assert Board.objects.filter(user=dan).count() == 1  # dan is at his one board only
    assert Entrant.objects.get(tournament=other, user=eve).match is not None  # the tick went on to the arena
    monkeypatch.setattr(boards, "holders", real_holders)
    services.tick()
    swiss.refresh_from_db()
    assert swiss.status == Tournament.Status.RUNNING and swiss.round == 1
    seated = seated_in(swiss, entrants)
    assert dan not in seated and len(seated) == 2
