"""Notifications by email, read from a real SMTP server in the test process (tests/mail_server.py): the
verification link, a correspondence turn's notice after a real move (its link, its RFC 8058 unsubscribe headers),
one notice per turn, several gathered into one email, nothing after the one-click unsubscribe, nothing to people
who did not opt in or verified, a challenge at once, a retry after a temporary refusal and a bounce counted."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core import signing
from django.test import Client
from django.utils import timezone
from factories import client_for, make_match
from mail_server import SmtpServer, html_of, text_of
from tournament_play import move_once

from games.challenges import services as challenges
from games.models import AnalysisJob, Match, Notice
from games.notify.mail import queue
from games.notify.mail.worker import Worker
from games.play.store import load

pytestmark = pytest.mark.django_db(transaction=True)  # the notices are queued after real commits

DAYS = {"kind": "days", "days": 3, "seconds": 3 * 86400}
SITE = "https://cards.example.org"


def send() -> int:
    """The worker's pass, in this process: how many mails the server accepted."""
    worker = Worker(say=lambda text: None)
    worker.drain()
    return worker.sent


def correspondence(first: Any, second: Any) -> Match:
    """A started Gomori match of the two, given 3 days a move (set on the row: the clock's own helper is not
    this branch's)."""
    match = make_match(creator=first, game="gomori", seats=["open"], joiners=[second])
    Match.objects.filter(pk=match.pk).update(clock=DAYS, clock_left=[DAYS["seconds"]] * 2)
    return match


def play_until_waiting_on(match_id: int, seat: int) -> int:
    """Moves (the first legal one, through the sync road) until the game waits on `seat` alone; how many."""
    moves = 0
    while True:
        snap = load(match_id)
        assert snap is not None and snap.status == "active"
        if Match.objects.get(pk=match_id).waiting_on == [seat] and moves:
            return moves
        assert move_once(match_id)
        moves += 1


def path_of(url: str) -> str:
    assert url.startswith(SITE), url
    return urlsplit(url).path


def links(message: Any) -> list[str]:
    return re.findall(r"https://cards\.example\.org/\S+", text_of(message))


def test_the_verification_link_arrives_and_verifies_the_address(smtp: SmtpServer, make_user: Callable[..., Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ana = make_user("ana", email="ana@example.org", mail_kinds=["turn"])
    client = client_for(ana)
    page = client.get("/accounts/profile/")
    assert b"Email notifications" in page.content and b"not verified" in page.content
    client.post("/mail/settings/", {"verify": "1"})
    client.post("/mail/settings/", {"verify": "1"})  # twice at once: one mail
    assert send() == 1
    (mail,) = smtp.to("ana@example.org")
    assert mail["Subject"] == "Verify your email address for Card Club"
    (link,) = links(mail)
    assert link in html_of(mail)
    # Nothing but the link is needed: no session.
    answer = Client().get(path_of(link))
    assert answer.status_code == 200 and b"is verified" in answer.content
    ana.refresh_from_db()
    assert ana.email_verified == "ana@example.org"
    assert b"verified" in client.get("/accounts/profile/").content

    # An altered link, someone else's salt, or an expired one: a clear page, nothing changed.
    assert Client().get(path_of(link)[:-6] + "abcde/").status_code == 400
    forged = signing.dumps({"u": ana.pk, "a": "ana@example.org"}, salt="cardclub.mail.unsubscribe")
    assert Client().get(f"/mail/verify/{forged}/").status_code == 400
    with monkeypatch.context() as past:
        past.setattr("time.time", lambda: 1_000_000_000.0)
        old = signing.dumps({"u": ana.pk, "a": "ana@example.org"}, salt="cardclub.mail.verify", compress=True)
    expired = Client().get(f"/mail/verify/{old}/")
    assert expired.status_code == 400 and b"expired" in expired.content
    assert Client().get("/mail/verify/%00%ff/").status_code == 400
    # A link for an address the person no longer has verifies nothing.
    type(ana).objects.filter(pk=ana.pk).update(email="ana@elsewhere.org")
    assert Client().get(path_of(link)).status_code == 400
    ana.refresh_from_db()
    assert ana.email_verified == "ana@example.org" != ana.email


def test_a_correspondence_turn_is_mailed_once_with_its_link_and_one_click_unsubscribe(
        smtp: SmtpServer, subscriber: Callable[..., Any]) -> None:
    ana, bob = subscriber("ana"), subscriber("bob")
    match = correspondence(ana, bob)
    moves = play_until_waiting_on(match.pk, 1)  # Ana's turn, however many plays it holds: then Bob's
    assert Notice.objects.filter(user=bob).count() == 1, moves
    assert send() == 1
    (mail,) = smtp.to("bob@example.org")
    assert mail["Subject"] == "Your turn in Gomori with Ana (3 days a move)"
    assert f"{SITE}/m/{match.pk}/" in links(mail)
    assert f'href="{SITE}/m/{match.pk}/"' in html_of(mail)
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = re.fullmatch(r"<(\S+)>", str(mail["List-Unsubscribe"]).strip())  # folded: a space first
    assert unsubscribe is not None
    assert smtp.to("ana@example.org") == []  # her own turn came from the deal, before the days clock was set
    assert send() == 0  # nothing twice

    # A link scanner's GET changes nothing; a mail client's one-click POST needs no session and no CSRF token.
    stop = path_of(unsubscribe.group(1))
    shown = Client().get(stop)
    assert shown.status_code == 200 and b"Your turn in a correspondence match" in shown.content
    bob.refresh_from_db()
    assert "turn" in bob.mail_kinds
    answer = Client(enforce_csrf_checks=True).post(stop, {"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/plain")
    bob.refresh_from_db()
    assert "turn" not in bob.mail_kinds and "challenge" in bob.mail_kinds

    play_until_waiting_on(match.pk, 0)
    assert send() == 1  # Ana's turn
    play_until_waiting_on(match.pk, 1)
    assert Notice.objects.filter(user=bob).count() == 1 and send() == 0  # Bob's: not even queued
    assert len(smtp.to("bob@example.org")) == 1 and len(smtp.to("ana@example.org")) == 1
    assert Client().post("/mail/unsubscribe/not-a-token/", {"List-Unsubscribe": "One-Click"}).status_code == 400


def test_a_notice_queued_before_unsubscribing_or_already_answered_is_not_sent(
        smtp: SmtpServer, subscriber: Callable[..., Any]) -> None:
    ana, bob = subscriber("ana"), subscriber("bob")
    match = correspondence(ana, bob)
    play_until_waiting_on(match.pk, 1)
    bob_row = Notice.objects.get(user=bob)
    bob.mail_kinds = ["challenge"]
    bob.save(update_fields=["mail_kinds"])
    assert send() == 0
    bob_row.refresh_from_db()
    assert bob_row.status == Notice.Status.DROPPED

    bob.mail_kinds = ["turn"]
    bob.save(update_fields=["mail_kinds"])
    play_until_waiting_on(match.pk, 0)  # Bob answered before anything left: Ana's notice is queued ...
    play_until_waiting_on(match.pk, 1)  # ... and Ana answered too: hers is no longer news, Bob's is
    assert send() == 1
    assert [m["To"] for m in smtp.messages] == ["bob@example.org"]
    assert Notice.objects.get(user=ana).status == Notice.Status.DROPPED


def test_several_within_the_window_leave_in_one_email(smtp: SmtpServer, subscriber: Callable[..., Any],
                                                      settings: Any) -> None:
    settings.NOTIFY_MAIL_GATHER_SECONDS = 180
    bob = subscriber("bob")
    matches = [correspondence(subscriber(name), bob) for name in ("ana", "cy", "dee")]
    for match in matches:
        play_until_waiting_on(match.pk, 1)
    assert Notice.objects.filter(user=bob).count() == 3
    assert send() == 0  # the window is open
    first = Notice.objects.filter(user=bob).order_by("id").first()
    assert first is not None
    Notice.objects.filter(pk=first.pk).update(next_try_at=timezone.now())  # the first one's window has passed
    assert send() == 1
    (mail,) = smtp.to("bob@example.org")
    assert mail["Subject"] == "3 things waiting for you at Card Club"
    for match, name in zip(matches, ("Ana", "Cy", "Dee"), strict=True):
        assert f"{SITE}/m/{match.pk}/" in links(mail)
        assert f"Your turn in Gomori with {name} (3 days a move)" in text_of(mail)
    assert set(Notice.objects.filter(user=bob).values_list("status", flat=True)) == {Notice.Status.SENT}


def test_nothing_goes_to_who_did_not_opt_in_or_verify_or_to_bots(smtp: SmtpServer, subscriber: Callable[..., Any],
                                                                  make_user: Callable[..., Any]) -> None:
    ana = subscriber("ana", kinds=[])
    bob = subscriber("bob", verified=False)
    cy, dee = subscriber("cy"), subscriber("dee")
    for first, second in ((ana, bob), (cy, dee)):
        correspondence(first, second)
    type(dee).objects.filter(pk=dee.pk).update(email="dee@new.example.org")  # a changed address: unverified
    for match in Match.objects.filter(status="active"):
        play_until_waiting_on(match.pk, 1)
        play_until_waiting_on(match.pk, 0)
    assert list(Notice.objects.values_list("user__username", flat=True)) == ["cy"]  # the one who may
    assert send() == 1 and [m["To"] for m in smtp.messages] == ["cy@example.org"]
    program = make_user("prog", email="p@example.org", email_verified="p@example.org", mail_kinds=["turn"],
                        program=True)
    assert not queue.may_mail(program, "turn")
    assert not queue.may_mail(subscriber("eve", is_active=False), "turn")


def test_a_real_time_match_sends_nothing(smtp: SmtpServer, subscriber: Callable[..., Any]) -> None:
    ana, bob = subscriber("ana"), subscriber("bob")
    match = make_match(creator=ana, game="gomori", seats=["open"], joiners=[bob])
    play_until_waiting_on(match.pk, 1)
    play_until_waiting_on(match.pk, 0)
    assert Notice.objects.count() == 0


def test_a_challenge_leaves_at_once_and_an_analysis_when_ready(smtp: SmtpServer, subscriber: Callable[..., Any],
                                                                settings: Any) -> None:
    settings.NOTIFY_MAIL_GATHER_SECONDS = 180
    ana, bob = subscriber("ana"), subscriber("bob")
    made = challenges.challenge(ana, bob, game="rummy", clock="live")
    assert send() == 1
    (mail,) = smtp.to("bob@example.org")
    assert mail["Subject"] == "Ana challenges you to Rummy (5 min + 3 s)"
    assert links(mail)[0] == f"{SITE}/play/"
    # A challenge no longer open by the time the worker looks is not sent.
    again = challenges.challenge(ana, bob, game="gomori", clock="none")
    challenges.decline(bob, again.pk)
    assert send() == 0 and made.pk != again.pk

    match = make_match(creator=ana, game="gomori", seats=["open"], joiners=[bob])
    AnalysisJob.objects.create(match=match, state=AnalysisJob.State.DONE)
    queue.analysis_ready(match.pk)
    Notice.objects.filter(kind="analysis").update(next_try_at=timezone.now())
    assert send() == 2
    mail = smtp.to("ana@example.org")[-1]
    assert mail["Subject"] == "The analysis of your Gomori match with Bob is ready"
    assert f"{SITE}/m/{match.pk}/replay/" in links(mail)


def test_a_temporary_refusal_is_retried_later_and_a_permanent_one_counts_a_bounce(
        smtp: SmtpServer, subscriber: Callable[..., Any], settings: Any) -> None:
    settings.NOTIFY_MAIL_BOUNCES = 2
    ana, bob = subscriber("ana"), subscriber("bob")
    smtp.sink.refusals["bob@example.org"] = ["451 4.3.0 Try again later"]
    challenges.challenge(ana, bob, game="gomori", clock="none")
    before = timezone.now()
    assert send() == 0
    row = Notice.objects.get(user=bob)
    assert row.status == Notice.Status.QUEUED and row.attempts == 1 and "451" in row.error
    assert row.next_try_at >= before + timedelta(seconds=59)  # the first pause of the backoff
    assert send() == 0  # not before its time
    Notice.objects.filter(pk=row.pk).update(next_try_at=timezone.now())
    assert send() == 1 and len(smtp.to("bob@example.org")) == 1
    row.refresh_from_db()
    assert row.status == Notice.Status.SENT and row.attempts == 2

    smtp.sink.refusals["bob@example.org"] = ["550 5.1.1 No such user", "550 5.1.1 No such user"]
    for _ in range(2):
        challenges.challenge(ana, bob, game="gomori", clock="none")
        assert send() == 0
    bob.refresh_from_db()
    assert bob.mail_bounces == 2
    assert list(Notice.objects.filter(user=bob).values_list("status", flat=True).order_by("id")) == \
        [Notice.Status.SENT, Notice.Status.FAILED, Notice.Status.FAILED]
    challenges.challenge(ana, bob, game="gomori", clock="none")  # past the limit: not even queued
    assert Notice.objects.filter(user=bob).count() == 3
    # Verifying the address again starts its count afresh (the person fixed it).
    type(bob).objects.filter(pk=bob.pk).update(email_verified="")
    client_for(bob).post("/mail/settings/", {"verify": "1"})
    assert send() == 1
    (link,) = links(smtp.messages[-1])
    Client().get(path_of(link))
    bob.refresh_from_db()
    assert bob.mail_bounces == 0 and bob.email_verified == bob.email


def test_the_profile_form_saves_kinds_and_refuses_nonsense(subscriber: Callable[..., Any]) -> None:
    ana = subscriber("ana", kinds=[])
    client = client_for(ana)
    assert client.post("/mail/settings/", {"kinds": ["turn", "analysis"]}).status_code == 302
    ana.refresh_from_db()
    assert ana.mail_kinds == ["turn", "analysis"]
    client.post("/mail/settings/", {"kinds": ["turn", "bogus"]})
    ana.refresh_from_db()
    assert ana.mail_kinds == ["turn", "analysis"]
    assert Client().post("/mail/settings/", {"kinds": ["turn"]}).status_code == 302  # to sign in
    assert client.get("/mail/settings/").status_code == 405
    page = client.get("/accounts/profile/").content.decode()
    boxes = dict(re.findall(r'<input type="checkbox" name="kinds" value="(\w+)"([^>]*)>', page))
    assert {kind for kind, rest in boxes.items() if "checked" in rest} == {"turn", "analysis"}
    assert set(boxes) == {"turn", "challenge", "tournament", "analysis"}


async def test_a_move_on_the_live_road_queues_the_turn_after_its_commit_too(subscriber: Callable[..., Any]) -> None:
    """The sockets' road (LiveMatch.change through the Writer's group commit) tells committed changes as the sync
    road does."""
    from channels.db import database_sync_to_async

    from games.play.decide import decide_move
    from games.play.hub import hub
    from games.play.snapshot import engine_of, must_act_of

    ana, bob = await database_sync_to_async(lambda: (subscriber("ana"), subscriber("bob")))()
    match = await database_sync_to_async(correspondence)(ana, bob)
    live = await hub().get(match.pk)
    assert live is not None
    try:
        while True:
            waiting = sorted(must_act_of(live.snap, live.state))
            if waiting == [1]:
                break
            seat = waiting[0]
            action = engine_of(live.snap).legal_actions(live.state, seat)[0]
            await live.change(decide_move, seat=seat, action=action, user_id=live.snap.seats[seat].user_id)
    finally:
        await hub().drop(live)
    rows = await database_sync_to_async(lambda: list(Notice.objects.values_list("user_id", "key")))()
    assert rows == [(bob.pk, f"turn:{match.pk}:{live.snap.version}")]


def test_a_tournament_starting_is_mailed_to_its_entrants_at_once(smtp: SmtpServer, subscriber: Callable[..., Any],
                                                                 make_user: Callable[..., Any], settings: Any) -> None:
    from games.tournaments import services

    settings.NOTIFY_MAIL_GATHER_SECONDS = 180
    staff = make_user("staff", is_staff=True)
    arena = services.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                       starts_at=timezone.now(), table_size=2)
    ana, bob, cy = subscriber("ana"), subscriber("bob", kinds=["turn"]), subscriber("cy")
    for person in (ana, bob, cy):
        services.join(tournament_id=arena.pk, user=person)
    services.tick()
    assert send() == 2  # Bob did not ask for it
    for mail in smtp.messages:
        assert mail["Subject"] == f"{arena.name} has started"
        assert links(mail)[0] == f"{SITE}/tournaments/{arena.pk}/"
    assert sorted(m["To"] for m in smtp.messages) == ["ana@example.org", "cy@example.org"]


def test_a_correspondence_challenge_waits_days_and_its_match_mails_the_first_mover(
        smtp: SmtpServer, subscriber: Callable[..., Any]) -> None:
    """Made for someone away from the site: the challenge waits a move's days (a real-time one, minutes), and the
    match its acceptance deals tells whoever moves first, whichever side of the challenge they were."""
    ana, bob, cat = (subscriber(name, kinds=["turn"]) for name in ("ana", "bob", "cat"))
    now = timezone.now()
    live = challenges.challenge(cat, bob, game="rummy", clock="live", now=now)
    assert live.expires_at == now + timedelta(minutes=challenges.CHALLENGE_MINUTES)
    made = challenges.challenge(ana, bob, game="gomori", clock="3d", now=now)
    assert challenges.expire_due(now + timedelta(days=2)) == 1  # the real-time one, long gone
    made.refresh_from_db()
    assert made.status == "open" and made.expires_at == now + timedelta(days=3)
    match = challenges.accept(bob, made.pk, now=now + timedelta(days=2))
    first = match.seats.get(index=Match.objects.get(pk=match.pk).waiting_on[0]).user
    assert list(Notice.objects.values_list("user_id", "key")) == [(first.pk, f"turn:{match.pk}:{match.version}")]
    assert send() == 1
    (mail,) = smtp.to(first.email)
    assert f"{SITE}/m/{match.pk}/" in links(mail)
