"""A game's own figures move from PlayerStats columns into PlayerStats.extras (keyed as each kit's Figure)."""

from django.db import migrations, models

COLUMNS = {"best_round_score": "best_round", "best_solo_score": "best_solo", "best_placement": "best_placement"}


def to_extras(apps, schema_editor):
    PlayerStats = apps.get_model("games", "PlayerStats")
    for row in PlayerStats.objects.exclude(best_round_score=None, best_solo_score=None, best_placement=None):
        row.extras = {key: getattr(row, column) for column, key in COLUMNS.items() if getattr(row, column) is not None}
        row.save(update_fields=["extras"])


def from_extras(apps, schema_editor):
    PlayerStats = apps.get_model("games", "PlayerStats")
    for row in PlayerStats.objects.exclude(extras={}):
        for column, key in COLUMNS.items():
            setattr(row, column, row.extras.get(key))
        row.save(update_fields=list(COLUMNS))


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0005_lifecycle_chat_clocks"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerstats",
            name="extras",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(to_extras, from_extras),
        migrations.RemoveField(model_name="playerstats", name="best_placement"),
        migrations.RemoveField(model_name="playerstats", name="best_round_score"),
        migrations.RemoveField(model_name="playerstats", name="best_solo_score"),
    ]
