"""Reading the HTML fragments a match socket sends: one section, the error slot, the words a person reads."""

from __future__ import annotations

import html as html_module
import re


def section(html: str, element_id: str) -> str:
    """The whole <section id=...> of a fragment, nested sections included (it ends where the next part begins)."""
    found = re.search(rf'<section id="{element_id}".*?</section>\s*(?=<section|<div id="error"|$)', html, re.S)
    assert found, f"no #{element_id} in the fragment"
    return found.group(0)


def error_text(html: str) -> str:
    """What the error slot says ("" when there is nothing wrong)."""
    found = re.search(r'<div id="error"[^>]*>(.*?)</div>', html, re.S)
    assert found, "no #error in the fragment"
    return found.group(1)


def text_of(html: str) -> str:
    """The words of an HTML fragment, as a person reads them."""
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)))


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def top_level_elements(html: str) -> list[tuple[str, str, str]]:
    """(id, hx-swap-oob or "", outer HTML) of each top-level element of a socket message."""
    from html.parser import HTMLParser

    found: list[tuple[str, str, str]] = []
    lines = html.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    class Splitter(HTMLParser):
        depth = 0
        current: tuple[str, str, int] | None = None

        def position(self) -> int:
            line, column = self.getpos()
            return starts[line - 1] + column

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if self.depth == 0:
                values = dict(attrs)
                self.current = (values.get("id") or "", values.get("hx-swap-oob") or "", self.position())
            if tag not in _VOID:
                self.depth += 1
            elif self.depth == 0:
                self.close_current(self.position() + len(self.get_starttag_text() or ""))

        def handle_endtag(self, tag: str) -> None:
            if tag in _VOID:
                return
            self.depth -= 1
            if self.depth == 0:
                end = html.index(">", self.position()) + 1
                self.close_current(end)

        def close_current(self, end: int) -> None:
            assert self.current is not None
            element_id, oob, start = self.current
            found.append((element_id, oob, html[start:end]))
            self.current = None

    splitter = Splitter(convert_charrefs=False)
    splitter.feed(html)
    splitter.close()
    return found


class Page:
    """What a browser's page holds after the socket's messages, swapped in by id as htmx does: a whole
    element replaced (outerHTML), the log's new entries added at the top (afterbegin), a chat line at the end
    (beforeend), a hidden one taken away (delete)."""

    def __init__(self) -> None:
        self.parts: dict[str, str] = {}

    def apply(self, message: str) -> str:
        for element_id, oob, outer in top_level_elements(message):
            if oob == "afterbegin":
                inner = outer[outer.index(">") + 1: outer.rindex("</")]
                holder = next(key for key, part in self.parts.items() if f'id="{element_id}"' in part)
                part = self.parts[holder]
                tag_end = part.index(">", part.index(f'id="{element_id}"')) + 1
                self.parts[holder] = part[:tag_end] + inner + part[tag_end:]
            elif oob == "beforeend":  # a new chat line, at the end of the list
                inner = outer[outer.index(">") + 1: outer.rindex("</")]
                holder = next(key for key, part in self.parts.items() if f'id="{element_id}"' in part)
                part = self.parts[holder]
                start = part.index(f'id="{element_id}"')
                tag = part[part.rindex("<", 0, start) + 1:].split(None, 1)[0]
                close = part.index(f"</{tag}>", start)
                self.parts[holder] = part[:close] + inner + part[close:]
            elif oob == "delete":  # a hidden chat line, taken off the page
                for holder, part in self.parts.items():
                    if f'id="{element_id}"' in part:
                        start = part.rindex("<", 0, part.index(f'id="{element_id}"'))
                        tag = part[start + 1:].split(None, 1)[0]
                        self.parts[holder] = part[:start] + part[part.index(f"</{tag}>", start) + len(tag) + 3:]
            else:
                self.parts[element_id] = outer
        return self.html()

    def html(self) -> str:
        return "".join(self.parts.values())
