"""Results by place: every finished match's result keeps its seats' places, and its winners and draw flag are
read from them; every result row's outcome is its seat's, from its place (games.results.outcomes_by_place, the
site's one rule). Before, a shared first place at a table of three or more (Ruhd's 10 / 16 / 16) made the match a
draw for every seat, the last one too.

The statistics and ratings that follow from the outcomes are recomputed by `manage.py rebuild_stats` (README,
"Upgrading"): the rating rule changed with them, and a rebuild replays every match with the code of the day.
"""

from django.db import migrations

from games.results import SeatOutcome, Termination, outcomes_by_place


def places_of(result, seats, players):
    """The places a stored result is read by: its seats' places, with nobody first when the match had no winner
    and no draw (the only player who stayed resigned: everyone lost)."""
    places = [seats.get(index) or players for index in range(players)]
    if not result.get("winners") and not result.get("draw") and players > 1:
        places = [place + 1 for place in places]
    return places


def forwards(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    Seat = apps.get_model("games", "Seat")
    PlayerResult = apps.get_model("games", "PlayerResult")
    changed = 0
    finished = Match.objects.filter(status="finished").exclude(result=None).only("id", "players", "result")
    for match in finished.iterator(chunk_size=500):
        result = dict(match.result or {})
        if not Termination(result.get("reason", Termination.NORMAL)).counts or "places" in result:
            continue
        seats = dict(Seat.objects.filter(match_id=match.pk).values_list("index", "place"))
        places = places_of(result, seats, match.players)
        outcomes = outcomes_by_place(places)
        draw = match.players > 1 and all(o == SeatOutcome.DRAWN for o in outcomes)
        result.update(places=places, draw=draw,
                      winners=[] if draw else [i for i, o in enumerate(outcomes) if o != SeatOutcome.LOST])
        Match.objects.filter(pk=match.pk).update(result=result)
        for index, place in enumerate(places):
            Seat.objects.filter(match_id=match.pk, index=index).update(place=place)
            PlayerResult.objects.filter(match_id=match.pk, seat=index).update(place=place, outcome=outcomes[index])
        changed += 1
    if changed:
        print(f"\n  {changed} finished matches now keep their places: run `manage.py rebuild_stats` once to "
              "recompute the statistics and ratings from them.")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0012_stats_after_end"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
