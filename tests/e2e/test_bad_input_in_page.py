"""Bad input in the page: Pyodide survives hostile JSON and broken text, and the thread sends again.

On CPython deep JSON is a `RecursionError`; in Pyodide it overflowed the WebAssembly stack
("Maximum call stack size exceeded"), which killed the interpreter and left the thread unable
to send. The page (`web/tests/bad_input.html`) feeds one thread every case in turn.
"""

from __future__ import annotations

import json

from tests.conftest import NESTED_OK_DEPTH


def test_deep_json_and_broken_text_leave_pyodide_alive_and_the_thread_sending(open_page):
    page = open_page("/tests/bad_input.html")
    cases = json.loads(page.locator("#result").text_content())

    for case in ("deep-event", "huge-int"):  # a clear error for that run
        assert cases[case]["status"] == "error", case
    assert "nested deeper than" in cases["deep-event"]["error"]
    assert "4300 digits" in cases["huge-int"]["error"]

    deep_args = cases["deep-args"]  # a clear error for that call; the run goes on
    assert deep_args["status"] == "idle" and deep_args["last"] == "ok"
    assert len(deep_args["tool_errors"]) == 1 and "were not read" in deep_args["tool_errors"][0]
    assert cases["ran"] == []

    assert cases["emoji"]["last"] == "hi \U0001f600!"
    assert cases["lone"]["last"] == "cut \ufffd"
    assert cases["nested-ok"]["status"] == "idle" and cases["nested-ok"]["state_depth"] == NESTED_OK_DEPTH

    # A lone surrogate in a JS string the user typed: repaired, and the request went out.
    assert cases["user-lone-sent"] == "typed \ufffd"
    assert cases["user-lone"]["status"] == "idle" and cases["user-lone"]["last"] == "ok"

    # After all of it, the same thread still sends and gets its answer.
    assert cases["hello"] == {**cases["hello"], "status": "idle", "error": None, "last": "ok"}
