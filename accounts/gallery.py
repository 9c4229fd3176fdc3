"""The gallery of drawn avatars a person may pick instead of uploading a photo: card suits, table things, animals
and patterns, in the site's palette, each drawn by the server as SVG (no external assets).

A picture's key is what is stored on the user (User.avatar_choice), so keys never change meaning: a drawing
may be redrawn (bump GALLERY_DESIGN, so cached copies are replaced), a key may be retired (its holders fall back
to the picture drawn from their name), but a key is never reused for another motif.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

# Bump when a drawing below changes, so browsers fetch it again (it is part of every gallery URL's ?v=).
GALLERY_DESIGN = "1"

CREAM = "#fdf6e3"
GOLD = "#f4d35e"
INK = "#1d2a24"


@dataclass(frozen=True)
class GalleryAvatar:
    key: str
    label: str
    background: str
    # Trusted SVG markup written here, drawn on a 64x64 canvas over the background and its ring.
    motif: str

    @property
    def ring(self) -> str:
        """The ring's colour: the background, lighter (as the name-drawn pictures have it)."""
        red, green, blue = (int(self.background[i:i + 2], 16) / 255 for i in (1, 3, 5))
        hue, lightness, saturation = colorsys.rgb_to_hls(red, green, blue)
        r, g, b = colorsys.hls_to_rgb(hue, min(lightness + 0.13, 0.9), saturation)
        return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _star(cx: float, cy: float, outer: float, inner: float, points: int = 5) -> str:
    corners = []
    for i in range(points * 2):
        radius = outer if i % 2 == 0 else inner
        angle = math.pi * i / points - math.pi / 2
        corners.append(f"{cx + radius * math.cos(angle):.1f},{cy + radius * math.sin(angle):.1f}")
    return " ".join(corners)


def _rays(cx: float, cy: float, inner: float, outer: float, count: int) -> str:
    lines = []
    for i in range(count):
        angle = 2 * math.pi * i / count
        x1, y1 = cx + inner * math.cos(angle), cy + inner * math.sin(angle)
        x2, y2 = cx + outer * math.cos(angle), cy + outer * math.sin(angle)
        lines.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>')
    return "".join(lines)


def _petals(cx: float, cy: float, count: int, colour: str) -> str:
    return "".join(
        f'<ellipse cx="{cx}" cy="{cy - 10.5}" rx="5.6" ry="10" fill="{colour}" '
        f'transform="rotate({360 * i / count:.0f} {cx} {cy})"/>'
        for i in range(count)
    )


GALLERY: tuple[GalleryAvatar, ...] = (
    # The four suits.
    GalleryAvatar("spade", "Spade", "#1d2a24",
                  f'<path fill="{CREAM}" d="M32 12C25 21 15 27 15 36c0 6 4.5 9.5 9.5 9.5 3 0 5.3-1.3 6.5-3.2'
                  f'L28.5 52h7L33 42.3c1.2 1.9 3.5 3.2 6.5 3.2 5 0 9.5-3.5 9.5-9.5 0-9-10-15-17-24z"/>'),
    GalleryAvatar("heart", "Heart", "#b3261e",
                  f'<path fill="{CREAM}" d="M32 50C20 41 13.5 34.5 13.5 26.5c0-6 4.5-10.5 10-10.5 3.8 0 6.8 2 8.5 5.2'
                  f'C33.7 18 36.7 16 40.5 16c5.5 0 10 4.5 10 10.5C50.5 34.5 44 41 32 50z"/>'),
    GalleryAvatar("diamond", "Diamond", "#1d5a8c",
                  f'<path fill="{GOLD}" d="M32 11Q38 23 48 32Q38 41 32 53Q26 41 16 32Q26 23 32 11z"/>'),
    GalleryAvatar("club", "Club", "#1f6f4a",
                  f'<g fill="{CREAM}"><circle cx="32" cy="21.5" r="8.5"/><circle cx="22" cy="35" r="8.5"/>'
                  f'<circle cx="42" cy="35" r="8.5"/><circle cx="32" cy="31" r="5"/>'
                  f'<path d="M31 32Q30 46 27 52h10Q34 46 33 32z"/></g>'),
    # Things on the table.
    GalleryAvatar("crown", "Crown", "#5b2f56",
                  f'<path fill="{GOLD}" d="M15 43V23l9 10 8-15 8 15 9-10v20z"/>'
                  f'<rect x="15" y="44.5" width="34" height="5.5" rx="1.5" fill="{GOLD}"/>'
                  f'<g fill="{CREAM}"><circle cx="15" cy="21" r="2.8"/><circle cx="32" cy="16" r="2.8"/>'
                  f'<circle cx="49" cy="21" r="2.8"/></g><circle cx="32" cy="36" r="3" fill="#b3261e"/>'),
    GalleryAvatar("star", "Star", "#0d3b27",
                  f'<polygon fill="{GOLD}" stroke="{GOLD}" stroke-width="2" stroke-linejoin="round" '
                  f'points="{_star(32, 33.5, 20, 8.5)}"/>'),
    GalleryAvatar("moon", "Moon", "#173f63",
                  f'<path fill="{CREAM}" d="M37 13.5A19 19 0 1 0 50.5 40 15 15 0 1 1 37 13.5z"/>'
                  f'<polygon fill="{GOLD}" points="{_star(44, 23, 5, 2)}"/>'
                  f'<circle cx="49" cy="33" r="1.3" fill="{GOLD}"/>'),
    GalleryAvatar("die", "Die", "#8c2a22",
                  f'<g transform="rotate(-12 32 32)"><rect x="15" y="15" width="34" height="34" rx="7" fill="{CREAM}"/>'
                  f'<g fill="#8c2a22"><circle cx="23.5" cy="23.5" r="3.3"/><circle cx="40.5" cy="23.5" r="3.3"/>'
                  f'<circle cx="32" cy="32" r="3.3"/><circle cx="23.5" cy="40.5" r="3.3"/>'
                  f'<circle cx="40.5" cy="40.5" r="3.3"/></g></g>'),
    # Animals.
    GalleryAvatar("fox", "Fox", "#14523a",
                  f'<path fill="#e07a2e" d="M32 51 15.5 31 15 13l11 9h12l11-9-.5 18z"/>'
                  f'<path fill="#a8501a" d="m18 17 .3 9 5-3.5zm28 0-.3 9-5-3.5z"/>'
                  f'<path fill="{CREAM}" d="M32 51 20 35.5h7l5 5.5 5-5.5h7z"/>'
                  f'<g fill="{INK}"><circle cx="25" cy="30.5" r="2.3"/><circle cx="39" cy="30.5" r="2.3"/>'
                  f'<circle cx="32" cy="48" r="2.6"/></g>'),
    GalleryAvatar("owl", "Owl", "#1d4f6e",
                  f'<path fill="#b97a3c" d="M18 14l6 7.5h16l6-7.5 2.5 13C50 46 42 52 32 52S14 46 15.5 27z"/>'
                  f'<ellipse cx="32" cy="42" rx="9" ry="8.5" fill="#e8d2a6"/>'
                  f'<g fill="{CREAM}"><circle cx="25" cy="29" r="7"/><circle cx="39" cy="29" r="7"/></g>'
                  f'<g fill="{INK}"><circle cx="25.5" cy="29.5" r="3.3"/><circle cx="38.5" cy="29.5" r="3.3"/></g>'
                  f'<g fill="{CREAM}"><circle cx="26.5" cy="28.3" r="1.1"/><circle cx="39.5" cy="28.3" r="1.1"/></g>'
                  f'<path fill="{GOLD}" d="M29.5 34.5h5L32 39.5z"/>'),
    GalleryAvatar("cat", "Cat", "#5b4a8c",
                  f'<path fill="{CREAM}" d="M17.5 12.5 29 22h6l11.5-9.5L47 30a15 15 0 1 1-30 0z"/>'
                  f'<path fill="#e8a0a0" d="m20.5 18 .5 8 5.5-4zm23 0-.5 8-5.5-4zM29.8 38.5h4.4L32 41z"/>'
                  f'<g fill="#1f6f4a"><ellipse cx="25.5" cy="33" rx="2.4" ry="3.6"/>'
                  f'<ellipse cx="38.5" cy="33" rx="2.4" ry="3.6"/></g>'
                  f'<g stroke="{INK}" stroke-width="0.9" stroke-linecap="round" opacity="0.55">'
                  f'<path d="M24 40.5 14 39M24 42.5l-9.5 2.5M40 40.5 50 39M40 42.5l9.5 2.5"/></g>'),
    GalleryAvatar("bear", "Bear", "#2b8a5e",
                  f'<g fill="#7a4e2d"><circle cx="20" cy="21" r="6.5"/><circle cx="44" cy="21" r="6.5"/>'
                  f'<circle cx="32" cy="35" r="16"/></g>'
                  f'<g fill="#c9a27a"><circle cx="20" cy="21" r="3.3"/><circle cx="44" cy="21" r="3.3"/>'
                  f'<ellipse cx="32" cy="41" rx="7.5" ry="6"/></g>'
                  f'<g fill="{INK}"><circle cx="25.5" cy="32" r="2"/><circle cx="38.5" cy="32" r="2"/>'
                  f'<ellipse cx="32" cy="38.8" rx="3" ry="2.2"/></g>'),
    # Patterns.
    GalleryAvatar("sun", "Sun", "#1d6b6f",
                  f'<g stroke="{GOLD}" stroke-width="3.5" stroke-linecap="round">{_rays(32, 32, 15, 21.5, 12)}</g>'
                  f'<circle cx="32" cy="32" r="10.5" fill="{GOLD}"/>'),
    GalleryAvatar("waves", "Waves", "#1d5a8c",
                  f'<g fill="none" stroke="{CREAM}" stroke-width="3.6" stroke-linecap="round">'
                  f'<path d="M12 23q5-6 10 0t10 0 10 0 10 0"/><path d="M12 33q5-6 10 0t10 0 10 0 10 0"/>'
                  f'<path d="M12 43q5-6 10 0t10 0 10 0 10 0"/></g>'),
    GalleryAvatar("chequer", "Chequer", "#a8841a",
                  f'<g transform="rotate(45 32 32)" fill="{CREAM}">'
                  f'<rect x="18.5" y="18.5" width="9" height="9"/><rect x="36.5" y="18.5" width="9" height="9"/>'
                  f'<rect x="27.5" y="27.5" width="9" height="9"/><rect x="18.5" y="36.5" width="9" height="9"/>'
                  f'<rect x="36.5" y="36.5" width="9" height="9"/></g>'),
    GalleryAvatar("flower", "Flower", "#8c2a22",
                  f'{_petals(32, 32, 6, CREAM)}<circle cx="32" cy="32" r="6" fill="{GOLD}"/>'),
)

BY_KEY: dict[str, GalleryAvatar] = {avatar.key: avatar for avatar in GALLERY}


def find(key: str) -> GalleryAvatar | None:
    """The gallery's picture of this key, or None for a key it does not have (blank: drawn from the name)."""
    return BY_KEY.get(key)


def render(avatar: GalleryAvatar, label: str | None = None) -> str:
    """The picture's SVG; `label` names it for screen readers (the person's name, on their own avatar URL)."""
    motif: SafeString = mark_safe(avatar.motif)  # written in this module, never from input
    return render_to_string("accounts/gallery_avatar.svg", {
        "background": avatar.background, "ring": avatar.ring, "motif": motif, "label": label or avatar.label,
    })


def url(avatar: GalleryAvatar) -> str:
    """Where the picker shows this picture: cached for long, its URL changing with the drawings."""
    return f"{reverse('gallery_avatar', args=[avatar.key])}?v={GALLERY_DESIGN}"
