"""Threads kept in a store: saving, restoring after a reload at every step of a tool round trip,
exactly one answer per toolCallId across reloads, read-only threads, and the stores themselves.

A reload is simulated by a `Page`: its store and transport stop working the moment it dies (a
dead page runs nothing), and the next page builds a new Agent and Thread on the same store and
thread_id, as the browser does after a reload.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter

import pytest

from pyclient import (
    AbortController,
    Agent,
    ConfigurationError,
    FileStore,
    LocalProtocolError,
    MemoryStore,
    MockTransport,
    Platform,
    Store,
    client_tool,
)
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, bodies, until

THREAD = "support"


async def forever() -> None:
    await asyncio.Event().wait()


class Page:
    """One page load on a shared store and agent; `die_when(snapshot)` / `die_on(body)` kill it.
    A save takes `save_turns` turns of the loop (IndexedDB is asynchronous too)."""

    def __init__(self, server: ScriptedAgent, store: Store, *, die_when=None, die_on=None,
                 save_turns: int = 25) -> None:
        self.server, self.shared = server, store
        self.save_turns = save_turns
        self.die_when, self.die_on = die_when, die_on
        self.dead = False
        self.transport = MockTransport(self.handle)
        self.store = PageStore(self)

    async def handle(self, request):
        if self.dead:
            await forever()
        # Through the agent's own transport, which records the request (`bodies(server)`) and
        # streams one event a chunk.
        answer = self.server.transport().stream(request, AbortController().signal)
        try:
            async for chunk in answer:
                if self.die_on is not None and self.die_on(json.loads(request.body)):
                    self.dead = True  # the server has the request; the page never reads the answer
                await asyncio.sleep(0)  # between two events the page's saves may run (and kill it)
                if self.dead:
                    await forever()
                yield chunk
        finally:
            await answer.aclose()

    def thread(self, tools, **options):
        agent = Agent("main", "http://agent.test/agent", client_tools=tools, transport=self.transport)
        return agent.thread(thread_id=THREAD, store=self.store, **options)


class PageStore:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.saves: list[dict] = []

    async def load(self, key):
        return await self.page.shared.load(key)

    async def save(self, key, data):
        for _ in range(self.page.save_turns):
            await asyncio.sleep(0)
        if self.page.dead:
            return
        await self.page.shared.save(key, data)
        self.saves.append(data)
        if self.page.die_when is not None and self.page.die_when(data):
            self.page.dead = True

    async def delete(self, key):
        await self.page.shared.delete(key)


def call_status(call_id, status, **fields):
    """A `die_when`: the saved snapshot has call `call_id` in `status` (and these fields)."""
    def check(data):
        return any(c["id"] == call_id and c["status"] == status and all(c[k] == v for k, v in fields.items())
                   for c in data["calls"])
    return check


def round_trips(replies: dict[str, str] | None = None) -> ScriptedAgent:
    """"call one" and "call two" (the first two requests) get the text "On it." and, in that
    message ("a0", "a1"), a call of `act` ("call1" with x="1", "call2" with x="2"); a follow-up
    gets "reply <n>", n the index of its request; `replies` answers the other messages."""
    agent = ScriptedAgent()

    def reply(results) -> str:
        return f"reply {len(agent.requests) - 1}"

    for k, said in enumerate(("call one", "call two"), 1):
        agent.on(said).say("On it.", message_id=f"a{k - 1}").call("act", x=str(k), call_id=f"call{k}").then_say(reply)
    for said, text in (replies or {}).items():
        agent.on(said).say(text)
    return agent


def answers_delivered(server: ScriptedAgent) -> Counter:
    """Per toolCallId, how many requests delivered its answer: the tool messages after the last
    message that is not one (what a follow-up carries). No request may hold two for one call."""
    delivered: Counter = Counter()
    for body in bodies(server):
        ids = [m["toolCallId"] for m in body["messages"] if m["role"] == "tool"]
        assert len(ids) == len(set(ids)), f"two tool messages for one call: {ids}"
        messages = body["messages"]
        i = len(messages)
        while i and messages[i - 1]["role"] == "tool":
            i -= 1
        delivered.update(m["toolCallId"] for m in messages[i:])
    return delivered


RUNS: list[str] = []
KEEP: list[asyncio.Future] = []  # the tasks of dead pages (kept, so they are not collected while pending)
GATE: dict[str, asyncio.Event] = {}


def act_tool(*, idempotent: bool = False, requires_approval: bool = False):
    @client_tool(name="act", idempotent=idempotent, requires_approval=requires_approval)
    async def act(x: str) -> str:
        """Act on x."""
        RUNS.append(x)
        gate = GATE.get(x)
        if gate is not None:
            await gate.wait()
        return f"acted {x}"
    return act


@pytest.fixture(autouse=True)
def _reset():
    RUNS.clear()
    GATE.clear()
    yield
    KEEP.clear()


# -- a reload at every step of a round trip ---------------------------------------------------


def test_reload_at_every_step_of_a_round_trip_answers_each_call_exactly_once():
    act = act_tool(requires_approval=True)
    server = round_trips({"thanks": "reply 3"})
    shared = MemoryStore()

    async def main():
        # 1. streaming: the page dies once call1's arguments are complete, before RUN_FINISHED.
        # (A fast store here: slower saves coalesce past the moment the call was streaming.)
        page = Page(server, shared, die_when=lambda d: d["run_state"] == "STREAMING"
                    and call_status("call1", "streaming")(d), save_turns=0)
        thread = page.thread([act])
        KEEP.append(asyncio.ensure_future(thread.send("call one")))
        await until(lambda: page.dead)

        page = Page(server, shared, die_when=call_status("call2", "awaiting_approval"))
        thread = page.thread([act])
        assert await thread.restore() is True
        assert thread.run_status == "idle" and thread.interrupted_messages == ["a0"]
        assert thread.messages[1].content == "On it."          # the partial text is kept
        assert thread.action("call1").status == "cancelled" and RUNS == []
        # 2. awaiting approval: the next send() works; the page dies while the user is asked.
        KEEP.append(asyncio.ensure_future(thread.send("call two")))
        await until(lambda: page.dead)

        page = Page(server, shared, die_when=call_status("call2", "executing"))
        thread = page.thread([act])
        await thread.restore()
        await until(lambda: thread.action("call2").status == "awaiting_approval")  # asked again
        GATE["2"] = asyncio.Event()                             # 3. executing: the handler hangs
        thread.action("call2").approve()
        await until(lambda: page.dead and RUNS == ["2"])

        # 4. result computed: after the retry the handler returns; the page dies before the follow-up.
        # (A fast store: with slower saves the follow-up starts first, and the saved state says sent.)
        page = Page(server, shared, die_when=call_status("call2", "completed", sent=False), save_turns=0)
        thread = page.thread([act])
        await thread.restore()
        action = thread.action("call2")
        assert action.status == "interrupted" and RUNS == ["2"]  # never runs again by itself
        assert [a.id for a in thread.pending_actions] == ["call2"]
        GATE.clear()
        action.retry()
        await until(lambda: page.dead)
        assert RUNS == ["2", "2"] and action.status == "completed"

        # 5. follow-up in flight: the restored page sends it; it dies once the server has it.
        page = Page(server, shared, die_on=lambda body: body["messages"][-1]["role"] == "tool")
        thread = page.thread([act])
        await thread.restore()
        await until(lambda: page.dead)

        # 6. The last page: the follow-up is not sent again; the conversation goes on.
        page = Page(server, shared)
        thread = page.thread([act])
        await thread.restore()
        assert thread.run_status == "idle" and thread.action("call2").status == "completed"
        await thread.send("thanks")
        assert thread.messages[-1].content == f"reply {len(bodies(server)) - 1}"
        await thread.saved()
        return thread

    arun(main())
    delivered = answers_delivered(server)
    assert delivered == {"call2": 1}                           # one follow-up carried call2's answer
    last = bodies(server)[-1]["messages"]
    assert Counter(m["toolCallId"] for m in last if m["role"] == "tool") == {"call1": 1, "call2": 1}
    assert [m["content"] for m in last if m["role"] == "tool"][1] == "acted 2"
    assert RUNS == ["2", "2"]
    assert len(bodies(server)) == 4                             # call one, call two, the follow-up, thanks


def test_an_idempotent_tool_executing_when_the_page_died_runs_again_by_itself():
    act = act_tool(idempotent=True)
    server = round_trips()
    shared = MemoryStore()

    async def main():
        GATE["1"] = asyncio.Event()
        page = Page(server, shared, die_when=call_status("call1", "executing"))
        KEEP.append(asyncio.ensure_future(page.thread([act]).send("call one")))
        await until(lambda: page.dead)
        GATE.clear()
        page = Page(server, shared)
        thread = page.thread([act])
        await thread.restore()
        await until(lambda: thread.run_status == "idle")
        return thread

    thread = arun(main())
    assert RUNS == ["1", "1"] and thread.action("call1").status == "completed"
    assert answers_delivered(server) == {"call1": 1} and len(bodies(server)) == 2


def test_repeated_reloads_while_awaiting_approval_still_answer_once():
    act = act_tool(requires_approval=True)
    server = round_trips()
    shared = MemoryStore()

    async def main():
        page = Page(server, shared, die_when=call_status("call1", "awaiting_approval"))
        KEEP.append(asyncio.ensure_future(page.thread([act]).send("call one")))
        await until(lambda: page.dead)
        for _ in range(3):  # each page restores, asks again, and dies before anyone answers
            page = Page(server, shared, die_when=call_status("call1", "awaiting_approval"))
            thread = page.thread([act])
            await thread.restore()
            await until(lambda: page.dead)
            assert thread.action("call1").status == "awaiting_approval"
        page = Page(server, shared)
        thread = page.thread([act])
        await thread.restore()
        await until(lambda: thread.action("call1").status == "awaiting_approval")
        thread.action("call1").approve()
        await until(lambda: thread.run_status == "idle")

    arun(main())
    assert RUNS == ["1"] and answers_delivered(server) == {"call1": 1} and len(bodies(server)) == 2


def test_send_waits_for_the_restore():
    server = round_trips({"hello": "reply 0", "again": "reply 1"})
    shared = MemoryStore()

    async def main():
        page = Page(server, shared)
        await page.thread([]).send("hello")
        thread = Page(server, shared).thread([])
        await thread.send("again")               # no restore() first: send() restores
        return thread

    thread = arun(main())
    assert [m["content"] for m in bodies(server)[1]["messages"]] == ["hello", "reply 0", "again"]
    assert [m.content for m in thread.messages][-1] == "reply 1"


# -- saving -----------------------------------------------------------------------------------


class SlowStore(MemoryStore):
    """Counts saves and how many are in flight at once; each save waits for `release`."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = self.most_in_flight = 0
        self.saved: list[dict] = []
        self.release = asyncio.Event()

    async def save(self, key, data):
        await self._write(super().save(key, data), key)

    async def append(self, key, record):  # a save of what changed
        await self._write(super().append(key, record), key)

    async def _write(self, write, key):
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.release.wait()
            await write
            self.saved.append(await self.load(key))
        finally:
            self.in_flight -= 1


def test_saves_are_coalesced_one_at_a_time_and_the_last_state_is_written():
    server = ScriptedAgent()
    server.otherwise().say("x" * 200, chunks=200)

    async def main():
        store = SlowStore()
        agent = Agent("main", "http://agent.test/agent", transport=server.transport())
        thread = agent.thread(thread_id=THREAD, store=store)
        await thread.restore()
        task = asyncio.ensure_future(thread.send("hi"))
        await until(lambda: store.in_flight == 1)   # the write-ahead save before the request
        store.release.set()
        await task
        await thread.saved()
        return store

    store = arun(main())
    assert store.most_in_flight == 1
    # 200 text deltas, yet a handful of saves: the user message and run start, the message's end, the finish.
    assert len(store.saved) <= 5
    last = store.saved[-1]
    assert last["run_state"] == "IDLE" and last["messages"][-1]["content"] == "x" * 200


def test_a_thread_without_a_store_saves_nothing_and_store_needs_a_thread_id():
    server = round_trips()
    agent = Agent("main", "http://agent.test/agent", transport=server.transport())
    assert agent.thread().store is None
    with pytest.raises(ConfigurationError, match="thread_id"):
        agent.thread(store=MemoryStore())
    with pytest.raises(ConfigurationError, match="Store"):
        agent.thread(thread_id=THREAD, store={"not": "a store"})
    with pytest.raises(ConfigurationError, match="FileStore"):
        agent.thread(thread_id=THREAD, store=True)   # CPython has no browser storage


def test_a_closed_thread_stops_saving():
    server = round_trips({"hello": "reply 0"})

    async def main():
        store = MemoryStore()
        agent = Agent("main", "http://agent.test/agent", transport=server.transport())
        thread = agent.thread(thread_id=THREAD, store=store)
        await thread.send("hello")
        await thread.saved()
        before = await store.load(f"main/{THREAD}")
        thread.close()
        await thread.saved()
        return before, await store.load(f"main/{THREAD}")

    before, after = arun(main())
    assert before == after and after["run_state"] == "IDLE"


# -- two tabs ---------------------------------------------------------------------------------


class HeldElsewhere(Platform):
    """Another tab holds every thread."""

    async def hold_thread(self, key):
        return None


def test_a_thread_held_by_another_tab_is_read_only():
    server = round_trips({"hello": "reply 0"})
    shared = MemoryStore()

    async def main():
        await Page(server, shared).thread([]).send("hello")
        agent = Agent("main", "http://agent.test/agent", transport=server.transport(), platform=HeldElsewhere())
        thread = agent.thread(thread_id=THREAD, store=shared)
        assert await thread.restore() is True
        assert thread.read_only and [m.content for m in thread.messages] == ["hello", "reply 0"]
        with pytest.raises(LocalProtocolError, match="another tab"):
            await thread.send("mine now")
        with pytest.raises(LocalProtocolError, match="another tab"):
            await thread.run()
        return await shared.load(f"main/{THREAD}")

    saved = arun(main())
    assert len(bodies(server)) == 1 and len(saved["messages"]) == 2


# -- the stores -------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [MemoryStore, lambda: FileStore(os.environ["STORE_DIR"])], ids=["memory", "file"])
def test_stores_load_save_delete(make, tmp_path, monkeypatch):
    monkeypatch.setenv("STORE_DIR", str(tmp_path / "threads"))
    store = make()
    assert isinstance(store, Store)

    async def main():
        assert await store.load("main/a b/c") is None
        await store.save("main/a b/c", {"x": [1, "é"]})
        await store.save("main/other", {"y": 1})
        await store.save("main/a b/c", {"x": 2})
        loaded = await store.load("main/a b/c")
        await store.delete("main/a b/c")
        await store.delete("main/a b/c")
        return loaded, await store.load("main/a b/c"), await store.load("main/other")

    assert arun(main()) == ({"x": 2}, None, {"y": 1})


def test_file_store_writes_atomically(tmp_path, monkeypatch):
    store = FileStore(tmp_path)
    arun(store.save("k", {"v": 1}))
    assert store.file("k").parent == tmp_path and json.loads(store.file("k").read_text()) == {"v": 1}

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        arun(store.save("k", {"v": 2}))
    with pytest.raises(TypeError):
        arun(store.save("k", {"v": object()}))   # not JSON: nothing is touched
    monkeypatch.undo()
    assert arun(store.load("k")) == {"v": 1}            # the old version, whole
    assert [p.name for p in tmp_path.iterdir()] == [store.file("k").name]  # no temporary file left


def test_memory_store_refuses_what_is_not_json():
    with pytest.raises(TypeError):
        arun(MemoryStore().save("k", {"v": object()}))


def test_client_tool_idempotent_is_validated():
    with pytest.raises(ConfigurationError, match="idempotent"):
        client_tool(lambda: "x", name="f", idempotent="yes")  # type: ignore[call-overload]
    assert act_tool(idempotent=True).idempotent is True and act_tool().idempotent is False


def test_text_cut_mid_message_is_kept_by_the_timed_save_and_marked_interrupted():
    """A page that dies while an answer streams (no TEXT_MESSAGE_END yet) keeps the text that
    arrived by the last timed save; deltas alone never trigger a save."""
    words = [f"w{i} " for i in range(40)]

    server = ScriptedAgent()   # no TEXT_MESSAGE_END: the answer is still streaming when the page dies
    server.otherwise().emit({"type": "TEXT_MESSAGE_START", "messageId": "a0", "role": "assistant"},
                            *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a0", "delta": w} for w in words))
    shared = MemoryStore()

    async def main():
        # The page dies at the first save that holds partial text (the run still streaming).
        page = Page(server, shared, save_turns=0, die_when=lambda d: d["run_state"] == "STREAMING" and any(
            m.get("content", "").startswith("w0") for m in d["messages"] if m["role"] == "assistant"))
        thread = page.thread([])
        thread.streaming_save_interval = 0          # the timer fires a loop turn later
        saves_before_text = len(page.store.saves)
        KEEP.append(asyncio.ensure_future(thread.send("tell me")))
        await until(lambda: page.dead)
        text_saves = page.store.saves[saves_before_text:]
        # One timed save of the partial answer (no save per delta: 40 deltas, a handful of saves).
        assert len(text_saves) <= 5

        page = Page(server, shared)
        thread = page.thread([])
        assert await thread.restore() is True
        answer = thread.messages[-1]
        assert answer.role == "assistant" and answer.content.startswith("w0 ") and answer.content != "".join(words)
        assert thread.interrupted_messages == ["a0"] and thread.run_status == "idle"
        await thread.send("again")                   # the next send works
        assert thread.run_status == "idle" and len(bodies(server)) == 2

    arun(main())

