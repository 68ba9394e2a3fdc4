"""Tests that `test_callback_errors.py` runs in a pytest of its own, to see `callback_errors`
(tests/conftest.py) fail them or let them pass. Not collected by the suite (no `test_` prefix)."""

from __future__ import annotations

import asyncio

import pytest

from pyclient import MemoryStore
from pyclient.testing import ScriptedAgent
from tests.helpers import agent_for


def a_thread(**options):
    agent = ScriptedAgent()
    agent.otherwise()   # an empty run: RUN_STARTED, RUN_FINISHED
    return agent_for(agent).thread(**options)


def raise_in_a_listener():
    thread = a_thread()

    def broken(event):
        raise RuntimeError("listener bug")

    thread.subscribe(broken)
    thread.state = {"changed": True}   # told to the listeners at once


def test_a_listener_raises():
    raise_in_a_listener()


@pytest.mark.callback_errors_expected
def test_a_listener_raises_on_purpose():
    raise_in_a_listener()


@pytest.mark.callback_errors_expected
def test_marked_but_nothing_raises():
    a_thread().state = {"changed": True}


class BrokenStore(MemoryStore):
    async def save(self, key, data):
        raise OSError("disk full")


def test_a_save_fails():
    async def main():
        thread = a_thread(thread_id="t1", store=BrokenStore())
        await thread.restore()
        await thread.send("hi")
        await thread.saved()

    asyncio.run(main())


def test_nothing_raises():
    a_thread().state = {"changed": True}
