"""Each person's notices_until (accounts 0011) from the challenges written before it: up to RECENT_MINUTES (10)
past each challenge's end or close, the latest one, for the challenges whose notice or "no" may still be shown."""

from datetime import timedelta

from django.db import migrations
from django.utils import timezone

RECENT = timedelta(minutes=10)  # games.challenges.queries.RECENT_MINUTES when this was written


def forwards(apps, schema_editor):
    Challenge = apps.get_model("games", "Challenge")
    User = apps.get_model("accounts", "User")
    since = timezone.now() - RECENT
    until: dict[int, object] = {}
    for row in Challenge.objects.filter(expires_at__gt=since).values("challenger_id", "challenged_id", "expires_at",
                                                                       "closed_at").iterator():
        moment = max(row["expires_at"], row["closed_at"] or row["expires_at"]) + RECENT
        for person in (row["challenger_id"], row["challenged_id"]):
            if person not in until or until[person] < moment:
                until[person] = moment
    for row in Challenge.objects.filter(closed_at__gt=since).values("challenger_id", "challenged_id",
                                                                    "closed_at").iterator():
        moment = row["closed_at"] + RECENT
        for person in (row["challenger_id"], row["challenged_id"]):
            if person not in until or until[person] < moment:
                until[person] = moment
    for person, moment in until.items():
        User.objects.filter(pk=person).update(notices_until=moment)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0011_notices_until"),
        ("games", "0016_process_liveness"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
