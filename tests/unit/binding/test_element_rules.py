"""Element rules (pyclient._binding._elements) on CPython, over the in-memory `FakeDom`.

Threads and tool registrations live while their element is connected. Connection changes
reach the core as in the page: a `dom.flush()` plays the `MutationObserver` a microtask
later, and the core's refresh (`dom.check()`) before every resolution sees a removal at
once. Requests go to a `ScriptedAgent` in this process (`tests.helpers.agent_for`).
"""

from __future__ import annotations

import asyncio
import gc
import re
import weakref

import pytest

import pyclient
from pyclient import ConfigurationError, LocalProtocolError, ToolContext, client_tool
from pyclient._binding._elements import THREAD_ATTRIBUTE, ElementRegistration
from pyclient._binding._platform import DomPlatform
from pyclient.testing import FakeDom, ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    calls_then_text,
    make_tool,
    text_only,
    tool_contents,
    tool_messages,
    tool_names,
)

# -- helpers -----------------------------------------------------------------------------------


@pytest.fixture
def dom():
    dom = FakeDom()
    yield dom
    assert dom.errors == [], "a watch callback raised"


@pytest.fixture
def platform(dom):
    return DomPlatform(dom)


def names(thread) -> list[str]:
    return [tool.name for tool in thread.available_tools()]


def agent_on(platform, server: ScriptedAgent | None = None, tools=(), name: str = "test"):
    agent = agent_for(server or text_only(), tools, platform=platform)
    agent.name = name
    return agent


def mounted_events(thread) -> list[bool]:
    seen: list[bool] = []
    thread.subscribe(lambda event: event.kind == "mounted" and seen.append(event.payload))
    return seen


class Held:
    """A `save_note` tool whose first execution waits until it is aborted (or `release`d);
    later executions return at once. Events let the test await each step, never a delay."""

    def __init__(self) -> None:
        self.contexts: list[ToolContext] = []
        self.finished: list[str] = []
        self.reasons: list[object] = []          # ctx.signal.reason as each execution unwinds
        self.started = [asyncio.Event(), asyncio.Event()]
        self.unwound = asyncio.Event()
        self.release = asyncio.Event()

        async def save_note(key: str, ctx: ToolContext) -> str:
            n = len(self.contexts)
            self.contexts.append(ctx)
            self.started[min(n, 1)].set()
            try:
                if n == 0:
                    await self.release.wait()
                self.finished.append(f"returned {n}")
                return f"saved {key} (execution {n})"
            finally:
                self.finished.append(f"finally {n}")
                self.reasons.append(ctx.signal.reason)
                if n == 0:
                    self.unwound.set()

        save_note.__doc__ = "Save a note in this page."
        self.tool = client_tool(save_note)


def one_call() -> ScriptedAgent:
    return calls_then_text([("c1", "save_note", {"key": "todo"})])


async def settle(turns: int = 10) -> None:
    """Let the event loop run every ready callback a few times (no wall-clock wait)."""
    for _ in range(turns):
        await asyncio.sleep(0)


def docstring_example(module) -> str:
    return re.search(r"```python\n(.*?)```", module.__doc__, re.S).group(1)


# -- the fake DOM behaves as the page's observer -------------------------------------------------


def test_fakedom_reports_connection_changes_on_flush_or_check_never_synchronously(dom):
    panel = dom.body.append_child("section", id="chat")
    inner = panel.append_child("div")
    seen: list[tuple[str, bool]] = []
    unwatch_panel = dom.watch(panel, lambda c: seen.append(("panel", c)))
    dom.watch(inner, lambda c: seen.append(("inner", c)))
    assert dom.watch_count == len(dom.watches) == 2
    panel.remove()
    assert not panel.is_connected and not inner.is_connected and seen == [] and dom.pending
    dom.flush()
    assert seen == [("panel", False), ("inner", False)] and not dom.pending
    dom.body.append(panel)
    dom.check()                                  # at once, without a flush
    assert seen[2:] == [("panel", True), ("inner", True)]
    # Removed and re-inserted before anyone looks: nothing to report, as in the page.
    panel.remove()
    dom.body.append(panel)
    dom.flush()
    assert len(seen) == 4
    unwatch_panel()
    unwatch_panel()                              # idempotent
    inner.remove()
    dom.flush()
    assert seen[4:] == [("inner", False)] and dom.watch_count == 1


def test_fakedom_finds_elements_and_refuses_what_is_none(dom):
    panel = dom.body.append_child("section", id="chat")
    div = panel.append_child("div", id="tools")
    assert dom.element("#chat", "x") is panel and dom.element("div", "x") is div
    assert dom.element("section#chat", "x") is panel and dom.element(panel, "x") is panel
    with pytest.raises(ConfigurationError, match="'#nope'"):
        dom.element("#nope", "agent.thread()")
    div.remove()                                 # querySelector only sees the document
    with pytest.raises(ConfigurationError, match="'#tools'"):
        dom.element("#tools", "agent.thread()")
    for not_an_element in (42, None, dom.document, object()):
        with pytest.raises(ConfigurationError, match="agent.thread\\(\\) needs a DOM element"):
            dom.element(not_an_element, "agent.thread()")
    with pytest.raises(ConfigurationError, match="another FakeDom"):
        dom.element(FakeDom().body, "agent.thread()")
    assert dom.contains(panel, panel) and dom.contains(dom.body, panel) and not dom.contains(panel, dom.body)
    dom.set_attribute(panel, "data-x", "1")
    assert dom.closest_attribute(div, "data-x") is None       # div is detached from panel now
    panel.append(div)
    assert dom.closest_attribute(div, "data-x") == "1" and dom.attribute(div, "data-x") is None
    dom.set_attribute(panel, "data-x", None)
    assert "data-x" not in panel.attributes and dom.closest_attribute(div, "data-x") is None


@pytest.mark.parametrize("module", ["pyclient._binding._elements", "pyclient.testing._dom"])
def test_the_docstring_examples_run_as_written(module):
    import importlib

    exec(compile(docstring_example(importlib.import_module(module)), module, "exec"), {})


# -- mounting threads ----------------------------------------------------------------------------


def test_a_thread_on_a_selector_marks_its_element_and_the_same_call_returns_it(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    other = dom.body.append_child("section", id="other")
    agent = agent_on(platform)
    thread = agent.thread("#chat")
    assert panel.attributes[THREAD_ATTRIBUTE] == thread.thread_id and thread.element is panel
    assert dom.watch_count == 1
    # The same call twice (by selector, by element, by its own id): one element, one thread.
    assert agent.thread("#chat") is thread
    assert agent.thread(panel) is thread
    assert agent.thread(panel, thread_id=thread.thread_id) is thread
    assert dom.watch_count == 1 and agent.threads == [thread]
    named = agent.thread(other, thread_id="t-other")
    assert named.thread_id == "t-other" and other.attributes[THREAD_ATTRIBUTE] == "t-other"
    assert named is not thread and dom.watch_count == 2


def test_a_mounted_element_refuses_another_agent_or_another_thread_id(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    first, second = agent_on(platform, name="first"), agent_on(platform, name="second")
    thread = first.thread("#chat")
    with pytest.raises(ConfigurationError, match=re.escape(f"{thread.thread_id!r} of agent 'first'")):
        second.thread("#chat")
    with pytest.raises(ConfigurationError, match="already carries thread"):
        first.thread(panel, thread_id="another-id")
    assert panel.attributes[THREAD_ATTRIBUTE] == thread.thread_id and dom.watch_count == 1
    assert second.threads == [] and first.threads == [thread]
    # One thread id, two elements: refused too.
    dom.body.append_child("section", id="elsewhere")
    with pytest.raises(ConfigurationError, match="already mounted on another element"):
        second.thread("#elsewhere", thread_id=thread.thread_id)
    assert THREAD_ATTRIBUTE not in dom.query("#elsewhere").attributes


def test_a_missing_selector_or_a_non_element_is_a_configuration_error_naming_it(dom, platform):
    agent = agent_on(platform)
    with pytest.raises(ConfigurationError, match=re.escape("agent.thread(): no element matches the selector '#missing'")):
        agent.thread("#missing")
    with pytest.raises(ConfigurationError, match="needs a DOM element or a CSS selector, got int"):
        agent.thread(42)
    with pytest.raises(ConfigurationError, match=re.escape("agent.use_client_tool(): no element matches the selector '#gone'")):
        agent.use_client_tool(make_tool("t"), "#gone")
    with pytest.raises(ConfigurationError, match=re.escape("use_client_tool(): no element matches the selector '#gone'")):
        pyclient.use_client_tool(make_tool("t"), "#gone", platform=platform)
    assert dom.watch_count == 0 and agent.threads == []


def test_a_closed_threads_element_takes_a_new_thread(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    first, second = agent_on(platform, name="first"), agent_on(platform, name="second")
    old = first.thread("#chat")
    old.close()
    assert THREAD_ATTRIBUTE not in panel.attributes and old.element is None
    new = first.thread("#chat")
    assert new is not old and new.thread_id != old.thread_id
    assert panel.attributes[THREAD_ATTRIBUTE] == new.thread_id and new.element is panel
    new.close()
    # Another agent may take it as well; the closed id may be mounted again elsewhere.
    other = second.thread(panel)
    assert other.agent is second and panel.attributes[THREAD_ATTRIBUTE] == other.thread_id
    reused = first.thread(dom.body.append_child("div"), thread_id=old.thread_id)
    assert reused.thread_id == old.thread_id and reused is not old
    assert dom.watch_count == 2


# -- the mounted event -------------------------------------------------------------------------


def test_mounted_events_follow_the_element_once_the_observer_reports(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    thread = agent_on(platform).thread("#chat")
    seen = mounted_events(thread)
    panel.remove()
    assert seen == []                            # not synchronously...
    dom.flush()
    assert seen == [False]                       # ...but once the observer runs
    dom.body.append(panel)
    dom.flush()
    assert seen == [False, True]
    panel.remove()
    dom.body.append(panel)
    dom.flush()
    assert seen == [False, True]                 # no change by the time it looked
    # The refresh before a resolution reports a removal at once.
    panel.remove()
    thread.available_tools()
    assert seen == [False, True, False]
    dom.flush()
    assert seen == [False, True, False]          # reported once
    # A moved element stays connected: no event.
    dom.body.append(panel)
    dom.flush()
    dom.body.append_child("main").append(panel)
    dom.flush()
    assert seen == [False, True, False, True]


# -- use_client_tool -----------------------------------------------------------------------------


def test_agent_tool_inside_one_of_its_thread_elements_belongs_to_that_thread(dom, platform):
    t1_el = dom.body.append_child("section", id="t1")
    dom.body.append_child("section", id="t2")
    agent = agent_on(platform, tools=[make_tool("binding")])
    t1, t2 = agent.thread("#t1"), agent.thread("#t2")
    deep = t1_el.append_child("div").append_child("span")
    handle = agent.use_client_tool(make_tool("local"), deep)
    assert isinstance(handle, ElementRegistration) and handle.element is deep and handle.mounted
    assert handle.registration.level == "thread" and handle.registration in t1.scope.registrations
    assert names(t1) == ["binding", "local"] and names(t2) == ["binding"]
    with pytest.raises(ConfigurationError, match="replace=True"):
        agent.use_client_tool(make_tool("local"), t1_el)
    agent.use_client_tool(make_tool("local"), t1_el, replace=True)
    assert names(t1) == ["binding", "local"]


def test_agent_tool_around_thread_elements_applies_to_the_threads_it_encloses(dom, platform):
    wrapper = dom.body.append_child("div", id="wrapper")
    wrapper.append_child("section", id="t1")
    t2_el = wrapper.append_child("section", id="t2")
    dom.body.append_child("section", id="t3")
    agent, other_agent = agent_on(platform, name="a"), agent_on(platform, name="b")
    t1, t2, t3 = agent.thread("#t1"), agent.thread("#t2"), agent.thread("#t3")
    handle = agent.use_client_tool(make_tool("wrapper_tool"), wrapper)
    assert handle.registration.level == "agent" and handle.registration in agent.scope.registrations
    assert names(t1) == names(t2) == ["wrapper_tool"] and names(t3) == []
    # Threads mounted later inside the wrapper get it too; another agent's threads never do.
    t4 = agent.thread(wrapper.append_child("section"))
    foreign = other_agent.thread(wrapper.append_child("section"))
    assert names(t4) == ["wrapper_tool"] and names(foreign) == []
    # A thread element moved out of the wrapper leaves it.
    dom.body.append(t2_el)
    assert names(t2) == [] and names(t1) == ["wrapper_tool"]
    # The wrapper itself leaving: nothing for anyone (even before the observer reports).
    wrapper.remove()
    assert names(t1) == names(t4) == [] and not handle.mounted
    dom.body.append(wrapper)
    assert names(t1) == names(t4) == ["wrapper_tool"] and handle.mounted


def test_agent_tool_inside_another_agents_thread_element_is_not_that_threads(dom, platform):
    b_el = dom.body.append_child("section", id="b")
    agent_a, agent_b = agent_on(platform, name="a"), agent_on(platform, name="b")
    thread_b = agent_b.thread(b_el)
    handle = agent_a.use_client_tool(make_tool("a_tool"), b_el.append_child("div"))
    assert handle.registration.level == "agent" and names(thread_b) == []


def test_package_use_client_tool_registers_on_the_nearest_thread_of_any_agent(dom, platform):
    outer = dom.body.append_child("section", id="outer")
    inner = outer.append_child("section", id="inner")
    agent_a, agent_b = agent_on(platform, name="a"), agent_on(platform, name="b")
    thread_a, thread_b = agent_a.thread(outer), agent_b.thread(inner)
    in_inner = pyclient.use_client_tool(make_tool("heading"), inner.append_child("div"), platform=platform)
    assert in_inner.registration.level == "thread" and in_inner.registration in thread_b.scope.registrations
    assert names(thread_b) == ["heading"] and names(thread_a) == []
    in_outer = pyclient.use_client_tool(make_tool("heading"), outer.append_child("div"), platform=platform)
    assert in_outer.registration in thread_a.scope.registrations
    assert names(thread_a) == ["heading"] and names(thread_b) == ["heading"]
    with pytest.raises(ConfigurationError, match="replace=True"):
        pyclient.use_client_tool(make_tool("heading"), "#inner", platform=platform)


def test_package_use_client_tool_outside_any_thread_element_is_a_configuration_error(dom, platform):
    agent = agent_on(platform)
    loose = dom.body.append_child("div", id="loose")
    with pytest.raises(ConfigurationError, match=f"not inside a thread element.*{THREAD_ATTRIBUTE}"):
        pyclient.use_client_tool(make_tool("t"), loose, platform=platform)
    # Nor inside the element of a closed thread: it was released.
    closed_el = dom.body.append_child("section")
    agent.thread(closed_el).close()
    with pytest.raises(ConfigurationError, match="not inside a thread element"):
        pyclient.use_client_tool(make_tool("t"), closed_el.append_child("div"), platform=platform)
    assert dom.watch_count == 0
    # CPython's platform has no DOM at all.
    with pytest.raises(ConfigurationError, match="needs the page"):
        pyclient.use_client_tool(make_tool("t"), loose, platform=pyclient.Platform())


# -- snapshots follow the elements ---------------------------------------------------------------


def test_a_removed_registration_is_left_out_of_the_next_snapshot_before_any_flush(dom, platform):
    server = text_only()
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform, server)
    thread = agent.thread("#chat")
    host = panel.append_child("div")
    handle = agent.use_client_tool(make_tool("local"), host)
    assert names(thread) == ["local"]
    host.remove()
    assert dom.pending and handle.registration.mounted       # nobody was told yet...
    assert names(thread) == []                               # ...the snapshot refreshes first
    assert not handle.mounted
    panel.append(host)
    assert dom.pending and names(thread) == ["local"]        # back, again before any flush

    async def main():
        host.remove()                                        # no flush: the request's own refresh
        await thread.send("one")
        panel.append(host)
        await thread.send("two")

    arun(main())
    assert tool_names(bodies(server)[0]) == [] and tool_names(bodies(server)[1]) == ["local"]


def test_removing_a_running_calls_element_aborts_it_and_reinsertion_runs_it_once(dom, platform):
    server, held = one_call(), Held()
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform, server)
    thread = agent.thread("#chat")
    host = panel.append_child("div")
    handle = agent.use_client_tool(held.tool, host)

    async def main():
        task = asyncio.create_task(thread.send("save"))
        await held.started[0].wait()
        [action] = thread.pending_actions
        assert action.status == "executing" and action.registration is handle.registration
        first = held.contexts[0]
        host.remove()
        dom.flush()
        assert action.status == "unavailable" and action.registration is None
        await held.unwound.wait()
        assert first.signal.aborted and first.signal.reason == "unmounted"
        assert held.finished == ["finally 0"] and held.reasons == ["unmounted"]
        held.release.set()                                   # a late wake-up changes nothing
        await settle()
        assert not task.done() and thread.run_status == "running"
        assert action.status == "unavailable" and len(bodies(server)) == 1
        assert [m for m in thread.messages if m.role == "tool"] == []
        panel.append(host)
        dom.flush()
        assert action.status in ("executing", "completed")
        await task

    arun(main())
    assert held.finished == ["finally 0", "returned 1", "finally 1"]
    assert len(bodies(server)) == 2
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 1)"]
    assert sum(len(tool_messages(bodies(server)[n])) for n in range(len(bodies(server)))) == 1
    assert thread.run_status == "idle"


# -- close ---------------------------------------------------------------------------------------


def test_close_aborts_the_running_handler_unmarks_and_refuses_to_send(dom, platform):
    server, held = one_call(), Held()
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform, server)
    thread = agent.thread("#chat")
    handle = agent.use_client_tool(held.tool, panel.append_child("div"))
    events: list[tuple[str, object]] = []
    thread.subscribe(lambda e: e.kind != "event" and events.append((e.kind, e.payload)))

    async def main():
        task = asyncio.create_task(thread.send("save"))
        await held.started[0].wait()
        [action] = thread.pending_actions
        thread.close()
        assert thread.run_status == "closed"
        assert action.signal.aborted and action.signal.reason == "closed"
        await held.unwound.wait()                            # the handler was stopped...
        held.release.set()
        await task                                           # ...and the send returns
        with pytest.raises(LocalProtocolError, match="closed"):
            await thread.send("again")
        with pytest.raises(LocalProtocolError, match="closed"):
            await thread.run()
        return action

    action = arun(main())
    assert held.contexts[0].signal.aborted and held.finished == ["finally 0"]
    assert action.status == "cancelled" and "closed" in action.result.content
    assert ("status", "closed") in events and ("closed", None) in events
    assert THREAD_ATTRIBUTE not in panel.attributes and thread.element is None
    assert handle.registration.disposed and not handle.mounted
    assert thread.scope.registrations == [] and names(thread) == []
    assert len(bodies(server)) == 1                           # no follow-up after close
    with pytest.raises(LocalProtocolError, match="closed"):
        thread.register_tool(make_tool("late"))
    thread.close()                                           # idempotent
    assert [kind for kind, _ in events].count("closed") == 1


def test_close_the_running_handlers_own_signal_says_closed(dom, platform):
    held = Held()
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform, one_call())
    thread = agent.thread("#chat")
    agent.use_client_tool(held.tool, panel.append_child("div"))

    async def main():
        task = asyncio.create_task(thread.send("save"))
        await held.started[0].wait()
        thread.close()
        await held.unwound.wait()
        await task

    arun(main())
    # What the handler sees while it unwinds, and after: the reason of action.signal, as for
    # stop() ("stopped by the user"), unmount ("unmounted") and the other aborts.
    assert held.reasons == ["closed"]
    assert held.contexts[0].signal.reason == "closed"


def test_close_releases_the_watches_and_the_element_stops_reporting(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform)
    baseline = dom.watch_count
    thread = agent.thread("#chat")
    agent.use_client_tool(make_tool("local"), panel.append_child("div"))   # handle not kept
    assert dom.watch_count == baseline + 2                   # the thread's and the registration's
    seen = mounted_events(thread)
    thread.close()
    assert dom.watch_count == baseline and agent.threads == []
    panel.remove()
    dom.flush()
    assert seen == []                                        # nobody watches the element any more


def test_close_releases_the_watch_of_a_registration_whose_handle_is_still_held(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform)
    baseline = dom.watch_count
    thread = agent.thread("#chat")
    handle = agent.use_client_tool(make_tool("local"), panel.append_child("div"))
    thread.close()
    assert handle.registration.disposed
    assert dom.watch_count == baseline


# -- freeing -------------------------------------------------------------------------------------


def test_a_removed_thread_nobody_references_is_freed_with_its_watches(dom, platform):
    server = calls_then_text([("c1", "local", {})])
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform, server)
    baseline = dom.watch_count

    async def main():
        thread = agent.thread("#chat")
        handle = agent.use_client_tool(make_tool("local"), panel.append_child("div"))
        await thread.send("use it")                          # a full round trip first
        assert thread.run_status == "idle" and tool_contents(bodies(server)[1]) == ["local"]
        ref = weakref.ref(thread)
        del thread, handle
        return ref

    ref = arun(main())
    gc.collect()
    assert ref() is not None, "a connected thread is kept by the platform"
    assert agent.thread("#chat") is ref()                    # and found again by the same call
    assert dom.watch_count == baseline + 2
    panel.remove()
    dom.flush()
    gc.collect()
    assert ref() is None, "a removed thread nobody references must be freed"
    assert dom.watch_count == baseline and agent.threads == []
    assert THREAD_ATTRIBUTE not in panel.attributes
    # The element can carry a new thread.
    dom.body.append(panel)
    assert agent.thread(panel).thread_id != bodies(server)[0]["threadId"]


def test_a_removed_thread_that_returns_is_held_by_the_platform_again(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform)
    thread = agent.thread("#chat")
    ref = weakref.ref(thread)
    panel.remove()
    dom.flush()
    gc.collect()
    assert ref() is thread                                   # its user still holds it
    dom.body.append(panel)
    dom.flush()
    del thread
    gc.collect()
    assert ref() is not None and ref().element is panel      # connected again: the platform holds it
    assert panel.attributes[THREAD_ATTRIBUTE] == ref().thread_id and dom.watch_count == 1


def test_a_registration_of_a_freed_thread_stops_watching(dom, platform):
    panel = dom.body.append_child("section", id="chat")
    agent = agent_on(platform)
    thread = agent.thread("#chat")
    pyclient.use_client_tool(make_tool("local"), panel.append_child("div"), platform=platform)
    assert dom.watch_count == 2
    ref = weakref.ref(thread)
    del thread
    panel.remove()
    dom.flush()
    gc.collect()
    assert ref() is None and dom.watch_count == 0


# -- dispose -------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["inside the thread element", "around the thread element"])
def test_disposing_a_handle_stops_its_watch_and_removes_the_tool(dom, platform, where):
    wrapper = dom.body.append_child("div", id="wrapper")
    panel = wrapper.append_child("section", id="chat")
    agent = agent_on(platform, tools=[make_tool("binding")])
    thread = agent.thread("#chat")
    host = panel.append_child("div") if where.startswith("inside") else wrapper
    handle = agent.use_client_tool(make_tool("local"), host)
    assert names(thread) == ["binding", "local"] and dom.watch_count == 2
    handle.dispose()
    assert dom.watch_count == 1 and names(thread) == ["binding"]
    assert handle.registration.disposed and not handle.mounted and handle.element is None
    assert handle.registration not in thread.scope.registrations + agent.scope.registrations
    # Its element coming and going changes nothing any more.
    host.remove()
    dom.flush()
    (panel if where.startswith("inside") else dom.body).append(host)
    dom.flush()
    assert names(thread) == ["binding"]
    handle.dispose()                                         # idempotent
    assert dom.watch_count == 1
    # The name is free again.
    agent.use_client_tool(make_tool("local"), host)
    assert names(thread) == ["binding", "local"]
