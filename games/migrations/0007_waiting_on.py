"""Match.waiting_on: the seats the game waits on, written with every change; filled here for matches in progress."""

from django.db import migrations, models


def fill(apps, schema_editor):
    from games.engines import get_engine

    Match = apps.get_model("games", "Match")
    for match in Match.objects.filter(status="active").exclude(state=None).iterator():
        engine = get_engine(match.game)
        match.waiting_on = sorted(engine.must_act(engine.load(match.state)))
        match.save(update_fields=["waiting_on"])


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0006_stats_extras"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="waiting_on",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
