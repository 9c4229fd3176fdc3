"""The bridge (clients/computer_gomori_bridge.py) opens a stream again when it falls silent: a stream whose answer
never begins, or whose connection was lost without a word, is not waited on for ever (the server sends a
keep-alive every few seconds)."""

from __future__ import annotations

import importlib.util
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

BRIDGE = Path(__file__).resolve().parents[3] / "clients" / "computer_gomori_bridge.py"


def bridge_module() -> Any:
    spec = importlib.util.spec_from_file_location("computer_gomori_bridge", BRIDGE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_stream_that_never_answers_is_given_up_after_its_silence() -> None:
    bridge = bridge_module()
    bridge.STREAM_SILENCE_SECONDS = 0.5
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept_and_say_nothing() -> None:
        connection, _ = listener.accept()
        held.append(connection)  # read nothing, answer nothing

    threading.Thread(target=accept_and_say_nothing, daemon=True).start()
    api = bridge.Api(f"http://127.0.0.1:{listener.getsockname()[1]}", "ccb_x")
    started = time.monotonic()
    with pytest.raises(bridge.AWAY):
        next(iter(api.lines("/api/v1/stream/events")))
    assert time.monotonic() - started < 10  # given up after its silence, not waited on for ever
    for connection in held:
        connection.close()
    listener.close()
