"""The bounds of `pyclient.browser.toolkit`, as pure functions: what a ready-made tool accepts.

Nothing here touches the browser, so every rule is tested on CPython
(tests/unit/test_toolkit_rules.py); the toolkit calls these before it touches the page. Each
check raises `ToolError` with a message for the model (what was refused, why, what to do) or,
for what the page author passes to a factory, `ConfigurationError`.

- Text: `cap_text` keeps the first `max_chars` characters and says how many were cut.
- Storage keys (`check_storage_key`): relative to the tool's prefix, 1 to 200 characters, no
  control characters, no leading `/`, no `\\`, no `.` or `..` segment. A prefix
  (`check_storage_prefix`) is non-empty and ends with a separator, so `"notes/"` never
  reaches `"notes2"`.
- Attributes (`check_attribute`): an allowlist (`SAFE_ATTRIBUTES`, `URL_ATTRIBUTES`, `aria-*`,
  `data-*` except `data-pyclient-*`); URL attributes take only http(s), mailto or relative URLs
  (`url_allowed`), judged after whitespace, control and invisible characters are removed and
  case is folded, so `" JaVa\\tScRiPt:..."` is refused.
- Class names (`check_class_name`), CSS backgrounds that would load a URL
  (`background_loads_url`), and the `names=` mapping of the multi-tool factories
  (`tool_names`).

```python
from pyclient import ToolError
from pyclient._toolkit_rules import cap_text, check_attribute, check_storage_key, url_allowed

print(cap_text("abcdef", 4))                   # prints "abcd" then the note
print(url_allowed(" JaVaScRiPt:alert(1)"))    # False
print(url_allowed("/help#top"), url_allowed("https://example.org"))   # True True
print(check_attribute("ARIA-Label", "Close"))  # aria-label
try:
    check_storage_key("../secret", tool="storage_get")
except ToolError as exc:
    print(exc)                                  # Key '../secret' is refused: ...
```
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from ._errors import ConfigurationError, ToolError

__all__ = [
    "MAX_KEY_CHARS",
    "MAX_PREFIX_CHARS",
    "PREFIX_SEPARATORS",
    "REFUSED_ATTRIBUTES",
    "SAFE_ATTRIBUTES",
    "SAFE_URL_SCHEMES",
    "URL_ATTRIBUTES",
    "background_loads_url",
    "cap_text",
    "check_attribute",
    "check_class_name",
    "check_limit",
    "check_storage_key",
    "check_storage_prefix",
    "tool_names",
    "url_allowed",
    "url_scheme",
]

MAX_KEY_CHARS = 200
"""The longest storage key (relative to the prefix) a tool accepts."""

MAX_PREFIX_CHARS = 100
"""The longest storage prefix a factory accepts."""

PREFIX_SEPARATORS = "/:._-"
"""A storage prefix ends with one of these, so it is a namespace and not the start of a word."""

SAFE_ATTRIBUTES = frozenset({"title", "alt", "placeholder", "lang", "dir", "role", "tabindex", "hidden"})
"""Attributes `set_attribute` sets as given (besides `aria-*` and `data-*`)."""

URL_ATTRIBUTES = frozenset({"href", "src", "action", "xlink:href"})
"""Attributes `set_attribute` sets only to an http(s), mailto or relative URL."""

SAFE_URL_SCHEMES = frozenset({"http", "https", "mailto"})
"""The URL schemes a URL attribute may use; a URL without a scheme is relative and allowed."""

REFUSED_ATTRIBUTES: Mapping[str, str] = {
    "srcdoc": "it holds a whole HTML document",
    "formaction": "it sends a form somewhere else",
    "style": "styles can load URLs and cover the page; use toggle_class or change_background",
    "class": "it would replace every class; use toggle_class",
    "id": "page scripts and styles find elements by it",
    "name": "forms and scripts find elements by it",
    "srcset": "it loads images from URLs",
    "ping": "it sends requests when a link is followed",
}
"""Attributes refused with a reason of their own (everything off the allowlist is refused too)."""

_ARIA_RE = re.compile(r"^aria-[a-z]{1,40}$")
_DATA_RE = re.compile(r"^data-[a-z0-9][a-z0-9._-]{0,60}$")
_CLASS_RE = re.compile(r"^-?[_a-zA-Z][_a-zA-Z0-9-]{0,63}$")
_SCHEME_RE = re.compile(r"^([a-z][a-z0-9+.-]*):")
# CSS functions that make the browser fetch a URL (`url()` also covers `src()` and strings
# inside `image-set()` once the browser serializes the value).
_URL_FUNCTIONS = ("url(", "image-set(", "image(", "src(")


def cap_text(text: str, max_chars: int, *, hint: str = "") -> str:
    """`text`, or its first `max_chars` characters followed by a note saying how much was cut.

    Args:
        text: the full text.
        max_chars: how many characters to keep.
        hint: a sentence added to the note (what to do to read the rest).

    Returns:
        `text` when it fits, else `text[:max_chars]` + "\\n[... N more characters cut: showing
        the first M of T.<hint>]".
    """
    if len(text) <= max_chars:
        return text
    cut = len(text) - max_chars
    note = f"[... {cut:,} more characters cut: showing the first {max_chars:,} of {len(text):,}."
    if hint:
        note += " " + hint.strip()
    return f"{text[:max_chars]}\n{note}]"


def check_limit(value: object, what: str, *, minimum: float = 1) -> None:
    """A factory's numeric bound: a number (not a bool) of at least `minimum`.

    Raises:
        ConfigurationError: naming `what` and the value.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= minimum:
        raise ConfigurationError(f"{what}={value!r} is not a number of at least {minimum:g}. Pass e.g. {what}=1000.")


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


def _compact(value: str) -> str:
    """`value` without whitespace, control or invisible (format) characters, case-folded:
    how a URL's scheme is judged, so `" Java\\tScript:"` and `"java\\u200bscript:"` read as `javascript:`."""
    kept = (ch for ch in value if not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf"))
    return "".join(kept).casefold()


def url_scheme(value: str) -> str | None:
    """The scheme a URL attribute value would use, or None for a relative URL.

    A colon before the first "/", "?" or "#" makes the text before it the scheme, even when it
    is not a valid scheme name (such a URL is refused rather than guessed at).
    """
    compact = _compact(value)
    match = _SCHEME_RE.match(compact)
    if match:
        return match.group(1)
    head = re.split(r"[/?#\\]", compact, maxsplit=1)[0]
    if ":" in head:
        return head.split(":", 1)[0]
    return None


def url_allowed(value: str) -> bool:
    """True for an http(s) or mailto URL, or a relative one; False for `javascript:`, `data:`,
    `vbscript:` and every other scheme, however it is spaced or cased."""
    scheme = url_scheme(value)
    return scheme is None or scheme in SAFE_URL_SCHEMES


def check_attribute(name: str, value: str | None, *, tool: str = "set_attribute") -> str:
    """Check an attribute `set_attribute` is asked to set (or, with `value=None`, remove).

    Args:
        name: the attribute's name (case-folded: HTML attribute names ignore case).
        value: the new value, or None to remove the attribute.
        tool: the tool's name, for the message.

    Returns:
        The attribute name, lower-cased.

    Raises:
        ToolError: the name is off the allowlist (`on*` handlers, `srcdoc`, `formaction`,
            `style`, anything unknown, `data-pyclient-*`), or a URL attribute's value uses a
            scheme other than http(s) or mailto.
    """
    folded = name.strip().lower()
    allowed = sorted(SAFE_ATTRIBUTES | URL_ATTRIBUTES)
    fix = f"Allowed: {', '.join(allowed)}, aria-*, data-*."
    why = None
    if folded.startswith("on"):
        why = "event handler attributes run code"
    elif folded in REFUSED_ATTRIBUTES:
        why = REFUSED_ATTRIBUTES[folded]
    elif folded.startswith("data-pyclient"):
        why = "pyclient's own attributes decide which tools and threads live where"
    elif not (folded in SAFE_ATTRIBUTES or folded in URL_ATTRIBUTES or _ARIA_RE.match(folded)
              or _DATA_RE.match(folded)):
        why = "it is not on this tool's allowlist"
    if why is not None:
        raise ToolError(f"Attribute {name!r} is refused: {why}. {fix}")
    if value is not None and folded in URL_ATTRIBUTES and not url_allowed(value):
        shown = repr(value) if len(value) <= 60 else repr(value[:57]) + "..."
        raise ToolError(
            f"The value {shown} of {folded!r} is refused: its scheme {url_scheme(value)!r} is not allowed. "
            f"Use an http(s) or mailto URL, or a relative one such as '/help', and call {tool} again."
        )
    return folded


def check_class_name(name: str, *, tool: str = "toggle_class") -> str:
    """Check a class name `toggle_class` is given: one CSS identifier, at most 64 characters.

    Raises:
        ToolError: whitespace, punctuation, a leading digit, or too long.
    """
    if not _CLASS_RE.match(name):
        raise ToolError(
            f"Class name {name[:70]!r} is refused: give one CSS class name (letters, digits, '-' and '_', "
            f"not starting with a digit, at most 64 characters). Call {tool} again, once per class."
        )
    return name


def background_loads_url(serialized: str) -> bool:
    """True when a CSS background value, as the browser serializes it, would fetch a URL
    (`url()`, `image-set()`, `image()`, `src()`)."""
    compact = _compact(serialized)
    return any(function in compact for function in _URL_FUNCTIONS)


def tool_names(defaults: Sequence[str], names: Mapping[str, str] | None, *, factory: str) -> dict[str, str]:
    """The name of each tool a multi-tool factory makes: its default, or the one `names` gives.

    Args:
        defaults: the default names of the tools the factory makes.
        names: default name -> the name to use instead; None keeps every default.
        factory: the factory's name, for the message.

    Returns:
        default name -> the tool's name, for every default.

    Raises:
        ConfigurationError: `names` is not a mapping, names a tool the factory does not make,
            or gives two tools the same name.
    """
    if names is None:
        return {default: default for default in defaults}
    if not isinstance(names, Mapping):
        raise ConfigurationError(
            f"{factory}(names=...) takes a mapping from default name to new name, got {type(names).__name__}. "
            f"Pass e.g. names={{{defaults[0]!r}: 'my_{defaults[0]}'}}."
        )
    unknown = sorted(set(names) - set(defaults))
    if unknown:
        raise ConfigurationError(
            f"{factory}(names=...) renames {', '.join(map(repr, unknown))}, which this call does not make; "
            f"it makes {', '.join(map(repr, defaults))}. Use those names as the keys."
        )
    chosen = {default: names.get(default, default) for default in defaults}
    if len(set(chosen.values())) != len(chosen):
        raise ConfigurationError(
            f"{factory}(names=...) gives two tools the same name: {chosen}. Give each tool a name of its own."
        )
    return chosen
