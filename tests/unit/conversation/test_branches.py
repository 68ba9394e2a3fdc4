"""Branches and feedback on CPython: regenerate, edit, paging through alternatives, ratings.

Each thread talks to pyclient's own `ScriptedAgent` in this process (`transport()`), which
records every request. The request after a branch switch is compared, byte for byte, with
ag-ui's own dump of the messages shown (`RunAgentInput(...).model_dump_json(by_alias=True)`):
the branch shown, and nothing of the others, is what the agent reads. Branches and ratings go
through a store (`MemoryStore`, and `FileStore`'s JSON file) and come back; a save made before
they existed restores without them.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from ag_ui.core import AssistantMessage, RunAgentInput, UserMessage

from pyclient import (
    Agent,
    BranchPoint,
    FileStore,
    LocalProtocolError,
    MemoryStore,
    client_tool,
)
from pyclient._conversation._branches import Branches
from pyclient._conversation._request_body import PROTOCOL_VERSION
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, texts


@client_tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


def scripted() -> ScriptedAgent:
    agent = ScriptedAgent()
    agent.on("greet", times=1).say("Hello")
    agent.on("greet", times=1).say("Hi there")
    agent.on("greet").say("Hey")
    agent.on("echo").say("Echoing.").call("echo", text="e").then_say(lambda results: f"said {results[0].content}")
    agent.on("bye").say("Goodbye")
    agent.otherwise().say("ok")
    return agent


def thread_of(agent: ScriptedAgent, **options):
    return Agent("test", "http://agent.test/agent", client_tools=[echo], transport=agent.transport()).thread(**options)


def sent(agent: ScriptedAgent) -> list[list[str]]:
    """The contents of the messages of every request, in order."""
    return [[m.content for m in run.messages] for run in agent.requests]


def ag_ui_dump(thread, body: bytes) -> bytes:
    """ag-ui's own dump of the request the thread just sent, with the messages it shows."""
    wire = json.loads(body)
    return RunAgentInput(
        thread_id=thread.thread_id, run_id=wire["runId"], protocol_version=PROTOCOL_VERSION,
        messages=[m for m in thread.messages if m.id in {w["id"] for w in wire["messages"]}],
        tools=[tool.to_agui_tool() for tool in thread.available_tools()], state=thread.state or {},
        context=thread.context, forwarded_props=thread.forwarded_props or {},
    ).model_dump_json(by_alias=True).encode()


def test_regenerate_keeps_the_answer_as_a_branch_and_the_request_holds_only_the_branch_shown():
    agent = scripted()
    thread = thread_of(agent)

    async def main():
        await thread.send("greet")
        first = thread.messages[-1]
        assert thread.branches(first.id) is None  # nothing to page through yet
        await thread.regenerate()
        second = thread.messages[-1]
        assert texts(thread) == ["Hi there"]
        assert thread.branches(second.id) == BranchPoint(second.id, 1, 2)
        assert thread.branch_points() == [BranchPoint(second.id, 1, 2)]
        # The regenerate's request carried the user message alone: the old answer is not sent.
        assert sent(agent)[1] == ["greet"]
        shown = thread.show_branch(second.id, 0)
        assert shown == BranchPoint(first.id, 0, 2) and texts(thread) == ["Hello"]
        await thread.send("more")
        body = agent.transport().requests[-1].body
        assert sent(agent)[-1] == ["greet", "Hello", "more"]
        assert body == ag_ui_dump(thread, body)
        # Back to the second answer: the first one's continuation goes aside with it.
        thread.show_branch(first.id, 1)
        assert texts(thread) == ["Hi there"]
        await thread.send("again")
        body = agent.transport().requests[-1].body
        assert sent(agent)[-1] == ["greet", "Hi there", "again"]
        assert body == ag_ui_dump(thread, body)
        thread.show_branch(thread.messages[1].id, 0)
        assert [m.content for m in thread.messages] == ["greet", "Hello", "more", "ok"]

    arun(main())


def test_a_third_answer_and_a_regenerate_after_paging_back_add_alternatives_in_order():
    agent = scripted()
    thread = thread_of(agent)

    async def main():
        await thread.send("greet")
        await thread.regenerate()
        await thread.regenerate()
        assert texts(thread) == ["Hey"] and thread.branch_points()[0].index == 2
        assert thread.branch_points()[0].count == 3
        thread.show_branch(thread.messages[-1].id, 0)
        await thread.regenerate()  # from the first answer shown: a fourth alternative, shown
        point = thread.branch_points()[0]
        assert (point.index, point.count) == (3, 4)
        contents = []
        for index in range(4):
            contents.append(texts(thread)[0] if index == point.index else None)
        for index in range(3):
            thread.show_branch(thread.messages[-1].id, index)
            contents[index] = texts(thread)[0]
        assert contents == ["Hello", "Hi there", "Hey", "Hey"]

    arun(main())


def test_edit_resends_from_the_edited_message_with_its_files_and_keeps_the_old_one():
    agent = scripted()
    thread = thread_of(agent)
    from pyclient import Attachment

    async def main():
        await thread.send("echo this", attachments=[Attachment(data=b"%PDF-1.4 x", mime_type="application/pdf",
                                                                filename="a.pdf")])
        assert texts(thread) == ["Echoing.", "said e"]
        original = thread.messages[0]
        await thread.edit(original.id, "bye now")
        edited = thread.messages[0]
        # The same id: a server that keeps its own history sees an edit of that message.
        assert edited.id == original.id and edited.content != original.content and texts(thread) == ["Goodbye"]
        assert thread.branches(edited.id) == BranchPoint(edited.id, 1, 2)
        # The edited message keeps the file; the request holds only the edited branch.
        parts = [part.type for part in edited.content]
        assert parts == ["text", "document"] and edited.content[0].text == "bye now"
        run = agent.requests[-1]
        assert [m.role for m in run.messages] == ["user"] and run.messages[0].id == edited.id
        body = agent.transport().requests[-1].body
        assert body == ag_ui_dump(thread, body)
        # The old message and its calls come back whole, tool message included.
        thread.show_branch(edited.id, 0)
        assert [m.role for m in thread.messages] == ["user", "assistant", "tool", "assistant"]
        assert thread.messages[0] == original and texts(thread) == ["Echoing.", "said e"]
        call_id = thread.messages[1].tool_calls[0].id
        assert thread.tool_part(call_id).output == "e"

    arun(main())


def test_nested_branches_come_back_as_they_were_last_shown():
    agent = scripted()
    thread = thread_of(agent)

    async def main():
        await thread.send("first")
        await thread.send("greet")                        # Hello
        user = thread.messages[2]
        await thread.regenerate()                      # Hi there (2/2 on the answer)
        await thread.edit(user.id, "bye")              # Goodbye (2/2 on the user message)
        assert [m.content for m in thread.messages][2:] == ["bye", "Goodbye"]
        edited = thread.messages[2]
        thread.show_branch(edited.id, 0)               # the old user message, its answer as last shown
        assert [m.content for m in thread.messages][2:] == ["greet", "Hi there"]
        points = thread.branch_points()
        assert [(p.message_id, p.index, p.count) for p in points] == [
            (user.id, 0, 2), (thread.messages[3].id, 1, 2)]
        thread.show_branch(thread.messages[3].id, 0)
        assert [m.content for m in thread.messages][2:] == ["greet", "Hello"]
        thread.show_branch(user.id, 1)
        assert [m.content for m in thread.messages][2:] == ["bye", "Goodbye"]
        assert thread.branch_points() == [BranchPoint(edited.id, 1, 2)]

    arun(main())


def test_what_is_refused_changes_nothing():
    agent = scripted()
    agent.on("wait", times=1).say("Working").hold()
    thread = thread_of(agent)

    async def main():
        with pytest.raises(LocalProtocolError, match="no user message yet"):
            await thread.regenerate()
        await thread.send("greet")
        answer = thread.messages[-1]
        with pytest.raises(LocalProtocolError, match="it is a assistant message|Only the user's messages"):
            await thread.edit(answer.id, "x")
        with pytest.raises(LocalProtocolError, match="No message 'nope'"):
            await thread.edit("nope", "x")
        with pytest.raises(LocalProtocolError, match="has no other branches"):
            thread.show_branch(answer.id, 0)
        await thread.regenerate()
        with pytest.raises(LocalProtocolError, match="2 branches: 2 is not one"):
            thread.show_branch(thread.messages[-1].id, 2)
        with pytest.raises(LocalProtocolError, match="not a rating"):
            thread.set_feedback(thread.messages[-1].id, "meh")
        with pytest.raises(LocalProtocolError, match="not an assistant message"):
            thread.set_feedback(thread.messages[0].id, "up")
        # While a run streams: refused, and the history is as it was.
        task = asyncio.ensure_future(thread.send("wait"))
        while thread.run_status != "running" or texts(thread)[-1:] != ["Working"]:
            await asyncio.sleep(0.01)
        before = [m.id for m in thread.messages]
        for act in (thread.regenerate(), thread.edit(before[0], "x")):
            with pytest.raises(LocalProtocolError, match="a run is in flight"):
                await act
        with pytest.raises(LocalProtocolError, match="a run is in flight"):
            thread.show_branch(before[1], 0)
        assert [m.id for m in thread.messages] == before
        thread.set_feedback(before[1], "down")  # a rating may change at any time
        thread.stop()
        await task
        # After a stop, the partial answer is what a regenerate keeps.
        await thread.regenerate()
        assert thread.branch_points()[-1].count == 2

    arun(main())


def test_a_regenerate_after_a_failed_run_without_an_answer_keeps_nothing():
    agent = ScriptedAgent()
    agent.on("x", times=1).http_error(503, "busy")
    agent.on("x").say("fine")
    thread = thread_of(agent)

    async def main():
        await thread.send("x")
        assert thread.run_status == "error"
        await thread.regenerate()
        assert texts(thread) == ["fine"] and thread.branch_points() == []

    arun(main())


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_branches_and_feedback_survive_a_store_round_trip(kind, tmp_path):
    agent = scripted()
    store = MemoryStore() if kind == "memory" else FileStore(tmp_path)

    async def main():
        thread = thread_of(agent, thread_id="t1", store=store)
        await thread.send("greet")
        first = thread.messages[-1].id
        thread.set_feedback(first, "down")
        await thread.regenerate()
        second = thread.messages[-1].id
        thread.set_feedback(second, "up")
        thread.set_feedback(second, None)
        thread.set_feedback(second, "up")
        await thread.saved()
        thread.close()

        again = thread_of(agent, thread_id="t1", store=store)
        assert await again.restore()
        assert again.branch_points() == [BranchPoint(second, 1, 2)]
        assert again.feedback(second) == "up" and again.feedback(first) == "down"
        again.show_branch(second, 0)
        assert texts(again) == ["Hello"] and again.feedback(again.messages[-1].id) == "down"
        await again.send("more")
        assert sent(agent)[-1] == ["greet", "Hello", "more"]
        await again.saved()
        again.close()

        third = thread_of(agent, thread_id="t1", store=store)
        await third.restore()
        assert [m.content for m in third.messages] == ["greet", "Hello", "more", "ok"]
        assert third.branch_points()[0].index == 0

    arun(main())


def test_an_old_snapshot_without_branches_restores():
    agent = scripted()
    store = MemoryStore()
    old = {"version": 1, "thread_id": "t1", "run_state": "IDLE", "messages": [
        {"id": "u1", "role": "user", "content": "greet"}, {"id": "a1", "role": "assistant", "content": "Hello"}]}

    async def main():
        await store.save("test/t1", old)
        thread = thread_of(agent, thread_id="t1", store=store)
        assert await thread.restore()
        assert thread.branch_points() == [] and thread.feedback("a1") is None
        await thread.regenerate()
        assert thread.branch_points() == [BranchPoint(thread.messages[-1].id, 1, 2)]

    arun(main())


def test_a_saved_fork_that_does_not_hold_together_is_dropped():
    good = {"parent": "u1", "after": "hi", "shown": 1,
            "alternatives": [[{"id": "a1", "role": "assistant", "content": "x"}], None]}
    bad = [{"parent": "u2", "shown": 2, "alternatives": [[], None]},
           {"parent": "u3", "shown": 0, "alternatives": [None]},
           {"parent": "u4", "shown": 0, "alternatives": [None, None]}]
    branches = Branches([good, *bad])
    assert branches.saved() == [good]
    shown = [UserMessage(id="u1", content="hi"), AssistantMessage(id="a2", content="y")]
    assert branches.points(shown) == [BranchPoint("a2", 1, 2)]
