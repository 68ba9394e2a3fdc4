"""Pending actions whose tool is not mounted ("unavailable"), and the abort reasons of executions."""

from __future__ import annotations

import asyncio

import pytest

from pyclient import ConfigurationError, ToolContext, client_tool
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    calls_then_text,
    settle,
    tool_contents,
    tool_messages,
    tool_names,
    until,
)


class Probe:
    """Records what the handler of `make_probe()` saw, execution by execution."""

    def __init__(self) -> None:
        self.started: list[ToolContext] = []
        self.finished: list[str] = []     # "returned" or "finally" per execution
        self.running = 0
        self.max_running = 0
        self.release: asyncio.Event | None = None


def make_probe(probe: Probe, *, name: str = "save_note", hold=lambda n: True, **options):
    """A tool that, for execution n, waits for `probe.release` when `hold(n)`, else returns."""

    async def handler(key: str, ctx: ToolContext) -> str:
        n = len(probe.started)
        probe.started.append(ctx)
        probe.running += 1
        probe.max_running = max(probe.max_running, probe.running)
        try:
            if hold(n):
                if probe.release is None:
                    probe.release = asyncio.Event()
                await probe.release.wait()
            probe.finished.append("returned")
            return f"saved {key} (execution {n})"
        finally:
            probe.running -= 1
            probe.finished.append("finally")

    handler.__doc__ = "Save a note in this browser."
    return client_tool(handler, name=name, **options)


def statuses(thread) -> list[str]:
    seen: list[str] = []
    thread.subscribe(lambda e: e.kind == "action" and not e.payload.done and seen.append(e.payload.status))
    return seen


async def start_unavailable(server: ScriptedAgent, tool=None, *, calls: int = 1,
                            unmount=lambda reg: reg.set_mounted(False)):
    """Send with `tool` (by default a probe nobody inspects) registered; it is unmounted while the
    calls stream, so they wait. Once `calls` actions are pending, returns the thread, the
    registration, the send's task and the pending actions."""
    thread = agent_for(server).thread()
    reg = thread.register_tool(tool or make_probe(Probe()))
    thread.subscribe(lambda e: e.kind == "event" and e.payload.type == "TOOL_CALL_START" and unmount(reg))
    task = asyncio.create_task(thread.send("save a note"))
    await until(lambda: len(thread.pending_actions) >= calls)
    return thread, reg, task, list(thread.pending_actions)


async def start_executing(thread, probe: Probe) -> asyncio.Task:
    """Send; return the send's task once the probe's first execution has started."""
    task = asyncio.create_task(thread.send("save"))
    await until(lambda: len(probe.started) == 1)
    return task


def one_call():
    return calls_then_text([("c1", "save_note", {"key": "todo"})])


def two_calls():
    return calls_then_text([("c1", "save_note", {"key": "a"}), ("c2", "save_note", {"key": "b"})])


# -- unavailable ---------------------------------------------------------------------------


def test_unavailable_call_runs_when_its_registration_mounts_and_the_follow_up_carries_it():
    probe, server = Probe(), one_call()

    async def main():
        thread, reg, task, [action] = await start_unavailable(server, make_probe(probe, hold=lambda n: False))
        seen = statuses(thread)
        assert action.status == "unavailable" and action.registration is None
        # The driver has no timers: while nothing answers or serves the call it must just wait.
        # `settle()` gives it ample loop turns to (wrongly) send a follow-up or run the handler.
        await settle()
        assert not task.done() and thread.run_status == "running" and len(server.requests) == 1
        assert probe.started == []
        reg.set_mounted(True)
        assert action.status == "executing" and action.registration is reg
        await task
        return thread, seen

    thread, seen = arun(main())
    assert seen == ["executing"]
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 0)"]
    assert thread.run_status == "idle" and thread.pending_actions == []
    # The follow-up advertises the tool again, since it is mounted now.
    assert tool_names(bodies(server)[1]) == ["save_note"]


def test_first_announcement_of_an_unavailable_call():
    async def main():
        thread = agent_for(one_call()).thread()
        reg = thread.register_tool(make_probe(Probe()))
        seen = statuses(thread)
        thread.subscribe(lambda e: e.kind == "event" and e.payload.type == "RUN_FINISHED" and reg.set_mounted(False))
        task = asyncio.create_task(thread.send("save"))
        await until(lambda: bool(thread.pending_actions))
        assert seen == ["unavailable"]
        thread.pending_actions[0].cancel()
        await task

    arun(main())


def test_a_new_registration_or_a_selecting_agent_registration_serves_an_unavailable_call():
    probe, server = Probe(), one_call()

    async def main():
        thread, _reg, task, [action] = await start_unavailable(server, unmount=lambda r: r.dispose())
        agent = thread.agent
        other = agent.thread()
        # An agent-level registration for another thread does not serve it.
        agent.register_tool(make_probe(probe, hold=lambda n: False), applies_to=lambda t: t is other)
        assert action.status == "unavailable"
        serving = agent.register_tool(make_probe(probe, hold=lambda n: False), applies_to=lambda t: t is thread,
                                      replace=True)
        assert action.registration is serving and action.tool is serving.tool
        await task

    arun(main())
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 0)"]


def test_unavailable_call_cancelled_sends_an_error_tool_message():
    server = one_call()

    async def main():
        thread, reg, task, [action] = await start_unavailable(server)
        signal = action.signal
        action.cancel("nobody can save notes here")
        assert signal.aborted and signal.reason == "cancelled"
        await task
        reg.set_mounted(True)   # too late: nothing runs
        return thread

    thread = arun(main())
    [tool] = tool_messages(bodies(server)[1])
    assert tool["content"] == "Tool call cancelled: nobody can save notes here" and tool["error"] == tool["content"]
    assert thread.run_status == "idle" and len(server.requests) == 2


def test_stop_cancels_an_unavailable_call_without_follow_up():
    server = one_call()

    async def main():
        thread, _reg, task, [action] = await start_unavailable(server)
        thread.stop()
        await task
        assert action.done and action.signal.reason == "stopped by the user"
        return thread

    thread = arun(main())
    assert len(server.requests) == 1 and thread.run_status == "idle"
    assert thread.messages[-1].role == "tool" and "cancelled: stopped by the user" in thread.messages[-1].content


def test_unavailable_call_can_be_rejected_or_failed():
    server = two_calls()

    async def main():
        thread, _reg, task, _actions = await start_unavailable(server, calls=2)
        thread.action("c1").reject("not now")
        thread.pending_actions[0].fail("no storage")
        await task

    arun(main())
    assert tool_contents(bodies(server)[1]) == ["rejected by the user: not now", "no storage"]


def test_follow_up_waits_for_every_call_of_the_turn():
    server = two_calls()

    async def main():
        tool = make_probe(Probe(), hold=lambda n: False)
        thread, reg, task, [first, second] = await start_unavailable(server, tool, calls=2)
        first.cancel()
        assert first.status == "cancelled" and second.status == "unavailable"
        # The cancel woke the driver; with no timers, whatever it does about it (a follow-up
        # would be wrong: c2 is unanswered) happens within the turns `settle()` gives it.
        await settle()
        assert len(server.requests) == 1 and [a.id for a in thread.pending_actions] == ["c2"]
        assert not task.done() and second.status == "unavailable"
        reg.set_mounted(True)
        await task

    arun(main())
    assert tool_contents(bodies(server)[1]) == ["Tool call cancelled", "saved b (execution 0)"]


def test_unavailable_tool_that_requires_approval_asks_first():
    probe, server = Probe(), one_call()

    async def main():
        tool = make_probe(probe, hold=lambda n: False, requires_approval=True)
        thread, reg, task, [action] = await start_unavailable(server, tool)
        reg.set_mounted(True)
        assert action.status == "awaiting_approval" and probe.started == []
        # Unmounting while it awaits approval makes it unavailable again; remounting asks again.
        reg.set_mounted(False)
        assert action.status == "unavailable"
        reg.set_mounted(True)
        assert action.status == "awaiting_approval"
        thread.action("c1").approve()
        await task

    arun(main())
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 0)"]


# -- unmount and dispose mid-execution -------------------------------------------------------


def test_unmount_mid_execution_aborts_and_the_call_runs_again_on_remount():
    probe, server = Probe(), one_call()

    async def main():
        thread = agent_for(server).thread()
        reg = thread.register_tool(make_probe(probe, hold=lambda n: n == 0))
        seen = statuses(thread)
        task = await start_executing(thread, probe)
        [action] = thread.pending_actions
        first_signal = action.signal
        reg.set_mounted(False)
        assert action.status == "unavailable" and action.signal is not first_signal
        assert first_signal.reason == "unmounted" and not action.signal.aborted
        await until(lambda: probe.finished == ["finally"])
        ctx = probe.started[0]
        assert ctx.signal.aborted and ctx.signal.reason == "unmounted"
        probe.release.set()          # a late wake-up must not produce a result
        # No timers in the driver: a stray result or follow-up would show within these turns.
        await settle()
        assert not action.done and action.status == "unavailable"
        assert len(server.requests) == 1 and thread.messages[-1].role == "assistant"
        assert probe.finished == ["finally"] and len(probe.started) == 1
        reg.set_mounted(True)
        await task
        return thread, seen

    thread, seen = arun(main())
    assert seen == ["executing", "unavailable", "executing"]
    assert probe.finished == ["finally", "returned", "finally"]
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 1)"]
    assert len([m for m in thread.messages if m.role == "tool"]) == 1


def test_immediate_remount_never_runs_the_call_twice_at_once():
    probe, server = Probe(), one_call()

    async def main():
        thread = agent_for(server).thread()
        reg = thread.register_tool(make_probe(probe, hold=lambda n: n == 0))
        task = await start_executing(thread, probe)
        reg.set_mounted(False)       # element removed...
        reg.set_mounted(True)        # ...and re-inserted in the same turn
        assert thread.pending_actions[0].status == "executing"
        await task

    arun(main())
    assert probe.max_running == 1
    assert probe.finished == ["finally", "returned", "finally"]
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 1)"]


def test_dispose_mid_execution_then_an_older_shadowed_registration_serves():
    probe, server = Probe(), one_call()

    async def main():
        thread = agent_for(server).thread()
        older = thread.register_tool(make_probe(probe, hold=lambda n: False))
        newer = thread.register_tool(make_probe(probe, hold=lambda n: n == 0), replace=True)
        task = await start_executing(thread, probe)
        [action] = thread.pending_actions
        assert action.registration is newer
        newer.dispose()
        # The older registration serves at once; it waits for the aborted handler to unwind.
        assert action.registration is older and action.status == "executing"
        await task

    arun(main())
    assert probe.started[0].signal.reason == "disposed" and probe.max_running == 1
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 1)"]


def test_unmounting_an_agent_registration_hands_the_call_to_a_thread_registration():
    probe, server = Probe(), one_call()

    async def main():
        agent = agent_for(server)
        thread = agent.thread()
        shared = agent.register_tool(make_probe(probe, hold=lambda n: n == 0))
        task = await start_executing(thread, probe)
        shared.set_mounted(False)
        assert thread.pending_actions[0].status == "unavailable"
        thread.register_tool(make_probe(probe, hold=lambda n: False))
        await task

    arun(main())
    assert probe.started[0].signal.reason == "unmounted"
    assert tool_contents(bodies(server)[1]) == ["saved todo (execution 1)"]


# -- abort reasons -------------------------------------------------------------------------


@pytest.mark.parametrize("answer, reason, content", [
    (lambda thread, action: action.submit("from the page"), "submitted", "from the page"),
    (lambda thread, action: action.fail("no disk"), "failed", "no disk"),
    (lambda thread, action: action.cancel("closed"), "cancelled", "Tool call cancelled: closed"),
    (lambda thread, action: action.reject(), "failed", "rejected by the user"),
])
def test_answering_aborts_the_running_handler_with_its_reason(answer, reason, content):
    probe, server = Probe(), one_call()

    async def main():
        thread = agent_for(server).thread()
        thread.register_tool(make_probe(probe))
        task = await start_executing(thread, probe)
        [action] = thread.pending_actions
        answer(thread, action)
        assert action.signal.aborted and action.signal.reason == reason
        await task
        await until(lambda: probe.finished == ["finally"])

    arun(main())
    assert probe.started[0].signal.reason == reason
    assert tool_contents(bodies(server)[1]) == [content]


def test_stop_aborts_the_running_handler_with_the_stop_reason():
    probe = Probe()

    async def main():
        thread = agent_for(one_call()).thread()
        thread.register_tool(make_probe(probe))
        task = await start_executing(thread, probe)
        thread.stop()
        await task
        await until(lambda: probe.finished == ["finally"])

    arun(main())
    assert probe.started[0].signal.reason == "stopped by the user"


def test_timeout_aborts_the_handler_signal_with_timeout():
    probe, server = Probe(), one_call()

    async def main():
        thread = agent_for(server).thread()
        # The timeout is the feature under test: as short as possible. The handler waits for
        # `probe.release`, which nothing sets, so only the timeout can end it.
        thread.register_tool(make_probe(probe, timeout_s=0.001))
        await thread.send("save")

    arun(main())
    assert probe.started[0].signal.reason == "timeout" and probe.finished == ["finally"]
    [tool] = tool_messages(bodies(server)[1])
    assert "timed out" in tool["content"] and tool["error"] == tool["content"]


def test_finishing_normally_leaves_the_handler_signal_alone():
    probe = Probe()

    async def main():
        thread = agent_for(one_call()).thread()
        thread.register_tool(make_probe(probe, hold=lambda n: False))
        await thread.send("save")

    arun(main())
    assert not probe.started[0].signal.aborted and probe.finished == ["returned", "finally"]


def test_calls_never_advertised_stay_an_error_even_if_registered_later():
    probe, server = Probe(), calls_then_text([("c1", "save_note", {"key": "x"})])

    registered = []

    async def main():
        thread = agent_for(server).thread()
        tool = make_probe(probe, hold=lambda n: False)

        def register_once(event):
            # The run advertised no tools; the call's tool is registered as the run finishes,
            # before the call is answered.
            if event.kind == "event" and event.payload.type == "RUN_FINISHED" and not registered:
                registered.append(thread.register_tool(tool))

        thread.subscribe(register_once)
        await thread.send("save")

    arun(main())
    assert len(registered) == 1 and registered[0].mounted
    assert tool_names(bodies(server)[0]) == [] and tool_names(bodies(server)[1]) == ["save_note"]
    assert probe.started == []
    [tool] = tool_messages(bodies(server)[1])
    assert "not among the tools sent with this run" in tool["content"]


# -- render-only tools: the page answers ----------------------------------------------------


@client_tool(render_only=True)
def pick_color(background: str) -> dict:
    """Ask the user to confirm a colour; the page answers."""
    raise AssertionError("a render-only tool's body never runs")


def test_a_render_only_call_awaits_input_and_the_page_answers():
    server = calls_then_text([("c1", "pick_color", {"background": "blue"})], quote_tools=True)

    async def main():
        thread = agent_for(server, (pick_color,)).thread()
        waiting = asyncio.Event()
        seen = []

        def on_event(event):
            if event.kind == "action":
                seen.append(event.payload.status)
                if event.payload.status == "awaiting_input":
                    waiting.set()

        thread.subscribe(on_event)
        task = asyncio.create_task(thread.send("pick a colour"))
        await waiting.wait()
        [action] = thread.pending_actions
        assert action.status == "awaiting_input" and action.tool is pick_color
        await settle()
        assert len(server.requests) == 1 and not task.done()   # no follow-up while the user decides
        action.submit({"picked": "navy"})
        assert action.status == "completed" and action.done and action.signal.reason == "submitted"
        await task
        return thread, seen

    thread, seen = arun(main())
    assert seen == ["awaiting_input", "completed"]
    assert tool_contents(bodies(server)[1]) == ['{"picked":"navy"}'] and thread.run_status == "idle"


def test_a_render_only_call_with_invalid_arguments_is_answered_at_once():
    server = calls_then_text([("c1", "pick_color", {"colour": "blue"})])

    async def main():
        thread = agent_for(server, (pick_color,)).thread()
        await thread.send("pick a colour")
        return thread

    thread = arun(main())
    [tool] = tool_messages(bodies(server)[1])
    assert "background" in tool["content"] and tool["error"] == tool["content"]
    assert thread.action("c1").status == "failed" and thread.pending_actions == []


@pytest.mark.parametrize("options, match", [
    ({"requires_approval": True}, "requires_approval=True has nothing to act on"),
    ({"timeout_s": 5}, "timeout_s=5 has nothing to act on"),
    ({"render_only": "yes"}, "must be True or False"),
])
def test_render_only_options_that_cannot_work(options, match):
    def ask(text: str) -> str:
        """Ask the user."""
        return text

    with pytest.raises(ConfigurationError, match=match):
        client_tool(ask, **{"render_only": True, **options})
