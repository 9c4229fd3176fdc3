"""Avatars: check an upload without trusting it, store a clean 256x256 re-encoding, or draw one as SVG (from the
name, or the gallery's picture the person chose: accounts.gallery). An upload and a choice replace each other.

The upload itself is never stored. Pillow reads only the header first, so the size limits are enforced
before any pixel is decoded; the stored picture is a fresh encoding with no metadata at all.
"""

from __future__ import annotations

import base64
import colorsys
import functools
import hashlib
import io
import re
import warnings
from dataclasses import dataclass
from typing import IO, Any, Protocol

from django.core.files.base import ContentFile
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import get_script_prefix, get_urlconf, reverse
from PIL import Image, ImageOps, UnidentifiedImageError, features

from . import gallery


class Pictured(Protocol):
    """Whoever has a picture, as this module reads and writes them (accounts.models.User)."""

    username: str
    is_bot: bool
    avatar: Any  # the ImageField's file
    avatar_choice: str  # a key of accounts.gallery, or blank

    @property
    def name(self) -> str: ...

    def save(self, *args: Any, **kwargs: Any) -> None: ...

# What we accept: the formats browsers show everywhere, small enough to be a profile picture.
ALLOWED_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
ALLOWED_CONTENT_TYPES = "image/png,image/jpeg,image/webp,image/gif"
MAX_UPLOAD_BYTES = 2 * 1024 * 1024
MAX_SIDE = 4096
AVATAR_SIZE = 256

# Bump when the drawing of generated avatars changes, so cached copies are replaced.
GENERATED_DESIGN = "2"


class AvatarError(ValueError):
    """The upload can't be used as an avatar; the message is shown to the person as it is."""


@dataclass(frozen=True)
class ProcessedAvatar:
    content: bytes
    extension: str
    content_type: str


def _output_format() -> tuple[str, str, str]:
    """WebP when this Pillow can write it (a tenth of PNG's size), else PNG."""
    if features.check("webp"):
        return "WEBP", "webp", "image/webp"
    return "PNG", "png", "image/png"


def process_avatar(upload: IO[bytes], size: int | None = None) -> ProcessedAvatar:
    """Validate an uploaded file and return a new 256x256 square image, centre-cropped, without metadata.

    Raises AvatarError with a sentence for the person when the file is not an accepted image, is over 2 MB,
    is larger than 4096 pixels on a side, or claims dimensions that make it a decompression bomb.
    """
    if size is None:
        upload.seek(0, io.SEEK_END)
        size = upload.tell()
    upload.seek(0)
    if size > MAX_UPLOAD_BYTES:
        raise AvatarError(f"That file is {size / (1024 * 1024):.1f} MB; the limit is 2 MB.")
    if size == 0:
        raise AvatarError("That file is empty.")

    try:
        # Pillow warns between 89 and 179 megapixels and raises above; both are refusals here.
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(upload, formats=list(ALLOWED_FORMATS)) as image:
                # Only the header has been read so far: refuse big pictures before decoding any pixel.
                width, height = image.size
                if width > MAX_SIDE or height > MAX_SIDE:
                    raise AvatarError(f"That picture is {width}×{height} pixels; the limit is {MAX_SIDE}×{MAX_SIDE}.")
                if width < 1 or height < 1:
                    raise AvatarError("That picture has no pixels.")
                if image.format == "JPEG":
                    # Decode JPEGs at a reduced scale: far less memory and time, same result at 256 pixels.
                    image.draft("RGB", (AVATAR_SIZE * 2, AVATAR_SIZE * 2))
                image.load()
                square = _square(image)
    except AvatarError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise AvatarError(
            f"That picture's dimensions are far too large; the limit is {MAX_SIDE}×{MAX_SIDE} pixels."
        ) from exc
    except UnidentifiedImageError as exc:
        raise AvatarError("That file isn't a PNG, JPEG, WebP or GIF picture.") from exc
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError, KeyError, MemoryError) as exc:
        # Truncated or corrupt data: Pillow's decoders report it with any of these.
        raise AvatarError("That picture is damaged or incomplete and can't be read.") from exc

    pillow_format, extension, content_type = _output_format()
    out = io.BytesIO()
    if pillow_format == "WEBP":
        square.save(out, format="WEBP", quality=85, method=4)
    else:
        square.save(out, format="PNG", optimize=True)
    return ProcessedAvatar(content=out.getvalue(), extension=extension, content_type=content_type)


def _square(image: Image.Image) -> Image.Image:
    """Upright (EXIF orientation applied), RGB or RGBA, centre-cropped and scaled to 256x256, no metadata."""
    upright = ImageOps.exif_transpose(image) or image
    has_alpha = upright.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        upright.mode == "P" and "transparency" in upright.info
    )
    converted = upright.convert("RGBA" if has_alpha else "RGB")
    square = ImageOps.fit(converted, (AVATAR_SIZE, AVATAR_SIZE), method=Image.Resampling.LANCZOS, centering=(0.5, 0.5))
    # A brand-new image, so nothing of the upload's metadata (EXIF, XMP, ICC, comments) can travel along.
    clean = Image.new(square.mode, square.size)
    clean.paste(square)
    clean.info = {}
    return clean


def set_avatar(user: Pictured, processed: ProcessedAvatar) -> None:
    """Store a processed avatar under a fresh name (it replaces a gallery choice) and delete the previous file once
    the change is committed."""
    old_name = user.avatar.name if user.avatar else ""
    # avatar_path gives the file a fresh random name; only the extension given here is kept.
    user.avatar.save(f"avatar.{processed.extension}", ContentFile(processed.content), save=False)
    user.avatar_choice = ""
    user.save(update_fields=["avatar", "avatar_choice"])
    if old_name and old_name != user.avatar.name:
        _delete_after_commit(user, old_name)


def choose_avatar(user: Pictured, key: str) -> None:
    """Show the gallery's picture of this key (blank: the one drawn from the name, as removing an upload does)
    instead of any upload, whose file is deleted once the change is committed. The key must be the gallery's (the
    forms offer only those)."""
    if key and gallery.find(key) is None:
        raise ValueError(f"no gallery picture {key!r}")
    old_name = user.avatar.name if user.avatar else ""
    if not old_name and user.avatar_choice == key:
        return
    user.avatar = ""
    user.avatar_choice = key
    user.save(update_fields=["avatar", "avatar_choice"])
    if old_name:
        _delete_after_commit(user, old_name)


def _delete_after_commit(user: Pictured, name: str) -> None:
    storage = user.avatar.storage
    transaction.on_commit(lambda: storage.delete(name))


# Generated avatars -------------------------------------------------------------------------------------------

_WORD_SPLIT = re.compile(r"[\s_.\-@+]+")


def initials(name: str) -> str:
    """One or two capital letters for a name: "Ada Lovelace" -> "AL", "ada" -> "A", "" -> "?"."""
    words = [word for word in _WORD_SPLIT.split(name.strip()) if word]
    if not words:
        return "?"
    letters = words[0][0] + (words[-1][0] if len(words) > 1 else "")
    return letters.upper()


def colours_for(username: str) -> tuple[str, str]:
    """A stable background colour derived from the username (deep and muted, so cream text reads on it)."""
    digest = hashlib.sha256(username.casefold().encode()).digest()
    hue = int.from_bytes(digest[:2], "big") % 360 / 360
    saturation = 0.35 + digest[2] / 255 * 0.2
    r, g, b = colorsys.hls_to_rgb(hue, 0.34, saturation)
    light_r, light_g, light_b = colorsys.hls_to_rgb(hue, 0.46, saturation)
    return _hex(r, g, b), _hex(light_r, light_g, light_b)


def _hex(r: float, g: float, b: float) -> str:
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def generated_avatar_version(user: Pictured) -> str:
    """A short token that changes whenever the generated picture would: part of its URL, so it can be cached."""
    return _version(user.username, user.name, user.is_bot, user.avatar_choice)


def _version(username: str, name: str, is_bot: bool, choice: str) -> str:
    # A choice the gallery no longer has is drawn from the name: its version is the name's.
    if choice and gallery.find(choice) is not None:
        key = f"{GENERATED_DESIGN}|{username}|{name}|{int(is_bot)}|{gallery.GALLERY_DESIGN}|{choice}"
    else:
        key = f"{GENERATED_DESIGN}|{username}|{name}|{int(is_bot)}"
    return hashlib.sha256(key.encode()).hexdigest()[:10]


def generated_avatar_url(username: str, name: str, is_bot: bool, choice: str = "") -> str:
    """The generated picture's URL, with its version: ?v= changes with the name, the bot flag and the gallery
    choice, so browsers may keep the picture for long.

    A list page shows hundreds of avatars and each cost a reverse() and a SHA-256 (about 20 µs), so the
    URL is kept per process, keyed by everything it is made from: the script prefix and URLconf reverse()
    reads, the username, the name, the bot flag and the choice (never a user id: a renamed user gets a new entry).
    """
    return _generated_url(get_script_prefix(), get_urlconf(), username, name, is_bot, choice)


@functools.lru_cache(maxsize=8192)
def _generated_url(prefix: str, urlconf: str | None, username: str, name: str, is_bot: bool, choice: str) -> str:
    path = reverse("generated_avatar", args=[username], urlconf=urlconf)
    return f"{path}?v={_version(username, name, is_bot, choice)}"


def render_generated_avatar(user: Pictured) -> str:
    """The SVG of a user's generated picture: the gallery's picture they chose, named for them; else their initials
    on their colour, or a robot face for bots."""
    chosen = gallery.find(user.avatar_choice) if user.avatar_choice else None
    if chosen is not None:
        return gallery.render(chosen, label=user.name)
    return name_avatar(user)


def name_avatar(user: Pictured) -> str:
    """The SVG of the picture drawn from a user's name (initials on their colour, a robot for bots)."""
    background, highlight = colours_for(user.username)
    return render_to_string(
        "accounts/avatar.svg",
        {
            "initials": initials(user.name),
            "label": user.name,
            "background": background,
            "highlight": highlight,
            "is_bot": user.is_bot,
        },
    )


@functools.lru_cache(maxsize=1)
def initials_sample() -> str:
    """The sign-up picker's picture of "your initials", before there is a name: letters on the felt's green."""
    return render_to_string(
        "accounts/avatar.svg",
        {"initials": "Aa", "label": "Your initials", "background": "#1f6f4a", "highlight": "#2b8a5e", "is_bot": False},
    )


def svg_data_url(svg: str) -> str:
    """An SVG as a data: URL (the Content Security Policy allows data: images), for a picture drawn once for a page."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
