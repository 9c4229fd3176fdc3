"""What makes two shown names the same name: the same letters once case, compatibility forms (fullwidth,
mathematical letters, ligatures), invisible characters and look-alike letters of other scripts are set aside.

Two people may not share a shown name (User.name: the display name, or the username when there is none),
as on Board Game Arena: a name is how the table, the chat and the history say who did what, so a look-alike
of another player's name is a way to pass for them. Refusing the second one is simpler for everybody than
marking look-alikes wherever a name is shown.

A name is known by its keys (accounts.models.NameKey, unique in the database): the look-alike skeleton of its
lower-case form and of its upper-case form. Both, because case and look-alikes pull apart: the Greek capital
Nu looks like N while its small letter looks like v, the Cyrillic capital En looks like H while its small
letter does not look like h; each form catches the impersonations the other misses. The look-alikes are
Unicode's (TR39 confusables.txt, as the confusable-homoglyphs package ships it): a letter of another script is
replaced by the letter it is drawn like. ASCII is left as it is (the skeleton's own alphabet): I and l, 0 and O
are told apart, as the names' owners expect.

The keys depend on that data: after upgrading confusable-homoglyphs, `manage.py name_keys` recomputes them.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

# Shown-name keys are at most this long; a longer one (a name of characters that expand, such as Arabic
# ligatures) keeps its start and a digest of the whole, so a database index can hold it.
KEY_LENGTH = 120
# Characters that draw nothing and are no format character (Cf): Hangul fillers, variation selectors, the
# combining grapheme joiner, Mongolian free variation selectors, Khmer inherent vowels.
INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))
)


@cache
def prototypes() -> dict[str, str]:
    """Each non-ASCII character that looks like another, mapped to the character (or characters) it looks like.

    confusable-homoglyphs keeps confusables.txt as a graph, each source linked both ways with its prototype, so
    the direction is read back: a source has one link, to its prototype; a prototype has one link per source.
    A pair linked only to each other is mapped both onto the smaller one (ASCII first), which tells the same
    two apart from everything else."""
    # Imported here: the confusables table is large, and only the first name check of a process needs it.
    from confusable_homoglyphs.confusables import confusables_data

    def clean(text: str) -> str:
        return text.replace("\u200e", "")  # the data wraps right-to-left characters in marks

    links: dict[str, set[str]] = {}
    for key, entries in confusables_data.items():
        links.setdefault(clean(key), set()).update(clean(entry["c"]) for entry in entries)
    mapping: dict[str, str] = {}
    for char, linked in links.items():
        if len(char) != 1 or char.isascii() or len(linked) != 1:
            continue
        (other,) = linked
        if not other or other == char:
            continue
        if len(other) > 1 or len(links.get(other, ())) > 1:
            mapping[char] = other  # char is a source: other is its prototype
        elif (not other.isascii(), other) < (not char.isascii(), char):
            mapping[char] = other  # a pair: the smaller one stands for both
    return mapping


def _visible(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) not in {"Cf", "Cc"} and c not in INVISIBLE)


def skeleton(text: str, fold: Callable[[str], str]) -> str:
    """The name as a reader sees it, in one case: compatibility forms decomposed, invisible characters dropped,
    look-alikes replaced by what they look like, until nothing changes; spaces collapsed."""
    mapping = prototypes()
    current = _visible(unicodedata.normalize("NFKD", text))
    for _ in range(5):
        folded = _visible(unicodedata.normalize("NFKD", fold(current)))
        mapped = _visible(unicodedata.normalize("NFKD", "".join(mapping.get(c, c) for c in folded)))
        if mapped == current:
            break
        current = mapped
    return " ".join(unicodedata.normalize("NFC", current).split())


def _short(key: str) -> str:
    if len(key) <= KEY_LENGTH:
        return key
    return key[: KEY_LENGTH - 17] + "#" + hashlib.sha256(key.encode()).hexdigest()[:16]


def name_keys(*names: str) -> set[str]:
    """The keys the given names are known by (their lower- and upper-case skeletons); none for a blank name."""
    keys = set()
    for name in names:
        for fold in (str.casefold, str.upper):
            key = skeleton(name, fold)
            if key:
                keys.add(_short(key))
    return keys


def fill_name_keys(people: Iterable[tuple[int, str, str]], name_key: Any, using: str) -> None:
    """Store the name keys of (id, username, display name) rows, oldest account first, in an empty NameKey
    table (the migration that made it; `manage.py name_keys`). Where two accounts already share a name, the
    earlier one holds its key and the later one holds none for it: both keep their names, nobody else may take
    them, and the later one is refused that name on its next change."""
    held: set[str] = set()
    rows = []
    for pk, username, display_name in people:
        for key in sorted(name_keys(display_name or username, username) - held):
            held.add(key)
            rows.append(name_key(key=key, user_id=pk))
    name_key.objects.using(using).bulk_create(rows, batch_size=1000)


def taken_message(name: str) -> str:
    return f"That name is taken: “{name}” is, or looks like, another player's name. Please choose another."


def same_name(first: str, second: str) -> bool:
    """Whether two names would be taken for each other."""
    return bool(name_keys(first) & name_keys(second))
