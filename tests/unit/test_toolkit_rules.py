"""The toolkit's bounds on CPython: text capping, storage keys and prefixes, the attribute
allowlist and URL schemes, class names, CSS backgrounds that load URLs, and `names=`.

The same functions guard the tools in the page (tests/e2e/test_toolkit.py checks them there).
"""

from __future__ import annotations

import pytest

from pyclient import ConfigurationError, ToolError
from pyclient._toolkit_rules import (
    MAX_KEY_CHARS,
    background_loads_url,
    cap_text,
    check_attribute,
    check_class_name,
    check_limit,
    check_storage_key,
    check_storage_prefix,
    tool_names,
    url_allowed,
    url_scheme,
)


# -- cap_text -------------------------------------------------------------------------------

def test_text_that_fits_is_unchanged():
    assert cap_text("abc", 3) == "abc"
    assert cap_text("", 1) == ""


def test_long_text_is_cut_and_says_how_much():
    text = "x" * 1_000_000
    capped = cap_text(text, 20_000, hint="Read a narrower selector.")
    kept, note = capped.split("\n", 1)
    assert kept == "x" * 20_000
    assert note == ("[... 980,000 more characters cut: showing the first 20,000 of 1,000,000. "
                    "Read a narrower selector.]")


# -- storage keys and prefixes -------------------------------------------------------------

@pytest.mark.parametrize("key", ["todo", "lists/groceries", "a.b", "..x", "x..", "über", "a b", "k" * MAX_KEY_CHARS])
def test_relative_keys_are_accepted(key):
    assert check_storage_key(key, tool="storage_get") == key


@pytest.mark.parametrize("key, why", [
    ("", "it is empty"),
    ("k" * (MAX_KEY_CHARS + 1), "more than 200"),
    ("k" * 300, "it has 300 characters"),
    ("..", "'..' segment"),
    ("../x", "'..' segment"),
    ("a/../b", "'..' segment"),
    ("a/..", "'..' segment"),
    ("./x", "'.' or '..' segment"),
    ("/x", "starts with '/'"),
    ("//x", "starts with '/'"),
    ("a\\b", "backslash"),
    ("a\x00b", "control character"),
    ("a\nb", "control character"),
    ("a\x7fb", "control character"),
])
def test_keys_that_could_leave_the_prefix_are_refused(key, why):
    with pytest.raises(ToolError) as info:
        check_storage_key(key, tool="storage_set")
    message = str(info.value)
    assert why in message
    assert message.startswith("Key ") and "Call storage_set again with a plain relative key" in message
    assert len(message) < 400  # an overlong key is shown cut


@pytest.mark.parametrize("prefix", ["notes/", "app:", "app.", "my-app-", "my_"])
def test_prefixes_ending_with_a_separator_are_accepted(prefix):
    assert check_storage_prefix(prefix) == prefix


@pytest.mark.parametrize("prefix, fragment", [
    ("", "non-empty prefix"),
    (None, "non-empty prefix"),
    ("notes", "Pass 'notes/'"),
    ("a\x00/", "control character"),
    ("p" * 101 + "/", "longer than 100"),
])
def test_bad_prefixes_are_configuration_errors(prefix, fragment):
    with pytest.raises(ConfigurationError, match="storage_tools") as info:
        check_storage_prefix(prefix)
    assert fragment in str(info.value)


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


# -- backgrounds, limits, names -------------------------------------------------------------

@pytest.mark.parametrize("value, loads", [
    ("teal", False), ("linear-gradient(teal, navy)", False), ("rgb(30 58 138)", False),
    ('url("https://x/a.png")', True), ("URL(a.png)", True), ("u\nrl(a)", True),
    ('image-set("a.png" 1x)', True), ('-webkit-image-set(url(a) 1x)', True), ("src(a.png)", True),
])
def test_backgrounds_that_load_urls(value, loads):
    assert background_loads_url(value) is loads


def test_limits():
    check_limit(1, "max_chars")
    check_limit(0.5, "timeout_s", minimum=0.001)
    for bad in (0, -1, True, "10", None, float("nan")):
        with pytest.raises(ConfigurationError, match="max_chars="):
            check_limit(bad, "max_chars")


def test_names_mapping():
    defaults = ("read_clipboard", "write_clipboard")
    assert tool_names(defaults, None, factory="f") == {"read_clipboard": "read_clipboard",
                                                       "write_clipboard": "write_clipboard"}
    assert tool_names(defaults, {"read_clipboard": "paste"}, factory="f") == {
        "read_clipboard": "paste", "write_clipboard": "write_clipboard"}
    with pytest.raises(ConfigurationError, match="renames 'storage_set', which this call does not make"):
        tool_names(("storage_get", "storage_list"), {"storage_set": "save"}, factory="storage_tools")
    with pytest.raises(ConfigurationError, match="the same name"):
        tool_names(defaults, {"read_clipboard": "write_clipboard"}, factory="f")
    with pytest.raises(ConfigurationError, match="takes a mapping"):
        tool_names(defaults, ["paste"], factory="f")  # type: ignore[arg-type]
