"""Which files the chat's composer takes, and what it says when it refuses one: pure rules.

`accept_patterns()` reads the `Chat(accept=...)` MIME patterns ("image/*", "application/pdf";
None takes any file, an empty list none); `takes()` matches a file's type against them and
`describe()` puts them in words ("images and PDF files"). `refusal()` is the sentence for the
person when a file is not attached (a type the chat does not take, or over the agent's limits,
checked on the file's size alone, before its bytes are read), `send_refusal()` the one when
`thread.send` itself refused the message. The limits' wording is the core's
(`pyclient._tools._content.check_limits`), without the fix meant for the page's author. No
`js`, `pyodide` or `pyscript` here: it is tested on CPython.

```python
from pyclient._base._limits import Limits
from pyclient.browser._chat._attachment_rules import accept_patterns, describe, refusal

patterns = accept_patterns(["image/*", "application/pdf"])
print(describe(patterns))                              # images and PDF files
print(refusal("notes.txt", "text/plain", 812, patterns=patterns, held=[], limits=Limits()))  # notes.txt was not attached: this chat takes images and PDF files.
print(refusal("big.png", "image/png", 12_100_000, patterns=patterns, held=[], limits=Limits()))  # big.png is 12.1 MB, over the 10 MB a file may be. It was not attached.
```
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..._base._errors import AttachmentError
from ..._base._limits import Limits
from ..._tools._content import check_limits
from ..._tools._media import Media, format_size, kind_of_mime, media_class

__all__ = ["accept_patterns", "describe", "refusal", "send_refusal", "takes"]

_PATTERN = re.compile(r"^(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$")

# How the patterns read in a sentence: a whole family, then single types people know by name.
_FAMILIES = {"image": "images", "audio": "audio files", "video": "videos", "text": "text files",
             "application": "documents", "font": "fonts"}
_NAMED = {"application/pdf": "PDF files", "text/plain": "plain text files", "text/csv": "CSV files",
          "text/markdown": "Markdown files", "application/json": "JSON files", "text/html": "HTML files",
          "application/zip": "ZIP archives", "image/svg+xml": "SVG images", "audio/mpeg": "MP3 files",
          "application/msword": "Word documents",
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word documents",
          "application/vnd.ms-excel": "Excel spreadsheets",
          "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel spreadsheets"}
_SINGULAR = {"image": "images", "audio": "audio files", "video": "videos"}


def accept_patterns(accept: Iterable[str] | None) -> tuple[str, ...] | None:
    """The `accept=` MIME patterns, lower-cased and without repeats (None: any file).

    Raises:
        ValueError: a pattern is not a MIME type or a `type/*` family (a file extension, say).
    """
    if accept is None:
        return None
    if isinstance(accept, str):
        raise ValueError(f"accept={accept!r} is one string: pass a list of MIME patterns, e.g. accept=[{accept!r}].")
    patterns: list[str] = []
    for pattern in accept:
        text = str(pattern).strip().lower()
        if not _PATTERN.match(text) or text.startswith("*/") and text != "*/*":
            raise ValueError(
                f"accept= takes MIME patterns such as 'image/*' or 'application/pdf', got {pattern!r}. "
                "Name a file's type, not its extension (for .pdf files: 'application/pdf')."
            )
        if text not in patterns:
            patterns.append(text)
    return tuple(patterns)


def takes(patterns: Sequence[str] | None, mime: str | None) -> bool:
    """Whether a file of type `mime` (None: not known) may be attached."""
    if patterns is None:
        return True
    if not mime:
        return False
    mime = mime.split(";", 1)[0].strip().lower()
    family = mime.split("/", 1)[0]
    return any(pattern in ("*/*", mime, f"{family}/*") for pattern in patterns)


def _words(pattern: str) -> str:
    family, _, subtype = pattern.partition("/")
    if pattern == "*/*":
        return "any file"
    if subtype == "*":
        return _FAMILIES.get(family, f"{family} files")
    if pattern in _NAMED:
        return _NAMED[pattern]
    if family in _SINGULAR and subtype.isalnum() and len(subtype) <= 5:
        return f"{subtype.upper()} {_SINGULAR[family]}"
    return f"{pattern} files"


def describe(patterns: Sequence[str] | None) -> str:
    """The patterns in words: "images and PDF files", "any file", "no files"."""
    if patterns is None:
        return "any file"
    words: list[str] = []
    for pattern in patterns:
        said = _words(pattern)
        if said not in words:
            words.append(said)
    if not words:
        return "no files"
    if "any file" in words:
        return "any file"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _limit_sentence(error: AttachmentError) -> str:
    """The core's sentence that names the file and the limit (the text up to the end of the
    sentence holding the limit's size), without the advice for the page's author after it."""
    text = str(error)
    if error.limit is not None:
        mark = text.find(format_size(error.limit))
        end = text.find(". ", mark) if mark >= 0 else -1
        if end >= 0:
            return text[:end + 1]
    return text


def refusal(name: str, mime: str | None, size: int, *, patterns: Sequence[str] | None, held: Sequence[Media],
            limits: Limits) -> str | None:
    """Why a file cannot be attached, in a sentence for the person; None when it can.

    Args:
        name: the file's name.
        mime: its type (None: not known).
        size: its size in bytes.
        patterns: the chat's `accept=` patterns (None: any file).
        held: the files attached already (their sizes count toward the message's limit).
        limits: the agent's limits.
    """
    if not takes(patterns, mime):
        return f"{name} was not attached: this chat takes {describe(patterns)}."
    # Only its size is known until the bytes are read (when the message is sent): a file
    # known by its type, name and size is what the core's check needs.
    file = media_class(kind_of_mime(mime or "")).not_kept(mime or "application/octet-stream", name, size)
    try:
        check_limits([file], per_file=limits.max_attachment_bytes, per_message=limits.max_message_bytes)
    except AttachmentError as error:
        return f"{_limit_sentence(error)} It was not attached."
    try:
        check_limits([*held, file], per_file=limits.max_attachment_bytes, per_message=limits.max_message_bytes)
    except AttachmentError as error:
        return f"{_limit_sentence(error)} {name} was not attached."
    return None


def send_refusal(error: Exception) -> str:
    """What the chat says when `thread.send` refused the message's files (nothing was sent)."""
    if isinstance(error, AttachmentError) and error.limit is not None:
        return f"{_limit_sentence(error)} Nothing was sent: remove a file and send again."
    text = str(error)
    return f"Nothing was sent: {text[:1].lower()}{text[1:]}"
