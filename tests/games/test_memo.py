"""The bounded memo behind the cached card faces, board cells and shared pages."""

from __future__ import annotations

from games.core.memo import Memo


def test_the_memo_makes_each_value_once_and_empties_when_full():
    made: list[str] = []
    memo: Memo[str] = Memo(limit=2)

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    assert [memo.get(k, lambda k=k: make(k)) for k in ("a", "a", "b", "a")] == ["A", "A", "B", "A"]
    assert made == ["a", "b"] and len(memo) == 2
    assert memo.get("c", lambda: make("c")) == "C"  # full: emptied, then c kept
    assert len(memo) == 1 and memo.get("a", lambda: make("a")) == "A" and made == ["a", "b", "c", "a"]
