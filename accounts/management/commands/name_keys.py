"""manage.py name_keys: recompute every person's name keys (after an upgrade of the look-alike data)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import NameKey, User
from accounts.names import fill_name_keys


class Command(BaseCommand):
    help = "Recompute the keys that keep two people from holding look-alike names (accounts.names)."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            NameKey.objects.all().delete()
            people = User.objects.order_by("date_joined", "pk").values_list("pk", "username", "display_name")
            fill_name_keys(people.iterator(), NameKey, "default")
        self.stdout.write(f"{NameKey.objects.count()} name keys for {User.objects.count()} people.")
