"""An open interrupt of a stored thread across reloads, on CPython: each interrupt is resumed at
most once, however often and whenever the page goes away.

A "page" is one `asyncio.run()` with a new `Agent` and a new thread restored from a store;
the page dies at a chosen moment: the store as it was then is what the next page loads (its
saves are copied into a fresh `MemoryStore`, so nothing the dying loop writes later counts).
The agent is a `pyclient.testing.ScriptedAgent` whose server tool needs approval, answered in
this process; it counts every resume it receives (`agent.resumes`). tests/e2e/
test_interrupt_reload.py does the same in Chromium with IndexedDB and pydantic-ai.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from pyclient import Agent, MemoryStore
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, changed_until, texts, until

THREAD = "approvals"
INTERRUPT = "int-d1"


class Saves(MemoryStore):
    """A `MemoryStore` that keeps every version it saved (the disk at each moment)."""

    def __init__(self) -> None:
        super().__init__()
        self.key = ""
        self.versions: list[tuple[str, dict[str, Any]]] = []

    async def save(self, key: str, data: dict[str, Any]) -> None:
        await super().save(key, data)
        self.key = key
        self.versions.append((key, copy.deepcopy(data)))

    async def append(self, key: str, record: dict[str, Any]) -> None:
        # A save of what changed: the version on disk is the thread with it folded in.
        await super().append(key, record)
        self.key = key
        data = await self.load(key)
        assert data is not None
        self.versions.append((key, data))

    async def dies(self) -> Saves:
        """The page dies now: a fresh store with what this one holds, for the next page."""
        data = await self.load(self.key)
        assert data is not None
        return await store_as((self.key, data))


async def store_as(version: tuple[str, dict[str, Any]]) -> Saves:
    """A fresh store holding one saved version: what a page that died then left behind."""
    store = Saves()
    await store.save(*version)
    store.versions.clear()
    return store


def approval_agent() -> ScriptedAgent:
    agent = ScriptedAgent()
    agent.on("delete bob").server_call("delete_account", user="bob", result="deleted bob", call_id="d1",
                                       requires_approval=True).then_say("Answer: deleted bob")
    agent.on("thanks").say("You are welcome")
    return agent


def thread_on(agent: ScriptedAgent, store: MemoryStore):
    return Agent("approval", "http://agent.test/agent", transport=agent.transport()).thread(
        thread_id=THREAD, store=store)


def interrupt_of(version: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    [saved] = [i for i in version[1]["interrupts"] if i["id"] == INTERRUPT]
    return saved


def test_reloads_while_open_then_one_resume_then_reloads_send_nothing():
    agent = approval_agent()

    async def first_page() -> Saves:
        store = Saves()
        thread = thread_on(agent, store)
        sending = asyncio.ensure_future(thread.send("delete bob"))
        await until(lambda: thread.interrupts)
        await thread.saved()
        assert not sending.done()
        return await store.dies()   # with the interrupt open

    async def reload_while_open(store: Saves) -> Saves:
        thread = thread_on(agent, store)
        assert await thread.restore()
        await asyncio.sleep(0)
        [interrupt] = thread.interrupts
        assert (interrupt.id, interrupt.status, interrupt.tool_call_id) == (INTERRUPT, "open", "d1")
        assert interrupt.is_approval and thread.run_status == "running" and thread.waiting_for_person
        await thread.saved()
        return await store.dies()

    async def resolve(store: Saves) -> Saves:
        thread = thread_on(agent, store)
        await thread.restore()
        [interrupt] = thread.interrupts
        interrupt.resolve({"approved": True})
        await changed_until(thread, lambda: thread.run_status == "idle")
        await thread.saved()
        assert texts(thread) == ["Answer: deleted bob"] and thread.tool_part("d1").output == "deleted bob"
        return await store.dies()

    async def reload_after(store: Saves) -> Saves:
        thread = thread_on(agent, store)
        assert await thread.restore()
        for _ in range(20):
            await asyncio.sleep(0)
        assert thread.run_status == "idle" and thread.interrupts == []
        assert [i.status for i in thread.all_interrupts()] == ["resolved"]
        assert texts(thread) == ["Answer: deleted bob"] and thread.tool_part("d1").output == "deleted bob"
        await thread.saved()
        return await store.dies()

    async def talk_on(store: Saves) -> None:
        thread = thread_on(agent, store)
        await thread.send("thanks")   # the next request carries no resume again
        assert texts(thread)[-1] == "You are welcome"

    store = arun(first_page())
    for _ in range(3):
        store = arun(reload_while_open(store))
        assert agent.resumes == [] and len(agent.requests) == 1
    store = arun(resolve(store))
    assert [(r.interrupt_id, r.status, r.payload) for r in agent.resumes] == [(INTERRUPT, "resolved",
                                                                              {"approved": True})]
    for _ in range(2):
        store = arun(reload_after(store))
        assert len(agent.resumes) == 1 and len(agent.requests) == 2
    arun(talk_on(store))
    assert len(agent.resumes) == 1 and len(agent.requests) == 3 and agent.requests[-1].resume is None


@pytest.mark.parametrize("hold", [False, True], ids=["answered", "answer-held-open"])
def test_a_reload_at_any_save_after_the_answer_resumes_at_most_once(hold):
    """The page dies at each save the thread makes from the answer on (the resume request may
    be in flight): a page restored from that moment never resumes what the dying page sent, and
    resumes exactly once what it had not."""
    agent = ScriptedAgent()
    turn = agent.on("delete bob").server_call("delete_account", user="bob", result="deleted bob", call_id="d1",
                                              requires_approval=True)
    turn.then_say("Answer: deleted bob", hold=hold)   # held: the resume's response never ends
    agent.on("thanks").say("You are welcome")

    async def first_page() -> list[tuple[str, dict[str, Any]]]:
        store = Saves()
        thread = thread_on(agent, store)
        asyncio.ensure_future(thread.send("delete bob"))
        await until(lambda: thread.interrupts)
        await thread.saved()
        before = len(store.versions)
        thread.interrupts[0].resolve({"approved": True})
        await until(lambda: len(agent.resumes) == 1)
        if not hold:
            await changed_until(thread, lambda: thread.run_status == "idle")
        await thread.saved()
        if hold:
            thread.stop()
        return store.versions[before - 1:]   # from the last save with the interrupt open on

    versions = arun(first_page())
    assert len(versions) >= 3   # open, answered, sent (before the request), and after
    assert interrupt_of(versions[0])["status"] == "open"
    assert any(interrupt_of(v)["sent"] for v in versions)
    assert len(agent.resumes) == 1

    async def reload_from(version) -> tuple[int, str]:
        before = len(agent.resumes)
        thread = thread_on(agent, await store_as(version))
        await thread.restore()
        for _ in range(20):
            await asyncio.sleep(0)
        if thread.interrupts:           # it died before the answer was saved: the person answers again
            thread.interrupts[0].resolve({"approved": True})
            await until(lambda: len(agent.resumes) > before)
        for _ in range(20):
            await asyncio.sleep(0)
        thread.stop()                   # a held answer never ends by itself
        await thread.send("thanks")     # the next request carries no resume again
        assert texts(thread)[-1] == "You are welcome"
        return len(agent.resumes) - before, thread.run_status

    for version in versions:
        sent = interrupt_of(version)["sent"]
        resumed, _ = arun(reload_from(version))
        # Saved as sent: the dying page sent it (or was about to): never again. Otherwise this
        # page is the one that resumes, exactly once.
        assert resumed == (0 if sent else 1), (interrupt_of(version), version[1]["run_state"])
