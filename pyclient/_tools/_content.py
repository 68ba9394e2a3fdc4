"""A message's content as AG-UI parts: files and text in (a user's attachments, what a handler
returned), files and text back out (a server's tool result, a saved thread's messages).

```python
from pyclient._tools._content import content_of, split_content, split_parts
from pyclient._tools._media import Image

png = Image(b"\\x89PNG\\r\\n\\x1a\\n", filename="dot.png")
print(split_content(["a chart", png]))                 # ('a chart', (Image(image/png, 8 B, 'dot.png'),))
parts = content_of("look", [png])
print([part["type"] for part in parts])                # ['text', 'image']
print(split_parts(parts)[0], split_parts(parts)[1] == (png,))   # look True
```
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from .._base._errors import AttachmentError, ToolError
from ._media import META_KEY, Attachment, Media, format_size, kind_of_mime, media_class

__all__ = ["as_attachment", "check_limits", "content_of", "from_part", "keep_within", "read_attachments", "split_content",
           "split_parts"]

KINDS = ("image", "audio", "video", "document")


def _guess_url(url: str) -> str:
    return mimetypes.guess_type(url.split("?", 1)[0], strict=False)[0] or "application/octet-stream"


def as_attachment(value: Any) -> Media:
    """One item of `thread.send(..., attachments=[...])` as `Media`: a `Media` as it is, a
    `pathlib.Path` read, bytes with their type read from them, an ag-ui part model or its JSON.

    Raises:
        AttachmentError: anything else (a str, say), with what to pass instead.
    """
    if isinstance(value, Media):
        return value
    if isinstance(value, os.PathLike):
        return Attachment.from_path(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Attachment(value)
    media = _from_part_like(value)
    if media is not None:
        return media
    hint = (" A str is not read as a file: pass Attachment(url=...) or pathlib.Path(...)."
            if isinstance(value, str) else "")
    raise AttachmentError(
        f"Cannot attach a {type(value).__name__}: pass pyclient.Attachment(data, mime_type, filename), "
        f"a pathlib.Path, or in the page a JS File or Blob.{hint}"
    )


async def read_attachments(items: Iterable[Any], read: Callable[[Any], Awaitable[Any]], *, per_file: int,
                           per_message: int) -> list[Media]:
    """The files of `thread.send(..., attachments=items)`, read and within the limits.

    Args:
        items: what the caller passed (see `as_attachment`).
        read: reads the environment's own files (`Platform.read_media`: a page's `File`).
        per_file, per_message: the limits in bytes (`check_limits`).

    Raises:
        AttachmentError: `items` is not a list of files, one cannot be read, or they are over
            a limit; nothing has been sent.
    """
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise AttachmentError(
            f"attachments= takes a list of files, got {type(items).__name__}. "
            "Pass e.g. attachments=[pyclient.Attachment(data, 'image/png', 'chart.png')]."
        )
    try:
        files = [as_attachment(await read(item)) for item in items]
    except ToolError as exc:  # a page's File that could not be read (gone, changed)
        raise AttachmentError(f"Cannot attach {exc}; nothing was sent.") from None
    check_limits(files, per_file=per_file, per_message=per_message)
    return files


def check_limits(files: Sequence[Media], *, per_file: int, per_message: int) -> None:
    """Refuse files over the limits before anything is sent.

    Raises:
        AttachmentError: a file is larger than `per_file` bytes, or all together are larger
            than `per_message`; the message names the file, its size and the limit.
    """
    total = 0
    for media in files:
        size = media.size or 0
        if size > per_file:
            raise AttachmentError(
                f"{media.label()} is {format_size(size)}, over the {format_size(per_file)} a file may be. "
                "Attach a smaller file (or raise Agent(max_attachment_bytes=...)); nothing was sent.",
                filename=media.filename, limit=per_file,
            )
        total += size
    if total > per_message:
        raise AttachmentError(
            f"The attachments come to {format_size(total)}, over the {format_size(per_message)} one message "
            "may carry. Send fewer or smaller files (or raise Agent(max_message_bytes=...)); nothing was sent.",
            limit=per_message,
        )


def split_content(value: Any) -> tuple[Any, tuple[Media, ...]]:
    """What a handler returned, as its text/JSON value and its files.

    A `Media` (or an ag-ui media part) alone is a file with no text; a list or tuple holding
    any is split: its files in order, and the rest as the value (one item: that item; several
    texts: joined by newlines; else the list of them). Anything else is all value.
    """
    single = _from_part_like(value) if not isinstance(value, (list, tuple, str)) else None
    if isinstance(value, Media) or single is not None:
        return None, (value if isinstance(value, Media) else single,)  # type: ignore[return-value]
    if not isinstance(value, (list, tuple)):
        return value, ()
    files: list[Media] = []
    rest: list[Any] = []
    for item in value:
        media = item if isinstance(item, Media) else _from_part_like(item)
        if media is not None:
            files.append(media)
        else:
            rest.append(_text_of(item))
    if not files:
        return value, ()
    if not rest:
        return None, tuple(files)
    if len(rest) == 1:
        return rest[0], tuple(files)
    if all(isinstance(item, str) for item in rest):
        return "\n".join(rest), tuple(files)
    return rest, tuple(files)


def _text_of(item: Any) -> Any:
    """An ag-ui `TextPart` (model or JSON) as its text; anything else as it is."""
    if getattr(item, "type", None) == "text" and isinstance(getattr(item, "text", None), str):
        return item.text
    return item


def _from_part_like(value: Any) -> Media | None:
    """An ag-ui media part model, or its JSON as a dict, as `Media`; None for anything else."""
    if isinstance(value, Mapping):
        return from_part(value) if value.get("type") in KINDS else None
    kind = getattr(value, "type", None)
    if kind in KINDS and hasattr(value, "source") and hasattr(value, "model_dump"):
        return from_part(value.model_dump(by_alias=True, exclude_none=True))
    return None


# -- parts out and back -----------------------------------------------------------------------


def content_of(text: str, files: Sequence[Media]) -> str | list[dict[str, Any]]:
    """A message's `content`: the text alone, or with files a list of parts, text first (none
    when it is empty)."""
    if not files:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    parts.extend(media.part() for media in files)
    return parts


def from_part(part: Mapping[str, Any]) -> Media | None:
    """A content part's JSON as `Media` (a file a saved thread did not keep included); None
    for a text part or one that cannot be read (damaged base64, a provider's file handle)."""
    meta = part.get("metadata")
    ours = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    ours = ours if isinstance(ours, Mapping) else {}
    kind = part.get("type")
    if kind == "text":
        missing = ours.get("missing")
        if not isinstance(missing, Mapping):
            return None
        mime = str(missing.get("mimeType") or "application/octet-stream")
        size = missing.get("size")
        return media_class(kind_of_mime(mime)).not_kept(
            mime, _str_or_none(missing.get("filename")), size if isinstance(size, int) else None)
    source = part.get("source")
    if kind not in KINDS or not isinstance(source, Mapping):
        return None
    cls = media_class(str(kind))
    filename = _str_or_none(ours.get("filename"))
    source_mime = _str_or_none(source.get("mimeType"))
    value = source.get("value")
    if not isinstance(value, str):
        return None
    try:
        if source.get("type") == "data":
            return cls.from_base64(value, source_mime, filename)
        if source.get("type") == "url":
            return cls(url=value, mime_type=source_mime or _guess_url(value), filename=filename)
    except AttachmentError:
        return None
    return None



def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def split_parts(content: Any) -> tuple[str, tuple[Media, ...]]:
    """A message's `content` (a str, or a list of part models or their JSON) as its text (the
    text parts joined by newlines) and its files."""
    if isinstance(content, str):
        return content, ()
    if not isinstance(content, list):
        return "" if content is None else str(content), ()
    texts: list[str] = []
    files: list[Media] = []
    for item in content:
        part = item if isinstance(item, Mapping) else (
            item.model_dump(by_alias=True, exclude_none=True) if hasattr(item, "model_dump") else None)
        if part is None:
            continue
        media = from_part(part)
        if media is not None:
            files.append(media)
        elif part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts), tuple(files)


def keep_within(parts: Iterable[Any], cap: int) -> list[Any]:
    """Content parts (JSON) with each file over `cap` bytes replaced by a text part that names
    it: what a saved thread keeps. Parts within the cap are the same objects."""
    kept: list[Any] = []
    for part in parts:
        source = part.get("source") if isinstance(part, dict) else None
        value = source.get("value") if isinstance(source, dict) and source.get("type") == "data" else None
        if isinstance(value, str) and len(value) * 3 // 4 > cap:
            media = from_part(part)
            if media is not None:
                part = media.missing().part()
        kept.append(part)
    return kept
