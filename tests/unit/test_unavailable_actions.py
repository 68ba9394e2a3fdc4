"""Pending actions whose tool is not mounted ("unavailable"), and the abort reasons of executions."""

from __future__ import annotations

import asyncio

import pytest

from pyclient import ToolContext, client_tool
from tests.unit.scripted import Server, arun, calls_then_text, make_agent, until


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


async def start_unavailable(server: Server, tool, *, unmount=lambda reg: reg.set_mounted(False)):
    """Send with `tool` registered; it is unmounted while the call streams, so the call waits."""
    agent = make_agent(server)
    thread = agent.thread()
    reg = thread.register_tool(tool)
    thread.subscribe(lambda e: e.kind == "event" and e.payload.type == "TOOL_CALL_START" and unmount(reg))
    task = asyncio.create_task(thread.send("save a note"))
    await until(lambda: bool(thread.pending_actions))
    return agent, thread, reg, task


def one_call():
    return Server(calls_then_text([("c1", "save_note", {"key": "todo"})]))


# -- unavailable ---------------------------------------------------------------------------


def test_unavailable_call_runs_when_its_registration_mounts_and_the_follow_up_carries_it():
    probe = Probe()

    async def main():
        server = one_call()
        _agent, thread, reg, task = await start_unavailable(server, make_probe(probe, hold=lambda n: False))
        seen = statuses(thread)
        [action] = thread.pending_actions
        assert action.status == "unavailable" and action.registration is None
        await asyncio.sleep(0.05)
        assert not task.done() and thread.run_status == "running" and len(server.bodies) == 1
        assert probe.started == []
        reg.set_mounted(True)
        assert action.status == "executing" and action.registration is reg
        await task
        return server, thread, seen

    server, thread, seen = arun(main())
    assert seen == ["executing"]
    assert [m["content"] for m in server.tool_messages(1)] == ["saved todo (execution 0)"]
    assert thread.run_status == "idle" and thread.pending_actions == []
    # The follow-up advertises the tool again, since it is mounted now.
    assert server.tool_names(1) == ["save_note"]


def test_first_announcement_of_an_unavailable_call():
    async def main():
        server = one_call()
        agent = make_agent(server)
        thread = agent.thread()
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
    probe = Probe()

    async def main():
        server = one_call()
        agent, thread, _reg, task = await start_unavailable(server, make_probe(Probe()), unmount=lambda r: r.dispose())
        [action] = thread.pending_actions
        other = agent.thread()
        # An agent-level registration for another thread does not serve it.
        agent.register_tool(make_probe(probe, hold=lambda n: False), applies_to=lambda t: t is other)
        assert action.status == "unavailable"
        serving = agent.register_tool(make_probe(probe, hold=lambda n: False), applies_to=lambda t: t is thread,
                                      replace=True)
        assert action.registration is serving and action.tool is serving.tool
        await task
        return server

    server = arun(main())
    assert [m["content"] for m in server.tool_messages(1)] == ["saved todo (execution 0)"]


def test_unavailable_call_cancelled_sends_an_error_tool_message():
    async def main():
        server = one_call()
        _agent, thread, reg, task = await start_unavailable(server, make_probe(Probe()))
        [action] = thread.pending_actions
        signal = action.signal
        action.cancel("nobody can save notes here")
        assert signal.aborted and signal.reason == "cancelled"
        await task
        reg.set_mounted(True)   # too late: nothing runs
        return server, thread

    server, thread = arun(main())
    [tool] = server.tool_messages(1)
    assert tool["content"] == "Tool call cancelled: nobody can save notes here" and tool["error"] == tool["content"]
    assert thread.run_status == "idle" and len(server.bodies) == 2


def test_unavailable_call_can_be_rejected_or_failed():
    async def main():
        server = Server(calls_then_text([("c1", "save_note", {"key": "a"}), ("c2", "save_note", {"key": "b"})]))
        _agent, thread, _reg, task = await start_unavailable(server, make_probe(Probe()))
        await until(lambda: len(thread.pending_actions) == 2)
        thread.reject_tool("c1", "not now")
        thread.pending_actions[0].fail("no storage")
        await task
        return server

    server = arun(main())
    assert [m["content"] for m in server.tool_messages(1)] == ["rejected by the user: not now", "no storage"]


def test_follow_up_waits_for_every_call_of_the_turn():
    async def main():
        server = Server(calls_then_text([("c1", "save_note", {"key": "a"}), ("c2", "save_note", {"key": "b"})]))
        _agent, thread, reg, task = await start_unavailable(server, make_probe(Probe(), hold=lambda n: False))
        await until(lambda: len(thread.pending_actions) == 2)
        thread.pending_actions[0].cancel()
        await asyncio.sleep(0.05)
        assert len(server.bodies) == 1 and [a.id for a in thread.pending_actions] == ["c2"]
        reg.set_mounted(True)
        await task
        return server

    server = arun(main())
    assert [m["content"] for m in server.tool_messages(1)] == ["Tool call cancelled", "saved b (execution 0)"]


def test_unavailable_tool_that_requires_approval_asks_first():
    probe = Probe()

    async def main():
        server = one_call()
        tool = make_probe(probe, hold=lambda n: False, requires_approval=True)
        _agent, thread, reg, task = await start_unavailable(server, tool)
        [action] = thread.pending_actions
        reg.set_mounted(True)
        assert action.status == "awaiting_approval" and probe.started == []
        # Unmounting while it awaits approval makes it unavailable again; remounting asks again.
        reg.set_mounted(False)
        assert action.status == "unavailable"
        reg.set_mounted(True)
        assert action.status == "awaiting_approval"
        thread.approve_tool("c1")
        await task
        return server

    server = arun(main())
    assert [m["content"] for m in server.tool_messages(1)] == ["saved todo (execution 0)"]


def test_stop_cancels_an_unavailable_call_without_follow_up():
    async def main():
        server = one_call()
        _agent, thread, _reg, task = await start_unavailable(server, make_probe(Probe()))
        [action] = thread.pending_actions
        thread.stop()
        await task
        assert action.done and action.signal.reason == "stopped by the user"
        return server, thread

    server, thread = arun(main())
    assert len(server.bodies) == 1 and thread.run_status == "idle"
    assert thread.messages[-1].role == "tool" and "cancelled: stopped by the user" in thread.messages[-1].content


# -- unmount and dispose mid-execution -------------------------------------------------------


def test_unmount_mid_execution_aborts_and_the_call_runs_again_on_remount():
    probe = Probe()

    async def main():
        server = one_call()
        agent = make_agent(server)
        thread = agent.thread()
        reg = thread.register_tool(make_probe(probe, hold=lambda n: n == 0))
        seen = statuses(thread)
        task = asyncio.create_task(thread.send("save"))
        await until(lambda: len(probe.started) == 1)
        [action] = thread.pending_actions
        first_signal = action.signal
        reg.set_mounted(False)
        assert action.status == "unavailable" and action.signal is not first_signal
        assert first_signal.reason == "unmounted" and not action.signal.aborted
        await until(lambda: probe.finished == ["finally"])
        ctx = probe.started[0]
        assert ctx.signal.aborted and ctx.signal.reason == "unmounted"
        probe.release.set()          # a late wake-up must not produce a result
        await asyncio.sleep(0.05)
        assert not action.done and len(server.bodies) == 1 and thread.messages[-1].role == "assistant"
        reg.set_mounted(True)
        await task
        return server, thread, seen

    server, thread, seen = arun(main())
    assert seen == ["executing", "unavailable", "executing"]
    assert probe.finished == ["finally", "returned", "finally"]
    assert [m["content"] for m in server.tool_messages(1)] == ["saved todo (execution 1)"]
    assert len([m for m in thread.messages if m.role == "tool"]) == 1


def test_immediate_remount_never_runs_the_call_twice_at_once():
    probe = Probe()

    async def main():
        server = one_call()
        agent = make_agent(server)
        thread = agent.thread()
        reg = thread.register_tool(make_probe(probe, hold=lambda n: n == 0))
        task = asyncio.create_task(thread.send("save"))
        await until(lambda: len(probe.started) == 1)
        reg.set_mounted(False)       # element removed...
        reg.set_mounted(True)        # ...and re-inserted in the same turn
        assert thread.pending_actions[0].status == "executing"
        await task
        return server

    server = arun(main())
    assert probe.max_running == 1
    assert probe.finished == ["finally", "returned", "finally"]
    assert [m["content"] for m in server.tool_messages(1)] == ["saved todo (execution 1)"]


def test_dispose_mid_execution_then_an_older_shadowed_registration_serves():
    probe = Probe()

    async def main():
        server = one_call()
        agent = make_agent(server)
        thread = agent.thread()
        older = thread.register_tool(make_probe(probe, hold=lambda n: False))
        newer = thread.register_tool(make_probe(probe, hold=lambda n: n == 0), replace=True)
        task = asyncio.create_task(thread.send("save"))
        await until(lambda: len(probe.started) == 1)
        [action] = thread.pending_actions
        assert action.registration is newer
        newer.dispose()
        # The older registration serves at once; it waits for the aborted handler to unwind.
        assert action.registration is older and action.status == "executing"
        await task
        return server

    server = arun(main())
    assert probe.started[0].signal.reason == "disposed" and probe.max_running == 1
    assert [m["content"] for m in server.tool_messages(1)] == ["saved todo (execution 1)"]


def test_unmounting_an_agent_registration_hands_the_call_to_a_thread_registration():
    probe = Probe()

    async def main():
        server = one_call()
        agent = make_agent(server)
        thread = agent.thread()
        shared = agent.register_tool(make_probe(probe, hold=lambda n: n == 0))
        task = asyncio.create_task(thread.send("save"))
        await until(lambda: len(probe.started) == 1)
        shared.set_mounted(False)
        assert thread.pending_actions[0].status == "unavailable"
        thread.register_tool(make_probe(probe, hold=lambda n: False))
        await task
        return server

    server = arun(main())
    assert probe.started[0].signal.reason == "unmounted"
    assert [m["content"] for m in server.tool_messages(1)] == ["saved todo (execution 1)"]


# -- abort reasons -------------------------------------------------------------------------


@pytest.mark.parametrize("answer, reason, content", [
    (lambda thread, action: action.submit("from the page"), "submitted", "from the page"),
    (lambda thread, action: action.fail("no disk"), "failed", "no disk"),
    (lambda thread, action: action.cancel("closed"), "cancelled", "Tool call cancelled: closed"),
    (lambda thread, action: thread.reject_tool(action.id), "failed", "rejected by the user"),
])
def test_answering_aborts_the_running_handler_with_its_reason(answer, reason, content):
    probe = Probe()

    async def main():
        server = one_call()
        thread = make_agent(server).thread()
        thread.register_tool(make_probe(probe))
        task = asyncio.create_task(thread.send("save"))
        await until(lambda: len(probe.started) == 1)
        [action] = thread.pending_actions
        answer(thread, action)
        assert action.signal.aborted and action.signal.reason == reason
        await task
        await until(lambda: probe.finished == ["finally"])
        return server

    server = arun(main())
    assert probe.started[0].signal.reason == reason
    assert [m["content"] for m in server.tool_messages(1)] == [content]


def test_stop_aborts_the_running_handler_with_the_stop_reason():
    probe = Probe()

    async def main():
        thread = make_agent(one_call()).thread()
        thread.register_tool(make_probe(probe))
        task = asyncio.create_task(thread.send("save"))
        await until(lambda: len(probe.started) == 1)
        thread.stop()
        await task
        await until(lambda: probe.finished == ["finally"])

    arun(main())
    assert probe.started[0].signal.reason == "stopped by the user"


def test_timeout_aborts_the_handler_signal_with_timeout():
    probe = Probe()

    async def main():
        server = one_call()
        thread = make_agent(server).thread()
        thread.register_tool(make_probe(probe, timeout_s=0.05))
        await thread.send("save")
        return server

    server = arun(main())
    assert probe.started[0].signal.reason == "timeout" and probe.finished == ["finally"]
    [tool] = server.tool_messages(1)
    assert "timed out" in tool["content"] and tool["error"] == tool["content"]


def test_finishing_normally_leaves_the_handler_signal_alone():
    probe = Probe()

    async def main():
        thread = make_agent(one_call()).thread()
        thread.register_tool(make_probe(probe, hold=lambda n: False))
        await thread.send("save")

    arun(main())
    assert not probe.started[0].signal.aborted and probe.finished == ["returned", "finally"]


def test_calls_never_advertised_stay_an_error_even_if_registered_later():
    probe = Probe()

    async def main():
        server = Server(calls_then_text([("c1", "save_note", {"key": "x"})]))
        thread = make_agent(server).thread()
        tool = make_probe(probe, hold=lambda n: False)
        thread.subscribe(lambda e: e.kind == "event" and e.payload.type == "RUN_FINISHED"
                         and not thread._registrations and thread.register_tool(tool))
        await thread.send("save")
        return server

    server = arun(main())
    assert probe.started == []
    [tool] = server.tool_messages(1)
    assert "not among the tools sent with this run" in tool["content"]
