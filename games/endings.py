"""Who hears a match's end, and when: the one place that says it (games.play.events announces the end and knows
none of them; lila's Finisher and the modules that listen on its bus).

With the end, inside the transaction that writes it, so that a page opened at once is right and a crash cannot
keep the end without them:
- the history lists a finished match (games.history.listing);
- a tournament counts its match and frees its players (games.tournaments.record; the tournament goes on after the
  commit);
- a rated match is queued for its analysis (games.review.jobs).
- the players' boards are released (games.boards: one person, one clocked match);
- the players' followers see them no longer playing, after the commit (games.social.news; and playing at the start).
And with a match's start (dealt, every seat filled), in its transaction: each player takes it as their board, or
the start is refused (games.boards, the one gate); a correspondence match's first mover is told by email after the
commit (games.notify.mail).
Once the end is shown, in the match's own change that follows it (after a crash, the runner's sweep):
- the statistics and ratings count it, once (games.ratings.stats); the rating changes join its result box.
And with an annulment (an administrator annuls a finished match's result, games.moderation), inside the
transaction that writes it, each undoing what it did with the end:
- the history lists it no more (games.history.listing; its page stays, marked);
- the statistics and ratings of its game are recomputed as if it had never counted, the later result boxes with
  them (games.ratings.rebuild);
- a tournament it was played in counts its standings again without it, its pages told after the commit
  (games.tournaments.record).
Nothing else listens: its players' boards were released and its analysis queued with the end, and it is mailed to
nobody; its live pages are told as of any change (games.play.news).
And after the commit of any change: a correspondence match's new turn is queued for email (games.notify.mail).
"""

from __future__ import annotations

from . import boards
from .history import listing
from .notify.mail import queue as mail
from .play import events
from .ratings import rebuild, stats
from .review import jobs
from .social import news as social
from .tournaments import record


def connect() -> None:
    """Called once at start-up (games.apps)."""
    events.subscribe(with_start=[boards.on_start, mail.on_start, social.on_start],
                     with_end=[boards.release, listing.on_end, record.on_end, jobs.on_end, social.on_end],
                     recorded=[stats.on_recorded], committed=[mail.on_committed],
                     annulled=[listing.on_annulled, rebuild.on_annulled, record.on_annulled])
