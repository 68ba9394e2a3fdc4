"""Property tests: `send()`, `stop()`, mount toggles, cancel, approve, reject and submit at random moments.

A `MockTransport` handler, the agent, makes tool calls (`quick`, a plain handler; `slow`, an async handler that
waits on an event the test sets; `gated`, which requires approval; `ask`, answered by the page)
over a stream delivered one event per loop turn, and follow-ups make more calls as drawn.
Hypothesis draws a list of operations, each after a drawn number of loop turns, then ends the
scenario either with `stop()` or by answering everything. Whatever the interleaving:

- each toolCallId has at most one tool message, in `thread.messages` and in every request;
- a handler starts only for a call that is executing, served by a mounted registration of a
  tool its request advertised (never after `stop()` or its unmount returned);
- the thread ends `"idle"` or `"error"`, and every `send()` returns: no hang (a timeout
  guards the loop-turn bound, it never paces the test).

Only documented misuse raises: `send()` while a run is in flight (`LocalProtocolError`).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hypothesis import event, given, note
from hypothesis import strategies as st

from pyclient import Agent, LocalProtocolError, MockTransport, ToolContext, client_tool
from tests.helpers import ids, sse

TOOLS = ("quick", "slow", "gated", "ask")
GUARD_S = 20.0         # only against a hang: scenarios take a few milliseconds
DRAIN_TURNS = 2_000     # loop turns allowed to answer everything at the end


@dataclass
class World:
    """What one scenario observed."""

    thread: Any = None
    registrations: dict[str, Any] = field(default_factory=dict)
    gates: list[asyncio.Event] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    started: list[tuple[str, str]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def check_start(self, name: str, ctx: ToolContext) -> None:
        """A handler starts: its call must execute now, served by a mounted registration."""
        call_id = ctx.tool_call_id
        self.started.append((name, call_id))
        action = self.thread.action(call_id)
        registration = self.registrations[name]
        if action.status != "executing":
            self.violations.append(f"{name} {call_id} started in status {action.status}")
        if action.registration is not registration or not registration.mounted:
            self.violations.append(f"{name} {call_id} started without a mounted registration")
        if ctx.signal.aborted:
            self.violations.append(f"{name} {call_id} started with an aborted signal ({ctx.signal.reason})")
        request = int(call_id[1:].split("_")[0])
        if name not in [tool["name"] for tool in self.bodies[request]["tools"]]:
            self.violations.append(f"{name} {call_id} ran but request {request} did not advertise it")


WORLD = World()


@client_tool
def quick(n: int, ctx: ToolContext) -> str:
    """Answer at once."""
    WORLD.check_start("quick", ctx)
    return f"quick {n}"


@client_tool
async def slow(n: int, ctx: ToolContext) -> str:
    """Answer once the test opens a gate."""
    WORLD.check_start("slow", ctx)
    gate = asyncio.Event()
    WORLD.gates.append(gate)
    await gate.wait()
    return f"slow {n}"


@client_tool(requires_approval=True)
def gated(n: int, ctx: ToolContext) -> str:
    """Needs the user's approval."""
    WORLD.check_start("gated", ctx)
    return f"gated {n}"


@client_tool(render_only=True)
def ask(n: int) -> str:
    """Answered by the page."""
    raise AssertionError("a render_only handler never runs")


BY_NAME = {tool.name: tool for tool in (quick, slow, gated, ask)}


def response(body: dict[str, Any], n: int, plan: list[str]) -> list[bytes]:
    """One event per chunk (MockTransport yields to the loop between chunks)."""
    events = [{"type": "RUN_STARTED", **ids(body)}]
    if plan == ["!error"]:
        return [sse(e) for e in (*events, {"type": "RUN_ERROR", "message": "the model failed"})]
    if plan:
        events.append({"type": "TEXT_MESSAGE_START", "messageId": f"m{n}", "role": "assistant"})
        events.append({"type": "TEXT_MESSAGE_END", "messageId": f"m{n}"})
        for i, name in enumerate(plan):
            call_id = f"c{n}_{i}"
            events += [{"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name,
                        "parentMessageId": f"m{n}"},
                       {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": '{"n": '},
                       {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": f"{i}}}"},
                       {"type": "TOOL_CALL_END", "toolCallId": call_id}]
    else:
        events += [{"type": "TEXT_MESSAGE_START", "messageId": f"t{n}", "role": "assistant"},
                   {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"t{n}", "delta": "done"},
                   {"type": "TEXT_MESSAGE_END", "messageId": f"t{n}"}]
    events.append({"type": "RUN_FINISHED", **ids(body)})
    return [sse(e) for e in events]


OPS = st.one_of(
    st.tuples(st.just("send")),
    st.tuples(st.just("stop")),
    st.tuples(st.just("open")),                       # open the oldest closed gate of a slow handler
    st.tuples(st.just("open")),
    st.tuples(st.just("mount"), st.sampled_from(TOOLS), st.booleans()),
    st.tuples(st.just("mount"), st.sampled_from(TOOLS), st.booleans()),
    st.tuples(st.just("cancel"), st.integers(0, 3)),
    st.tuples(st.just("approve"), st.integers(0, 3)),
    st.tuples(st.just("approve"), st.integers(0, 3)),
    st.tuples(st.just("reject"), st.integers(0, 3)),
    st.tuples(st.just("submit"), st.integers(0, 3)),
    st.tuples(st.just("submit"), st.integers(0, 3)),
)
"""One operation; `stop` and `send` are drawn less often than the answers, so runs get somewhere."""
PLANS = st.lists(st.one_of(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=3), st.just(["!error"])),
                 min_size=1, max_size=3)
"""The calls of each request (then a text answer); `["!error"]` answers with RUN_ERROR."""


async def scenario(plans: list[list[str]], ops: list[tuple[int, tuple[Any, ...]]], linger: int, ending: str,
                   unmounted: list[str]) -> None:
    world = WORLD

    def handle(request: Any) -> list[bytes]:
        body = json.loads(request.body)
        n = len(world.bodies)
        world.bodies.append(body)
        return response(body, n, plans[n] if n < len(plans) else [])

    agent = Agent("prop", "http://agent.test/agent", transport=MockTransport(handle))
    thread = world.thread = agent.thread()
    for name in TOOLS:
        world.registrations[name] = thread.register_tool(BY_NAME[name], mounted=name not in unmounted)
    sends: list[asyncio.Task[None]] = []

    async def send(text: str) -> None:
        sends.append(asyncio.ensure_future(thread.send(text)))
        await asyncio.sleep(0)  # its first step: the message is added and the request is on its way

    def running() -> bool:
        return not all(task.done() for task in sends)

    await send("go")

    for turns, op in ops:
        for _ in range(turns):
            await asyncio.sleep(0)
        kind = op[0]
        pending = thread.pending_actions
        if kind == "send":
            asking = [a for a in pending if a.status in ("awaiting_approval", "awaiting_input")]
            if thread.run_status == "running" and asking and not any(a.status == "executing" for a in pending):
                # Documented: while the run waits only for the person, a new message cancels
                # what waits and goes in the same request.
                await send("instead")
                if any(not a.done for a in asking):
                    world.violations.append("send() while waiting for the person left an action open")
            elif thread.run_status == "running":
                try:
                    await thread.send("again")
                except LocalProtocolError:
                    pass  # documented: one run at a time
                else:
                    world.violations.append("send() during a run did not raise")
            else:  # idle or error (the stopped send() may not have returned yet: that is fine)
                await send("again")
        elif kind == "stop":
            thread.stop()
            if thread.run_status not in ("idle", "error"):
                world.violations.append(f"run_status {thread.run_status!r} right after stop()")
        elif kind == "open":
            closed = [gate for gate in world.gates if not gate.is_set()]
            if closed:
                closed[0].set()
        elif kind == "mount":
            world.registrations[op[1]].set_mounted(op[2])
        elif pending:
            action = pending[op[1] % len(pending)]
            if kind == "cancel":
                action.cancel("test")
            elif kind == "approve" and action.status == "awaiting_approval":
                action.approve()
            elif kind == "reject":
                action.reject("test")
            elif kind == "submit":
                action.submit(f"submitted {action.id}")

    for _ in range(linger):
        await asyncio.sleep(0)
    if ending == "stop":
        thread.stop()
        if thread.run_status not in ("idle", "error"):
            world.violations.append(f"run_status {thread.run_status!r} right after the final stop()")
    else:  # answer everything until the run is idle
        for _ in range(DRAIN_TURNS):
            if not running():
                break
            for registration in world.registrations.values():
                registration.set_mounted(True)
            for gate in world.gates:
                gate.set()
            for action in thread.pending_actions:
                if action.status == "awaiting_approval":
                    action.approve()
                elif action.status == "awaiting_input":
                    action.submit("page answer")
            await asyncio.sleep(0)
        else:
            world.violations.append(f"not idle after {DRAIN_TURNS} turns: {thread.run_status}, "
                                    f"{thread.pending_actions}")
            thread.stop()
    await asyncio.gather(*sends)  # every send() returns (the caller's guard turns a hang into a failure)


@given(plans=PLANS, ops=st.lists(st.tuples(st.integers(0, 12), OPS), max_size=16),
       linger=st.integers(0, 80), ending=st.sampled_from(["stop", "drain"]),
       unmounted=st.lists(st.sampled_from(TOOLS), unique=True, max_size=1))
def test_any_interleaving_answers_each_call_once_and_ends(plans, ops, linger, ending, unmounted) -> None:
    global WORLD
    world = WORLD = World()

    async def main() -> None:
        await asyncio.wait_for(scenario(plans, ops, linger, ending, unmounted), GUARD_S)

    asyncio.run(main())
    thread = world.thread
    note(f"bodies: {len(world.bodies)}; started: {world.started}")
    event(f"requests: {min(len(world.bodies), 4)}")
    event(f"handlers started: {min(len(world.started), 3)}")
    event(f"ends {thread.run_status} after {ending}")
    answers = Counter(m.content.split(" ")[0] for m in thread.messages if m.role == "tool")
    for word in answers:
        event(f"answer: {word}")
    assert not world.violations, world.violations
    assert thread.run_status in ("idle", "error"), thread.run_status
    if thread.run_status == "error":
        assert thread.error is not None and str(thread.error)
    for body in world.bodies:
        counts = Counter(m["toolCallId"] for m in body["messages"] if m["role"] == "tool")
        assert all(n == 1 for n in counts.values()), counts
    counts = Counter(m.tool_call_id for m in thread.messages if m.role == "tool")
    assert all(n == 1 for n in counts.values()), counts
    # Every call of a finished run has its answer (the thread is idle, nothing waits).
    assert not thread.pending_actions
