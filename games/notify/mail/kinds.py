"""The kinds of notification a person may ask for by email, in the order the profile lists them (all off until
the person turns them on; User.mail_kinds holds the keys)."""

from __future__ import annotations

TURN, CHALLENGE, TOURNAMENT, ANALYSIS = "turn", "challenge", "tournament", "analysis"
# The verification link of an address: not a kind anyone opts into, sent whenever the person asks for it.
VERIFY = "verify"

KINDS: dict[str, str] = {
    TURN: "Your turn in a correspondence match",
    CHALLENGE: "A challenge to you",
    TOURNAMENT: "A tournament you entered starting",
    ANALYSIS: "A match's analysis ready",
}

# The kinds that leave at once: a challenge expires within minutes, and a tournament pairs whoever is there. The
# others wait out the gathering window (NOTIFY_MAIL_GATHER_SECONDS), so that a burst leaves in one email.
URGENT = frozenset({CHALLENGE, TOURNAMENT})
