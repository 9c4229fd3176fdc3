"""Tournament reads: who may see a tournament (a private one: its creator, its entrants and the invite's holders),
and the tournament a match was played in. What the pages show is built in games.tournaments.display."""

from __future__ import annotations

import hmac

from accounts.models import Viewer

from ..models import Entrant, Tournament, TournamentGame


def may_view(tournament: Tournament, user: Viewer, code: str = "") -> bool:
    """A public tournament is anyone's to see; a private one its creator's, its entrants' and the invite's."""
    if not tournament.is_private:
        return True
    if code and hmac.compare_digest(code.encode(), tournament.invite_code.encode()):
        return True
    if not user.is_authenticated:
        return False
    return tournament.created_by_id == user.pk or Entrant.objects.filter(tournament=tournament, user=user).exists()


def visible(tournament_id: int, user: Viewer, code: str = "") -> Tournament | None:
    """The tournament if this person may see it, else None (to them it does not exist)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not may_view(tournament, user, code):
        return None
    return tournament


def of_match(match_id: int) -> tuple[int, str] | None:
    """The tournament a match was played in, (id, name), for the match page's link back; None for another match."""
    row = (TournamentGame.objects.filter(match_id=match_id).values_list("tournament_id", "tournament__name")
           .first())
    return (int(row[0]), str(row[1])) if row is not None else None
