"""Threads kept in IndexedDB across reloads, in Chromium: a reload at every step of a tool
round trip answers each call exactly once; two tabs on one thread, one holds it.

The page is web/tests/store.html, driven with pyclient's own pytest plugin: `pyclient_page`
(guarded, opened on the repository's `web/` folder) and `scripted_agent` (answering `/agent`).
Both run with the page's Python on the main thread and in a worker (`BOTH_MODES`): there the
store is the worker's IndexedDB and the lock between tabs the worker's Web Lock.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter

from ag_ui.core import RunAgentInput
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from pyclient.testing import PyclientPage
from tests.e2e.pages import BOTH_MODES, READY, ChatPage

pytestmark = BOTH_MODES

TIMEOUT = 20_000


def wait_saved(page, fragment: str) -> None:
    """Wait until the page's store has finished a save whose summary contains `fragment`; when
    none comes, say what the last save held and what the chat shows (read-only, say)."""
    try:
        page.wait_for_function(f"(document.documentElement.dataset.saved || '').includes({json.dumps(fragment)})",
                               timeout=TIMEOUT, polling=25)
    except PlaywrightTimeoutError as exc:
        last = page.evaluate("document.documentElement.dataset.saved")
        raise AssertionError(f"no save with {fragment!r}: the last was {last!r}; {ChatPage(page).describe()}") from exc


def card(page, call_id: str):
    return page.locator(f'.pyclient-tool[data-tool-call-id="{call_id}"]')


def runs(page, thread: str) -> int:
    return int(page.evaluate(f"localStorage.getItem('runs:{thread}') || '0'"))


def answers_delivered(requests: list[RunAgentInput]) -> Counter:
    """Per toolCallId, how many requests delivered its answer (the tool messages after the last
    message that is not one: what a follow-up carries). No request holds two for one call."""
    delivered: Counter = Counter()
    for run in requests:
        messages = run.messages
        ids = [m.tool_call_id for m in messages if m.role == "tool"]
        assert len(ids) == len(set(ids)), f"two tool messages for one call: {ids}"
        i = len(messages)
        while i and messages[i - 1].role == "tool":
            i -= 1
        delivered.update(m.tool_call_id for m in messages[i:] if m.role == "tool")
    return delivered


def test_reload_at_every_step_of_a_round_trip(pyclient_page, scripted_agent, mode):
    thread = f"reload-{uuid.uuid4().hex[:8]}"
    scripted_agent.on("call hold").say("On it.").call("act", x="1", call_id="call1").hold()
    scripted_agent.on("call pair").say("On it.").call("act", x="2", call_id="call2").call(
        "ask", question="which colour?", call_id="call2b").then_say("Thanks, I am", hold=True)
    scripted_agent.on("thanks").say("You are welcome")
    page = pyclient_page.open(f"/tests/store.html?thread={thread}", ready=READY, worker=mode == "worker")

    def reload() -> None:
        pyclient_page.reload(ready=READY)

    # 1. streaming: the agent streamed a text and call1, and holds the run open.
    ChatPage(page).send("call hold")
    wait_saved(page, "STREAMING call1=streaming")
    reload()
    interrupted = page.locator('.pyclient-assistant[data-interrupted="true"]')
    expect(interrupted).to_have_text("On it.")                # the partial text, marked
    expect(card(page, "call1")).to_have_attribute("data-state", "output-error")
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle")

    # 2. awaiting approval (act) and awaiting input (ask): the next send works.
    ChatPage(page).send("call pair hold-followup")
    wait_saved(page, "call2=awaiting_approval call2b=awaiting_input")
    reload()

    # 3. executing: asked again after the reload; approved; the handler hangs.
    expect(card(page, "call2").locator(".pyclient-approve")).to_be_visible(timeout=TIMEOUT)
    assert runs(page, thread) == 0
    page.evaluate("window.actMode = 'hang'")
    card(page, "call2").locator(".pyclient-approve").click()
    wait_saved(page, "call2=executing")
    reload()

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
    reload()

    # 5. follow-up in flight: answering ask sends the follow-up; the agent holds it open.
    expect(card(page, "call2")).to_have_attribute("data-state", "output-available", timeout=TIMEOUT)
    expect(card(page, "call2").locator(".pyclient-tool-result")).to_have_text("acted 2")
    expect(card(page, "call2b")).to_have_attribute("data-action", "awaiting_input", timeout=TIMEOUT)
    before = len(scripted_agent.requests)
    page.evaluate("window.submitInput('call2b', 'blue')")
    wait_saved(page, "STREAMING call1=cancelled/sent call2=completed/sent call2b=completed/sent")
    # The reply is streaming: the server has the follow-up (saved as sent before it went out).
    expect(page.locator(".pyclient-assistant").last).to_have_text("Thanks, I am", timeout=TIMEOUT)
    assert len(scripted_agent.requests) == before + 1
    # The timed save of streaming text has kept it: the reload cuts a reply the store holds.
    wait_saved(page, "| Thanks, I am")
    reload()

    # 6. The follow-up is not sent again; the conversation goes on.
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle", timeout=TIMEOUT)
    assert len(scripted_agent.requests) == before + 1
    ChatPage(page).send("thanks")
    expect(page.locator(".pyclient-assistant").last).to_have_text("You are welcome", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle")

    requests = scripted_agent.requests
    assert len(requests) == 4        # call hold, call pair, the follow-up, thanks
    assert {r.thread_id for r in requests} == {thread}
    # 9 messages: call hold, On it. + call1, call1's answer, call pair, On it. + call2 + call2b, two
    # answers, the cut "Thanks, I am" (kept, and sent as the text the person saw), thanks
    assert len(requests[-1].messages) == 9
    assert [m.content for m in requests[-1].messages if m.role == "assistant"][-1] == "Thanks, I am"
    assert answers_delivered(requests) == {"call2": 1, "call2b": 1}
    last = requests[-1].messages
    assert Counter(m.tool_call_id for m in last if m.role == "tool") == {"call1": 1, "call2": 1, "call2b": 1}
    assert [m.content for m in last if m.role == "tool"][1:] == ["acted 2", "blue"]
    assert runs(page, thread) == 2


def test_two_tabs_on_one_thread_one_holds_it(pyclient_page, scripted_agent, mode):
    thread = f"tabs-{uuid.uuid4().hex[:8]}"
    for said, reply in (("hello", "reply 1"), ("more", "reply 3"), ("mine", "reply 5")):
        scripted_agent.on(said).say(reply)
    url = f"/tests/store.html?thread={thread}&plain=1"
    page = pyclient_page.open(url, ready=READY, worker=mode == "worker")
    assert page.evaluate("document.documentElement.dataset.readOnly") == "false"
    ChatPage(page).send("hello")
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply 1", timeout=TIMEOUT)

    other = PyclientPage(page.context.new_page())    # a second tab, guarded as well
    second = other.open(url, ready=READY, worker=mode == "worker")
    assert second.evaluate("document.documentElement.dataset.readOnly") == "true"
    expect(second.locator(".pyclient-chat")).to_have_attribute("data-read-only", "true")
    expect(second.locator(".pyclient-run-status")).to_have_text("Read-only: open in another tab")
    expect(second.locator(".pyclient-send")).to_be_disabled()
    expect(second.locator(".pyclient-assistant")).to_have_text(["reply 1"])   # the history, shown

    # The first tab goes on; once it is gone, the other holds the thread after a reload.
    ChatPage(page).send("more")
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply 3", timeout=TIMEOUT)
    # Shown is not yet saved: a tab closed before its save lands loses that answer (the save
    # follows the run's end; `send()` returns once it is done).
    assert page.evaluate("window.whenSaved()") is True
    page.close()
    other.reload(ready=READY)
    assert second.evaluate("document.documentElement.dataset.readOnly") == "false"
    expect(second.locator(".pyclient-assistant")).to_have_text(["reply 1", "reply 3"])
    ChatPage(second).send("mine")
    expect(second.locator(".pyclient-assistant").last).to_have_text("reply 5", timeout=TIMEOUT)
    assert [r.messages[-1].content for r in scripted_agent.requests] == ["hello", "more", "mine"]
    assert [len(r.messages) for r in scripted_agent.requests] == [1, 3, 5]   # the history the other tab kept
    other.check()
    second.close()


def test_a_lock_let_go_while_the_page_waits_for_it_is_taken_not_shown_read_only(pyclient_page, scripted_agent, mode):
    # A page reloaded while its worker answered a run can come back before the old worker let
    # the thread's lock go. Here another tab holds the lock from before the page's start and lets
    # it go as soon as the page's own request for it waits: the page must hold the thread, not
    # show it read-only ("open in another tab") for good. The holder is a tab of its own, as the
    # old worker is: a script in the page itself would run only when the page's busy main thread
    # lets it, which on a loaded machine came after the page had stopped waiting.
    thread = f"late-{uuid.uuid4().hex[:8]}"
    scripted_agent.on("hello").say("reply 1")
    holder = pyclient_page.page.context.new_page()
    holder.goto("/tests/store.py")   # any document of the site: a lock is its origin's
    holder.evaluate("""(name) => new Promise((held) => {
        navigator.locks.request(name, () => new Promise((release) => {
            const poll = async () => {
                const { pending } = await navigator.locks.query();
                if (pending.some((lock) => lock.name === name)) { window.__letGo = true; release(); }
                else setTimeout(poll, 20);
            };
            held();
            poll();
        }));
    })""", f"pyclient:store/{thread}")
    page = pyclient_page.open(f"/tests/store.html?thread={thread}&plain=1", ready=READY, worker=mode == "worker")
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle")
    assert holder.evaluate("window.__letGo") is True  # the page asked while the lock was held
    assert page.evaluate("document.documentElement.dataset.readOnly") == "false"
    ChatPage(page).send("hello")
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply 1", timeout=TIMEOUT)
    holder.close()


def test_a_lock_the_browser_grants_slowly_is_held_not_read_as_another_tabs(pyclient_page, scripted_agent, mode):
    # On a busy machine the browser can take seconds to grant a lock no tab holds. Here every
    # lock request of the page's interpreter reaches the browser 4 s late (`?slow_locks`: more
    # than HOLD_WAIT_MS, the wait for a lock another tab holds): the page must hold its thread,
    # not show it "open in another tab".
    thread = f"slow-lock-{uuid.uuid4().hex[:8]}"
    scripted_agent.on("hello").say("reply 1")
    page = pyclient_page.open(f"/tests/store.html?thread={thread}&plain=1&slow_locks=4000", ready=READY,
                              worker=mode == "worker")
    assert page.evaluate("document.documentElement.dataset.lockRequests") == "1"  # asked once, answered late
    assert page.evaluate("document.documentElement.dataset.readOnly") == "false"
    ChatPage(page).send("hello")
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply 1", timeout=TIMEOUT)
