"""Saved threads listed, renamed and deleted in MemoryStore and FileStore, on CPython: the summary
record beside each snapshot stays in step with the thread's saves, lists never read a snapshot,
and a custom store without listing keeps threads as before and is refused by name by SavedThreads.
"""

from __future__ import annotations

import itertools
import json

import pytest
from ag_ui.core import TextInputContent, UserMessage

from pyclient import (
    Agent,
    ConfigurationError,
    FileStore,
    ListingStore,
    MemoryStore,
    SavedThreads,
    Thread,
    ThreadSummary,
)
from pyclient._driver._summaries import TITLE_CHARS, SummaryWriter, title_of
from pyclient.testing import ScriptedAgent
from tests.helpers import arun


@pytest.fixture
def clock(monkeypatch):
    """The summaries' clock: 1000, 1010, 1020, ... one step per write."""
    ticks = itertools.count(1000, 10)
    monkeypatch.setattr("pyclient._driver._summaries.now", lambda: float(next(ticks)))


def agent_on(server: ScriptedAgent, name: str = "main") -> Agent:
    return Agent(name, "http://agent.test/agent", transport=server.transport())


def scripted() -> ScriptedAgent:
    server = ScriptedAgent()
    server.otherwise().say("Sure.")
    return server


def saved_in(store) -> tuple[ScriptedAgent, Agent, SavedThreads]:
    """A scripted server, the agent "main" on it, and that agent's `SavedThreads` in `store`."""
    server = scripted()
    agent = agent_on(server)
    return server, agent, SavedThreads(agent, store)


async def sent(agent: Agent, store, thread_id: str, text: str) -> Thread:
    """`agent`'s thread `thread_id` kept in `store`, once it has answered `text`."""
    thread = agent.thread(thread_id=thread_id, store=store)
    await thread.send(text)
    return thread


class Counting:
    """A store that counts the snapshot loads: a list must not read any."""

    def __init__(self, store):
        self.store, self.loads = store, 0

    async def load(self, key):
        self.loads += 1
        return await self.store.load(key)

    async def save(self, key, data):
        await self.store.save(key, data)

    async def delete(self, key):
        await self.store.delete(key)

    async def list_threads(self, prefix=""):
        return await self.store.list_threads(prefix)

    async def update_summary(self, key, fields):
        await self.store.update_summary(key, fields)


def test_threads_are_listed_newest_first_with_a_title_from_the_first_message(store, clock):
    async def main():
        counting = Counting(store)
        server, agent, saved = saved_in(counting)
        assert isinstance(store, ListingStore)
        for thread_id, text in (("t1", "Plan a trip\nto  Lisbon"), ("t2", "Write a poem"), ("t3", "x" * 200)):
            thread = await sent(agent, counting, thread_id, text)
            thread.close()
        loads = counting.loads
        listed = await saved.list()
        assert counting.loads == loads       # the summaries only, no snapshot read
        assert [s.thread_id for s in listed] == ["t3", "t2", "t1"]
        assert [s.title for s in listed] == ["x" * (TITLE_CHARS - 1) + "…", "Write a poem", "Plan a trip to Lisbon"]
        first = listed[-1]
        assert (first.key, first.agent, first.messages, first.named) == ("main/t1", "main", 2, False)
        assert first.created_at is not None and first.created_at < first.updated_at
        # Another agent's threads in the same store are not this agent's.
        other = agent_on(server, "other")
        thread = other.thread(thread_id="t9", store=store)
        await thread.send("elsewhere")
        thread.close()
        assert [s.thread_id for s in await saved.list()] == ["t3", "t2", "t1"]
        assert [s.thread_id for s in await SavedThreads(other, store).list()] == ["t9"]

    arun(main())


def test_the_summary_stays_in_step_with_the_saves(store, clock):
    async def main():
        server, agent, saved = saved_in(store)
        heard = []
        unwatch = saved.watch(lambda: heard.append("changed"))
        thread = agent.thread(thread_id="t1", store=store)
        await thread.restore()
        assert await saved.list() == [] and heard == []
        # A save before the first message (a page's state, say) writes no summary: not listed.
        writer = SummaryWriter(store, "main/t1", "main", "t1", lambda: thread.messages)
        await writer.saved()
        assert await store.list_threads() == {} and heard == []
        for turn, text in enumerate(("hello", "and more", "last one"), start=1):
            await thread.send(text)
            snapshot = await store.load("main/t1")
            [summary] = await saved.list()
            assert summary.messages == len(snapshot["messages"]) == 2 * turn
            assert summary.title == "hello"
        assert len(heard) >= 3
        before = (await saved.list())[0].updated_at
        thread.close()
        # Opened again (a reload) and closed without a change: the thread keeps its place.
        again = agent_on(server).thread(thread_id="t1", store=store)
        assert await again.restore()
        await again.saved()
        again.close()
        assert (await saved.list())[0].updated_at == before
        unwatch()
        await saved.rename("t1", "quiet")
        assert len(heard) >= 3 and heard == ["changed"] * len(heard)

    arun(main())


def test_rename_is_kept_through_later_saves_and_an_empty_title_goes_back(store, clock):
    async def main():
        _, agent, saved = saved_in(store)
        thread = await sent(agent, store, "t1", "first words")
        await saved.rename("t1", "  My\n trip  ")
        [summary] = await saved.list()
        assert (summary.title, summary.named) == ("My trip", True)
        await thread.send("a second message")   # the thread's saves rewrite its summary, not its name
        [summary] = await saved.list()
        assert (summary.title, summary.named, summary.messages) == ("My trip", True, 4)
        await saved.rename("t1", "")
        [summary] = await saved.list()
        assert (summary.title, summary.named) == ("first words", False)
        thread.close()

    arun(main())


def test_delete_forgets_snapshot_and_summary_and_closes_the_live_thread(store, clock):
    async def main():
        _, agent, saved = saved_in(store)
        keep = await sent(agent, store, "keep", "keep me")
        gone = await sent(agent, store, "gone", "delete me")
        heard = []
        saved.watch(lambda: heard.append(1))
        await saved.delete("gone")
        assert gone.run_status == "closed" and keep.run_status == "idle"
        assert await store.load("main/gone") is None
        assert [s.thread_id for s in await saved.list()] == ["keep"]
        assert heard == [1]
        fresh = agent.thread(thread_id="gone", store=store)     # the id starts afresh
        assert not await fresh.restore()
        await saved.delete("never-saved")                      # nothing there: nothing happens
        keep.close()
        fresh.close()

    arun(main())


def test_file_store_keeps_summaries_in_their_own_folder(tmp_path, clock):
    async def main():
        store = FileStore(tmp_path)
        key = "main/a b/ü?.json"
        await store.save(key, {"messages": []})
        await store.update_summary(key, {"agent": "main", "thread_id": "a b/ü?.json", "title": "t",
                                         "updated_at": 1.0})
        await store.update_summary("other/x", {"title": "o"})
        assert sorted(p.name for p in tmp_path.iterdir()) == ["_summaries", "main%2Fa%20b%2F%C3%BC%3F.json.json"]
        assert await store.list_threads("main/") == {key: {"agent": "main", "thread_id": "a b/ü?.json",
                                                            "title": "t", "updated_at": 1.0}}
        assert set(await store.list_threads()) == {key, "other/x"}
        assert json.loads(store.summary_file(key).read_text()) == (await store.list_threads("main/"))[key]
        await store.delete(key)
        assert not store.file(key).exists() and not store.summary_file(key).exists()
        assert await FileStore(tmp_path / "none").list_threads() == {}

    arun(main())


class PlainStore:
    """A custom store with only the three methods of `Store`."""

    def __init__(self):
        self.data = {}

    async def load(self, key):
        return self.data.get(key)

    async def save(self, key, data):
        self.data[key] = json.loads(json.dumps(data))

    async def delete(self, key):
        self.data.pop(key, None)


def test_a_custom_store_without_listing_keeps_threads_and_cannot_be_listed():
    async def main():
        server = scripted()
        store = PlainStore()
        thread = await sent(agent_on(server), store, "t1", "hello")
        thread.close()
        again = agent_on(server).thread(thread_id="t1", store=store)
        assert await again.restore()
        assert [m.content for m in again.messages] == ["hello", "Sure."]
        again.close()
        with pytest.raises(ConfigurationError, match=r"PlainStore has only load, save and delete.*"
                           r"list_threads\(prefix\) and update_summary\(key, fields\)"):
            SavedThreads(agent_on(server), store)
        with pytest.raises(ConfigurationError, match="needs a pyclient store"):
            SavedThreads(agent_on(server), {"not": "a store"})   # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match="IndexedDB"):
            SavedThreads(agent_on(server), True)                 # CPython has no store of its own

    arun(main())


def test_records_that_are_not_a_threads_summary_are_skipped():
    good = {"agent": "main", "thread_id": "t", "title": "", "updated_at": 2, "messages": 1}
    assert ThreadSummary.of("main/t", good) == ThreadSummary("main/t", "main", "t", "", False, 1, 2.0)
    for bad in ({**good, "updated_at": "yesterday"}, {**good, "agent": None}, {**good, "messages": True},
                {**good, "name": 5}, {**good, "created_at": []}, {"title": "only"}, ["a", "list"], None):
        assert ThreadSummary.of("main/t", bad) is None

    async def main():
        store = MemoryStore()
        await store.update_summary("main/t", good)
        await store.update_summary("main/u", {"title": "broken"})
        agent = Agent("main", "http://agent.test/agent")
        assert [s.thread_id for s in await SavedThreads(agent, store).list()] == ["t"]

    arun(main())


def test_title_of_reads_the_first_user_messages_text():
    parts = [TextInputContent(text="look at"), TextInputContent(text=" this ")]
    assert title_of([UserMessage(id="u", content=parts)]) == "look at this"
    assert title_of([UserMessage(id="u", content="   "), UserMessage(id="v", content="second")]) == "second"
    assert title_of([]) == ""


def test_a_list_says_when_in_words():
    from pyclient.browser._thread_list._thread_words import (
        full_time,
        iso_time,
        shown_title,
        updated_words,
    )

    day = 86400
    assert [updated_words(1000.0, 1000.0 + ago) for ago in (-5, 59, 60, 3599, 3600, day - 1, day, 2 * day, 6 * day)] == [
        "just now", "just now", "1 min ago", "59 min ago", "1 h ago", "23 h ago", "yesterday", "2 days ago",
        "6 days ago"]
    then = 1_780_000_000.0          # 2026-05-28
    assert updated_words(then, then + 10 * day).startswith("May ") and "," not in updated_words(then, then + 10 * day)
    assert updated_words(then, then + 400 * day).endswith(", 2026")
    assert iso_time(0.0) == "1970-01-01T00:00:00Z" and len(full_time(then)) == 16
    assert shown_title("") == "New chat" and shown_title("Trip") == "Trip"
