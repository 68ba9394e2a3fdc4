"""The save table pair by pair, and a thread's saving driven through it (CPython, real stores)."""

from __future__ import annotations

import asyncio

import pytest

from pyclient import Agent, LocalProtocolError, MemoryStore
from pyclient._binding._platform import Platform
from pyclient._conversation._lifecycle import (
    SAVE_TRANSITIONS,
    WRITING,
    SaveEvent,
    SaveState,
    next_save_state,
)

S, E = SaveState, SaveEvent

# The lifecycle written out as it must be (not read from the table): every other pair raises.
EXPECTED = {
    (S.UNLOADED, E.LOAD): S.LOADING, (S.UNLOADED, E.CHANGE): S.UNLOADED, (S.UNLOADED, E.CLOSE): S.CLOSED,
    (S.LOADING, E.HOLD): S.HELD, (S.LOADING, E.SHARE): S.READ_ONLY, (S.LOADING, E.CHANGE): S.LOADING,
    (S.LOADING, E.CLOSE): S.CLOSED,
    (S.HELD, E.CHANGE): S.SAVING, (S.HELD, E.GONE): S.DELETED, (S.HELD, E.CLOSE): S.CLOSED,
    (S.SAVING, E.CHANGE): S.DIRTY, (S.SAVING, E.WRITE): S.SAVING, (S.SAVING, E.SAVED): S.HELD,
    (S.SAVING, E.GONE): S.DELETED, (S.SAVING, E.CLOSE): S.CLOSED,
    (S.DIRTY, E.CHANGE): S.DIRTY, (S.DIRTY, E.WRITE): S.SAVING, (S.DIRTY, E.SAVED): S.SAVING,
    (S.DIRTY, E.GONE): S.DELETED, (S.DIRTY, E.CLOSE): S.CLOSED,
    (S.READ_ONLY, E.CHANGE): S.READ_ONLY, (S.READ_ONLY, E.GONE): S.DELETED, (S.READ_ONLY, E.CLOSE): S.CLOSED,
    (S.DELETED, E.CHANGE): S.DELETED, (S.DELETED, E.SAVED): S.DELETED, (S.DELETED, E.GONE): S.DELETED,
    (S.DELETED, E.CLOSE): S.CLOSED,
    (S.CLOSED, E.CHANGE): S.CLOSED, (S.CLOSED, E.SAVED): S.CLOSED, (S.CLOSED, E.HOLD): S.CLOSED,
    (S.CLOSED, E.SHARE): S.CLOSED, (S.CLOSED, E.CLOSE): S.CLOSED,
}


@pytest.mark.parametrize("state", list(SaveState))
@pytest.mark.parametrize("event", list(SaveEvent))
def test_save_table_every_pair(state, event):
    if (state, event) in EXPECTED:
        assert next_save_state(state, event) is EXPECTED[state, event]
    else:
        with pytest.raises(LocalProtocolError, match=f"Cannot handle {event} in save state {state}"):
            next_save_state(state, event)


def test_the_table_is_exactly_the_expected_lifecycle():
    table = {(state, event): after for state, moves in SAVE_TRANSITIONS.items() for event, after in moves.items()}
    assert table == EXPECTED and WRITING == {S.SAVING, S.DIRTY}


class SlowStore(MemoryStore):
    """A store whose saves wait until the test lets them through, recording what each wrote."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.written: list[dict] = []

    async def save(self, key, data) -> None:
        await self.gate.wait()
        self.written.append(data)
        await super().save(key, data)


class OtherTabHolds(Platform):
    async def hold_thread(self, key):
        return None


def test_a_thread_saves_through_the_table_and_the_last_state_is_written():
    async def main():
        store = SlowStore()
        thread = Agent("main", "http://127.0.0.1:1/agent").thread(thread_id="t", store=store)
        persistence = thread._persistence  # the test reads the state it drives
        assert persistence is not None and persistence.state is S.LOADING   # a loop runs: loading began
        await thread.restore()
        assert persistence.state is S.HELD
        thread.state = {"n": 0}             # no checkpoint: nothing to save
        assert persistence.state is S.HELD
        thread.forwarded_props = {"x": 1}
        thread.context.clear()
        thread._machine.add_user_message("one")  # a checkpoint without a run
        thread._publisher.publish()             
        assert persistence.state is S.SAVING
        thread._machine.add_user_message("two")  # changed while the first save waits
        thread._publisher.publish()             
        assert persistence.state is S.DIRTY
        store.gate.set()
        await thread.saved()
        assert persistence.state is S.HELD
        assert [m["content"] for m in store.written[-1]["messages"]] == ["one", "two"]
        thread.close()
        assert persistence.state is S.CLOSED
        writes = len(store.written)
        thread._machine.checkpoint += 1   # whatever changes now, nothing is written
        thread._publisher.publish()     
        await asyncio.sleep(0)
        assert len(store.written) == writes

    asyncio.run(main())


def test_a_thread_another_tab_holds_is_read_only_and_never_saved():
    async def main():
        store = MemoryStore()
        await store.save("main/t", {"version": 1, "thread_id": "t", "run_state": "IDLE",
                                    "messages": [{"id": "u1", "role": "user", "content": "hi"}]})
        thread = Agent("main", "http://127.0.0.1:1/agent", platform=OtherTabHolds()).thread(thread_id="t", store=store)
        assert await thread.restore() and thread.read_only
        assert thread._persistence is not None and thread._persistence.state is S.READ_ONLY
        with pytest.raises(LocalProtocolError, match="another tab holds it"):
            await thread.send("more")
        assert [m["content"] for m in (await store.load("main/t"))["messages"]] == ["hi"]

    asyncio.run(main())


def test_without_an_event_loop_the_load_waits_for_the_first_call_inside_one():
    store = MemoryStore()
    thread = Agent("main", "http://127.0.0.1:1/agent").thread(thread_id="t", store=store)
    assert thread._persistence is not None and thread._persistence.state is S.UNLOADED

    async def main():
        assert await thread.restore() is False
        assert thread._persistence.state is S.HELD

    asyncio.run(main())
