"""Saves as records (`pyclient._driver._journal`, `pyclient._base._replay`): what they restore, what they cost, crashes.

- a thread saved record by record loads, at every save, as the whole snapshot taken at that
  moment (calls, interrupts, files, state and all);
- a record's size does not grow with the thread (the save cost target itself is measured in
  `bench/run.py --only saves`);
- a crash mid-append, or between a whole save and dropping its records, restores what was
  complete;
- a store with only `load`/`save`/`delete` (today's documented protocol) gets whole snapshots
  and restores;
- a FileStore directory written by the code before records (`snapshots/filestore_v1/`,
  main at bd6559d) restores the same thread, then goes on saving records.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

from pyclient import (
    Agent,
    Attachment,
    FileStore,
    MemoryStore,
    RecordStore,
    Store,
)
from pyclient._binding._platform import Platform
from pyclient._driver._journal import Journal
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, change_background

LEGACY = Path(__file__).parent / "snapshots" / "filestore_v1"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 16


def server(rounds: int = 0) -> ScriptedAgent:
    agent = ScriptedAgent()
    agent.on("make it blue").call("change_background", background="blue", call_id="c1").then_say("Done, blue.")
    agent.on("look at this").say("A one-pixel picture.")
    agent.on("delete bob").server_call("delete_account", user="bob", result="deleted bob", call_id="d1").then_say(
        "Bob is gone.")
    agent.on("pick a colour").interrupt("Which colour?", interrupt_id="i1").then_say("Noted.")
    for i in range(rounds):
        agent.on(f"round {i}").call("change_background", background=f"c{i}", call_id=f"r{i}").then_say(f"ok {i}")
    return agent


def thread_on(store: Any, agent: ScriptedAgent) -> Any:
    return Agent("main", "http://agent.test/agent", client_tools=[change_background], transport=agent.transport(),
                 platform=Platform()).thread(thread_id="t", store=store)


def whole(thread: Any) -> dict[str, Any]:
    return json.loads(json.dumps(thread._machine.snapshot()))


class Watched(MemoryStore):
    """Checks, at every write, that what a load would return is the whole snapshot of that moment."""

    def __init__(self) -> None:
        super().__init__()
        self.thread: Any = None
        self.appends = self.saves = 0
        self.record_sizes: list[int] = []

    async def save(self, key: str, data: dict[str, Any]) -> None:
        await super().save(key, data)
        self.saves += 1
        await self._check(key)

    async def append(self, key: str, record: dict[str, Any]) -> None:
        await super().append(key, record)
        self.appends += 1
        self.record_sizes.append(len(json.dumps(record)))
        await self._check(key)

    async def _check(self, key: str) -> None:
        loaded = await self.load(key)
        assert loaded is not None
        loaded.pop("seq")
        assert loaded == whole(self.thread)


async def conversation(store: Any, rounds: int = 0) -> Any:
    thread = thread_on(store, server(rounds))
    if isinstance(store, Watched):
        store.thread = thread
    await thread.restore()
    await thread.send("make it blue")
    await thread.send("look at this", attachments=[Attachment(data=PNG, mime_type="image/png", filename="dot.png")])
    thread.state = {"step": 2}
    await thread.send("delete bob")
    for i in range(rounds):
        await thread.send(f"round {i}")
    sending = asyncio.ensure_future(thread.send("pick a colour"))
    while not thread.interrupts:
        await asyncio.sleep(0.01)
    await thread.saved()
    thread.interrupts[0].resolve({"colour": "blue"})
    await sending
    await thread.saved()
    return thread


def test_every_record_loads_as_the_whole_snapshot_of_its_moment():
    store = Watched()
    thread = arun(conversation(store))
    assert store.appends > 10 and store.saves == 1  # the first save whole, then records only
    assert [m["content"] for m in whole(thread)["messages"] if m["role"] == "assistant" and m.get("content")][-1] \
        == "Noted."


def test_a_record_costs_what_changed_not_the_thread():
    store = Watched()
    arun(conversation(store, rounds=40))
    sizes = store.record_sizes
    early, late = max(sizes[5:15]), max(sizes[-15:-5])
    assert late <= early + 200, (early, late)  # 40 round trips later, a record is no larger


def test_a_restore_saves_what_it_changed_as_a_record_not_the_thread_again():
    store = Watched()
    first = arun(conversation(store))
    first.close()
    saves = store.saves

    async def reload() -> Any:
        again = thread_on(store, server())
        store.thread = again
        assert await again.restore()
        await again.saved()
        await again.send("make it blue")   # and goes on as records
        await again.saved()
        return again

    again = arun(reload())
    assert store.saves == saves and store.appends > 0  # each write checked whole by `Watched`
    assert [m.get("content") for m in whole(again)["messages"] if m["role"] == "assistant"][-1] == "Done, blue."


def test_a_restore_that_dropped_a_saved_message_saves_the_thread_whole():
    store = MemoryStore()
    messages = [{"id": "u1", "role": "user", "content": "hi"},
                {"id": "t1", "role": "tool", "toolCallId": "nowhere", "content": "an answer to no call"},
                {"id": "a1", "role": "assistant", "content": "hello"}]
    arun(store.save("main/t", {"version": 1, "thread_id": "t", "run_state": "IDLE", "messages": messages}))

    async def restore() -> Any:
        thread = thread_on(store, server())
        assert await thread.restore()
        await thread.saved()
        return thread

    thread = arun(restore())
    saved = arun(store.load("main/t"))
    assert saved is not None and [m["id"] for m in saved["messages"]] == ["u1", "a1"]  # as restored, not as given
    assert store.count_records("main/t") == 0 and saved == {**whole(thread), "seq": 0}


def test_a_thread_saved_as_records_restores(tmp_path):
    for store in (MemoryStore(), FileStore(tmp_path)):
        thread = arun(conversation(store))
        expected = whole(thread)
        thread.close()

        async def reload() -> Any:
            again = thread_on(store, server())
            assert await again.restore()
            return again

        again = arun(reload())
        assert whole(again)["messages"] == expected["messages"]
        assert [(c.tool_call_id, c.state) for c in again.tool_parts()] == [(c.tool_call_id, c.state) for c in thread.tool_parts()]
        assert again.state == {"step": 2} and [i.status for i in again.all_interrupts()] == ["resolved"]


def test_a_crash_mid_append_restores_what_was_complete(tmp_path):
    store = FileStore(tmp_path)
    thread = arun(conversation(store))
    thread.close()
    log = store.log("main/t")
    lines = [line for line in log.read_text().splitlines() if line]
    assert len(lines) > 5

    async def load() -> dict[str, Any] | None:
        return await FileStore(tmp_path).load("main/t")

    whole_text = log.read_text()
    # The last append was cut short: what the records before it held is restored.
    log.write_text(whole_text[:whole_text.rindex(lines[-1])] + lines[-1][:len(lines[-1]) // 2])
    cut = arun(load())
    log.write_text("\n".join(lines[:-1]) + "\n")
    before = arun(load())
    assert cut == before and before is not None and before["seq"] == json.loads(lines[-2])["seq"]
    # A record missing in the middle: nothing after it is applied.
    log.write_text("\n".join([*lines[:3], *lines[4:]]) + "\n")
    gap = arun(load())
    log.write_text("\n".join(lines[:3]) + "\n")
    assert gap is not None and gap.pop("cut") is True  # the thread's next save is whole
    assert gap == arun(load())


def test_records_left_behind_a_newer_whole_save_are_skipped(tmp_path):
    store = FileStore(tmp_path)
    thread = arun(conversation(store))
    thread.close()
    stale = store.log("main/t").read_text()
    data = arun(store.load("main/t"))
    assert data is not None
    arun(store.save("main/t", data))              # whole, with every record in it
    store.log("main/t").write_text(stale)         # a crash before its records were dropped
    assert arun(store.load("main/t")) == data


class OnlySaveAndLoad:
    """A custom store as docs/persistence.md described it before records: three methods."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.saves = 0

    async def load(self, key: str) -> dict[str, Any] | None:
        return json.loads(self.data[key]) if key in self.data else None

    async def save(self, key: str, data: dict[str, Any]) -> None:
        self.saves += 1
        self.data[key] = json.dumps(data)

    async def delete(self, key: str) -> None:
        self.data.pop(key, None)


def test_a_store_with_only_save_and_load_gets_whole_snapshots():
    store = OnlySaveAndLoad()
    assert isinstance(store, Store) and not isinstance(store, RecordStore)
    thread = arun(conversation(store))
    expected = whole(thread)
    saved = json.loads(store.data["main/t"])
    saved.pop("seq")
    assert store.saves > 10 and saved == expected

    async def reload() -> Any:
        again = thread_on(store, server())
        assert await again.restore()
        return whole(again)

    assert arun(reload())["messages"] == expected["messages"]


def test_a_filestore_written_before_records_restores_the_same_thread(tmp_path):
    shutil.copytree(LEGACY, tmp_path / "threads")
    expected = json.loads((LEGACY / "expected.json").read_text())
    store = FileStore(tmp_path / "threads")
    legacy = json.loads((LEGACY / "main%2Flegacy.json").read_text())
    assert "seq" not in legacy and legacy["version"] == 1

    async def main() -> Any:
        agent = Agent("main", "http://agent.test/agent", client_tools=[change_background],
                      transport=server().transport(), platform=Platform())
        thread = agent.thread(thread_id="legacy", store=store)
        assert await thread.restore()
        machine = thread._machine
        assert machine.history.dump_json().decode() == expected["messages_json"]  # byte for byte
        assert {i: c.status.value for i, c in machine.calls.items()} == expected["calls"]
        assert [[i.id, i.status] for i in thread.interrupts] == expected["interrupts"]
        assert thread.run_status == expected["run_status"]
        # The restore's own changes (the restore rules) go after the legacy file as a record:
        # the file itself is not written again.
        await thread.saved()
        assert store.file("main/legacy").read_text() == (LEGACY / "main%2Flegacy.json").read_text()
        assert [json.loads(line)["seq"] for line in store.log("main/legacy").read_text().splitlines() if line] == [1]
        # Saving goes on from it as records.
        journal = Journal(store, "main/legacy")
        before = await journal.load()
        assert before is not None and before["seq"] == 1
        await journal.save(machine)          # the first save after a load without `restored`: whole
        assert not store.log("main/legacy").exists()
        machine.add_user_message("something else")   # cancels the open interrupt
        await journal.save(machine)          # a record
        assert store.log("main/legacy").exists()
        after = await store.load("main/legacy")
        assert after is not None and after["seq"] == 2
        after.pop("seq")
        assert after == whole(thread)
        assert after["messages"][:len(before["messages"])] == before["messages"]
        thread.close()

    arun(main())


def test_a_message_still_streaming_is_saved_again_as_it_grows():
    # A save mid-run (the streaming timer, a checkpoint) records the message being streamed;
    # its later text, and a call added to it, are in the next record.
    from pyclient._conversation._machine import Conversation
    from pyclient._wire._events import decode_event

    async def main() -> None:
        store = MemoryStore()
        machine = Conversation("t")
        journal = Journal(store, "k")
        machine.add_user_message("hi")
        await journal.save(machine)
        request = machine.start_run([])
        events = [{"type": "RUN_STARTED", "threadId": "t", "runId": request.run_id},
                  {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
                  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Hel"},
                  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "lo"},
                  {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "x", "parentMessageId": "a1"},
                  {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
                  {"type": "RUN_FINISHED", "threadId": "t", "runId": request.run_id}]
        for event in events:
            machine.receive(decode_event(json.dumps(event)))
            await journal.save(machine)
            loaded = await store.load("k")
            assert loaded is not None and loaded.pop("seq") > 0
            assert loaded == json.loads(json.dumps(machine.snapshot())), event
        assert store.count_records("k") == len(events)

    arun(main())
