"""Reading what a client sends on a match socket: its frames and their fields, type-checked before use, and the
token bucket that bounds how many it may send. Whatever a client sends is either read or refused as Unreadable,
never a server error."""

from __future__ import annotations

import json
import re
import time
from typing import Any

# Close codes (4000-4999 are the application's own).
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429

MAX_FRAME_BYTES = 4096
# The frame limit is a token bucket: bursts of up to BURST frames, then RATE a second. A frame that makes a
# move gives its token back: the rules bound how many moves there can be, so a fast client that plays
# (the bench, a quick player) is never cut off, while a flood of anything else is closed.
BURST = 40
RATE = 20.0
_DIGITS = re.compile(r"\d{1,9}")


class Unreadable(ValueError):
    """A frame (or a field inside one) that is not what the socket expects."""


def parse_json(text: str) -> Any:
    """json.loads for untrusted text: deep nesting (RecursionError) is unreadable too, never a server error,
    and so is a lone surrogate escape ("\\ud800"): a refusal that quoted it could not be sent as UTF-8."""
    try:
        value = json.loads(text)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        raise Unreadable from None
    return value


def read_frame(text_data: str | None) -> dict[str, Any]:
    """A frame as the match socket takes it: a text frame of at most MAX_FRAME_BYTES holding a JSON object."""
    if text_data is None:
        raise Unreadable("This socket takes text frames only.")
    if len(text_data) > MAX_FRAME_BYTES or len(text_data.encode("utf-8")) > MAX_FRAME_BYTES:
        raise Unreadable("That message is too large to be a move.")
    frame = parse_json(text_data)
    if not isinstance(frame, dict):
        raise Unreadable
    return frame


def json_field(value: Any) -> dict[str, Any]:
    """An object field, sent as an object or as JSON text holding one (hx-vals sends both)."""
    if isinstance(value, str):
        value = parse_json(value)
    if not isinstance(value, dict):
        raise Unreadable
    return value


def int_field(value: Any) -> int | None:
    """A whole number field (form inputs send digits as text); None when absent; never a float or a bool."""
    if value is None or value == "":
        return None
    if type(value) is int and 0 <= value < 10**9:
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    raise Unreadable


class TokenBucket:
    """Bursts of up to BURST frames, then RATE a second."""

    def __init__(self) -> None:
        self.burst, self.rate = float(BURST), RATE
        self.tokens = self.burst
        self.refilled = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.refilled) * self.rate)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def give_back(self) -> None:
        self.tokens = min(self.burst, self.tokens + 1)
