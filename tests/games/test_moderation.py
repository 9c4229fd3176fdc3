"""Moderation in the admin: a match is read-only there; aborting a match, annulling a result and suspending a
person work through games.moderation, are logged with the acting administrator, and show where they should
(ratings, histories, the leaderboard, sign-in). The leaderboard lists provisional ratings, marked."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from typing import Any

import playing
import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib import messages
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from factories import client_for

from accounts.forms import SUSPENDED_MESSAGE
from accounts.sessions import user_group
from games import moderation
from games.engines import get_engine
from games.models import FinishedMatch, Match, PlayerResult, PlayerStats, Seat
from games.play.bot_accounts import bot_user
from games.play.create import SeatSpec, create_match
from games.play.news import match_group
from games.ratings import rebuild, stats

pytestmark = pytest.mark.django_db

_seeds = itertools.count(500)


@pytest.fixture
def boss(make_user: Callable[..., Any]) -> Any:
    return make_user("boss", is_staff=True, is_superuser=True)


def finished_match(users: list[Any], winner: int | None, at: dt.datetime, *, game: str = "gomori",
                   boxed: bool = False) -> Match:
    """A finished two-player match as the records have it (no moves), added to the statistics as a real one is
    (with `boxed`, its result box says what it did to the ratings, as the live core writes it)."""
    match = Match.objects.create(
        game=game, players=len(users), seed=next(_seeds), status=Match.Status.FINISHED, options={}, version=1,
        started_at=at - dt.timedelta(minutes=5), finished_at=at,
        result={"scores": [0] * len(users), "winners": [] if winner is None else [winner], "draw": winner is None,
                "reason": "normal"},
    )
    for index, user in enumerate(users):
        Seat.objects.create(match=match, index=index, user=user, joined_at=match.started_at, final_score=0,
                            place=1 if winner in (None, index) else 2)
    changes = stats.record_finished(match)
    if boxed:
        Match.objects.filter(pk=match.pk).update(result={**match.result, "ratings": changes})
        match.refresh_from_db()
    return match


def run_action(client: Client, changelist: str, action: str, *pks: int) -> Any:
    return client.post(changelist, {"action": action, "_selected_action": [str(pk) for pk in pks], "index": "0"},
                       follow=True)


def sessions_of(user: Any) -> int:
    return sum(str(s.get_decoded().get("_auth_user_id")) == str(user.pk) for s in Session.objects.all())


def logged(obj: Any, actor: Any) -> list[str]:
    return list(LogEntry.objects.filter(object_id=str(obj.pk), user=actor).values_list("change_message", flat=True))


MATCHES = "/admin/games/match/"
USERS = "/admin/accounts/user/"


# ---------------------------------------------------------------------------------------------
# The match admin is read-only


def test_the_match_change_page_edits_nothing_but_privacy(boss: Any, gomori_match: Match) -> None:
    client = client_for(boss)
    url = reverse("admin:games_match_change", args=[gomori_match.pk])
    page = client.get(url)
    html = page.content.decode()
    for field in ("state", "seed", "options", "version", "move_count", "result", "status", "rated"):
        assert f'name="{field}"' not in html
    assert 'name="is_public"' in html
    assert 'name="seats-0-user"' not in html and 'name="moves-0-action"' not in html
    assert 'name="_addanother"' not in html and "Delete</a>" not in html
    # A forged form: a changed state, seed and result, and the privacy flag off.
    data: dict[str, Any] = {"state": '{"deck": []}', "seed": "1", "result": '{"winners": [0]}', "version": "99",
                            "_save": "Save"}
    for inline in page.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        data.update({management.add_prefix(name): value for name, value in management.initial.items()})
    response = client.post(url, data)
    assert response.status_code == 302
    after = Match.objects.get(pk=gomori_match.pk)
    assert (after.state, after.seed, after.result) == (gomori_match.state, gomori_match.seed, gomori_match.result)
    # Not the forged 99: the privacy switch's own change, behind the version fence (a live copy learns of it).
    assert after.version == gomori_match.version + 1
    assert after.is_public is False
    assert client.get(reverse("admin:games_match_add")).status_code == 302  # to the import page


def test_only_a_superuser_deletes_and_only_a_match_that_counts_for_nothing(
    boss: Any, make_user: Callable[..., Any], alice: Any, bob: Any, gomori_match: Match
) -> None:
    done = finished_match([alice, bob], 0, timezone.now())
    client = client_for(boss)
    assert client.get(reverse("admin:games_match_delete", args=[gomori_match.pk])).status_code == 403
    assert client.get(reverse("admin:games_match_delete", args=[done.pk])).status_code == 403
    moderation.abort_match(gomori_match.pk)
    assert client.get(reverse("admin:games_match_delete", args=[gomori_match.pk])).status_code == 200
    staff = make_user("helper", is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["view_match", "change_match", "delete_match"]))
    assert client_for(staff).get(reverse("admin:games_match_delete", args=[gomori_match.pk])).status_code == 403
    assert "delete_selected" not in client.get(MATCHES).content.decode()


# ---------------------------------------------------------------------------------------------
# Abort


def test_an_administrator_aborts_a_match_in_progress_and_one_waiting(
    boss: Any, alice: Any, bob: Any, gomori_match: Match, django_capture_on_commit_callbacks: Any
) -> None:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(match_group(gomori_match.pk), channel)
    waiting = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    with django_capture_on_commit_callbacks(execute=True):
        response = run_action(client_for(boss), MATCHES, "abort_matches", gomori_match.pk, waiting.pk)
    assert "Aborted" in response.content.decode()
    for match, before in ((gomori_match, gomori_match.version), (waiting, waiting.version)):
        after = Match.objects.get(pk=match.pk)
        assert after.status == Match.Status.ABORTED and after.version == before + 1
        assert after.result["reason"] == "aborted" and after.result["by"] is None
        assert logged(match, boss) == ["Moderation: aborted the match (unrated, in nobody's history or statistics)."]
    assert not FinishedMatch.objects.exists() and not PlayerResult.objects.exists()
    assert not PlayerStats.objects.filter(user__in=[alice, bob]).exists()
    # The live pages were told, through the fence's own road (publish).
    told = async_to_sync(layer.receive)(channel)
    assert told["type"] == "match.changed" and told["version"] == gomori_match.version + 1
    # A finished match can't be aborted: annul it instead.
    done = finished_match([alice, bob], 0, timezone.now())
    response = run_action(client_for(boss), MATCHES, "abort_matches", done.pk)
    assert "annul a finished one" in response.content.decode()
    assert Match.objects.get(pk=done.pk).status == Match.Status.FINISHED and not logged(done, boss)


# ---------------------------------------------------------------------------------------------
# Annul


def expected_without(matches: list[Match]) -> dict[int, PlayerStats]:
    """Each player's figures from these matches alone, by the pure step (independent of the recomputation)."""
    rows: dict[int, PlayerStats] = {}
    for match in matches:
        seats = list(Seat.objects.filter(match=match).select_related("user").order_by("index"))
        stats.apply_match(stats.match_facts(match, seats, list), rows)
    return rows


def test_annulling_a_result_recomputes_ratings_as_if_it_never_counted(
    boss: Any, alice: Any, bob: Any, carol: Any
) -> None:
    start = timezone.now() - dt.timedelta(hours=1)
    first = finished_match([alice, bob], 0, start)
    annulled = finished_match([bob, carol], 0, start + dt.timedelta(minutes=10))
    # Alice never played the annulled match, but Carol's rating when she met her came from it.
    third = finished_match([carol, alice], 0, start + dt.timedelta(minutes=20))
    later = finished_match([alice, bob], None, start + dt.timedelta(minutes=30))
    expected = expected_without([first, third, later])
    before = {row.user_id: row.rating for row in PlayerStats.objects.filter(game="gomori")}
    assert before[alice.pk] != pytest.approx(expected[alice.pk].rating)

    response = run_action(client_for(boss), MATCHES, "annul_results", annulled.pk)
    assert "Annulled" in response.content.decode()

    for user in (alice, bob, carol):
        row, want = PlayerStats.objects.get(user=user, game="gomori"), expected[user.pk]
        for name in stats.STATS_FIELDS:
            assert getattr(row, name) == getattr(want, name), (user.username, name)
    assert PlayerStats.objects.get(user=carol).played == 1
    match = Match.objects.get(pk=annulled.pk)
    assert match.result["annulled"] is True and match.status == Match.Status.FINISHED
    assert match.version == annulled.version + 1
    assert not FinishedMatch.objects.filter(match=annulled).exists()
    assert not PlayerResult.objects.filter(match=annulled).exists()
    # The later matches' rating points follow the recomputed ratings.
    point = PlayerResult.objects.get(match=later, user=alice)
    assert point.rating_after == pytest.approx(expected[alice.pk].rating)
    assert logged(annulled, boss) == ["Moderation: annulled the result (ratings and statistics recomputed without it)."]

    # Nowhere in the histories, marked on its page; and a full rebuild agrees.
    viewer = client_for(alice)
    history = viewer.get("/history/")
    assert annulled.pk not in [row.match.pk for row in history.context["history"].rows]
    bobs = viewer.get(f"/u/{bob.username}/history/")
    assert [row.match.pk for row in bobs.context["history"].rows] == [later.pk, first.pk]
    # Said once on its page (point 10 of the seams issue: it was said twice).
    assert viewer.get(f"/m/{annulled.pk}/").content.decode().count("annulled this match’s result") == 1
    figures = {(r.user_id, r.game): [getattr(r, f) for f in stats.STATS_FIELDS] for r in PlayerStats.objects.all()}
    call_command("rebuild_stats", verbosity=0)
    assert {(r.user_id, r.game): [getattr(r, f) for f in stats.STATS_FIELDS]
            for r in PlayerStats.objects.all()} == figures
    assert not FinishedMatch.objects.filter(match=annulled).exists()

    # Annulling it again changes and logs nothing.
    response = run_action(client_for(boss), MATCHES, "annul_results", annulled.pk)
    assert "annulled already" in response.content.decode()
    assert len(logged(annulled, boss)) == 1


def test_only_a_finished_match_can_be_annulled(boss: Any, gomori_match: Match) -> None:
    response = run_action(client_for(boss), MATCHES, "annul_results", gomori_match.pk)
    assert "abort a match still being played" in response.content.decode()
    assert Match.objects.get(pk=gomori_match.pk).version == gomori_match.version


# ---------------------------------------------------------------------------------------------
# Suspend


def test_suspending_signs_out_ends_live_matches_hides_and_blocks_sign_in(
    boss: Any, alice: Any, bob: Any, carol: Any, password: str, gomori_match: Match,
    django_capture_on_commit_callbacks: Any,
) -> None:
    for minute in range(3):
        finished_match([alice, carol], 0, timezone.now() - dt.timedelta(minutes=10 - minute))
    assert alice in [row.user for row in client_for(bob).get("/leaderboard/?game=gomori").context["rows"]]
    browser = Client()
    assert browser.post(reverse("login"), {"username": "alice", "password": password}).status_code == 302
    client_for(alice)  # a second browser
    assert sessions_of(alice) == 2
    waiting = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    joined = create_match(creator=carol, game="gomori", players=2, seats=[SeatSpec("open")])
    playing.join(match_id=joined.pk, user=alice)  # started at once: two seats
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(alice.pk), channel)

    with django_capture_on_commit_callbacks(execute=True):
        response = run_action(client_for(boss), USERS, "suspend_users", alice.pk)
    assert "Suspended alice" in response.content.decode()

    alice.refresh_from_db()
    assert not alice.is_active
    assert sessions_of(alice) == 0 and sessions_of(bob) == 1
    assert browser.get("/play/").wsgi_request.user.is_anonymous
    assert async_to_sync(layer.receive)(channel)["type"] == "session.check"  # her sockets check and close
    # Her match in progress is her loss (before anyone moved, too); the waiting one she created is cancelled.
    for match, winner in ((gomori_match, 1), (joined, 0)):
        ended = Match.objects.get(pk=match.pk)
        assert ended.status == Match.Status.FINISHED and ended.result["winners"] == [winner]
        assert ended.result["reason"] == "suspended"
        assert PlayerResult.objects.get(match=match, user=alice).outcome == PlayerResult.Outcome.LOST
    assert Match.objects.get(pk=waiting.pk).status == Match.Status.ABORTED
    assert logged(alice, boss) == ["Moderation: suspended (signed out of 2 session(s), 2 match(es) in progress "
                                   "ended with their loss, left 1 waiting match(es), withdrawn from 0 tournament(s), "
                                   "0 seek(s) and 0 challenge(s) withdrawn)."]
    assert alice not in [row.user for row in client_for(bob).get("/leaderboard/?game=gomori").context["rows"]]

    # Signing in says why it fails, to whoever knows her password only.
    refused = Client().post(reverse("login"), {"username": "alice", "password": password})
    assert SUSPENDED_MESSAGE.replace("'", "&#x27;") in refused.content.decode()
    wrong = Client().post(reverse("login"), {"username": "alice", "password": "not-hers-at-all"})
    assert "suspended" not in wrong.content.decode()

    run_action(client_for(boss), USERS, "unsuspend_users", alice.pk)
    alice.refresh_from_db()
    assert alice.is_active and logged(alice, boss)[0] == "Moderation: suspension lifted."
    assert Client().post(reverse("login"), {"username": "alice", "password": password}).status_code == 302
    assert alice in [row.user for row in client_for(bob).get("/leaderboard/?game=gomori").context["rows"]]


def test_unticking_active_on_the_change_page_suspends_too(boss: Any, alice: Any, bob: Any,
                                                          gomori_match: Match) -> None:
    client = client_for(boss)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    form = client.get(url).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update({"date_joined_0": alice.date_joined.strftime("%Y-%m-%d"),
                 "date_joined_1": alice.date_joined.strftime("%H:%M:%S"), "is_active": ""})
    data.pop("groups", None), data.pop("user_permissions", None), data.pop("avatar", None)
    data = {k: v for k, v in data.items() if v is not False}
    assert client.post(url, data).status_code == 302
    assert Match.objects.get(pk=gomori_match.pk).result["reason"] == "suspended"
    assert any(m.startswith("Moderation: suspended") for m in logged(alice, boss))


def test_bots_and_oneself_are_not_suspended(boss: Any, alice: Any) -> None:
    bot = bot_user("gomori", "random")
    response = run_action(client_for(boss), USERS, "suspend_users", bot.pk, boss.pk)
    html = response.content.decode()
    assert "bots can&#x27;t be suspended" in html and "You can&#x27;t suspend yourself" in html
    bot.refresh_from_db(), boss.refresh_from_db()
    assert bot.is_active and boss.is_active


def test_the_log_lists_moderation_read_only(boss: Any, alice: Any) -> None:
    client = client_for(boss)
    run_action(client, USERS, "suspend_users", alice.pk)
    page = client.get("/admin/admin/logentry/", {"q": "Moderation"})
    assert page.status_code == 200 and "Moderation: suspended" in page.content.decode()
    assert client.get("/admin/admin/logentry/add/").status_code == 403


# ---------------------------------------------------------------------------------------------
# Leaderboard: provisional ratings


def test_the_leaderboard_lists_provisional_ratings_after_established_ones_marked(
    make_user: Callable[..., Any]
) -> None:
    def player(name: str, rating: float, deviation: float, rated: int, **fields: Any) -> Any:
        user = make_user(name, display_name=name.title(), **fields)
        PlayerStats.objects.create(user=user, game="gomori", rating=rating, deviation=deviation, rated_matches=rated,
                                   played=rated, won=rated)
        return user

    settled = player("settled", 1550, 80, 12)
    newcomer = player("newcomer", 1700, 200, 3)
    uncertain = player("uncertain", 1600, 120, 15)  # enough matches, but the deviation is still high
    player("gone", 1900, 60, 30, is_active=False)
    player("solo", 1500, 350, 0)
    bot = bot_user("gomori", "search")
    PlayerStats.objects.create(user=bot, game="gomori", rating=1800, deviation=50, rated_matches=40)

    response = Client().get("/leaderboard/?game=gomori")
    rows = response.context["rows"]
    assert [row.user for row in rows] == [settled, newcomer, uncertain]
    assert [row.provisional for row in rows] == [False, True, True]
    html = response.content.decode()
    assert html.count('class="provisional-mark"') == 2
    assert 'title="Provisional rating: 3 rated matches so far, deviation ±200">?</abbr>' in html
    assert "Provisional ratings" in html and "Gone" not in html
    empty = Client().get("/leaderboard/?game=rummy").content.decode()
    assert "Nobody has played a rated Rummy match yet." in empty


def test_a_match_page_of_a_real_game_shows_the_annulment(boss: Any, alice: Any, bob: Any, gomori_match: Match) -> None:
    engine = get_engine("gomori")
    for _ in range(2):
        match = Match.objects.get(pk=gomori_match.pk)
        state = engine.load(match.state)
        (seat,) = engine.to_act(state)
        playing.act(match_id=match.pk, user=[alice, bob][seat], seat=seat,
                     action=engine.legal_actions(state, seat)[0], expected_version=match.version)
    playing.resign(match_id=gomori_match.pk, user=bob)
    assert PlayerStats.objects.get(user=alice).won == 1
    run_action(client_for(boss), MATCHES, "annul_results", gomori_match.pk)
    assert PlayerStats.objects.get(user=alice).played == 0
    assert PlayerStats.objects.get(user=alice).rating == 1500
    for url in (f"/m/{gomori_match.pk}/", f"/m/{gomori_match.pk}/replay/"):
        assert "annulled this match’s result" in client_for(bob).get(url).content.decode()


@pytest.mark.django_db(transaction=True)
async def test_suspending_closes_the_persons_open_sockets(alice: Any, bob: Any, start_gomori: Any,
                                                          ws_client: Any) -> None:
    from channels.db import database_sync_to_async
    from sockets import closed_within_a_second, open_with, signed_in_client

    match = await database_sync_to_async(start_gomori)(alice, bob)
    _, cookie = await database_sync_to_async(signed_in_client)(alice)
    _, bobs = await database_sync_to_async(signed_in_client)(bob)
    socket = await open_with(match.pk, cookie)
    other = await open_with(match.pk, bobs)
    await database_sync_to_async(moderation.suspend_user)(alice)
    assert await closed_within_a_second(socket) == 4423  # the page says the account is suspended
    assert not await closed_within_a_second(other)  # Bob stays, and sees the match end
    await other.disconnect()


def test_recomputing_a_game_with_nothing_annulled_changes_nothing(make_user: Callable[..., Any]) -> None:
    from history_helpers import bulk_finished_matches, snapshot

    from games.play.bot_accounts import ensure_bot_accounts

    people = [make_user(f"many-{i}") for i in range(4)]
    matches = bulk_finished_matches(48, people, ensure_bot_accounts()[:2], seed=3)
    before = snapshot()
    middle = matches[20]
    for game in ("gomori", "columbo", "ruhd", "rummy"):
        assert rebuild.recompute_game(game, since=(middle.finished_at, middle.pk)) == 0
        assert rebuild.recompute_game(game) == 0
    assert snapshot() == before


# ---------------------------------------------------------------------------------------------
# Each action needs its own permission: a staff member who may only look is offered none, and a forged POST
# of one changes nothing; the permission alone (no superuser) is enough.


def staff_with(make_user: Callable[..., Any], name: str, *codenames: str) -> Any:
    """A staff member (not a superuser) holding exactly these permissions."""
    user = make_user(name, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    assert Permission.objects.filter(codename__in=codenames).count() == len(codenames)
    return user


def offered(client: Client, changelist: str) -> set[str]:
    page = client.get(changelist)
    assert page.status_code == 200
    form = page.context["action_form"]  # None when the page offers no action at all
    return {value for value, _label in form.fields["action"].choices if value} if form else set()


MODERATION = [
    # (changelist, action, the permission it needs, what a viewer may see)
    (MATCHES, "abort_matches", "abort_match", "view_match"),
    (MATCHES, "annul_results", "annul_result", "view_match"),
    ("/admin/games/chatmessage/", "hide_lines", "hide_chatmessage", "view_chatmessage"),
    (USERS, "suspend_users", "suspend_user", "view_user"),
    (USERS, "unsuspend_users", "suspend_user", "view_user"),
]


def target_of(action: str, alice: Any, bob: Any, gomori_match: Match) -> tuple[Any, Callable[[], bool]]:
    """The object an action is tried on, and whether the action was done to it."""
    from games.models import ChatMessage

    if action == "abort_matches":
        return gomori_match, lambda: Match.objects.get(pk=gomori_match.pk).status == Match.Status.ABORTED
    if action == "annul_results":
        done = finished_match([alice, bob], 0, timezone.now())
        return done, lambda: bool(Match.objects.get(pk=done.pk).result.get("annulled"))
    if action == "hide_lines":
        line = ChatMessage.objects.create(match=gomori_match, user=alice, room="players", text="hello")
        return line, lambda: ChatMessage.objects.get(pk=line.pk).hidden
    if action == "suspend_users":
        return alice, lambda: not type(alice).objects.get(pk=alice.pk).is_active
    moderation.suspend_user(alice)
    return alice, lambda: type(alice).objects.get(pk=alice.pk).is_active


@pytest.mark.parametrize(("changelist", "action", "needs", "view"), MODERATION)
def test_a_staff_member_who_may_only_look_is_offered_no_action_and_a_forged_one_does_nothing(
    make_user: Callable[..., Any], alice: Any, bob: Any, gomori_match: Match, changelist: str, action: str,
    needs: str, view: str, django_capture_on_commit_callbacks: Any,
) -> None:
    # "change" is not enough either: each action has its own permission.
    change = "change_" + view.removeprefix("view_")
    onlooker = staff_with(make_user, "onlooker", view, change)
    client = client_for(onlooker)
    assert action not in offered(client, changelist)
    target, done = target_of(action, alice, bob, gomori_match)
    with django_capture_on_commit_callbacks(execute=True):
        response = run_action(client, changelist, action, target.pk)
    assert response.status_code == 200
    assert not [m for m in response.context["messages"] if m.level == messages.SUCCESS]  # nothing was done
    assert not done()
    assert not logged(target, onlooker)


@pytest.mark.parametrize(("changelist", "action", "needs", "view"), MODERATION)
def test_the_action_s_own_permission_is_enough(
    make_user: Callable[..., Any], alice: Any, bob: Any, gomori_match: Match, changelist: str, action: str,
    needs: str, view: str, django_capture_on_commit_callbacks: Any,
) -> None:
    moderator = staff_with(make_user, "moderator", view, needs)
    client = client_for(moderator)
    assert action in offered(client, changelist)
    target, done = target_of(action, alice, bob, gomori_match)
    with django_capture_on_commit_callbacks(execute=True):
        run_action(client, changelist, action, target.pk)
    assert done()
    assert any(message.startswith("Moderation:") for message in logged(target, moderator))


def test_the_active_box_needs_the_permission_to_suspend(make_user: Callable[..., Any], alice: Any) -> None:
    editor = staff_with(make_user, "editor", "view_user", "change_user")
    client = client_for(editor)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    form = client.get(url).context["adminform"].form
    assert "is_active" not in form.fields  # shown read-only
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update({"date_joined_0": alice.date_joined.strftime("%Y-%m-%d"),
                 "date_joined_1": alice.date_joined.strftime("%H:%M:%S"), "is_active": ""})
    data.pop("groups", None), data.pop("user_permissions", None), data.pop("avatar", None)
    data = {k: v for k, v in data.items() if v is not False}
    assert client.post(url, data).status_code == 302
    assert type(alice).objects.get(pk=alice.pk).is_active


def test_the_privacy_switch_needs_the_change_permission(make_user: Callable[..., Any], gomori_match: Match) -> None:
    url = reverse("admin:games_match_change", args=[gomori_match.pk])
    for name, codenames, allowed in (("onlooker", ("view_match", "abort_match", "annul_result"), False),
                                     ("editor", ("view_match", "change_match"), True)):
        client = client_for(staff_with(make_user, name, *codenames))
        page = client.get(url)
        data: dict[str, Any] = {"_save": "Save"}  # is_public unticked
        for inline in page.context["inline_admin_formsets"]:
            management = inline.formset.management_form
            data.update({management.add_prefix(field): value for field, value in management.initial.items()})
        response = client.post(url, data)
        assert response.status_code == (302 if allowed else 403)
        assert Match.objects.get(pk=gomori_match.pk).is_public is not allowed


def test_importing_needs_the_add_permission(make_user: Callable[..., Any]) -> None:
    url = reverse("admin:games_match_import")
    onlooker = client_for(staff_with(make_user, "onlooker", "view_match", "change_match"))
    assert onlooker.get(url).status_code == 403
    assert onlooker.post(url, {"text": "{not json"}).status_code == 403
    importer = client_for(staff_with(make_user, "importer", "view_match", "add_match"))
    assert importer.get(url).status_code == 200
    # The form is read and answered (here: what is wrong with the text).
    assert "This is not valid JSON." in importer.post(url, {"text": "{not json"}).content.decode()


def test_an_annulment_recomputes_the_rating_changes_shown_in_later_result_boxes(
    boss: Any, alice: Any, bob: Any, carol: Any
) -> None:
    """A result box says what its match did to each rating ("1500 → 1662?, +162"): after an earlier match is annulled
    it says what the match did counted without it, as the ratings are."""
    start = timezone.now() - dt.timedelta(hours=1)
    first, annulled, last = (finished_match(users, winner, start + dt.timedelta(minutes=minutes), boxed=True)
                             for users, winner, minutes in (([alice, bob], 0, 0), ([bob, carol], 0, 10),
                                                            ([carol, alice], 1, 20)))
    shown = last.result["ratings"]
    carol_before = next(change for change in shown if change["seat"] == 0)["before"]
    assert carol_before != 1500  # her rating came from the match about to be annulled

    run_action(client_for(boss), MATCHES, "annul_results", annulled.pk)

    box = Match.objects.get(pk=last.pk)
    assert box.version == last.version + 1  # a live copy reloads
    by_seat = {change["seat"]: change for change in box.result["ratings"]}
    rows = {r.seat: r for r in PlayerResult.objects.filter(match=last)}
    for seat, change in by_seat.items():
        assert (change["before"], change["after"]) == (round(rows[seat].rating_before), round(rows[seat].rating_after))
    assert by_seat[0]["before"] == 1500  # Carol's only earlier match no longer counts
    assert Match.objects.get(pk=first.pk).result["ratings"] == first.result["ratings"]  # before it: untouched
