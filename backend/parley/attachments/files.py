"""What an uploaded file is, found from its bytes (never from the name or type it claimed),
and a name that is safe to store and to send back in a header.

Two kinds are taken: text (valid UTF-8 without NULs or other binary control characters:
prose, code, CSV, JSON, and SVG too, which is XML text, never an image here) and raster
images whose signature says PNG, JPEG, GIF or WebP. Anything else (an executable, a PDF,
an archive) is refused, and so is a file that claims to be an image (by its type or its
name) when its bytes are not one of those four: that is how an SVG or a script dressed up
as `image/png` is caught.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from parley.errors import InvalidInput

MAX_NAME = 255  # characters (the table's check)
FALLBACK_NAME = "attachment"

# Signature → the only Content-Type such a file is ever served with.
_IMAGES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
)
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
TEXT_TYPE = "text/plain; charset=utf-8"
_IMAGE_EXTENSIONS = frozenset(
    {
        "png",
        "jpg",
        "jpeg",
        "gif",
        "webp",
        "svg",
        "svgz",
        "bmp",
        "ico",
        "tif",
        "tiff",
        "avif",
        "heic",
    }
)
# Control characters no text file holds (tab, newlines, form feed and escape are fine).
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")
_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True, slots=True)
class Sniffed:
    kind: str  # "text" or "image"
    content_type: str


def _image_type(data: bytes) -> str | None:
    for signature, offset, content_type in _IMAGES:
        if data[offset : offset + len(signature)] == signature:
            return content_type
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _is_text(data: bytes) -> bool:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return _BINARY.search(text) is None


def sniff(data: bytes, *, name: str, claimed_type: str | None) -> Sniffed:
    """The file's kind from its bytes; InvalidInput (code `unsupported_attachment`) when
    it is neither text nor an allowed image, or claims to be an image it is not."""
    image = _image_type(data)
    if image is not None:
        return Sniffed("image", image)
    claimed = (claimed_type or "").split(";")[0].strip().lower()
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if claimed.startswith("image/") or extension in _IMAGE_EXTENSIONS:
        raise InvalidInput(
            f"{name} can't be attached: it is not a PNG, JPEG, GIF or WebP image (SVG and other"
            " image formats are not taken)",
            code="unsupported_attachment",
        )
    if _is_text(data):
        return Sniffed("text", TEXT_TYPE)
    raise InvalidInput(
        f"{name} can't be attached: it is neither a text or code file nor a PNG, JPEG, GIF or"
        " WebP image",
        code="unsupported_attachment",
    )


def safe_name(raw: str | None) -> str:
    """The name kept for a file: its last path segment (either separator), without control
    or direction-override characters, NFC, at most MAX_NAME characters with the extension
    kept; `attachment` when nothing is left (`..`, say)."""
    name = unicodedata.normalize("NFC", raw or "")
    name = re.split(r"[/\\]", name)[-1]
    name = _UNSAFE_NAME.sub("", name).strip().strip(".").strip()
    if not name:
        return FALLBACK_NAME
    if len(name) > MAX_NAME:
        stem, dot, extension = name.rpartition(".")
        if dot and 0 < len(extension) <= 16:
            name = stem[: MAX_NAME - len(extension) - 1].rstrip() + "." + extension
        else:
            name = name[:MAX_NAME]
    return name


def ascii_name(name: str) -> str:
    """The plain-ASCII stand-in for `filename=` (the UTF-8 name goes in `filename*=`)."""
    return re.sub(r"[^A-Za-z0-9._ -]", "_", name) or FALLBACK_NAME
