"""Avatar uploads: every refusal with a real crafted file, the clean 256x256 re-encoding, removal, generated SVG."""

from __future__ import annotations

import html
import io
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from accounts import avatars
from accounts.avatars import AvatarError, process_avatar

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def upload(client: Any, name: str, content: bytes, content_type: str = "image/png", **extra: str) -> Any:
    """Post the profile form with a file, keeping the current display name."""
    data = {
        "display_name": extra.pop("display_name", ""),
        "email": "",
        "avatar_upload": SimpleUploadedFile(name, content, content_type),
    }
    data.update(extra)
    return client.post(reverse("profile_edit"), data)


@pytest.fixture
def player(make_user: Callable[..., Any], client: Any) -> Any:
    user = make_user("ada", display_name="Ada Lovelace")
    client.force_login(user)
    return user


def stored(user: Any) -> Image.Image:
    user.refresh_from_db()
    with user.avatar.open("rb") as handle:
        image = Image.open(io.BytesIO(handle.read()))
        image.load()
    return image


# Refusals: the form says why, next to the field, and nothing is stored.


@pytest.mark.parametrize(
    ("maker", "name", "message"),
    [
        (lambda c: c["png_bomb"](), "bomb.png", "far too large"),
        (
            lambda c: b"Hello, I am only text pretending to be a picture.\n" * 20,
            "notes.png",
            "isn't a PNG, JPEG, WebP or GIF",
        ),
        (lambda c: c["noise_png"](), "noise.png", "the limit is 2 MB"),
        (lambda c: c["image"](5000, 100), "wide.png", "5000×100 pixels; the limit is 4096×4096"),
        (lambda c: c["image"](64, 64, "BMP"), "bitmap.png", "isn't a PNG, JPEG, WebP or GIF"),
        (lambda c: c["image"](64, 64, "PNG")[:-40], "truncated.png", "damaged or incomplete"),
        (lambda c: b"", "empty.png", "empty"),
    ],
    ids=["decompression-bomb", "text-renamed-png", "over-2mb", "over-4096", "bmp-renamed-png", "truncated", "empty"],
)
def test_bad_uploads_are_refused_with_a_clear_error(
    client: Any,
    player: Any,
    crafted: dict[str, Callable[..., bytes]],
    maker: Callable[..., bytes],
    name: str,
    message: str,
) -> None:
    content = maker(crafted)
    response = upload(client, name, content)
    assert response.status_code == 200
    page = response.content.decode()
    assert message in html.unescape(page)
    # The error sits beside the field and the input points at it.
    assert 'id="id_avatar_upload_error"' in page
    assert 'aria-describedby="id_avatar_upload_helptext id_avatar_upload_error"' in page
    player.refresh_from_db()
    assert not player.avatar


def test_the_3mb_noise_file_really_is_over_the_limit(crafted: dict[str, Callable[..., bytes]]) -> None:
    assert len(crafted["noise_png"]()) > 3 * 1024 * 1024 * 0.99


def test_the_bomb_is_small_but_claims_20000_pixels_a_side(crafted: dict[str, Callable[..., bytes]]) -> None:
    bomb = crafted["png_bomb"]()
    assert len(bomb) < 100_000
    assert bomb[16:24] == (20000).to_bytes(4, "big") * 2  # IHDR width and height


def test_decompression_bomb_warning_and_error_are_both_refusals(
    monkeypatch: pytest.MonkeyPatch, crafted: dict[str, Callable[..., bytes]]
) -> None:
    """Pillow warns between its limit and twice it, and raises beyond: both must end as a form error."""
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    for side in (40, 100):  # 1600 pixels: the warning; 10000 pixels: the error
        with pytest.raises(AvatarError, match="far too large"):
            process_avatar(io.BytesIO(crafted["image"](side, side)))


def test_largest_allowed_picture_is_accepted(crafted: dict[str, Callable[..., bytes]]) -> None:
    result = process_avatar(io.BytesIO(crafted["image"](4096, 4096, "PNG")))
    assert Image.open(io.BytesIO(result.content)).size == (256, 256)


# What is stored.


def test_stored_avatar_is_256_square_webp_without_exif_and_upright(
    client: Any, player: Any, crafted: dict[str, Callable[..., bytes]]
) -> None:
    original = crafted["jpeg_with_exif"](orientation=6)
    assert b"SecretCam" in original
    response = upload(client, "holiday.jpg", original, "image/jpeg")
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("profile", args=["ada"])

    image = stored(player)
    assert image.size == (256, 256)
    assert image.format == "WEBP"
    assert not image.getexif()
    assert "exif" not in image.info
    assert "icc_profile" not in image.info
    raw = Path(player.avatar.path).read_bytes()
    assert b"SecretCam" not in raw and b"Secret Street" not in raw and b"Exif" not in raw

    # Orientation 6 was honoured before it was dropped: shown upright, the red half is on top.
    rgb = image.convert("RGB")
    top, bottom = rgb.getpixel((128, 24)), rgb.getpixel((128, 232))
    assert top[0] > 200 and top[2] < 60, top
    assert bottom[2] > 200 and bottom[0] < 60, bottom


def test_the_upload_itself_is_never_stored(client: Any, player: Any, crafted: dict[str, Callable[..., bytes]]) -> None:
    original = crafted["image"](300, 300, "PNG")
    upload(client, "me.png", original)
    player.refresh_from_db()
    assert Path(player.avatar.path).read_bytes() != original
    assert not player.avatar.name.endswith("me.png")


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "GIF"])
def test_each_accepted_format(client: Any, player: Any, crafted: dict[str, Callable[..., bytes]], fmt: str) -> None:
    response = upload(client, f"pic.{fmt.lower()}", crafted["image"](500, 300, fmt), f"image/{fmt.lower()}")
    assert response.status_code == 302
    assert stored(player).size == (256, 256)


def test_a_real_image_with_the_wrong_extension_is_accepted(
    client: Any, player: Any, crafted: dict[str, Callable[..., bytes]]
) -> None:
    """The content decides, not the name: a PNG called .jpg is a fine picture, and is re-encoded anyway."""
    response = upload(client, "actually-a-png.jpg", crafted["image"](120, 80, "PNG"), "image/jpeg")
    assert response.status_code == 302
    assert stored(player).format == "WEBP"


def test_transparency_is_kept(client: Any, player: Any, crafted: dict[str, Callable[..., bytes]]) -> None:
    upload(client, "clear.png", crafted["image"](64, 64, "PNG", colour=(0, 0, 0, 0)))
    image = stored(player)
    assert image.mode == "RGBA"
    assert image.getpixel((128, 128))[3] == 0


def test_animated_gif_keeps_its_first_frame(client: Any, player: Any) -> None:
    frames = [Image.new("RGB", (80, 80), colour) for colour in ((255, 0, 0), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    assert upload(client, "blink.gif", out.getvalue(), "image/gif").status_code == 302
    red = stored(player).convert("RGB").getpixel((128, 128))
    assert red[0] > 200 and red[2] < 60


def test_wide_picture_is_centre_cropped(client: Any, player: Any) -> None:
    image = Image.new("RGB", (900, 300), (0, 0, 255))
    image.paste((255, 0, 0), (300, 0, 600, 300))  # only the middle third is red
    out = io.BytesIO()
    image.save(out, format="PNG")
    upload(client, "wide.png", out.getvalue())
    square = stored(player).convert("RGB")
    for x in (4, 128, 251):
        assert square.getpixel((x, 128))[0] > 200


def test_new_upload_gets_a_fresh_name_and_deletes_the_old_file(
    client: Any, player: Any, crafted: dict[str, Callable[..., bytes]], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, "one.png", crafted["image"](100, 100))
    player.refresh_from_db()
    first = Path(player.avatar.path)
    assert first.exists()
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, "one.png", crafted["image"](100, 100, colour=(200, 10, 10)))
    player.refresh_from_db()
    second = Path(player.avatar.path)
    assert second != first
    assert second.exists()
    assert not first.exists()
    assert player.avatar_url == player.avatar.url
    assert player.avatar.name.startswith(f"avatars/{player.pk}/")


def test_choosing_the_initials_goes_back_to_the_generated_picture(
    client: Any, player: Any, crafted: dict[str, Callable[..., bytes]], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, "one.png", crafted["image"](100, 100))
    player.refresh_from_db()
    path = Path(player.avatar.path)
    page = client.get(reverse("profile_edit")).content.decode()
    assert 'value="upload"' in page and "Your upload" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("profile_edit"), {"display_name": "Ada Lovelace", "email": "", "avatar_choice": ""}
        )
    assert response.status_code == 302
    player.refresh_from_db()
    assert not player.avatar
    assert not path.exists()
    assert player.avatar_url.startswith(reverse("generated_avatar", args=["ada"]))
    assert "Your upload" not in client.get(reverse("profile_edit")).content.decode()


def test_upload_and_another_choice_together_is_refused(
    client: Any, player: Any, crafted: dict[str, Callable[..., bytes]]
) -> None:
    upload(client, "one.png", crafted["image"](100, 100))
    response = upload(client, "two.png", crafted["image"](100, 100), avatar_choice="")
    assert response.status_code == 200
    assert "not both" in response.content.decode()


def test_deleting_a_user_deletes_their_file(
    client: Any, player: Any, crafted: dict[str, Callable[..., bytes]], django_capture_on_commit_callbacks: Any
) -> None:
    upload(client, "one.png", crafted["image"](100, 100))
    player.refresh_from_db()
    path = Path(player.avatar.path)
    with django_capture_on_commit_callbacks(execute=True):
        player.delete()
    assert not path.exists()


def test_uploaded_avatar_is_served_in_development(
    client: Any, player: Any, crafted: dict[str, Callable[..., bytes]], settings: Any
) -> None:
    upload(client, "one.png", crafted["image"](100, 100))
    player.refresh_from_db()
    assert player.avatar.url.startswith(settings.MEDIA_URL)


# Generated avatars.


def test_generated_avatar_is_svg_with_initials_and_cacheable(client: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("grace", display_name="Grace Hopper")
    response = client.get(user.avatar_url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("image/svg+xml")
    assert "public" in response["Cache-Control"] and "max-age=86400" in response["Cache-Control"]
    root = ET.fromstring(response.content)
    assert root.tag == f"{SVG}svg"
    assert root.find(f"{SVG}text").text == "GH"
    # Same picture again: the browser's copy is still good.
    again = client.get(user.avatar_url, headers={"If-None-Match": response["ETag"]})
    assert again.status_code == 304


def test_generated_avatar_escapes_the_initials_and_name(client: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("mallory", display_name='<Evil> "&Co"')
    response = client.get(reverse("generated_avatar", args=["mallory"]))
    body = response.content.decode()
    assert "<Evil>" not in body
    assert "&lt;&quot;" in body  # the initials: "<" and '"'
    root = ET.fromstring(response.content)  # still well-formed XML
    assert root.find(f"{SVG}text").text == '<"'
    assert root.get("aria-label") == '<Evil> "&Co"'
    assert user.avatar_url.startswith("/u/mallory/avatar.svg?v=")


def test_generated_avatar_url_changes_with_the_name(make_user: Callable[..., Any]) -> None:
    user = make_user("linus", display_name="Linus")
    before = user.avatar_url
    user.display_name = "Linus T"
    assert user.avatar_url != before


def test_bots_get_a_robot_not_initials(client: Any, make_user: Callable[..., Any]) -> None:
    bot = make_user("bot-test-rookie", password=None, display_name="Test Rookie (bot)", is_bot=True)
    root = ET.fromstring(client.get(bot.avatar_url).content)
    assert root.find(f"{SVG}text") is None
    assert len(root.findall(f"{SVG}circle")) >= 4  # antenna, eyes and their glints


def test_generated_avatar_of_unknown_user_is_404(client: Any) -> None:
    assert client.get(reverse("generated_avatar", args=["nobody"])).status_code == 404


def test_colours_are_stable_and_differ_between_names() -> None:
    assert avatars.colours_for("ada") == avatars.colours_for("ADA")
    assert avatars.colours_for("ada") != avatars.colours_for("grace")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Ada Lovelace", "AL"), ("ada", "A"), ("mary_jane.watson", "MW"), ("  ", "?"), ("émile zola", "ÉZ"), ("x", "X")],
)
def test_initials(name: str, expected: str) -> None:
    assert avatars.initials(name) == expected
