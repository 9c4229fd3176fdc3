"""The rules pages: an index, one page per game, and the same rules as a bare panel for the "?" at a table."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET

from ..catalog import GAMES
from ..engines import SLUGS
from ..kits.examples import new_page


def rules_body(slug: str, heading_level: int = 2) -> SafeString:
    """A game's rules, sections and examples, drawn by Jinja2 with the tables' own macros.

    The page's sections are h2 under its h1; in the panel they sit under the panel's h2, so they are h3."""
    game = GAMES[slug]
    new_page()
    html = render_to_string(f"games/rules/{slug}.html", {"ex": game.rules_examples(), "h": heading_level, "game": game},
                            using="jinja2")
    return mark_safe(html)  # Jinja2 escaped everything it drew from data


@require_GET
def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/rules_index.html", {"games": [GAMES[slug] for slug in SLUGS]})


@require_GET
def rules_page(request: HttpRequest, game: str) -> HttpResponse:
    if game not in SLUGS:
        raise Http404("No such game.")
    info = GAMES[game]
    if request.GET.get("panel") == "1":
        # Only the rules, for the panel beside a live table: the table page already has the site around it
        # and the game's stylesheets.
        panel = format_html('<div class="rules rules-{} match-{}">{}</div>', game, game, rules_body(game, 3))
        return HttpResponse(panel)
    return render(request, "games/rules.html", {"game": info, "body": rules_body(game), "table_css": info.table_css})
