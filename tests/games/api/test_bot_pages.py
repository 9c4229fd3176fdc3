"""Issue 39, points 1, 2 and 6 on the site's pages: /bots/ makes bot accounts and tokens (shown once), a fresh
account turns into a bot only before it has played, programs are marked BOT where players are named (profile,
table, leaderboard, history) and challenged by people from their profile; quick pairing and tournaments are for
people; a program plays many clocked matches at once; the API's documentation page and the bridge download."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from factories import PASSWORD, make_match, make_user

from accounts.models import ApiToken, User
from games import boards
from games.api import tokens
from games.challenges import services as challenges
from games.models import Challenge, PlayerStats
from games.play.create import create_table
from games.play.snapshot import ServiceError
from games.pool import pairing
from games.pool.pools import clock_of
from games.tournaments.services import entry

pytestmark = pytest.mark.django_db


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_bots_page_makes_a_bot_and_a_token_shown_once(owner: Any) -> None:
    client = signed_in(owner)
    assert client.get("/bots/").status_code == 200
    client.post("/bots/", {"action": "bot", "bot-username": "pagebot", "bot-display_name": "Page Bot"})
    bot = User.objects.get(username="pagebot")
    assert bot.program and bot.owner == owner
    page = client.post("/bots/", {"action": "token", "token-bot": str(bot.pk), "token-name": "laptop",
                                  "token-play": "on"})
    html = page.content.decode()
    key = html.split('id="new-token">', 1)[1].split("<", 1)[0]
    assert key.startswith("ccb_") and page["Cache-Control"] == "no-store"
    row = ApiToken.objects.get(user=bot)
    assert row.scopes == ["play"] and tokens.authenticate(key) is not None
    again = client.get("/bots/").content.decode()
    assert key not in again and row.prefix in again  # named by its prefix, never shown again
    client.post("/bots/", {"action": "revoke", "token": str(row.pk)})
    assert tokens.authenticate(key) is None
    # Another person can't revoke or make tokens for it.
    stranger = signed_in(make_user("stranger"))
    page = stranger.post("/bots/", {"action": "token", "token-bot": str(bot.pk), "token-name": "x", "token-play": "on"})
    assert "ccb_" not in page.content.decode()


def test_a_fresh_account_turns_into_a_bot_only_before_it_has_played(owner: Any) -> None:
    client = signed_in(owner)
    make_user("second")
    client.post("/bots/", {"action": "turn", "turn-username": "second", "turn-password": PASSWORD})
    second = User.objects.get(username="second")
    assert second.program and second.owner == owner and not second.has_usable_password()
    veteran = make_user("veteran")
    make_match(creator=veteran, game="gomori", seats=["open"], joiners=[make_user("rival")])
    client.post("/bots/", {"action": "turn", "turn-username": "veteran", "turn-password": PASSWORD})
    assert not User.objects.get(username="veteran").program


def test_a_program_is_marked_bot_on_its_profile_with_its_owner_and_people_challenge_it(owner: Any) -> None:
    bot = tokens.create_bot(owner, "profbot", "Prof Bot")
    person = make_user("visitor")
    html = signed_in(person).get(f"/u/{bot.username}/").content.decode()
    assert "badge-bot" in html and "BOT" in html and "/u/owner/" in html
    assert 'id="challenge"' in html  # challenged by people from its profile
    signed_in(person).post(f"/challenge/{bot.username}/", {"game": "gomori", "clock": "live"})
    assert Challenge.objects.filter(challenger=person, challenged=bot, status="open").exists()
    # And bots challenge each other.
    other = tokens.create_bot(owner, "otherbot")
    assert challenges.challenge(other, bot, game="ruhd", clock="none").pk
    # A person challenged by a program sees it marked BOT in the notice.
    challenges.challenge(bot, person, game="gomori", clock="none")
    lobby = signed_in(person).get("/play/").content.decode()
    notice = lobby.split('id="challenge-notices"', 1)[1].split("</div>\n</div>", 1)[0]
    assert "Prof Bot" in notice and "badge-bot" in notice


def test_programs_are_kept_out_of_quick_pairing_and_tournaments(owner: Any) -> None:
    bot = tokens.create_bot(owner, "poolbot")
    with pytest.raises(ServiceError, match="challenge only"):
        pairing.seek(bot, "gomori-2-none")
    host = make_user("host", is_staff=True)
    row = entry.create_tournament(creator=host, kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                  starts_at=timezone.now() + timedelta(minutes=5))
    with pytest.raises(ServiceError, match="challenge only"):
        entry.join(tournament_id=row.pk, user=bot)


def test_a_program_plays_many_clocked_matches_at_once(owner: Any) -> None:
    bot = tokens.create_bot(owner, "busybot")
    live = clock_of("live")
    for rival in ("r1", "r2", "r3"):
        create_table(game="gomori", people=[bot, make_user(rival)], clock=live)
    assert boards.why_not(bot, clocked=True) is None
    bot.is_active = False
    bot.save()
    assert boards.why_not(bot, clocked=True)  # a suspended program is seated nowhere


def test_bot_badges_on_the_table_the_leaderboard_and_the_history(owner: Any) -> None:
    bot = tokens.create_bot(owner, "badgebot", "Badge Bot")
    person = make_user("human")
    match = create_table(game="gomori", people=[bot, person])
    table = signed_in(person).get(f"/m/{match.pk}/").content.decode()
    assert "badge-bot" in table
    PlayerStats.objects.create(user=bot, game="gomori", rating=1600, rated_matches=3, won=3)
    board = Client().get("/leaderboard/?game=gomori").content.decode()
    assert "Badge Bot" in board and "badge-bot" in board
    # The history names it as a bot too, once the match is over.
    from games.engines import get_engine
    from games.play.decide import decide_move, decide_resign
    from games.play.sync import run_change

    engine = get_engine("gomori")
    users = {s.index: s.user_id for s in match.seats.all()}
    for _ in range(2):
        match.refresh_from_db()
        state = engine.load(match.state)
        seat = engine.to_act(state)[0]
        run_change(match.pk, decide_move, seat=seat, user_id=users[seat], action=engine.legal_actions(state, seat)[0])
    run_change(match.pk, decide_resign, user_id=person.pk)
    history = Client().get("/history/").content.decode()
    row = history.split("Badge Bot", 1)[1][:300]
    assert 'class="badge"' in row and ">bot<" in row


def test_the_api_page_and_the_bridge_download() -> None:
    client = Client()
    html = client.get("/api/").content.decode()
    assert "curl" in html and "/api/v1/stream/events" in html and "computer_gomori_bridge.py" in html
    bridge = client.get("/api/computer_gomori_bridge.py")
    assert bridge.status_code == 200 and b"def main()" in b"".join(bridge.streaming_content)


def test_a_program_runs_out_of_time_like_a_person(owner: Any) -> None:
    from games.engines import get_engine
    from games.play.decide import decide_move, decide_timeout
    from games.play.sync import run_change

    bot = tokens.create_bot(owner, "slowbot")
    person = make_user("quick")
    match = create_table(game="gomori", people=[bot, person], clock=clock_of("turn"))
    engine = get_engine("gomori")
    seats = {s.user_id: s.index for s in match.seats.all()}
    match.refresh_from_db()
    # Each moves at least once (a clock that runs out before a first move aborts, for people and programs alike),
    # then play goes on until it is the program's turn (a Gomori turn may hold several plays: a random deal decides).
    moved: set[int] = set()
    for _ in range(40):
        state = engine.load(match.state)
        mover = engine.to_act(state)[0]
        if mover == seats[bot.pk] and len(moved) == 2:
            break
        user_id = bot.pk if seats[bot.pk] == mover else person.pk
        run_change(match.pk, decide_move, seat=mover, user_id=user_id, action=engine.legal_actions(state, mover)[0])
        moved.add(mover)
        match.refresh_from_db()
    waited = engine.to_act(engine.load(match.state))[0]
    assert waited == seats[bot.pk] and match.clock_due_at is not None  # the program's seat is on the clock
    after = run_change(match.pk, decide_timeout, bot=None, now=match.clock_due_at + timedelta(seconds=1))
    assert after.status == "finished" and after.result["reason"] == "time"
    assert after.result["winners"] == [1 - waited]


@pytest.mark.django_db(transaction=True)
async def test_a_lobby_opened_just_after_a_program_accepted_goes_to_the_match(ws_headers: Any) -> None:
    """A program accepts within milliseconds, while the challenger's page is still going to the lobby: the lobby's
    socket, once open, sends the page on to the match (people take longer: their challenger's lobby is open)."""
    from asgiref.sync import sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    def made() -> tuple[Any, Any]:
        person = make_user("eager")
        bot = tokens.create_bot(make_user("maker"), "fastbot")
        row = challenges.challenge(person, bot, game="gomori", clock="none")
        return person, challenges.accept(bot, row.pk)

    person, match = await sync_to_async(made)()
    socket = WebsocketCommunicator(application, "/ws/notify/?lobby=1", headers=await sync_to_async(ws_headers)(person))
    connected, _ = await socket.connect(timeout=5)
    assert connected
    frames = []
    try:
        while True:
            frames.append(await socket.receive_from(timeout=2))
            if f"/m/{match.pk}/" in frames[-1] and "data-go" in frames[-1]:
                break
    finally:
        await socket.disconnect()


def test_the_admin_shows_programs_and_revokes_tokens(owner: Any) -> None:
    from django.urls import reverse

    boss = make_user("boss", is_staff=True, is_superuser=True)
    bot = tokens.create_bot(owner, "adminbot")
    row, key = tokens.make_token(bot, name="server")
    client = signed_in(boss)
    listed = client.get(reverse("admin:accounts_user_changelist"), {"program__exact": "1"}).content.decode()
    assert "adminbot" in listed and ">owner<" not in listed.split("result_list", 1)[1]
    page = client.get(reverse("admin:accounts_apitoken_changelist")).content.decode()
    assert row.prefix in page and key not in page
    client.post(reverse("admin:accounts_apitoken_changelist"),
                {"action": "revoke_tokens", "_selected_action": [str(row.pk)]})
    assert tokens.authenticate(key) is None
