"""The bounds of `file_request_tool()`, as pure functions: which files the page takes, how large, and the words the model gets.

Nothing here touches the browser, so every rule is tested on CPython
(tests/unit/browser/toolkit/test_toolkit_file_request_rules.py). A file picker's `accept` is only a hint to
the browser (the user may switch it to "All files"), so the card checks the file picked again
(`refusal`) before it reads it; a refused file is said so in the card and the call keeps
waiting. `parse_accept` reads the factory's `accept` (extensions, MIME types, `type/*`; a bad
item is a `ConfigurationError`), `accepts` matches a file as browsers match `accept`,
`describe_accept` and `accept_in_words` write them for the model and for the person, and
`sent_text` and `DECLINED` are what the model gets.

```python
from pyclient.browser.toolkit._file_request_rules import accept_in_words, accepts, parse_accept, refusal, sent_text

accept = parse_accept("image/*, .PDF")
print(accept, accepts(accept, "cv.pdf", ""), accepts(accept, "notes.txt", "text/plain"))  # ('image/*', '.pdf') True False
print(refusal("big.png", "image/png", 12_000_000, accept=accept, max_bytes=10_000_000))  # big.png is 12 MB, over the 10 MB ...
print(sent_text("cat.png", "image/png", 2_300))   # The user chose the file cat.png (image/png, 2.3 kB).
print(accept_in_words(accept))                     # Images or .pdf files
```
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..._base._errors import ConfigurationError
from ..._tools._media import format_size

__all__ = ["DECLINED", "accept_in_words", "accepts", "describe_accept", "parse_accept", "refusal", "sent_text"]

DECLINED = "The user declined to share a file. Do not ask for it again unless the user offers one."
"""What the model receives when the user presses Decline (the call's error)."""

_EXTENSION = re.compile(r"\.[a-z0-9][a-z0-9._+-]{0,31}")
_TOKEN = r"[a-z0-9][a-z0-9!#$&^_.+-]{0,126}"
_MIME = re.compile(rf"{_TOKEN}/(?:\*|{_TOKEN})")


def parse_accept(accept: str | Sequence[str] | None) -> tuple[str, ...]:
    """The items of an `accept=` value, lower-cased, without repeats; `()` for None (any file).

    Raises:
        ConfigurationError: an item is not a file extension, a MIME type or a major type, or
            `accept` names none.
    """
    if accept is None:
        return ()
    if isinstance(accept, str):
        items: list[object] = list(accept.split(","))
    elif isinstance(accept, Sequence):
        items = list(accept)
    else:
        raise ConfigurationError(
            f"file_request_tool(accept=...) takes a str or a list of str, got {type(accept).__name__}. "
            "Pass e.g. accept='image/*,.pdf', or None for any file."
        )
    tokens: list[str] = []
    for item in items:
        token = item.strip().lower() if isinstance(item, str) else None
        if token is None or not (_EXTENSION.fullmatch(token) or _MIME.fullmatch(token)):
            raise ConfigurationError(
                f"file_request_tool(accept=...) got {item!r}, which is not a file extension ('.pdf'), a MIME "
                "type ('application/pdf') or a major type ('image/*'). Pass e.g. accept='image/*,.pdf', "
                "or None for any file."
            )
        if token not in tokens:
            tokens.append(token)
    if not tokens:
        raise ConfigurationError("file_request_tool(accept=[]) accepts no file. Pass None for any file.")
    return tuple(tokens)


def accepts(accept: tuple[str, ...], filename: str | None, mime_type: str | None) -> bool:
    """Whether a file matches `accept` (any item; `()` takes every file): an extension by the
    end of its name, a MIME type by its type, `type/*` by its major type. A file the browser
    gave no type (`""`) matches extensions only."""
    if not accept:
        return True
    name = (filename or "").lower()
    mime = (mime_type or "").split(";", 1)[0].strip().lower()
    for token in accept:
        if token.startswith("."):
            if name.endswith(token) and len(name) > len(token):
                return True
        elif token.endswith("/*"):
            if mime.startswith(token[:-1]) and len(mime) > len(token) - 1:
                return True
        elif mime == token:
            return True
    return False


def describe_accept(accept: tuple[str, ...]) -> str:
    """`accept` as the card and the model read it: "image/*, .pdf", or "any file"."""
    return ", ".join(accept) if accept else "any file"


_MAJOR_WORDS = {"image": "images", "audio": "audio files", "video": "videos", "text": "text files"}


def accept_in_words(accept: tuple[str, ...]) -> str:
    """`accept` as the person reads it under the prompt: "Images or .pdf files", "Any file"."""
    if not accept:
        return "Any file"
    words: list[str] = []
    for token in accept:
        if token.endswith("/*"):
            words.append(_MAJOR_WORDS.get(token[:-2], f"{token[:-2]} files"))
    extensions = [token for token in accept if token.startswith(".")]
    if extensions:
        words.append(f"{', '.join(extensions)} files")
    words.extend(f"{token} files" for token in accept if "/" in token and not token.endswith("/*"))
    text = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
    return text[0].upper() + text[1:]


def refusal(filename: str | None, mime_type: str | None, size: int, *, accept: tuple[str, ...],
            max_bytes: int) -> str | None:
    """Why the file picked cannot be sent, in words for the user, or None when it can."""
    label = filename or "This file"
    if not accepts(accept, filename, mime_type):
        return f"{label} is not a file this request takes ({describe_accept(accept)}). Choose another file."
    if size > max_bytes:
        return (f"{label} is {format_size(size)}, over the {format_size(max_bytes)} a file may be here. "
                "Choose a smaller file.")
    return None


def sent_text(filename: str | None, mime_type: str, size: int) -> str:
    """The line the model gets before the file the user chose."""
    name = f"the file {filename}" if filename else "a file"
    return f"The user chose {name} ({mime_type}, {format_size(size)})."
