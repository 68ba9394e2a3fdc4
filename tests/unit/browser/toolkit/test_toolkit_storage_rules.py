"""`storage_tools()`'s bounds on CPython: which prefixes a factory takes and which keys a tool reaches.

The same functions guard the storage tools in the page (tests/e2e/test_toolkit.py checks them there).
"""

from __future__ import annotations

import pytest

from pyclient import ConfigurationError, ToolError
from pyclient.browser.toolkit._storage_rules import (
    MAX_KEY_CHARS,
    check_storage_key,
    check_storage_prefix,
)

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
