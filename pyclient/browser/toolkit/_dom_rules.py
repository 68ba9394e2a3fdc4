"""The bounds of `dom_tools()`, as pure functions: which attributes, URLs and class names a tool may set.

Nothing here touches the browser, so every rule is tested on CPython
(tests/unit/browser/toolkit/test_toolkit_dom_rules.py); `set_attribute` and `toggle_class` call these before
they touch an element. Each check raises `ToolError` with a message for the model (what was
refused, why, what to do). Attributes come from an allowlist (`check_attribute`;
`REFUSED_ATTRIBUTES` say why the others are refused), URL attributes take only http(s), mailto
or relative URLs (`url_allowed`), judged after whitespace, control and invisible characters are
removed and case is folded (so `" JaVa\\tScRiPt:..."` is refused), and a class name is one CSS
identifier (`check_class_name`). The lists: docs/toolkit.md.

```python
from pyclient import ToolError
from pyclient.browser.toolkit._dom_rules import check_attribute, check_class_name, url_allowed

print(url_allowed(" JaVaScRiPt:alert(1)"))    # False
print(url_allowed("/help#top"), url_allowed("https://example.org"))   # True True
print(check_attribute("ARIA-Label", "Close"), check_class_name("is-open"))  # aria-label is-open
try:
    check_attribute("onclick", "alert(1)")
except ToolError as exc:
    print(exc)                                  # Attribute 'onclick' is refused: ...
```
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..._base._errors import ToolError
from ._rules import compact

__all__ = [
    "REFUSED_ATTRIBUTES",
    "SAFE_ATTRIBUTES",
    "SAFE_URL_SCHEMES",
    "URL_ATTRIBUTES",
    "check_attribute",
    "check_class_name",
    "url_allowed",
    "url_scheme",
]

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


def url_scheme(value: str) -> str | None:
    """The scheme a URL attribute value would use, or None for a relative URL.

    A colon before the first "/", "?" or "#" makes the text before it the scheme, even when it
    is not a valid scheme name (such a URL is refused rather than guessed at).
    """
    compacted = compact(value)
    match = _SCHEME_RE.match(compacted)
    if match:
        return match.group(1)
    head = re.split(r"[/?#\\]", compacted, maxsplit=1)[0]
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
