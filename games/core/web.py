"""What the games' web pages share: the requests their views are given, and the URLs of list pages (Link).

Link: one reverse() per page and URL name, then each row's URL by filling in its argument. reverse() costs
15-30 µs (the resolver, the script prefix, quoting); a history page needs four URLs a
row and the leaderboard one, so that was hundreds of calls a page (issue 20). A Link is made from
reverse() itself for a placeholder argument, so the prefix, the pattern and the quoting stay Django's.
"""

from __future__ import annotations

from urllib.parse import quote

from django.http import HttpRequest
from django.urls import reverse
from django_htmx.middleware import HtmxDetails

from accounts.models import User

# What reverse() leaves unquoted in a path (django.urls.resolvers.URLResolver._reverse_with_prefix).
_SAFE = "!$&'()*+,;=" + "/~:@"
_WORD = "zqxPLACEHOLDERxqz"
_NUMBER = 987654321987654321


class Link:
    """reverse(name, args=[value]) for many values of one argument, a str or an int pattern."""

    def __init__(self, name: str, *, numeric: bool = False) -> None:
        marker = str(_NUMBER) if numeric else _WORD
        url = reverse(name, args=[_NUMBER if numeric else _WORD])
        self.head, found, self.tail = url.partition(marker)
        if not found:  # a pattern that transforms its argument: nothing to fill in
            raise ValueError(f"{name}: the argument does not appear in the URL as given")
        self.numeric = numeric

    def __call__(self, value: str | int) -> str:
        if self.numeric:
            return f"{self.head}{int(value)}{self.tail}"
        return f"{self.head}{quote(str(value), safe=_SAFE)}{self.tail}"


class HtmxRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it: `request.htmx` says whether htmx sent it, and how."""

    htmx: HtmxDetails


class SignedInRequest(HtmxRequest):
    """A request to a view behind login_required: its user is a person, never the anonymous visitor."""

    user: User
