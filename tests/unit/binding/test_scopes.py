"""Registrations (pyclient._binding._scopes): levels and precedence, duplicates, snapshots per request, hooks, cleanup."""

from __future__ import annotations

import asyncio
import gc
import logging
import re

import pytest

import pyclient
from pyclient import (
    Agent,
    ConfigurationError,
    FollowUpLimitError,
    LocalProtocolError,
    Platform,
    Registration,
    RunError,
    ToolContext,
    client_tool,
    use_client_tool,
)
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    calls_then_text,
    make_tool,
    text_only,
    tool_contents,
    tool_names,
    until,
)


def names(thread) -> list[str]:
    return [tool.name for tool in thread.available_tools()]


async def new_thread(*binding, server=None):
    agent = agent_for(server or text_only(), binding)
    return agent, agent.thread()


class HookPlatform(Platform):
    """The CPython platform with a refresh hook a test sets."""

    name = "hooks"

    def __init__(self, refresh=lambda: None):
        self.hook = refresh

    def refresh(self):
        self.hook()


# -- levels and precedence -------------------------------------------------------------------


def test_thread_registration_is_synchronous_and_follows_mount_and_dispose():
    async def main():
        _agent, thread = await new_thread(make_tool("base"))
        events = []
        thread.subscribe(lambda e: e.kind == "tools" and events.append(e.payload))
        reg = thread.register_tool(make_tool("extra"))
        assert isinstance(reg, Registration) and reg.level == "thread" and reg.mounted and not reg.disposed
        assert names(thread) == ["base", "extra"]
        reg.set_mounted(False)
        assert names(thread) == ["base"] and not reg.mounted
        reg.set_mounted(False)                 # idempotent
        reg.set_mounted(True)
        assert names(thread) == ["base", "extra"]
        reg.dispose()
        assert names(thread) == ["base"] and reg.disposed and not reg.mounted
        reg.dispose()                          # idempotent
        reg.set_mounted(True)                  # a late bridge callback: ignored
        assert names(thread) == ["base"] and thread.scope.registrations == []
        assert len(events) == 4                # register, unmount, mount, dispose
        unmounted = thread.register_tool(make_tool("later"), mounted=False)
        assert names(thread) == ["base"]
        unmounted.set_mounted(True)
        assert names(thread) == ["base", "later"]

    arun(main())


def test_most_specific_mounted_registration_wins():
    async def main():
        binding = make_tool("read", "binding")
        agent, thread = await new_thread(binding, make_tool("other"))
        agent_level = make_tool("read", "agent")
        thread_level = make_tool("read", "thread")
        a = agent.register_tool(agent_level)
        assert a.level == "agent"
        assert thread.available_tools() == [agent.client_tools[1], agent_level]
        t = thread.register_tool(thread_level)
        assert thread.available_tools() == [agent.client_tools[1], thread_level]
        t.set_mounted(False)
        assert thread.available_tools()[-1] is agent_level
        a.set_mounted(False)
        assert thread.available_tools() == [binding, agent.client_tools[1]]
        t.set_mounted(True)
        assert thread.available_tools()[-1] is thread_level
        assert thread.scope.resolve()["read"] is t

    arun(main())


def test_binding_registrations_cannot_be_unmounted():
    async def main():
        agent, _thread = await new_thread(make_tool("base"))
        with pytest.raises(LocalProtocolError, match="fixed for the agent's lifetime"):
            agent.scope.binding["base"].set_mounted(False)
        with pytest.raises(LocalProtocolError, match="register_tool"):
            agent.scope.binding["base"].dispose()

    arun(main())


def test_duplicate_at_one_level_is_a_configuration_error():
    async def main():
        agent, thread = await new_thread()
        first = thread.register_tool(make_tool("note", "first"), mounted=False)
        with pytest.raises(ConfigurationError) as info:
            thread.register_tool(make_tool("note", "second"))
        message = str(info.value)
        assert "'note'" in message and "thread level" in message and thread.thread_id in message
        assert "replace=True" in message and "dispose()" in message
        first.dispose()
        thread.register_tool(make_tool("note", "third"))       # the name is free again

        agent.register_tool(make_tool("shared"))
        with pytest.raises(ConfigurationError, match="agent level on agent 'test'"):
            agent.register_tool(make_tool("shared"), applies_to=lambda t: True)
        # Same name at different levels, or on different threads: fine.
        thread.register_tool(make_tool("shared"))
        agent.thread().register_tool(make_tool("note"))

    arun(main())


def test_replace_takes_over_and_the_older_serves_again_after_dispose():
    async def main():
        agent, thread = await new_thread()
        old_tool, new_tool = make_tool("note", "old"), make_tool("note", "new")
        old = thread.register_tool(old_tool)
        new = thread.register_tool(new_tool, replace=True)
        assert thread.available_tools() == [new_tool]
        new.dispose()
        assert thread.available_tools() == [old_tool]
        assert thread.scope.registrations == [old]

        a_old = agent.register_tool(make_tool("x", "old"))
        a_new = agent.register_tool(make_tool("x", "new"), replace=True)
        assert thread.available_tools() == [a_new.tool, old_tool]
        a_new.dispose()
        assert thread.available_tools() == [a_old.tool, old_tool]

    arun(main())


def test_applies_to_selects_threads():
    async def main():
        agent, left = await new_thread()
        right = agent.thread()
        reg = agent.register_tool(make_tool("panel_tool"), applies_to=lambda thread: thread is left)
        everywhere = agent.register_tool(make_tool("everywhere"))
        assert names(left) == ["panel_tool", "everywhere"] and names(right) == ["everywhere"]
        assert reg.applies(left.scope) and not reg.applies(right.scope) and everywhere.applies(right.scope)
        other_agent_thread = Agent("other", "/agent").thread()
        assert not everywhere.applies(other_agent_thread.scope) and names(other_agent_thread) == []

    arun(main())


def test_a_raising_applies_to_counts_as_false(caplog):
    async def main():
        agent, thread = await new_thread()

        def broken(thread):
            raise RuntimeError("element gone")

        agent.register_tool(make_tool("flaky"), applies_to=broken)
        with caplog.at_level(logging.ERROR, logger="pyclient"):
            assert names(thread) == []
        assert "applies_to" in caplog.text

    arun(main())


def test_registration_arguments_are_checked():
    async def main():
        agent, thread = await new_thread()
        with pytest.raises(ConfigurationError, match=r"thread.register_tool\(\) needs a ClientTool.*@client_tool"):
            thread.register_tool(print)
        with pytest.raises(ConfigurationError, match="agent.register_tool"):
            agent.register_tool(lambda: 1)
        with pytest.raises(ConfigurationError, match="applies_to"):
            agent.register_tool(make_tool("x"), applies_to="#panel")

    arun(main())


def test_two_threads_of_one_agent_advertise_their_own_tools():
    async def main():
        server = text_only()
        agent = agent_for(server, [make_tool("base")])
        one, two = agent.thread(), agent.thread()
        one.register_tool(make_tool("only_one"))
        two.register_tool(make_tool("only_two"))
        await one.send("hi")
        await two.send("hi")
        return server

    server = arun(main())
    assert tool_names(bodies(server)[0]) == ["base", "only_one"]
    assert tool_names(bodies(server)[1]) == ["base", "only_two"]


def test_agent_registration_reaches_existing_and_new_threads():
    async def main():
        server = text_only()
        agent = agent_for(server)
        before = agent.thread()
        seen = []
        before.subscribe(lambda e: e.kind == "tools" and seen.append(1))
        reg = agent.register_tool(make_tool("shared"))
        after = agent.thread()
        await before.send("a")
        await after.send("b")
        reg.set_mounted(False)
        await after.send("c")
        return server, seen

    server, seen = arun(main())
    assert tool_names(bodies(server)[0]) == tool_names(bodies(server)[1]) == ["shared"] and tool_names(bodies(server)[2]) == []
    assert len(seen) == 2  # register, unmount


# -- snapshots are taken when the request is sent --------------------------------------------


def test_request_carries_the_snapshot_at_send_time():
    async def main():
        server = text_only()
        agent = agent_for(server, [make_tool("base")])
        thread = agent.thread()
        registered = thread.register_tool(make_tool("registered_before_send"))
        gone = thread.register_tool(make_tool("unmounted_before_send"))
        gone.set_mounted(False)
        await thread.send("first")
        registered.dispose()
        await thread.send("second")
        return server

    server = arun(main())
    assert tool_names(bodies(server)[0]) == ["base", "registered_before_send"]
    assert tool_names(bodies(server)[1]) == ["base"]


def test_each_request_takes_one_snapshot_and_dispatch_resolves_again():
    calls = []
    platform = HookPlatform(lambda: calls.append("refresh"))

    async def main():
        server = calls_then_text([("c1", "late", {})])
        agent = agent_for(server, platform=platform)
        thread = agent.thread()
        thread.register_tool(make_tool("late"))
        await thread.send("go")
        return server, thread

    server, thread = arun(main())
    # The first request's snapshot, the finished run's dispatch, the follow-up's snapshot:
    # each resolution re-checks connections first (one rule, one refresh each).
    assert calls == ["refresh", "refresh", "refresh"]
    assert tool_names(bodies(server)[0]) == ["late"] and tool_contents(bodies(server)[1]) == ["late"]


def test_available_tools_calls_the_refresh_hook_first():
    async def main():
        platform = HookPlatform()
        agent = agent_for(text_only(), (), platform=platform)
        thread = agent.thread()
        reg = thread.register_tool(make_tool("in_element"))
        calls = []

        def before_snapshot():
            # The platform re-checks isConnected: the element left a moment ago.
            calls.append("hook")
            reg.set_mounted(False)

        platform.hook = before_snapshot
        # The unmount inside the hook tells listeners; one that takes a snapshot then does
        # not re-enter the hook.
        nested = []
        thread.subscribe(lambda e: e.kind == "tools" and nested.append(names(thread)))
        assert names(thread) == [] and calls == ["hook"] and nested == [[]]
        reg.set_mounted(True)
        assert calls == ["hook", "hook"] and nested == [[], [], []]  # the hook unmounted it again

    arun(main())


def test_a_raising_refresh_hook_is_logged_and_the_snapshot_still_taken(caplog):
    def broken():
        raise RuntimeError("platform bug")

    async def main():
        agent = agent_for(text_only(), (make_tool("base"),), platform=HookPlatform(broken))
        with caplog.at_level(logging.ERROR, logger="pyclient"):
            assert names(agent.thread()) == ["base"]
        assert "the platform's refresh raised" in caplog.text and "platform bug" in caplog.text

    arun(main())


# -- DOM-scoped forms ------------------------------------------------------------------------


def test_use_client_tool_without_the_bridge_names_the_cpython_equivalents():
    agent = Agent("a", "/agent")
    tool = make_tool("clip")
    with pytest.raises(ConfigurationError, match=r"needs the page.*thread.register_tool\(tool\)"):
        use_client_tool(tool, "#panel")
    with pytest.raises(ConfigurationError, match=r"needs the page.*agent.register_tool\(tool"):
        agent.use_client_tool(tool, "#panel")
    with pytest.raises(ConfigurationError, match="needs a ClientTool"):
        use_client_tool(print, "#panel")


def test_use_client_tool_delegates_to_the_platforms_element_binding():
    async def main():
        seen = []

        class Binding:  # what `platform.elements` is asked: the scopes it is handed, never the agent
            def use_client_tool(self, tool, element, *, agent=None, replace=False):
                seen.append((agent is not None, tool.name, element, replace))
                if agent is None:
                    return thread.scope.register(tool, replace=replace, mounted=True)
                assert agent is the_agent.scope
                return agent.register(tool, applies_to=lambda scope: True, replace=replace, mounted=True)

        class Recording(Platform):
            elements = Binding()

        platform = Recording()
        the_agent = agent_for(text_only(), (), platform=platform)
        thread = the_agent.thread()
        one = pyclient.use_client_tool(make_tool("clip"), "el-1", platform=platform)
        two = the_agent.use_client_tool(make_tool("save"), "el-2", replace=True)
        assert one.level == "thread" and two.level == "agent"
        assert seen == [(False, "clip", "el-1", False), (True, "save", "el-2", True)]
        assert names(thread) == ["save", "clip"]

    arun(main())


def test_error_exports():
    assert issubclass(FollowUpLimitError, RunError)
    error = FollowUpLimitError(3, ["a", "b"])
    assert error.follow_ups == 3 and error.tool_names == ["a", "b"] and error.code is None
    assert "3 automatic follow-up runs" in str(error) and "max_follow_ups" in str(error)
    assert pyclient.__all__ == sorted(pyclient.__all__)
    assert {"Registration", "use_client_tool", "FollowUpLimitError"} <= set(pyclient.__all__)


# -- cleanup -------------------------------------------------------------------------------


def test_200_cycles_leave_no_registrations_behind():
    @client_tool
    async def work(n: int, ctx: ToolContext) -> str:
        """Works until done or aborted."""
        if n % 2 == 0:   # odd calls finish; even ones wait until unmounted, then submitted
            await asyncio.Event().wait()   # nothing sets it: only an abort ends this execution
        await asyncio.sleep(0)
        return f"done {n}"

    server = ScriptedAgent()
    for n in range(200):   # the user message "n" gets a call of work(n); its follow-up, "ok"
        server.on(re.compile(f"^{n}$")).call("work", n=n, call_id=f"c{n}").then_say("ok")

    async def main():
        agent = agent_for(server)
        threads = []
        for n in range(200):
            if n % 25 == 0:  # a fresh history now and then keeps requests small
                thread = agent.thread()
                threads.append(thread)
            level = n % 4
            if level < 2:
                reg = thread.register_tool(work, mounted=True)
            else:
                reg = agent.register_tool(work, applies_to=lambda t, thread=thread: t is thread)
            task = asyncio.create_task(thread.send(str(n)))
            if n % 2 == 0:
                await until(lambda thread=thread: bool(thread.pending_actions))
                [action] = thread.pending_actions
                await until(lambda action=action: action.status == "executing")
                reg.set_mounted(False)                      # mid-execution
                await until(lambda action=action: action.status == "unavailable")
                reg.set_mounted(True)
                await asyncio.sleep(0)
                action.submit(f"submitted {n}")
            await task
            reg.set_mounted(False)
            reg.dispose()
            del reg
        return server, agent, threads

    server, agent, threads = arun(main(), timeout=60)
    assert len(bodies(server)) == 400 and agent.scope.registrations == []
    for i, thread in enumerate(threads):
        assert thread.run_status == "idle" and thread.scope.registrations == [] and thread.pending_actions == []
        # Exactly one tool message per call, never a late result from an unmounted execution.
        assert [m.content for m in thread.messages if m.role == "tool"] == [
            f"submitted {n}" if n % 2 == 0 else f"done {n}" for n in range(25 * i, 25 * i + 25)
        ]
    gc.collect()
    assert [o for o in gc.get_objects() if isinstance(o, Registration) and o.tool is work] == []
    assert len(agent.threads) == len(threads) == 8
