"""Friends (games.social): whom a person follows, whom they block, and the notification sockets a person has open
(what "online" means on this site: a page of theirs is open)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Follow(models.Model):
    """`follower` follows `followed`: the followed person's live status shows in the follower's Friends panel."""

    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    followed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["follower", "followed"], name="follow_once")]
        indexes = [models.Index(fields=["followed"], name="follow_followed")]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"


class Block(models.Model):
    """`blocker` blocks `blocked`: no challenge, chat line or club invitation of the blocked reaches the blocker,
    and quick pairing never seats the two together (lichess's rule)."""

    blocker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    blocked = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once")]
        indexes = [models.Index(fields=["blocked"], name="block_blocked")]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class OnlineSocket(models.Model):
    """One notification socket of a signed-in person (open on every page of theirs), in any process: written when
    it opens; when it closes, `closed_at` is set and kept as the person's "left at" (their other closed rows go).
    An open row counts while the later of its opening and its process's pulse (Process.last_seen) is recent, as a
    seat's Presence does: a killed process's sockets stop counting."""

    socket = models.CharField(max_length=200, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    process = models.CharField(max_length=64, blank=True, default="")  # Process.key
    opened_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user"], name="online_user")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.socket}"
