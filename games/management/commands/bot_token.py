"""manage.py bot_token OWNER BOT: make the program account BOT for the person OWNER if it does not exist yet, and
print a new API token for it (shown once). The README's "Programs play too: the Bot API" uses it."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import User
from games.api.tokens import SCOPES, create_bot, make_token
from games.play.snapshot import ServiceError


class Command(BaseCommand):
    help = "Make a bot account (if needed) owned by a person and print a new API token for it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("owner", help="the username of the person who owns the bot")
        parser.add_argument("bot", help="the bot's username (made if it does not exist)")
        parser.add_argument("--name", default="command line", help="the token's name")
        parser.add_argument("--scopes", default=",".join(SCOPES), help="comma-separated: play,challenge")
        parser.add_argument("--display-name", default="", help="the bot's shown name, when it is made")

    def handle(self, *args: Any, **options: Any) -> None:
        owner = User.objects.filter(username=options["owner"]).first()
        if owner is None:
            raise CommandError(f"No person {options['owner']!r}: sign up on the site first.")
        bot = User.objects.filter(username=options["bot"]).first()
        try:
            if bot is None:
                bot = create_bot(owner, options["bot"], options["display_name"])
                self.stderr.write(f"Made the bot account {bot.username}, owned by {owner.username}.")
            elif not bot.program or bot.owner_id != owner.pk:
                raise CommandError(f"{bot.username} is not a bot of {owner.username}.")
            scopes = [s.strip() for s in options["scopes"].split(",") if s.strip()]
            _, key = make_token(bot, name=options["name"], scopes=scopes)
        except ServiceError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(key)
