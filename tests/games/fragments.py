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
