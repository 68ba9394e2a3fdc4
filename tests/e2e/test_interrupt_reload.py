"""An open AG-UI interrupt of a thread kept in IndexedDB, across reloads in Chromium: the server
counts one resume per interrupt, whenever the page is reloaded.

The page is web/tests/interrupt_store.html (its Python API is web/tests/interrupt_store.py, on
`window.t`), on the dev server (`live_server`, guarded by `open_page`); the agent is pydantic-ai
at `POST /agent/approval` (tests/agents/approval_agent.py): "delete" calls the backend tool
`delete_account(user="bob")`, which needs approval; resumed with `{"approved": true}` the server
runs it and answers "Answer: deleted bob". The session's `approval_log` records what the server
saw (`resumes`, `executed`); each test has a thread id of its own and reads only its requests.
The same rule on CPython, at every save: tests/unit/driver/test_interrupt_reloads.py.
"""

from __future__ import annotations

import json
import uuid

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.pages import wait_ready

TIMEOUT = 20_000
INTERRUPT = "int-call-delete-1"   # pydantic-ai's id for the first call of a thread


def summary(page) -> dict:
    return json.loads(page.evaluate("window.t.summary()"))


def wait_until(page, condition: str) -> dict:
    """Wait until `condition` (JS, on `s`, the page's `window.t.summary()`) holds; return the summary."""
    try:
        page.wait_for_function(f"(() => {{ const s = JSON.parse(window.t.summary()); return {condition}; }})()",
                               timeout=TIMEOUT, polling=25)
    except PlaywrightTimeoutError:
        raise AssertionError(f"{condition} did not hold within {TIMEOUT} ms; the page: {summary(page)}") from None
    return summary(page)


def wait_saved(page, fragment: str) -> None:
    """Wait until the page's store has finished a save whose summary contains `fragment`."""
    page.wait_for_function(f"(document.documentElement.dataset.saved || '').includes({json.dumps(fragment)})",
                           timeout=TIMEOUT, polling=25)


def reload(page) -> dict:
    page.reload()
    wait_ready(page)
    return summary(page)


def ping(page, approval_log, thread: str) -> dict:
    """A barrier: a new message through the same thread, answered. Whatever the thread
    would have sent by itself after the last reload (a resume that must not go) reached the
    server before this request did; the request itself carries no resume."""
    before = requests_of(approval_log, thread)
    page.evaluate("window.t.send('ping')")
    said = len(summary(page)["texts"])
    state = wait_until(page, f"s.status === 'idle' && s.texts.length > {said}")
    assert state["error"] is None, state
    assert approval_log.bodies[-1]["threadId"] == thread and not approval_log.bodies[-1].get("resume")
    assert requests_of(approval_log, thread) >= before + 1
    return state


def resumes_of(log, thread: str) -> list[dict]:
    """Every resume entry the server received for `thread`, in order."""
    return [entry for body in log.bodies if body.get("threadId") == thread for entry in body.get("resume") or ()]


def requests_of(log, thread: str) -> int:
    return sum(body.get("threadId") == thread for body in log.bodies)


@pytest.fixture
def interrupted(open_page, approval_log):
    """A fresh stored thread whose run paused on the approval of `delete_account(user="bob")`."""
    thread = f"interrupt-{uuid.uuid4().hex[:8]}"
    approval_log.clear()
    page = open_page(f"/tests/interrupt_store.html?thread={thread}")
    page.evaluate("window.t.send('delete bob')")
    state = wait_until(page, "s.interrupts.length === 1")
    [interrupt] = state["interrupts"]
    assert interrupt == {"id": INTERRUPT, "status": "open", "reason": "tool_call", "tool_call_id": "call-delete-1",
                         "message": 'Approve delete_account({"user":"bob"})?'}
    assert state["status"] == "running" and state["waiting"]
    wait_saved(page, f"AWAITING_TOOLS {INTERRUPT}=open")
    return page, thread


def test_reloads_while_open_then_one_resume(interrupted, approval_log):
    page, thread = interrupted
    for _ in range(3):
        state = reload(page)
        # Back open, the same interrupt; the run still waits for the person; nothing was sent.
        assert [(i["id"], i["status"]) for i in state["interrupts"]] == [(INTERRUPT, "open")], state
        assert state["status"] == "running" and state["waiting"] and state["error"] is None
        assert resumes_of(approval_log, thread) == [] and requests_of(approval_log, thread) == 1
        assert approval_log.executed == []

    page.evaluate(f"window.t.resolve({json.dumps(INTERRUPT)}, '{{\"approved\": true}}')")
    state = wait_until(page, "s.status === 'idle'")
    assert state["error"] is None and state["texts"][-1] == "Answer: deleted bob"
    # The person's answer is the barrier for the reloads: it went in the second request of the
    # thread, so none of them sent anything, however late.
    assert resumes_of(approval_log, thread) == [{"interruptId": INTERRUPT, "status": "resolved",
                                                 "payload": {"approved": True}}]
    assert requests_of(approval_log, thread) == 2
    assert approval_log.executed == ["bob"]
    wait_saved(page, f"IDLE {INTERRUPT}=resolved/sent")

    for _ in range(2):
        state = reload(page)
        assert state["status"] == "idle" and state["interrupts"] == [] and state["error"] is None
        assert state["all"] == [{"id": INTERRUPT, "status": "resolved", "payload": {"approved": True}}]
        assert state["texts"] == ["Answer: deleted bob"]
        assert len(resumes_of(approval_log, thread)) == 1 and approval_log.executed == ["bob"]
        assert requests_of(approval_log, thread) == 2
    ping(page, approval_log, thread)
    assert len(resumes_of(approval_log, thread)) == 1 and approval_log.executed == ["bob"]
    assert requests_of(approval_log, thread) == 3


@pytest.mark.parametrize("delay_ms", [0, 150])  # before and after the answer is saved; every save point: test_interrupt_reloads.py
def test_a_reload_right_after_the_answer_resumes_at_most_once(interrupted, approval_log, delay_ms):
    """Resolve, then reload while the resume request may be in flight (or not yet saved): the
    server never receives a second resume for the interrupt, and never runs the tool twice."""
    page, thread = interrupted
    with page.expect_navigation(timeout=TIMEOUT):
        page.evaluate(f"""() => {{
            window.t.resolve({json.dumps(INTERRUPT)}, '{{"approved": true}}');
            setTimeout(() => location.reload(), {delay_ms});
        }}""")
    wait_ready(page)
    state = summary(page)
    if state["interrupts"]:
        # The page died before the answer was saved: nothing went out, and the person answers again.
        assert resumes_of(approval_log, thread) == [] and state["interrupts"][0]["id"] == INTERRUPT
        page.evaluate(f"window.t.resolve({json.dumps(INTERRUPT)}, '{{\"approved\": true}}')")
    wait_until(page, "s.status === 'idle'")
    state = reload(page)   # and once more: nothing is sent again
    assert state["interrupts"] == [] and state["status"] == "idle"
    assert state["all"][0]["status"] == "resolved"
    ping(page, approval_log, thread)
    resumed = resumes_of(approval_log, thread)
    assert len(resumed) <= 1 and all(entry["interruptId"] == INTERRUPT for entry in resumed), resumed
    # Never run twice; run once whenever the resume reached the server and was not cut short.
    assert approval_log.executed in ([], ["bob"]) and len(approval_log.executed) <= len(resumed)
