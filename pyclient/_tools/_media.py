"""Files and images as AG-UI content parts: what a user attaches, and what a client tool returns.

`Attachment` is a file of any kind (its part is chosen from the MIME type); `Image`,
`Document`, `Audio` and `Video` name their kind. Each holds bytes (or a URL), a MIME type and
a file name, and becomes one AG-UI 1.0 content part (`{"type": "image", "source": {"type":
"data", "value": <base64>, "mimeType": ...}}`). A part read back from the wire, from a server's
tool result or a snapshot, becomes one of them again, so the chat shows it.

```python
from pyclient import Attachment, Image

png = b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8)
print(Image(png).mime_type, Image(png).size)                  # image/png 16
print(Attachment(b"%PDF-1.7 ...", filename="a.pdf").kind)      # document
print(Image(png, filename="dot.png").part()["source"]["type"])   # data
print(Attachment(url="https://example.com/cat.jpg").kind)      # image
```
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
from typing import Any, ClassVar, Literal

from .._base._errors import AttachmentError

__all__ = [
    "META_KEY",
    "Attachment",
    "Audio",
    "Document",
    "Image",
    "Media",
    "MediaKind",
    "format_size",
    "kind_of_mime",
    "media_class",
]

MediaKind = Literal["image", "audio", "video", "document"]

META_KEY = "pyclient"
"""The key under a part's `metadata` that pyclient writes: the file's name, and for a file a
saved thread did not keep, what it was. Other keys are the producer's and are kept as sent."""

# Magic numbers of the formats a model reads most, so `Image(png_bytes)` needs no MIME type.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"ID3", "audio/mpeg"),
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
)


class Media:
    """A file as one AG-UI content part: bytes or a URL, a MIME type, a file name.

    Use the kinds: `Attachment` (chosen from the MIME type), `Image`, `Document`, `Audio`,
    `Video`. A value is immutable; equal when the kind, the bytes (or URL), the MIME type and
    the name are.

    Attributes:
        mime_type: what the bytes are, e.g. "image/png".
        filename: the file's name, or None.
        url: where the file is, for a file sent by URL (no bytes); else None.
    """

    kind_of_class: ClassVar[MediaKind | None] = None
    """The part's `type` for every value of the class; None: chosen from the MIME type."""

    __slots__ = ("_base64", "_data", "_kept", "filename", "mime_type", "url")

    def __init__(self, data: bytes | bytearray | memoryview | None = None, mime_type: str | None = None,
                 filename: str | None = None, *, url: str | None = None, size: int | None = None) -> None:
        """
        Args:
            data: the file's bytes (or give `url`).
            mime_type: what they are; left out, it is read from the bytes (PNG, JPEG, GIF, WebP,
                PDF, MP3, Ogg, FLAC) or from the file name's or URL's extension.
            filename: the file's name, shown in the chat and sent with the part.
            url: the file's address instead of its bytes; the agent's server fetches it.
            size: with neither `data` nor `url`, a file known only by its type, name and size
                (one a saved thread did not keep: `kept` is False).

        Raises:
            AttachmentError: neither or both of `data` and `url` (without `size`), or no MIME
                type can be found.
        """
        if (data is None) == (url is None) and not (data is None and url is None and size is not None):
            raise AttachmentError(
                f"{type(self).__name__}() takes the file's bytes or its url=, one of them: "
                f"e.g. {type(self).__name__}(png_bytes, 'image/png') or {type(self).__name__}(url='https://…').",
                filename=filename,
            )
        if data is not None and not isinstance(data, (bytes, bytearray, memoryview)):
            raise AttachmentError(
                f"{type(self).__name__}() takes the file's bytes, got {type(data).__name__}. "
                "Pass bytes (a base64 text: base64.b64decode(text); a data: URL: Image.from_data_url(url)).",
                filename=filename,
            )
        self._data = bytes(data) if data is not None else None
        self._base64: str | None = None
        self._kept = size if data is None and url is None else None
        self.url = url
        self.filename = filename
        found = mime_type or _sniff(self._data) or _guess(filename) or _guess(url) or self._default_mime()
        if not found:
            raise AttachmentError(
                f"Cannot tell what {_label(filename, url)} is: give its MIME type, e.g. "
                f"{type(self).__name__}(data, mime_type='image/png').",
                filename=filename,
            )
        self.mime_type = found.strip().lower()

    # -- made otherwise ---------------------------------------------------------------------

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], mime_type: str | None = None) -> Media:
        """The file at `path` (read now), named by it; its MIME type from its bytes or extension.

        Raises:
            AttachmentError: the file cannot be read.
        """
        name = os.path.basename(os.fspath(path))
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as exc:
            raise AttachmentError(f"Cannot attach {name!r}: {exc.strerror or exc}.", filename=name) from None
        return cls(data, mime_type, name)

    @classmethod
    def from_data_url(cls, url: str, filename: str | None = None) -> Media:
        """The file a `data:` URL holds (a canvas's `toDataURL()`, for one).

        Raises:
            AttachmentError: `url` is not a base64 `data:` URL.
        """
        head, sep, value = url.partition(",")
        if not head.startswith("data:") or not head.endswith(";base64") or not sep:
            raise AttachmentError(
                "Expected a base64 data: URL such as 'data:image/png;base64,iVBOR…' "
                "(canvas.toDataURL() makes one).", filename=filename)
        media = cls.from_base64(value, head[5:-7] or None, filename)
        if media is None:
            raise AttachmentError("The data: URL's base64 text is damaged.", filename=filename)
        return media

    @classmethod
    def from_base64(cls, value: str, mime_type: str | None, filename: str | None = None) -> Media | None:
        """The file whose bytes `value` holds as base64; None when the text is damaged."""
        try:
            data = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return None
        return cls(data, mime_type, filename)

    def _default_mime(self) -> str | None:
        return None

    # -- what it is -------------------------------------------------------------------------

    @property
    def kind(self) -> MediaKind:
        """The content part's `type`: "image", "audio", "video" or "document"."""
        if self.kind_of_class is not None:
            return self.kind_of_class
        return kind_of_mime(self.mime_type)

    @property
    def data(self) -> bytes | None:
        """The file's bytes (None for a file sent by URL, or one a saved thread did not keep)."""
        return self._data

    @property
    def size(self) -> int | None:
        """The file's size in bytes (None for a file sent by URL)."""
        return len(self._data) if self._data is not None else self._kept

    @property
    def kept(self) -> bool:
        """False for a file a saved thread did not keep (too large); its name, type and size remain."""
        return self._data is not None or self.url is not None

    @property
    def base64(self) -> str:
        """The bytes as base64 text ("" when there are none)."""
        if self._base64 is None:
            self._base64 = base64.b64encode(self._data).decode("ascii") if self._data is not None else ""
        return self._base64

    def data_url(self) -> str | None:
        """A `data:` URL of the bytes (for an `<img src>`), or None without bytes."""
        return f"data:{self.mime_type};base64,{self.base64}" if self._data is not None else None

    def label(self) -> str:
        """How the chat names it: the file name, else its kind and type ("image (image/png)")."""
        return self.filename or f"{self.kind} ({self.mime_type})"

    def part(self) -> dict[str, Any]:
        """The AG-UI content part, as the JSON data a request carries (camelCase)."""
        if not self.kept:
            return {"type": "text", "text": self._missing_text(),
                    "metadata": {META_KEY: {"missing": {"filename": self.filename, "mimeType": self.mime_type,
                                                      "size": self._kept}}}}
        if self._data is not None:
            source: dict[str, Any] = {"type": "data", "value": self.base64, "mimeType": self.mime_type}
        else:
            source = {"type": "url", "value": self.url, "mimeType": self.mime_type}
        part: dict[str, Any] = {"type": self.kind, "source": source}
        if self.filename is not None:
            part["metadata"] = {META_KEY: {"filename": self.filename}}
        return part

    def _missing_text(self) -> str:
        size = f", {format_size(self._kept)}" if self._kept is not None else ""
        return f"[{self.label()}{size}: the file was not kept when this conversation was saved]"

    def missing(self) -> Media:
        """This file without its bytes: what a saved thread keeps of a file over its cap."""
        return media_class(self.kind).not_kept(self.mime_type, self.filename, self.size)

    @classmethod
    def not_kept(cls, mime_type: str, filename: str | None, size: int | None) -> Media:
        """A file known only by its type, name and size (a saved thread did not keep its bytes)."""
        return cls(None, mime_type, filename, size=size if size is not None else 0)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Media):
            return NotImplemented
        return (self.kind, self.data, self.url, self.mime_type, self.filename, self.size) == (
            other.kind, other.data, other.url, other.mime_type, other.filename, other.size)

    def __hash__(self) -> int:
        return hash((self.kind, self._data, self.url, self.mime_type, self.filename))

    def __repr__(self) -> str:
        where = format_size(self.size) if self._data is not None else (self.url or "not kept")
        name = f", {self.filename!r}" if self.filename else ""
        return f"{type(self).__name__}({self.mime_type}, {where}{name})"


class Attachment(Media):
    """A file the user sends with a message, or a tool returns: its part is chosen from its MIME
    type (image/*, audio/*, video/*; anything else is a document), e.g.
    `await thread.send("What is in this photo?", attachments=[Attachment(jpeg, "image/jpeg", "cat.jpg")])`.
    """

    __slots__ = ()


class Image(Media):
    """An image part (a PNG when no type is given and the bytes do not say)."""

    kind_of_class = "image"
    __slots__ = ()

    def _default_mime(self) -> str | None:
        return "image/png"


class Document(Media):
    """A document part: a PDF, a text file, a spreadsheet…"""

    kind_of_class = "document"
    __slots__ = ()


class Audio(Media):
    """An audio part."""

    kind_of_class = "audio"
    __slots__ = ()


class Video(Media):
    """A video part."""

    kind_of_class = "video"
    __slots__ = ()


_CLASSES: dict[str, type[Media]] = {"image": Image, "audio": Audio, "video": Video, "document": Document}


def media_class(kind: str) -> type[Media]:
    """The class of a part's `type` ("image" → `Image`, anything unknown → `Document`)."""
    return _CLASSES.get(kind, Document)


def _sniff(data: bytes | None) -> str | None:
    if not data:
        return None
    for signature, mime in _SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[4:8] == b"ftyp":
        return "video/mp4"
    return None


def _guess(name: str | None) -> str | None:
    if not name:
        return None
    return mimetypes.guess_type(name.split("?", 1)[0], strict=False)[0]


def _label(filename: str | None, url: str | None) -> str:
    return repr(filename) if filename else (f"the file at {url}" if url else "these bytes")


def format_size(size: int | None) -> str:
    """A size in bytes as people read it: "812 B", "4.2 kB", "12.5 MB" (decimal, as browsers)."""
    if size is None:
        return "unknown size"
    if size < 1000:
        return f"{size} B"
    for unit in ("kB", "MB", "GB"):
        size_f = size / 1000
        if size_f < 1000 or unit == "GB":
            return f"{size_f:.1f} {unit}".replace(".0 ", " ")
        size = int(size_f)
    raise AssertionError("unreachable")


def kind_of_mime(mime: str) -> MediaKind:
    """The part a MIME type travels as: image/*, audio/*, video/*, and anything else a document."""
    return _MAJOR_KINDS.get(mime.split("/", 1)[0], "document")


_MAJOR_KINDS: dict[str, MediaKind] = {"image": "image", "audio": "audio", "video": "video"}
