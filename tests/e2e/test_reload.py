"""Threads kept in IndexedDB across reloads, in Chromium: a reload at every step of a tool
round trip answers each call exactly once; two tabs on one thread, one holds it.

The page is web/tests/store.html on the scripted agent `POST /agent/scripted` (tests/conftest.py).
"""

from __future__ import annotations

import json
import uuid
from collections import Counter

from playwright.sync_api import expect

from tests.e2e.conftest import BOOT_TIMEOUT_MS, wait_ready

TIMEOUT = 20_000


def send(page, text: str) -> None:
    page.locator(".pyclient-form input").fill(text)
    page.locator(".pyclient-send").click()


def wait_saved(page, fragment: str) -> None:
    """Wait until the page's store has finished a save whose summary contains `fragment`."""
    page.wait_for_function(f"(document.documentElement.dataset.saved || '').includes({json.dumps(fragment)})",
                           timeout=TIMEOUT, polling=25)


def reload(page) -> None:
    page.reload()
    wait_ready(page, BOOT_TIMEOUT_MS)


def card(page, call_id: str):
    return page.locator(f'.pyclient-tool[data-tool-call-id="{call_id}"]')


def runs(page, thread: str) -> int:
    return int(page.evaluate(f"localStorage.getItem('runs:{thread}') || '0'"))


def answers_delivered(bodies: list[dict]) -> Counter:
    """Per toolCallId, how many requests delivered its answer (the tool messages after the last
    message that is not one: what a follow-up carries). No request holds two for one call."""
    delivered: Counter = Counter()
    for body in bodies:
        messages = body["messages"]
        ids = [m["toolCallId"] for m in messages if m["role"] == "tool"]
        assert len(ids) == len(set(ids)), f"two tool messages for one call: {ids}"
        i = len(messages)
        while i and messages[i - 1]["role"] == "tool":
            i -= 1
        delivered.update(m["toolCallId"] for m in messages[i:])
    return delivered


def test_reload_at_every_step_of_a_round_trip(page, agent_log):
    thread = f"reload-{uuid.uuid4().hex[:8]}"
    page.goto(f"/tests/store.html?thread={thread}")
    wait_ready(page, BOOT_TIMEOUT_MS)

    def bodies() -> list[dict]:
        return [b for b in agent_log.bodies if b.get("threadId") == thread]

    # 1. streaming: the agent streamed a text and call1, and holds the run open.
    send(page, "call hold")
    wait_saved(page, "STREAMING call1=streaming")
    reload(page)
    interrupted = page.locator('.pyclient-assistant[data-interrupted="true"]')
    expect(interrupted).to_have_text("On it.")                # the partial text, marked
    expect(card(page, "call1")).to_have_attribute("data-state", "output-error")
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle")

    # 2. awaiting approval (act) and awaiting input (ask): the next send works.
    send(page, "call pair hold-followup")
    wait_saved(page, "call2=awaiting_approval call2b=awaiting_input")
    reload(page)

    # 3. executing: asked again after the reload; approved; the handler hangs.
    expect(card(page, "call2").locator(".pyclient-approve")).to_be_visible(timeout=TIMEOUT)
    assert runs(page, thread) == 0
    page.evaluate("window.actMode = 'hang'")
    card(page, "call2").locator(".pyclient-approve").click()
    wait_saved(page, "call2=executing")
    reload(page)

    # 4. result computed: interrupted, never run again by itself; Retry runs it; ask still waits.
    expect(card(page, "call2")).to_have_attribute("data-action", "interrupted", timeout=TIMEOUT)
    assert runs(page, thread) == 1
    expect(card(page, "call2").locator(".pyclient-cancel")).to_be_visible()
    # A script's synthetic click is not the user's: ignored (the Chat says so in the console).
    with page.expect_console_message(lambda m: "ignored an untrusted click for call2" in m.text):
        card(page, "call2").locator(".pyclient-retry").dispatch_event("click")
    expect(card(page, "call2")).to_have_attribute("data-action", "interrupted")
    assert runs(page, thread) == 1
    card(page, "call2").locator(".pyclient-retry").click()
    wait_saved(page, "call2=completed call2b=awaiting_input")
    assert runs(page, thread) == 2
    reload(page)

    # 5. follow-up in flight: answering ask sends the follow-up; the agent holds it open.
    expect(card(page, "call2")).to_have_attribute("data-state", "output-available", timeout=TIMEOUT)
    expect(card(page, "call2").locator(".pyclient-tool-result")).to_have_text("acted 2")
    expect(card(page, "call2b")).to_have_attribute("data-action", "awaiting_input", timeout=TIMEOUT)
    before = len(bodies())
    page.evaluate("window.submitInput('call2b', 'blue')")
    wait_saved(page, "STREAMING call1=cancelled/sent call2=completed/sent call2b=completed/sent")
    # The reply is streaming: the server has the follow-up (saved as sent before it went out).
    expect(page.locator(".pyclient-assistant").last).to_have_text("Thanks, I am", timeout=TIMEOUT)
    assert len(bodies()) == before + 1
    reload(page)

    # 6. The follow-up is not sent again; the conversation goes on.
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle", timeout=TIMEOUT)
    assert len(bodies()) == before + 1
    send(page, "thanks")
    # 8 messages: go, On it. + call1, call1's answer, call pair, On it. + call2 + call2b, two answers, thanks
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply 8", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle")

    all_bodies = bodies()
    assert len(all_bodies) == 4        # call hold, call pair, the follow-up, thanks
    assert answers_delivered(all_bodies) == {"call2": 1, "call2b": 1}
    last = all_bodies[-1]["messages"]
    assert Counter(m["toolCallId"] for m in last if m["role"] == "tool") == {"call1": 1, "call2": 1, "call2b": 1}
    assert [m["content"] for m in last if m["role"] == "tool"][1:] == ["acted 2", "blue"]
    assert runs(page, thread) == 2


def test_two_tabs_on_one_thread_one_holds_it(page, context, agent_log):
    thread = f"tabs-{uuid.uuid4().hex[:8]}"
    url = f"/tests/store.html?thread={thread}&plain=1"
    page.goto(url)
    wait_ready(page, BOOT_TIMEOUT_MS)
    assert page.evaluate("document.documentElement.dataset.readOnly") == "false"
    send(page, "hello")
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply 1", timeout=TIMEOUT)

    second = context.new_page()
    second.goto(url)
    wait_ready(second, BOOT_TIMEOUT_MS)
    assert second.evaluate("document.documentElement.dataset.readOnly") == "true"
    expect(second.locator(".pyclient-chat")).to_have_attribute("data-read-only", "true")
    expect(second.locator(".pyclient-run-status")).to_have_text("Read-only: open in another tab")
    expect(second.locator(".pyclient-send")).to_be_disabled()
    expect(second.locator(".pyclient-assistant")).to_have_text(["reply 1"])   # the history, shown

    # The first tab goes on; once it is gone, the other holds the thread after a reload.
    send(page, "more")
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply 3", timeout=TIMEOUT)
    page.close()
    reload(second)
    assert second.evaluate("document.documentElement.dataset.readOnly") == "false"
    expect(second.locator(".pyclient-assistant")).to_have_text(["reply 1", "reply 3"])
    send(second, "mine")
    expect(second.locator(".pyclient-assistant").last).to_have_text("reply 5", timeout=TIMEOUT)
    assert [b["messages"][-1]["content"] for b in agent_log.bodies if b.get("threadId") == thread] == \
        ["hello", "more", "mine"]
    second.close()
