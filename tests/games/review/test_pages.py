"""The analysis on the site: "Analyse" on a finished match's replay (signed in, POST, once), nothing of it for a
match still being played, the stored analysis on the replay (accuracy, chart, each mark with the better move in
words) and in the history's rows, and its progress over the notification socket."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from factories import client_for
from history_helpers import start_match
from review_helpers import TINY, finished_match

from config.asgi import application
from games.models import AnalysisJob
from games.review import jobs
from games.review.news import analysis_group, publish
from games.review.worker import Worker

State = AnalysisJob.State
Headers = Callable[..., list[tuple[bytes, bytes]]]


def section(html: str) -> str:
    found = re.search(r'<section id="analysis".*?</section>', html, re.S)
    assert found, "no analysis section"
    return found.group(0)


@pytest.mark.django_db
def test_analyse_on_the_replay_queues_the_job_once_for_a_signed_in_person(alice: Any, bob: Any, carol: Any) -> None:
    match = finished_match([alice, bob], rated=False)
    url = f"/m/{match.pk}/replay/"
    assert "Sign in</a> to have this match analysed" in section(client_for(None).get(url).content.decode())
    page = section(client_for(carol).get(url).content.decode())
    assert f'hx-post="/m/{match.pk}/analyse/"' in page and ">Analyse</button>" in page

    assert client_for(None).post(f"/m/{match.pk}/analyse/").status_code == 403
    assert not AnalysisJob.objects.exists()
    client = client_for(carol)
    answer = client.post(f"/m/{match.pk}/analyse/", HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert '<progress id="analysis-bar"' in html and "Waiting for the analysis worker" in html
    assert client.post(f"/m/{match.pk}/analyse/").status_code == 302  # without htmx: back to the replay
    job = AnalysisJob.objects.get(match=match)
    assert job.requested_by_id == carol.pk and job.state == State.QUEUED
    assert client.get(f"/m/{match.pk}/analyse/").status_code == 405  # a GET changes nothing
    # The bar moves over the notification socket: the header's for a signed-in person, the page's own for a visitor.
    assert f'ws-connect="/ws/notify/?analysis={match.pk}"' in client.get(url).content.decode()
    assert f'ws-connect="/ws/notify/?analysis={match.pk}"' in client_for(None).get(url).content.decode()


@pytest.mark.django_db
def test_nothing_of_the_analysis_before_the_end(alice: Any, bob: Any) -> None:
    match = start_match("gomori", [alice, bob], seed=11, rated=False)
    client = client_for(alice)
    assert client.post(f"/m/{match.pk}/analyse/", HTTP_HX_REQUEST="true").status_code == 400
    assert not AnalysisJob.objects.exists()
    page = client.get(f"/m/{match.pk}/replay/").content.decode()
    assert 'id="analysis"' not in page and "analysis=" not in page


@pytest.mark.django_db
def test_a_private_match_is_analysed_only_for_those_who_may_watch_it(alice: Any, bob: Any, carol: Any) -> None:
    match = finished_match([alice, bob], rated=False, is_public=False)
    assert client_for(carol).post(f"/m/{match.pk}/analyse/").status_code == 404
    assert client_for(carol).post(f"/m/{match.pk}/analyse/", {"code": match.invite_code}).status_code == 302
    assert AnalysisJob.objects.filter(match=match).count() == 1


MARKED = {
    "ply": 4, "seat": 0, "kind": "play", "options": 5, "played": {"type": "play", "card": "2C", "at": [0, 1]},
    "bot": {"type": "play", "card": "9C", "at": [0, 3]}, "best": {"type": "play", "card": "9C", "at": [0, 3]},
    "better": {"type": "play", "card": "9C", "at": [0, 3]}, "value_played": 0.2, "value_best": 0.7,
    "value_bot": 0.7, "cost": 0.5, "cost_se": 0.01, "mark": "blunder", "accuracy": 10.0, "samples": 4,
    "played_text": "{s0} played the 2♣ on an empty cell", "better_text": "{s0} played the 9♣ and gathered 6 cards",
}


def stored(match: Any, decisions: list[dict[str, Any]], accuracy: list[float | None]) -> None:
    AnalysisJob.objects.update_or_create(match=match, defaults={
        "state": State.DONE, "total": len(decisions), "done": len(decisions), "accuracy": accuracy, "result": {
            "version": 1, "game": match.game, "players": 2, "skipped": {"forced": 3},
            "seats": [{"seat": s, "decisions": 1, "accuracy": a, "mean_cost": 0, "inaccuracies": 0, "mistakes": 0,
                       "blunders": int(s == 0)} for s, a in enumerate(accuracy)],
            "decisions": decisions}})


@pytest.mark.django_db
def test_the_replay_shows_each_mark_with_the_better_move_in_words(alice: Any, bob: Any, carol: Any) -> None:
    match = finished_match([alice, bob], rated=False)
    good = {**MARKED, "ply": 6, "seat": 1, "mark": None, "better": None, "cost": 0.0, "value_played": 0.6}
    stored(match, [MARKED, good], [41.5, 97.0])
    client = client_for(carol)
    page = client.get(f"/m/{match.pk}/replay/", {"move": 5}).content.decode()
    status = re.search(r'<section class="status replay-status".*?</section>', page, re.S)
    assert status and "?? Blunder" in status.group(0)
    assert 'Better: <strong class="seat-0">Alice</strong> played the 9♣ and gathered 6 cards' in status.group(0)
    panel = section(page)
    assert "41.5" in panel and "97.0" in panel and "<svg" in panel and 'class="analysis-dot mark-blunder"' in panel
    assert f'href="/m/{match.pk}/replay/?move=5"' in panel and "50 points of winning chance lost" in panel
    assert "✓ Good" in client.get(f"/m/{match.pk}/replay/", {"move": 7}).content.decode()
    history = client.get("/history/").content.decode()
    assert "acc. 41.5" in history and "acc. 97.0" in history


@pytest.mark.django_db
def test_the_worker_s_analysis_shows_on_the_replay_and_in_the_history(alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], rated=True)
    Worker(token="w", budget=TINY, say=lambda _: None).drain()
    job = AnalysisJob.objects.get(match=match)
    page = client_for(alice).get(f"/m/{match.pk}/replay/").content.decode()
    panel = section(page)
    for accuracy in job.accuracy:
        assert f"{accuracy:.1f}" in panel
    assert f"{job.total} decisions weighed" in panel
    assert f"acc. {job.accuracy[0]:.1f}" in client_for(alice).get("/history/").content.decode()


@pytest.mark.django_db(transaction=True)
async def test_the_replay_socket_gets_the_progress_of_a_finished_match_only(
        alice: Any, bob: Any, carol: Any, ws_headers: Headers) -> None:
    """The notification socket of a finished match's replay joins its analysis group and hears each change of the
    job once: published by the worker (news.publish) on Redis, relayed by the server from the job's row on the
    in-memory layer (which reaches no other process); a match still being played gives no group at all."""
    finished = await sync_to_async(finished_match)([alice, bob], rated=False)
    playing = await sync_to_async(start_match)("gomori", [alice, bob], seed=12, rated=False)
    headers = await sync_to_async(ws_headers)(carol)

    early = WebsocketCommunicator(application, f"/ws/notify/?analysis={playing.pk}", headers=headers)
    assert (await early.connect())[0]
    await get_channel_layer().group_send(analysis_group(playing.pk), {"type": "notify.html", "html": "leak"})
    assert await early.receive_nothing(timeout=0.3)
    await early.disconnect()

    socket = WebsocketCommunicator(application, f"/ws/notify/?analysis={finished.pk}", headers=headers)
    assert (await socket.connect())[0]
    await sync_to_async(jobs.enqueue)(finished, by=carol)
    await sync_to_async(publish)(finished.pk)
    html = await socket.receive_from(timeout=5)
    assert 'id="analysis"' in html and 'hx-swap-oob="true"' in html and "Waiting for the analysis worker" in html
    claimed = await sync_to_async(jobs.claim)("w")
    assert claimed is not None
    await sync_to_async(jobs.progress)(claimed, 3, 12)
    await sync_to_async(publish)(finished.pk)
    html = await socket.receive_from(timeout=5)
    assert "3 of 12 decisions" in html and 'value="25"' in html
    await sync_to_async(jobs.complete)(claimed, {"decisions": [], "seats": []}, [], version=1)
    await sync_to_async(publish)(finished.pk)
    html = await socket.receive_from(timeout=5)
    assert "No move is marked" in html
    await asyncio.sleep(0.6)
    assert await socket.receive_nothing(timeout=0.3)  # done: nothing more to relay
    await socket.disconnect()
