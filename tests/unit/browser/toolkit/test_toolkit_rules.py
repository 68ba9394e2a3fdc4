"""The bounds the toolkit's families share, on CPython: text capping, a factory's limits, `names=`,
how URL-ish values are compacted, and counted nouns.

Each family's own rules are tested beside these (test_toolkit_storage_rules.py,
test_toolkit_dom_rules.py, test_toolkit_background_rules.py); the same functions guard the
tools in the page (tests/e2e/test_toolkit.py checks them there).
"""

from __future__ import annotations

import pytest

from pyclient import ConfigurationError
from pyclient.browser.toolkit._rules import (
    cap_text,
    check_limit,
    compact,
    count_of,
    tool_names,
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


# -- limits, names, compact, counts ---------------------------------------------------------

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


def test_compact_drops_what_hides_a_scheme_and_folds_case():
    assert compact(" JaVa\tScRiPt:") == "javascript:"
    assert compact("java\u200bscript:") == "javascript:"  # an invisible (format) character
    assert compact("\x01\x02data:x") == "data:x"
    assert compact("\u00a0URL(a)") == "url(a)"


def test_count_of():
    assert count_of(1) == "1 element"
    assert count_of(0) == "0 elements"
    assert count_of(3, "key") == "3 keys"
