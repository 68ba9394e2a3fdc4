"""Regenerate and edit against real AG-UI servers: what they answer from the branch shown.

pydantic-ai keeps no history of its own: each run reads the request's messages, so an answer
after a branch switch is made from the branch shown. ag-ui-langgraph keeps the thread in its
checkpointer (`MemorySaver`): an edit keeps the message's id, so the server sees an edit of that
message and forks its own history there (its `MESSAGES_SNAPSHOT` then holds only the edited
branch, and pyclient's history with it).
"""

from __future__ import annotations

from pyclient import Agent
from tests.helpers import arun, change_background


def contents(thread) -> list[str]:
    return [m.content for m in thread.messages if m.role in ("user", "assistant") and m.content]


def test_langgraph_forks_its_own_history_at_an_edited_message(langgraph_url, transport):
    async def main():
        async with Agent("lg", f"{langgraph_url}/agent", client_tools=[change_background],
                         transport=transport) as agent:
            thread = agent.thread()
            await thread.send("hello there")
            assert thread.run_status == "idle", thread.error
            first = contents(thread)
            user = thread.messages[0]
            await thread.edit(user.id, "make it red")
            assert thread.run_status == "idle", thread.error
            return thread, first, user

    thread, first, user = arun(main(), timeout=60)
    # The server's snapshot carried only the edited branch: the old question is not in it.
    assert "hello there" not in contents(thread)
    assert contents(thread)[0] == "make it red" and "background is now red" in thread.messages[-1].content
    assert [m.content for m in thread.messages if m.role == "tool"] == ["background is now red"]
    point = thread.branches(user.id)
    assert (point.index, point.count) == (1, 2)
    thread.show_branch(user.id, 0)
    assert contents(thread) == first
    # The edit's request held the edited message alone, under its id.
    edit_request = transport.bodies[1]
    assert [(m["id"], m["content"]) for m in edit_request["messages"]] == [(user.id, "make it red")]


def test_pydantic_ai_answers_from_the_branch_shown(agent_url, transport):
    async def main():
        async with Agent("pa", f"{agent_url}/agent", client_tools=[change_background], transport=transport) as agent:
            thread = agent.thread()
            await thread.send("make it red")
            user = thread.messages[0]
            await thread.edit(user.id, "make it blue")
            thread.show_branch(user.id, 0)
            await thread.regenerate()
            return thread

    thread = arun(main(), timeout=60)
    assert thread.run_status == "idle", thread.error
    assert "background is now red" in thread.messages[-1].content
    last = transport.bodies[-1]
    assert "blue" not in str(last["messages"])
    point = thread.branch_points()
    assert [(p.index, p.count) for p in point] == [(0, 2), (1, 2)]
