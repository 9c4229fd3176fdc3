#!/usr/bin/env python3
"""The Computer Gomori bridge: a program written for the Computer Gomori judge (github.com/nnmm/gomori: one JSON
request a line on its stdin, one answer a line on its stdout) plays live on Card Club through the Bot API.

    python3 computer_gomori_bridge.py --server http://127.0.0.1:8000 --token ccb_... -- python3 my_bot.py

It reads the bot account's events, accepts Gomori challenges (and declines the other games), and for each match
starts the program, tells it NewGame with its colour, and on each of its turns passes the server's request
(PlayFirstTurn or PlayTurn, made by the server from exactly the seat's view) and sends back the program's answer,
which the server checks and plays like any move. At the end the program gets Bye. A stream that ends while its
match goes on is opened again, and a server that is away for a while (a restart, a crash, a deploy: the connection
refused or cut, or a 502/503 from its proxy) is waited for: the match goes on from the state then current.
Needs Python 3.8+ and nothing else: one file to copy next to your bot.
Options: --challenge USERNAME challenges someone to Gomori at the start; --no-accept leaves challenges alone;
--answer-seconds bounds the program's thinking (default 60).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import queue
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any

USER_AGENT = "computer-gomori-bridge/1"
# The server away: the connection refused, reset or cut mid-answer, or its proxy's 502-504.
AWAY = (OSError, http.client.HTTPException, ValueError)
# The server sends a stream a keep-alive line every few seconds (5 by default): a stream silent this long is stuck
# (its connection lost without a word, or its answer never begun), and is opened again.
STREAM_SILENCE_SECONDS = 30.0
PATIENCE_SECONDS = 600.0  # how long a match waits for a server that is away before the bridge gives it up


def log(*parts: Any) -> None:
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


class Api:
    def __init__(self, server: str, token: str) -> None:
        self.server = server.rstrip("/")
        self.token = token

    def _request(self, method: str, path: str, body: Any = None, stream: bool = False) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.server + path, data=data, method=method, headers={
            "Authorization": "Bearer " + self.token, "Accept": "application/json", "User-Agent": USER_AGENT,
            **({"Content-Type": "application/json"} if data is not None else {}),
        })
        for _ in range(10):
            try:
                return urllib.request.urlopen(request, timeout=STREAM_SILENCE_SECONDS if stream else 60)
            except urllib.error.HTTPError as error:
                if error.code == 429:  # the token's bucket is empty: wait as told (the body says it exactly)
                    try:
                        wait = float(json.loads(error.read()).get("retry_after"))
                    except (ValueError, TypeError, AttributeError):
                        wait = float(error.headers.get("Retry-After", "1"))
                    time.sleep(min(max(wait, 0.01), 60.0))
                    continue
                raise
        raise RuntimeError("the server keeps saying: too many requests")

    def call(self, method: str, path: str, body: Any = None) -> Any:
        with self._request(method, path, body) as response:
            return json.loads(response.read() or b"{}")

    def call_patiently(self, method: str, path: str, body: Any = None) -> Any:
        """call(), waiting for a server that is away (a restart, a crash) rather than failing; a refusal (4xx) is
        raised at once."""
        deadline, pause = time.monotonic() + PATIENCE_SECONDS, 0.5
        while True:
            try:
                return self.call(method, path, body)
            except urllib.error.HTTPError as error:
                if error.code < 500 or time.monotonic() > deadline:
                    raise
                why = f"HTTP {error.code}"
            except AWAY as error:
                if time.monotonic() > deadline:
                    raise
                why = str(error) or type(error).__name__
            log(f"the server is away ({why}); trying again in {pause:.1f} s")
            time.sleep(pause)
            pause = min(pause * 2, 10.0)

    def lines(self, path: str) -> Any:
        """The JSON lines of a stream, until it ends (keep-alive newlines skipped)."""
        with self._request("GET", path, stream=True) as response:
            for raw in response:
                if raw.strip():
                    yield json.loads(raw)


def error_text(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read()).get("error"))
    except Exception:
        return str(error)


class Program:
    """The bot program of one match: its stdin and stdout, lines with a time limit."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.answers: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def ask(self, request: dict[str, Any], seconds: float) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request, separators=(",", ":"), ensure_ascii=False) + "\n")
        self.process.stdin.flush()
        line = self.answers.get(timeout=seconds)
        if line is None:
            raise RuntimeError("the program exited")
        return json.loads(line)

    def bye(self) -> None:
        try:
            assert self.process.stdin is not None
            self.process.stdin.write('{"type":"Bye"}\n')
            self.process.stdin.flush()
            self.process.wait(timeout=5)
        except Exception:
            self.process.kill()


class Match:
    def __init__(self, api: Api, match_id: int, command: list[str], answer_seconds: float) -> None:
        self.api, self.id, self.command, self.answer_seconds = api, match_id, command, answer_seconds
        self.seen = 0  # the opponent's gathered cards the program was told of
        self.done_version = -1

    def run(self) -> None:
        program: Program | None = None
        try:
            state = self.api.call_patiently("GET", f"/api/v1/matches/{self.id}")
            program = Program(self.command)
            program.ask({"type": "NewGame", "color": ("black", "red")[state["seat"]]}, self.answer_seconds)
            log(f"match {self.id}: playing {('black', 'red')[state['seat']]}")
            while state["status"] == "active":
                try:
                    for item in self.api.lines(f"/api/v1/matches/{self.id}/stream"):
                        if item.get("type") == "state":
                            state = item
                            self.turn(program, state)
                        elif item.get("type") == "chat":
                            log(f"match {self.id} chat: {item.get('user')}: {item.get('text')}")
                        elif item.get("type") == "end":
                            log(f"match {self.id}: {item.get('reason')}")
                            return
                except AWAY as error:
                    log(f"match {self.id}: stream lost ({error or type(error).__name__}); opening it again")
                    time.sleep(1)
                state = self.api.call_patiently("GET", f"/api/v1/matches/{self.id}")  # ended, or the stream did
                if state["status"] == "active":
                    try:
                        self.turn(program, state)
                    except AWAY as error:  # the server went away during the turn: it is asked again
                        log(f"match {self.id}: the server went away during a turn ({error or type(error).__name__})")
            log(f"match {self.id}: {state['status']}, result {json.dumps(state.get('result'))}")
        except Exception as error:  # one match's trouble must not stop the bridge
            log(f"match {self.id}: stopped: {error!r}")
        finally:
            if program is not None:
                program.bye()

    def turn(self, program: Program, state: dict[str, Any]) -> None:
        """The program's turn at this state, once: a turn is marked done when the server answered it (made, or
        refused as stale); a server that went away meanwhile raises AWAY, and the same turn is asked again."""
        if state["status"] != "active" or not state["your_turn"] or state["version"] <= self.done_version:
            return
        try:
            asked = self.api.call("GET", f"/api/v1/matches/{self.id}/gomori/request?seen={self.seen}")
        except urllib.error.HTTPError as error:
            if error.code == 409:  # the match ended meanwhile: its stream says so next
                return
            raise
        self.done_version = state["version"]
        if asked["version"] != state["version"]:
            return  # the match moved on: the stream brings the newer state
        if asked["request"] is None:  # a turn the protocol has no request for: play what the site allows
            self.fallback(state, "no protocol request for this turn")
            return
        try:
            answer = program.ask(asked["request"], self.answer_seconds)
        except Exception as error:
            self.fallback(state, f"the program did not answer: {error!r}")
            return
        try:
            self.api.call("POST", f"/api/v1/matches/{self.id}/gomori/turn",
                          {"version": asked["version"], "answer": answer})
            self.seen = asked["seen"]
            log(f"match {self.id}: played its turn at version {asked['version']}")
        except AWAY:
            self.done_version = -1  # not answered: the turn is asked again (a stale one is refused as such)
            raise
        except urllib.error.HTTPError as error:
            if error.code == 409:
                return  # stale: a newer state is on its way
            self.fallback(state, f"the server refused the program's answer: {error_text(error)}")

    def fallback(self, state: dict[str, Any], why: str) -> None:
        """Keep the match going with a random legal action (the judge would disqualify; people are waiting)."""
        log(f"match {self.id}: {why}; playing a random legal action instead")
        if state["legal"]:
            try:
                self.api.call("POST", f"/api/v1/matches/{self.id}/move",
                              {"action": random.choice(state["legal"]), "version": state["version"]})
            except urllib.error.HTTPError as error:
                log(f"match {self.id}: {error_text(error)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    parser.add_argument("--challenge", default="", help="challenge this username to Gomori at the start")
    parser.add_argument("--no-accept", action="store_true", help="leave incoming challenges alone")
    parser.add_argument("--answer-seconds", type=float, default=60.0)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the bot program and its arguments")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the bot program after --, e.g. -- python3 my_bot.py")
    api = Api(args.server, args.token)
    me = api.call("GET", "/api/v1/account")
    log(f"bridge for {me['username']} on {args.server}: {' '.join(command)}")
    if args.challenge:
        made = api.call("POST", f"/api/v1/challenge/{args.challenge}", {"game": "gomori", "clock": "none"})
        log(f"challenged {args.challenge}: challenge {made['challenge']['id']}")
    running: dict[int, threading.Thread] = {}
    while True:
        try:
            for event in api.lines("/api/v1/stream/events"):
                kind = event.get("type")
                # A challenge made and withdrawn while the stream looked away comes already answered: left alone.
                if (kind == "challenge" and event["challenge"]["to"] == me["username"] and not args.no_accept
                        and event["challenge"].get("status", "open") == "open"):
                    challenge = event["challenge"]
                    verb = "accept" if challenge["game"] == "gomori" else "decline"
                    try:
                        api.call("POST", f"/api/v1/challenges/{challenge['id']}/{verb}")
                        log(f"{verb}ed {challenge['from']}'s challenge to {challenge['game']}")
                    except urllib.error.HTTPError as error:
                        log(f"could not {verb} challenge {challenge['id']}: {error_text(error)}")
                elif kind == "matchStart" and event["match"]["game"] == "gomori":
                    match_id = int(event["match"]["id"])
                    if match_id not in running or not running[match_id].is_alive():
                        match = Match(api, match_id, command, args.answer_seconds)
                        running[match_id] = threading.Thread(target=match.run, daemon=True)
                        running[match_id].start()
                elif kind == "end":
                    log(f"the server ended the events: {event.get('reason')}")
                    return
        except urllib.error.HTTPError as error:
            if error.code in (401, 403):
                log(f"refused: {error_text(error)}")
                sys.exit(1)
            log(f"events: {error}; again in 2 s")
        except AWAY as error:
            log(f"events stream lost ({error or type(error).__name__}); again in 2 s")
        time.sleep(2)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
