"""`dom_tools()`'s bounds on CPython: the attribute allowlist, URL schemes, class names.

The same functions guard `set_attribute` and `toggle_class` in the page (tests/e2e/test_toolkit.py
checks them there).
"""

from __future__ import annotations

import pytest

from pyclient import ToolError
from pyclient.browser.toolkit._dom_rules import (
    check_attribute,
    check_class_name,
    url_allowed,
    url_scheme,
)

# -- attributes and URLs -------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("title", "title"), ("ALT", "alt"), ("aria-label", "aria-label"), ("Aria-Hidden", "aria-hidden"),
    ("data-x", "data-x"), ("data-state.v2", "data-state.v2"), ("hidden", "hidden"), ("tabindex", "tabindex"),
    ("role", "role"), ("lang", "lang"), ("dir", "dir"), ("placeholder", "placeholder"),
])
def test_allowlisted_attributes(name, expected):
    assert check_attribute(name, "v") == expected
    assert check_attribute(name, None) == expected  # removing is allowed too


@pytest.mark.parametrize("name, why", [
    ("onclick", "event handler"), ("ONLOAD", "event handler"), ("onmouseover", "event handler"),
    ("srcdoc", "whole HTML document"), ("formaction", "form"), ("style", "toggle_class or change_background"),
    ("class", "use toggle_class"), ("id", "find elements"), ("srcset", "images"), ("ping", "requests"),
    ("data-pyclient-thread", "pyclient's own"), ("data-pyclient", "pyclient's own"),
    ("data-", "allowlist"), ("aria-", "allowlist"), ("data-x y", "allowlist"), ("value", "allowlist"),
    ("xmlns", "allowlist"), ("data-X\x00", "allowlist"),
])
def test_attributes_off_the_allowlist_are_refused(name, why):
    with pytest.raises(ToolError) as info:
        check_attribute(name, "x")
    message = str(info.value)
    assert message.startswith(f"Attribute {name!r} is refused:") and why in message
    assert "Allowed: " in message and "aria-*, data-*" in message


@pytest.mark.parametrize("value", [
    "javascript:alert(1)", " JaVaScRiPt:alert(1)", "\tjavascript:alert(1)", "\x01\x02javascript:x",
    "java\nscript:x", "java\tscript:x", "java\u200bscript:x", "JAVASCRIPT:x", "data:text/html,<b>",
    " DATA:image/svg+xml,x", "vbscript:msgbox", "file:///etc/passwd", "a:b", "\u00a0javascript:x",
])
def test_unsafe_urls_are_refused(value):
    assert not url_allowed(value)
    for name in ("href", "src", "action", "xlink:href", "HREF"):
        with pytest.raises(ToolError, match="is refused: its scheme"):
            check_attribute(name, value)


@pytest.mark.parametrize("value, scheme", [
    ("https://example.org/x", "https"), ("HTTP://x", "http"), ("mailto:a@b.c", "mailto"),
    ("/help", None), ("help.html", None), ("./a:b", None), ("?q=a:b", None), ("#top", None), ("//cdn/x", None),
    ("", None),
])
def test_safe_urls_are_allowed(value, scheme):
    assert url_scheme(value) == scheme
    assert url_allowed(value)
    assert check_attribute("href", value) == "href"


def test_url_checks_apply_to_url_attributes_only():
    assert check_attribute("title", "javascript:alert(1)") == "title"  # a title is text
    assert check_attribute("href", None) == "href"  # removing a link is safe


def test_class_names():
    for name in ("active", "is-open", "_x", "-a1", "c" * 64):
        assert check_class_name(name) == name
    for name in ("", "two words", "1st", "a.b", "a;b", "c" * 65, "<b>"):
        with pytest.raises(ToolError, match="one CSS class name"):
            check_class_name(name)
