"""Stores a hostile page, a crash or another tab left in a bad way, on CPython: summary records
that do not parse or hold values a list cannot show, snapshots that do not parse, a thread
deleted elsewhere while it is open, and a thread id too long for a file name.

The page's IndexedDbStore is exercised the same way in Chromium (tests/e2e/test_thread_list.py).
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from pyclient import (
    Agent,
    FileStore,
    LocalProtocolError,
    MemoryStore,
    SavedThreads,
    ThreadSummary,
)
from pyclient.browser._chat._status import run_view
from tests.helpers import arun
from tests.unit.driver.test_saved_threads import agent_on, scripted, sent


def summary(thread: str, **fields) -> dict:
    return {"agent": "main", "thread_id": thread, "title": thread, "messages": 2, "updated_at": 1000.0, **fields}


def warnings(caplog, fragment: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and fragment in r.getMessage()]


# -- summaries ---------------------------------------------------------------------------------


def test_a_summary_that_does_not_parse_is_skipped_and_the_rest_lists(tmp_path, caplog):
    async def main():
        store = FileStore(tmp_path)
        agent = agent_on(scripted())
        thread = agent.thread(thread_id="good", store=store)
        await thread.send("Plan a trip")
        thread.close()
        store.summary_file("main/cut").write_text('{"agent": "main", "thread_id": "cu')   # cut short
        store.summary_file("main/list").write_text("[1, 2]")
        store.summary_file("main/bytes").write_bytes(b"\xff\xfe{")
        # An agent named "main/sub": its keys start with "main/" too, and its records are good.
        await store.update_summary("main/sub/t", {"agent": "main/sub", "thread_id": "t", "updated_at": 1.0})
        saved = SavedThreads(agent, store)
        assert [s.thread_id for s in await saved.list()] == ["good"]
        assert saved.unreadable == ["main/bytes", "main/cut", "main/list"]
        assert (await store.list_threads("main/"))["main/cut"] is None
        await saved.list()
        assert len(warnings(caplog, "'main/cut' is left out of the list")) == 1   # once, not per list
        # A write over a record that cannot be read replaces it: the thread is listed again.
        await store.update_summary("main/cut", summary("cut", updated_at=5e9))
        assert [s.thread_id for s in await saved.list()] == ["cut", "good"]
        await saved.rename("list", "Named")              # a rename writes over it too
        assert ThreadSummary.of("main/list", (await store.list_threads())["main/list"]) is None   # name only
        assert saved.unreadable == ["main/bytes", "main/list"]

    arun(main())


@pytest.mark.parametrize("bad", [
    {"updated_at": 1e20}, {"updated_at": float("nan")}, {"updated_at": float("inf")}, {"updated_at": -5},
    {"updated_at": "yesterday"}, {"updated_at": 10**400}, {"created_at": 1e20}, {"created_at": float("nan")},
    {"messages": -1}, {"messages": 10**400}, {"thread_id": "other"},
])
def test_a_summary_with_values_a_list_cannot_show_is_skipped(store, bad):
    async def main():
        await store.update_summary("main/bad", summary("bad", **bad))   # JSON writes NaN and 1e20 as they are
        await store.update_summary("main/ok", summary("ok"))
        saved = SavedThreads(Agent("main", "http://agent.test/agent"), store)
        listed = await saved.list()
        assert [s.thread_id for s in listed] == ["ok"] and saved.unreadable == ["main/bad"]
        # What the list draws of the rest (before: 1e20 raised in the list's dates, NaN sorted anywhere).
        from pyclient.browser._thread_list._thread_words import (
            full_time,
            iso_time,
            updated_words,
        )
        assert [iso_time(s.updated_at) for s in listed] == ["1970-01-01T00:16:40Z"]
        assert full_time(listed[0].updated_at) and updated_words(listed[0].updated_at, 2000.0) == "16 min ago"

    arun(main())


def test_the_latest_time_a_summary_may_hold_is_shown():
    from pyclient._driver._summaries import LATEST_TIME
    from pyclient.browser._thread_list._thread_words import (
        full_time,
        iso_time,
        unreadable_words,
    )

    record = summary("t", updated_at=LATEST_TIME, created_at=0)
    assert ThreadSummary.of("main/t", record) is not None
    assert iso_time(LATEST_TIME) == "9999-12-31T23:59:59Z" and full_time(LATEST_TIME).startswith("9999-12-3")
    assert unreadable_words(0) == "" and unreadable_words(1) == "1 saved chat could not be read"
    assert unreadable_words(3) == "3 saved chats could not be read"


# -- snapshots ---------------------------------------------------------------------------------


def damage(store, key: str, what: str) -> None:
    """Leave `what` under `key` as the store's own text, as a crash or a hostile page would."""
    if isinstance(store, FileStore):
        store.file(key).parent.mkdir(parents=True, exist_ok=True)
        store.file(key).write_text(what)
    else:
        store._data[key] = what   # the test writes the store's text: no API writes a text cut short


@pytest.mark.parametrize("what", [
    '{"version": 1, "thread_id": "t", "run_state": "IDLE", "messa',      # cut short
    '["not", "a", "snapshot"]',                                         # wrong type
    '"a string"',
    '{"version": 1, "thread_id": "t", "run_state": "IDLE", "messages": 5, "seq": 0}',   # a value of the wrong type
    '{"version": 2, "thread_id": "t", "run_state": "IDLE"}',            # a version this pyclient does not read
])
def test_a_snapshot_that_does_not_parse_is_set_aside_and_the_thread_starts_afresh(store, what, caplog):
    async def main():
        server = scripted()
        damage(store, "main/t", what)
        if isinstance(store, FileStore):   # a record after it: moved with it
            store.log("main/t").write_text('{"seq": 1, "from": 0, "messages": [], "head": {}}\n')
        await store.update_summary("main/t", summary("t"))
        thread = agent_on(server).thread(thread_id="t", store=store)
        assert await thread.restore() is False                     # before: JSONDecodeError, AttributeError
        assert thread.set_aside == "main/t#unreadable" and thread.messages == []
        if isinstance(store, FileStore):
            assert store.file("main/t#unreadable").read_text() == what          # kept as it was, not deleted
            assert store.log("main/t#unreadable").read_text().startswith('{"seq": 1')
        else:
            assert store._data["main/t#unreadable"] == what
        assert await store.list_threads("main/") == {}     # its summary went with it
        await thread.send("hello again")                   # before: every send() raised
        await thread.send("and more")
        assert len(warnings(caplog, "thread t starts afresh")) == 1
        assert "'main/t#unreadable'" in warnings(caplog, "thread t starts afresh")[0]
        thread.close()
        again = agent_on(server).thread(thread_id="t", store=store)
        assert await again.restore() and again.set_aside is None
        assert [m.content for m in again.messages] == ["hello again", "Sure.", "and more", "Sure."]
        assert [s.title for s in await SavedThreads(agent_on(server), store).list()] == ["hello again"]
        again.close()
        # A second unreadable copy does not overwrite the first one set aside.
        damage(store, "main/t", "{")
        third = agent_on(server).thread(thread_id="t", store=store)
        assert not await third.restore() and third.set_aside == "main/t#unreadable-2"
        third.close()

    arun(main())


def test_a_read_only_tab_shows_an_unreadable_copy_empty_and_leaves_it_where_it_is(caplog):
    from pyclient._binding._platform import Platform

    class OtherTabHolds(Platform):
        async def hold_thread(self, key):
            return None

    async def main():
        store = MemoryStore()
        damage(store, "main/t", "{")
        thread = Agent("main", "http://agent.test/agent", platform=OtherTabHolds()).thread(thread_id="t", store=store)
        assert not await thread.restore() and thread.read_only and thread.set_aside is None
        assert store._data["main/t"] == "{"          # the tab that holds it moves it
        assert warnings(caplog, "thread t is shown empty")

    arun(main())


def test_a_record_with_values_of_the_wrong_type_or_cut_short_does_not_set_the_thread_aside(tmp_path):
    async def main():
        server = scripted()
        store = FileStore(tmp_path)
        thread = await sent(agent_on(server), store, "t", "one")
        await thread.send("two")
        thread.close()
        last = max(json.loads(line)["seq"] for line in store.log("main/t").read_text().splitlines() if line)
        with open(store.log("main/t"), "a") as out:   # a record with calls that are not dicts, then a torn one
            out.write(json.dumps({"seq": last + 1, "from": 4, "messages": [], "head": {}, "calls": [1, "x"]}))
            out.write('\n{"seq"')
        again = agent_on(server).thread(thread_id="t", store=store)
        assert await again.restore() and again.set_aside is None
        assert [m.content for m in again.messages] == ["one", "Sure.", "two", "Sure."]
        again.close()

    arun(main())


# -- deleted elsewhere -------------------------------------------------------------------------


def test_a_thread_deleted_in_another_tab_stops_saving_and_says_so():
    """Two tabs in one process: one store, two agents (each tab has its own). The other tab's
    delete tells the store's watchers (in the page: the IndexedDbStore hears it on its
    BroadcastChannel); the open thread asks the store, stops saving and refuses new messages."""

    async def main():
        server = scripted()
        store = MemoryStore()
        mine = await sent(agent_on(server), store, "t", "hello")
        heard = []
        mine.subscribe(lambda event: heard.append((event.kind, event.payload)) if event.kind == "status" else None)
        other_tab = SavedThreads(agent_on(server), store)
        await other_tab.delete("t")
        await mine.saved()
        assert mine.deleted and str(mine._persistence.state) == "DELETED"
        assert ("status", "idle") in heard                 # the chat redraws its status
        with pytest.raises(LocalProtocolError, match="deleted from its store elsewhere"):
            await mine.send("more")
        assert await store.load("main/t") is None and await store.list_threads() == {}   # not written back
        assert [m.content for m in mine.messages] == ["hello", "Sure."]       # nothing added either
        mine.close()

    arun(main())


def test_a_file_store_thread_deleted_by_another_process_is_checked_before_each_turn(tmp_path):
    async def main():
        server = scripted()
        mine = await sent(agent_on(server), FileStore(tmp_path), "t", "hello")
        await SavedThreads(agent_on(server), FileStore(tmp_path)).delete("t")   # no event crosses processes
        assert not mine.deleted
        with pytest.raises(LocalProtocolError, match="deleted from its store elsewhere"):
            await mine.send("more")
        assert mine.deleted and not any(tmp_path.rglob("*.json*"))
        assert len(server.requests) == 1                    # nothing was sent for "more"

    arun(main())


class GatedStore(MemoryStore):
    """A store whose writes wait until the test opens the gate (`reached`: one waits there)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate, self.reached = asyncio.Event(), asyncio.Event()
        self.gate.set()

    async def save(self, key, data):
        self.reached.set()
        await self.gate.wait()
        await super().save(key, data)

    async def append(self, key, record):
        self.reached.set()
        await self.gate.wait()
        await super().append(key, record)


def test_a_save_under_way_when_the_thread_is_deleted_elsewhere_is_deleted_again():
    async def main():
        server = scripted()
        store = GatedStore()
        mine = await sent(agent_on(server), store, "t", "hello")
        store.gate.clear()
        store.reached.clear()
        mine._machine.add_user_message("typed")   # a checkpoint: a save starts...
        mine._publisher.publish()
        await store.reached.wait()                 # ...and waits at the gate, past its check
        await SavedThreads(agent_on(server), store).delete("t")    # the other tab, meanwhile
        store.gate.set()                            # the delete is heard, then the save writes
        await mine.saved()                          # the save ends, then what it wrote is deleted again
        assert mine.deleted and str(mine._persistence.state) == "DELETED"
        assert await store.load("main/t") is None and await store.list_threads() == {}

    arun(main())


def test_the_chat_says_deleted_in_another_tab_and_takes_no_more_input():
    from pyclient.browser._chat._status import store_notice

    gone = run_view("idle", sending=False, read_only=False, waiting=False, working=False, run_end=None, deleted=True)
    assert (gone.words, gone.can_send, gone.can_type) == ("Deleted in another tab", False, False)
    assert store_notice(set_aside=False, deleted=True).startswith("This chat was deleted in another tab")
    assert store_notice(set_aside=True, deleted=False).startswith("The saved copy of this chat could not be read")
    assert store_notice(set_aside=False, deleted=False) == ""


# -- long thread ids ---------------------------------------------------------------------------


def test_a_thread_id_too_long_for_a_file_name_is_kept_under_a_hashed_name(tmp_path):
    async def main():
        server = scripted()
        store = FileStore(tmp_path)
        long_id = "x" * 10_000
        thread = agent_on(server).thread(thread_id=long_id, store=store)
        await thread.send("hello")                    # before: OSError, file name too long
        await thread.send("again")                    # a record appended to its .jsonl
        thread.close()
        names = [p.name for p in tmp_path.rglob("*") if p.is_file()]
        assert names and max(len(name.encode()) for name in names) <= 255
        again = agent_on(server).thread(thread_id=long_id, store=store)
        assert await again.restore()
        assert [m.content for m in again.messages] == ["hello", "Sure.", "again", "Sure."]
        saved = SavedThreads(agent_on(server), store)
        assert [(s.thread_id, s.title) for s in await saved.list()] == [(long_id, "hello")]
        await saved.rename(long_id, "Long")
        assert [s.title for s in await saved.list()] == ["Long"]
        again.close()
        await saved.delete(long_id)
        assert await saved.list() == [] and not any(p.is_file() for p in tmp_path.rglob("*"))

    arun(main())


def test_short_keys_keep_the_file_names_they_always_had():
    from pyclient._base._store import LONGEST_NAME, file_name

    assert file_name("main/t1") == "main%2Ft1.json"
    at_limit = "main/" + "a" * (LONGEST_NAME - len("main%2F"))
    assert file_name(at_limit) == at_limit.replace("/", "%2F") + ".json"          # the longest kept as it is
    over = file_name(at_limit + "a")
    assert "%%" in over and len(over) == 171 and over.startswith("main%2Faaa")
    assert file_name("main/" + "é" * 200) != file_name("main/" + "é" * 201)       # the hash tells them apart
