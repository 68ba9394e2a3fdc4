"""The bounds of `storage_tools()`, as pure functions: which prefixes a factory takes and which keys a tool reaches.

Nothing here touches the browser, so every rule is tested on CPython
(tests/unit/browser/toolkit/test_toolkit_storage_rules.py); the storage tools call these before they touch
Web Storage.

- A prefix (`check_storage_prefix`) is non-empty, at most `MAX_PREFIX_CHARS` characters, and
  ends with one of `PREFIX_SEPARATORS`, so `"notes/"` never reaches `"notes2"`. A bad prefix
  is the page author's mistake: a `ConfigurationError`.
- A key (`check_storage_key`) is relative to the tool's prefix: 1 to `MAX_KEY_CHARS`
  characters, no control characters, no leading `/`, no `\\`, no `.` or `..` segment. A bad
  key is the model's: a `ToolError` that says what to call instead.

```python
from pyclient import ToolError
from pyclient.browser.toolkit._storage_rules import check_storage_key, check_storage_prefix

print(check_storage_prefix("notes/"))                      # notes/
print(check_storage_key("lists/groceries", tool="storage_get"))   # lists/groceries
try:
    check_storage_key("../secret", tool="storage_get")
except ToolError as exc:
    print(exc)                                  # Key '../secret' is refused: ...
```
"""

from __future__ import annotations

import unicodedata

from ..._base._errors import ConfigurationError, ToolError

__all__ = ["MAX_KEY_CHARS", "MAX_PREFIX_CHARS", "PREFIX_SEPARATORS", "check_storage_key", "check_storage_prefix"]

MAX_KEY_CHARS = 200
"""The longest storage key (relative to the prefix) a tool accepts."""

MAX_PREFIX_CHARS = 100
"""The longest storage prefix a factory accepts."""

PREFIX_SEPARATORS = "/:._-"
"""A storage prefix ends with one of these, so it is a namespace and not the start of a word."""


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in text)


def check_storage_prefix(prefix: object) -> str:
    """Check the prefix a `storage_tools()` call is given.

    Returns:
        The prefix.

    Raises:
        ConfigurationError: not a string, empty (it would reach every key of the storage),
            longer than `MAX_PREFIX_CHARS`, holding a control character, or not ending with
            one of `PREFIX_SEPARATORS` (the message suggests the prefix with "/").
    """
    if not isinstance(prefix, str) or not prefix:
        raise ConfigurationError(
            f"storage_tools() needs a non-empty prefix, got {prefix!r}: without one the model could reach "
            "every key of the page's storage. Pass a namespace such as 'notes/'."
        )
    if len(prefix) > MAX_PREFIX_CHARS or _has_control(prefix):
        raise ConfigurationError(
            f"storage_tools() prefix {prefix[:40]!r} is longer than {MAX_PREFIX_CHARS} characters or holds a "
            "control character. Pass a short namespace such as 'notes/'."
        )
    if prefix[-1] not in PREFIX_SEPARATORS:
        raise ConfigurationError(
            f"storage_tools() prefix {prefix!r} must end with one of {' '.join(PREFIX_SEPARATORS)}, so that "
            f"it is a namespace of its own ({prefix!r} would also reach {prefix + 'x'!r}). "
            f"Pass {prefix + '/'!r}."
        )
    return prefix


def check_storage_key(key: str, *, tool: str) -> str:
    """Check a key the model gives a storage tool (relative to the tool's prefix).

    Args:
        key: the key, relative to the prefix.
        tool: the tool's name, for the message.

    Returns:
        The key.

    Raises:
        ToolError: empty, longer than `MAX_KEY_CHARS`, holding a control character or a
            backslash, starting with "/", or with a "." or ".." path segment.
    """
    shown = repr(key) if len(key) <= 60 else repr(key[:57]) + "..."
    why = None
    if not key:
        why = "it is empty"
    elif len(key) > MAX_KEY_CHARS:
        why = f"it has {len(key)} characters, more than {MAX_KEY_CHARS}"
    elif _has_control(key):
        why = "it holds a control character"
    elif key.startswith("/"):
        why = "it starts with '/'; keys are relative names"
    elif "\\" in key:
        why = "it holds a backslash"
    elif any(segment in (".", "..") for segment in key.split("/")):
        why = "it has a '.' or '..' segment; keys cannot leave this tool's storage area"
    if why is None:
        return key
    raise ToolError(
        f"Key {shown} is refused: {why}. Call {tool} again with a plain relative key such as "
        f"'todo' or 'lists/groceries' (1 to {MAX_KEY_CHARS} characters)."
    )
