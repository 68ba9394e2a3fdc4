"""A server's JSON may carry half of a UTF-16 surrogate pair (`"\\ud800"`), which Python keeps
as a lone surrogate. In a value it is saved as it is; in a dict key it cannot be written, and
the thread used not to be saved at all (every save raised `UnicodeEncodeError`: the messages
were lost on reload). Now the free-form parts are saved repaired, as the next request sends them."""

from __future__ import annotations

import json

from pyclient import Agent, FileStore
from pyclient.testing import ScriptedAgent
from tests.helpers import arun

BROKEN = {"\ud800key": {"inner\udc00": "value \ud800"}, "fine": 1}


def stream(*events: dict) -> str:
    """The SSE text of `events`, written with JSON's escapes (ag-ui's own encoder refuses to
    write a lone surrogate: a server in another language does not)."""
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events)


REPLY = stream(
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
    {"type": "STATE_SNAPSHOT", "snapshot": BROKEN},
    {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Hi there."},
    {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"},
)


def test_a_state_key_with_a_lone_surrogate_is_saved_repaired_and_the_thread_restores(tmp_path):
    agent = ScriptedAgent()
    agent.on("hello").respond_with(REPLY, content_type="text/event-stream")
    assert "\\ud800key" in REPLY
    store = FileStore(tmp_path)

    async def first() -> None:
        thread = Agent("main", "http://agent.test/agent", transport=agent.transport()).thread(
            thread_id="t", store=store)
        await thread.send("hello")
        assert thread.run_status == "idle", thread.error
        assert thread.state == BROKEN            # what the page reads is what the server sent
        thread.set_feedback(thread.messages[-1].id, "up")
        await thread.saved()
        thread.close()

    async def second() -> tuple[list[str], object, str | None]:
        thread = Agent("main", "http://agent.test/agent", transport=agent.transport()).thread(
            thread_id="t", store=store)
        assert await thread.restore()
        texts = [str(m.content) for m in thread.messages]
        return texts, thread.state, thread.feedback(thread.messages[-1].id)

    arun(first())
    texts, state, rating = arun(second())
    assert texts == ["hello", "Hi there."] and rating == "up"
    assert state == {"\ufffdkey": {"inner\ufffd": "value \ufffd"}, "fine": 1}
