"""What the live core tells the rest of the site without knowing it: a match ended (finished or aborted).

Sent inside the transaction that writes the end (games.play.store.write), so a receiver's writes commit or roll
back with it; a receiver that needs to act after the commit uses transaction.on_commit. Tournaments count their
matches so (games.tournaments.record), exactly once, with the end itself.
"""

from __future__ import annotations

from django.dispatch import Signal

# sender: the module; kwargs: snap (the Snapshot after the change, FINISHED or ABORTED)
match_ended = Signal()
