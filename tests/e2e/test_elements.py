"""Registrations on DOM elements, in Chromium: snapshots, unmount/remount, aborts, pending actions.

The page is web/tests/scopes.html; `window.t` is its Python test API (web/tests/scopes.py),
booted once per module and mode: each test starts from `window.t.reset()` (the elements as
loaded, new agents and threads).
Every request body is captured at the server (`agent_log`), so the tests check what the
agent really received. The tests of what must hold across threads (snapshots as elements mount
and unmount, aborts on unmount, cancel, stop and timeout, pending actions) also run with the
page's Python in a worker (`BOTH_MODES`), where the page's mutations reach the worker's observer.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.e2e.pages import BOTH_MODES, module_page, turn
from tests.helpers import wait_for


def call(page, name: str, *args):
    """Call `window.t[name](*args)` (a Python function) and decode its JSON answer."""
    result = page.evaluate("([name, args]) => window.t[name](...args)", [name, list(args)])
    return json.loads(result) if isinstance(result, str) and result[:1] in "{[" else result


def tools_of(body: dict) -> list[str]:
    return sorted(tool["name"] for tool in body["tools"])


def park(page, element_id: str) -> None:
    """Detach an element (it stays in a JS variable for later re-insertion)."""
    call(page, "park", element_id)


def unpark(page, element_id: str) -> None:
    page.evaluate("id => { const [e, parent] = window.__parked[id]; parent.append(e); }", element_id)


def wait_log(page, text: str, timeout: int = 20_000) -> None:
    page.wait_for_function("t => window.__log.some(line => line.includes(t))", arg=text,
                           timeout=timeout, polling=25)


def log(page) -> list[str]:
    return page.evaluate("[...window.__log]")


def wait_summary(page, key: str, condition, what: str, timeout: float = 20.0) -> dict:
    """Poll thread `key`'s summary until `condition(summary)` holds (from here: in a worker the
    page's `window.t` answers with a promise, which `wait_for_function` does not wait for)."""
    deadline = time.monotonic() + timeout
    while not condition(summary := call(page, "summary", key)):
        if time.monotonic() > deadline:
            raise AssertionError(f"thread {key} never {what}: {summary}")
        time.sleep(0.05)
    return summary


def wait_answered(page, key: str, answered: bool = True) -> dict:
    """Wait until thread `key` is idle after its tool result, with the follow-up's answer last
    (`answered`) or without one. Idle alone is not enough: a thread is idle for a moment
    between a call's result and the follow-up that sends it (seen by a worker page's polls)."""
    def done(summary: dict) -> bool:
        roles = [m["role"] for m in summary["messages"]]
        return (summary["status"] == "idle" and "tool" in roles
                and (roles[-1] == "assistant" and roles.index("tool") < len(roles) - 1) == answered)

    return wait_summary(page, key, done, "answered" if answered else "settled")


booted = module_page("/tests/scopes.html")
"""The page, booted once per module and mode; each test starts from its reset (`window.t.reset()`)."""


@pytest.fixture
def scopes(booted, agent_log):
    with turn(booted) as guard:
        guard.page.evaluate("window.t.reset()")
        agent_log.clear()
        yield guard.page


T1_TOOLS = ["binding_tool", "change_background", "slow_fetch", "wait_briefly", "wait_forever", "wrapper_tool"]


@BOTH_MODES
def test_each_form_lands_in_the_right_thread_snapshot(scopes, agent_log):
    page = scopes
    for key in ("t1", "t2", "t3"):
        call(page, "send", key, "what is new")
    t1, t2, t3 = agent_log.bodies
    # Binding tools in every thread of agent A; the wrapper registration in both threads it
    # encloses; component-scoped and agent-agnostic ones only in their own thread.
    assert tools_of(t1) == T1_TOOLS
    assert tools_of(t2) == ["binding_tool", "set_heading", "wrapper_tool"]
    # Agent B: no binding tools; the agent-agnostic registration inside its thread element.
    assert tools_of(t3) == ["set_heading"]
    assert len({t1["threadId"], t2["threadId"], t3["threadId"]}) == 3
    assert call(page, "summary", "t1")["available"] == T1_TOOLS

    # Unmount: synchronous for the next request, even before the observer's microtask.
    agent_log.clear()
    page.evaluate("""async () => {
        document.getElementById('c1').remove();
        document.getElementById('c2').remove();
        await window.t.send('t1', 'what is new');
        await window.t.send('t2', 'what is new');
    }""")
    assert "change_background" not in tools_of(agent_log.bodies[0])
    assert tools_of(agent_log.bodies[1]) == ["binding_tool", "wrapper_tool"]

    # Remount: back in the snapshot.
    agent_log.clear()
    page.evaluate("""async () => {
        const c1 = document.createElement('div'); c1.id = 'c1';
        document.getElementById('t1').append(c1);
    }""")
    call(page, "send", "t1", "what is new")
    assert "change_background" not in tools_of(agent_log.bodies[0]), "a new element is not the old registration"

    # Moving the wrapper's threads out of it removes the wrapper tool from their snapshots.
    agent_log.clear()
    page.evaluate("document.body.append(document.getElementById('t2'))")
    call(page, "send", "t2", "what is new")
    assert tools_of(agent_log.bodies[0]) == ["binding_tool"]


def test_remount_of_the_same_element_restores_its_tools(scopes, agent_log):
    page = scopes
    park(page, "c1")
    call(page, "send", "t1", "what is new")
    unpark(page, "c1")
    call(page, "send", "t1", "what is new")
    assert "change_background" not in tools_of(agent_log.bodies[0])
    assert "change_background" in tools_of(agent_log.bodies[1])
    # The thread element itself: removed and re-inserted, the thread and its tools come back.
    park(page, "t1")
    unpark(page, "t1")
    call(page, "send", "t1", "make it blue")
    assert page.evaluate("document.body.style.background") == "blue"
    assert page.evaluate("document.getElementById('t1').dataset.pyclientThread") == agent_log.bodies[-1]["threadId"]


def test_registration_errors_are_clear(scopes):
    page = scopes
    duplicate = call(page, "config_error", "agent_a.use_client_tool(change_background, document.getElementById('c1'))")
    assert duplicate.startswith("ConfigurationError") and "replace=True" in duplicate
    replaced = call(page, "config_error", "agent_a.use_client_tool(change_background, document.getElementById('c1'), replace=True)")
    assert replaced == "no error"
    nowhere = call(page, "config_error", "use_client_tool(set_heading, document.getElementById('parking'))")
    assert nowhere.startswith("ConfigurationError") and "thread" in nowhere
    missing = call(page, "config_error", "agent_a.thread('#does-not-exist')")
    assert missing.startswith("ConfigurationError") and "#does-not-exist" in missing


@BOTH_MODES
def test_unmount_aborts_a_running_fetch_then_remount_completes(scopes, agent_log, slow_log):
    page = scopes
    slow_log.clear()
    call(page, "send_later", "t1", "slow fetch")
    wait_log(page, "fetch started")
    # Unmount only once the request is at the server: an abort before Chromium has sent it
    # would leave the server nothing to see.
    wait_for(lambda: slow_log.started, 15, "the slow request at the server")
    assert slow_log.started == 1
    park(page, "c3")
    wait_log(page, "fetch finally")
    lines = log(page)
    assert "fetch failed: CancelledError reason=unmounted" in lines, lines
    assert "fetch finally aborted=True js_aborted=True" in lines, lines
    # The server saw the browser drop the request: the fetch was really aborted. (Had it not
    # been, the 5 s body would end as "completed"; wait long enough to tell the two apart.)
    wait_for(lambda: slow_log.outcomes, 15, "the end of the slow request")
    assert slow_log.outcomes == ["disconnected"]
    summary = call(page, "summary", "t1")
    assert [(a["name"], a["status"]) for a in summary["pending"]] == [("slow_fetch", "unavailable")]
    assert summary["status"] == "running"
    assert len(agent_log.bodies) == 1  # no follow-up while a call of the turn is unresolved

    # Re-inserted: the call runs again and completes; the agent receives exactly one result.
    page.evaluate("window.__slow_seconds = 0.2")
    unpark(page, "c3")
    wait_log(page, "fetch completed")
    wait_answered(page, "t1")
    follow_up = agent_log.bodies[-1]
    results = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert len(results) == 1 and results[0]["content"].startswith("fetched ")
    assert slow_log.outcomes == ["disconnected", "completed"]


@BOTH_MODES
@pytest.mark.parametrize(
    ("how", "expected_reason", "tool_message"),
    [
        ("cancel", "cancelled", "no longer needed"),
        ("stop", "stopped by the user", "stopped by the user"),
    ],
)
def test_abort_on_cancel_and_stop(scopes, agent_log, how, expected_reason, tool_message):
    page = scopes
    call(page, "send_later", "t1", "wait forever")
    wait_log(page, "wait started")
    if how == "cancel":
        call(page, "cancel", "t1", "no longer needed")
    else:
        call(page, "stop", "t1")
    wait_log(page, "wait finally")
    assert f"wait finally reason={expected_reason}" in log(page), log(page)
    wait_answered(page, "t1", answered=how == "cancel")
    summary = call(page, "summary", "t1")
    tool_messages = [m for m in summary["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 1 and tool_message in tool_messages[0]["content"]
    if how == "cancel":
        # The cancellation went to the agent as the call's error result, in the follow-up.
        sent = [m for m in agent_log.bodies[-1]["messages"] if m["role"] == "tool"]
        assert len(agent_log.bodies) == 2 and tool_message in sent[0]["content"]
    else:
        assert len(agent_log.bodies) == 1  # no follow-up after a stop


@BOTH_MODES
def test_abort_on_timeout(scopes, agent_log):
    page = scopes
    call(page, "send", "t1", "wait briefly")
    assert "briefly finally reason=timeout" in log(page)
    sent = [m for m in agent_log.bodies[-1]["messages"] if m["role"] == "tool"]
    assert "timed out" in sent[0]["content"]


def make_unavailable(page, text: str) -> None:
    """Send `text` in t2; as soon as the tool call starts streaming, its tool's element leaves."""
    call(page, "park_on_tool_call", "t2", "c2")
    call(page, "send_later", "t2", text)
    wait_log(page, "parked c2")
    wait_summary(page, "t2", lambda summary: any(a["status"] == "unavailable" for a in summary["pending"]),
                 "had an unavailable call")


@BOTH_MODES
def test_unavailable_call_waits_then_runs_on_remount(scopes, agent_log):
    page = scopes
    make_unavailable(page, "set the heading to Later slowly")
    assert "set_heading" in tools_of(agent_log.bodies[0])
    assert len(agent_log.bodies) == 1 and page.locator("h1").text_content() == "scopes"
    unpark(page, "c2")
    # The remount reached the thread (in a worker, once the page's mutation record has
    # crossed): the call runs, then its follow-up is answered.
    page.wait_for_function("document.querySelector('h1').textContent === 'Later'", timeout=20_000, polling=50)
    wait_answered(page, "t2")
    sent = [m for m in agent_log.bodies[-1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in sent] == ["heading is now Later"]


@BOTH_MODES
def test_unavailable_call_cancelled_reaches_the_agent(scopes, agent_log):
    page = scopes
    make_unavailable(page, "set the heading to Never slowly")
    call(page, "cancel", "t2", "the heading panel was closed")
    wait_answered(page, "t2")
    sent = [m for m in agent_log.bodies[-1]["messages"] if m["role"] == "tool"]
    assert len(sent) == 1 and "the heading panel was closed" in sent[0]["content"]
    assert sent[0].get("error")
    answer = agent_log.bodies[-1]  # the agent answered, quoting the failure
    assert answer and page.locator("h1").text_content() == "scopes"


def test_100_chat_panels_are_freed_and_the_heap_does_not_grow(scopes):
    """Chat panels (a thread, a Chat, a component-scoped tool, one round trip each) come and
    go: closed, removed with nothing else done, or with their registration disposed first."""
    page = scopes
    cdp = page.context.new_cdp_session(page)

    def js_heap() -> int:
        cdp.send("HeapProfiler.collectGarbage")
        return cdp.send("Runtime.getHeapUsage")["usedSize"]

    call(page, "trace_proxies")
    warm = call(page, "panels", 12)  # warm-up: imports, caches, first-use allocations
    heap_before = js_heap()
    after = call(page, "panels", 100)
    heap_after = js_heap()
    figures = {
        "live_proxies": (warm["live_proxies"], after["live_proxies"]),
        "python_objects": (warm["python_objects"], after["python_objects"]),
        "js_heap_bytes": (heap_before, heap_after),
    }
    print("100 chat panels:", figures)
    assert warm["tracing_works"] and after["tracing_works"]
    assert after["errors"] == [] and after["results"] == ["cycle 99"]
    # Every thread and chat of the 112 panels is gone (weak references), whichever way it left.
    assert after["panels"] == 112 and after["threads_alive"] == 0 and after["chats_alive"] == 0, after
    assert after["agent_threads"] == warm["agent_threads"] == 2   # the page's t1 and t2
    assert after["watched"] == warm["watched"], after               # no mount watch left behind
    assert after["marked"] == 0                                     # no element still marked
    assert after["live_proxies"] == warm["live_proxies"], figures
    assert after["python_objects"] - warm["python_objects"] < 100, figures  # < 1 object a panel
    assert heap_after - heap_before < 1_000_000, figures