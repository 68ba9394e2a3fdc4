"""JS values reach the model as JSON: `null` from localStorage, arrays and objects, and a clear error for a Map.

The page is web/tests/js_values.html (web/tests/js_values.py); the agent is the embedded demo
model, which calls the tool the message names and quotes the results.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.pages import module_page, turn


def call(page, name: str, *args):
    return json.loads(page.evaluate("([name, args]) => window.t[name](...args)", [name, list(args)]))


values_guard = module_page("/tests/js_values.html")


@pytest.fixture
def values(values_guard):
    """The page, booted once for the module; each test sends on its one thread."""
    with turn(values_guard) as guard:
        yield guard.page


def last_result(result: dict) -> dict:
    assert result["status"] == "idle"
    return result["results"][-1]


def test_js_null_from_local_storage_is_none(values):
    tool = last_result(call(values, "send", "call missing_setting"))
    assert tool == {"name": tool["name"], "content": "", "error": None}


def test_js_array_with_null_and_objects_is_converted(values):
    tool = last_result(call(values, "send", "call parsed_list"))
    assert tool["error"] is None
    assert json.loads(tool["content"]) == [1, None, {"a": None, "b": [True, "x"]}]


def test_a_js_map_fails_with_how_to_convert_it(values):
    tool = last_result(call(values, "send", "call map_value"))
    assert tool["error"] == tool["content"]
    assert tool["error"].startswith("Tool 'map_value' returned a JS Map object, which is not JSON data.")
    assert "to_py()" in tool["error"]


def test_submit_with_a_js_object_is_converted_and_validated(values):
    result = call(values, "answer_with_js", "call pick_colour", "submit", '{"colour": "teal"}')
    assert result["status"] == "idle" and result["waiting"] == "awaiting_input"
    assert result["refused"].startswith("ToolError: The output submitted for tool 'pick_colour' does not match")
    assert json.loads(result["results"][-1]["content"]) == {"colour": "teal"}


def test_approve_with_js_edited_arguments(values):
    result = call(values, "answer_with_js", "call send_mail to bob", "approve", '{"to": "carol", "subject": "hi"}')
    assert result["refused"].startswith("ToolError: Invalid arguments for tool 'send_mail'")
    assert result["waiting"] == "awaiting_approval"
    content = result["results"][-1]["content"]
    assert "edited the arguments" in content and content.endswith("sent to carol: hi")
