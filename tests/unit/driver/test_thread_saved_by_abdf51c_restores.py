"""A thread saved by pyclient at commit abdf51c restores with today's code, whole, and goes on.

`snapshots/filestore_abdf51c/` is the FileStore directory that commit's code left when the page
died (`snapshots/write_abdf51c.py` wrote it, running abdf51c's code; ids come from a counter):
a whole save and the records after it. `snapshots/restored_by_abdf51c.json` is what abdf51c
itself restored from it. Today's restore must give the same messages, state, pending call,
open interrupt, branches and ratings; the call and the interrupt must still be answerable,
and a new `send()` must carry the restored history to the agent.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from pyclient import Agent, BranchPoint, FileStore, Platform, client_tool
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, change_background, until

SNAPSHOTS = Path(__file__).parent / "snapshots"
SAVED = SNAPSHOTS / "filestore_abdf51c"
RESTORED_THEN = json.loads((SNAPSHOTS / "restored_by_abdf51c.json").read_text())

# The history shown, as abdf51c saved it: (id, role, text or tool call ids).
HISTORY = [
    ("00000001-0000-0000-0000-000000000001", "user", "make it blue"),
    ("reasoning_000000040000", "reasoning", "The user wants a blue page."),
    ("a1", "assistant", "On it."),
    ("00000005-0000-0000-0000-000000000005", "tool", "background is now blue"),
    ("msg_000000070000", "assistant", "Done, blue."),
    ("00000008-0000-0000-0000-000000000008", "user", None),  # a text and a picture
    ("a2", "assistant", "A one-pixel picture."),
    ("0000000b-0000-0000-0000-00000000000b", "user", "delete bob"),
    ("msg_0000000d0000", "assistant", None),  # the server-side call d1
    ("msg_0000000e0000", "tool", "deleted bob"),
    ("0000000f-0000-0000-0000-00000000000f", "user", "plan the trip"),
    ("p1", "activity", None),
    ("a3", "assistant", "Planned."),
    ("00000012-0000-0000-0000-000000000012", "user", "tell me a joke"),
    ("j2", "assistant", "Knock knock."),
    ("00000017-0000-0000-0000-000000000017", "user", "clean up"),
    ("a4", "assistant", "Cleaning up."),
]


@client_tool(requires_approval=True)
def delete_file(name: str) -> str:
    """Delete a file."""
    return f"deleted {name}"


def dumped(messages: list[Any]) -> list[dict[str, Any]]:
    return [message.model_dump(mode="json", by_alias=True, exclude_none=True) for message in messages]


def test_the_fixture_is_what_abdf51c_left():
    assert sorted(path.name for path in SAVED.iterdir()) == ["_summaries", "main%2Fabdf51c.json",
                                                              "main%2Fabdf51c.jsonl"]
    whole = json.loads((SAVED / "main%2Fabdf51c.json").read_text())
    records = [json.loads(line) for line in (SAVED / "main%2Fabdf51c.jsonl").read_text().splitlines() if line]
    assert whole["version"] == 1 and records and all(record["seq"] > whole["seq"] for record in records)
    assert [[m["id"] for m in RESTORED_THEN["messages"]]] == [[entry[0] for entry in HISTORY]]


def test_a_thread_saved_by_abdf51c_restores_whole_and_goes_on(tmp_path):
    shutil.copytree(SAVED, tmp_path / "threads")
    agent = ScriptedAgent()
    agent.on("clean up").then_say(lambda results: f"Cleaned: {results[-1].content}", chunks=2)
    agent.on("what next").say("Next: green.", message_id="n1")

    async def main() -> None:
        thread = Agent("main", "http://agent.test/agent", client_tools=[change_background, delete_file],
                       transport=agent.transport(), platform=Platform()).thread(
            thread_id="abdf51c", store=FileStore(tmp_path / "threads"))
        assert await thread.restore()
        messages = thread.messages

        # Every message, as abdf51c itself restored it, and by its concrete ids and texts.
        assert dumped(messages) == RESTORED_THEN["messages"]
        shown = [(m.id, m.role, m.content if isinstance(m.content, str) else None) for m in messages]
        assert shown == HISTORY
        reasoning = thread.message("reasoning_000000040000")
        assert reasoning is not None and reasoning.encrypted_value == "enc-r1"
        picture = thread.message("00000008-0000-0000-0000-000000000008")
        assert picture is not None and [part.type for part in picture.content] == ["text", "image"]
        assert picture.content[0].text == "look at this" and picture.content[1].source.mime_type == "image/png"
        activity = thread.message("p1")
        assert activity is not None and activity.activity_type == "plan"
        assert activity.content == {"steps": ["book", "pack"]}

        # The calls and their results.
        assert [call.id for call in thread.message("a1").tool_calls] == ["c1"]
        assert thread.message("00000005-0000-0000-0000-000000000005").tool_call_id == "c1"
        assert thread.tool_part("c1").state == "output-available"
        assert thread.tool_part("c1").output == "background is now blue"
        server = thread.message("msg_0000000d0000").tool_calls[0]
        assert (server.id, server.function.name, json.loads(server.function.arguments)) == (
            "d1", "delete_account", {"user": "bob"})
        assert thread.message("msg_0000000e0000").tool_call_id == "d1"

        # The shared state, the branches, the ratings.
        assert thread.state == {"theme": "blue", "count": 1, "trip": "Rome"} == RESTORED_THEN["state"]
        assert thread.branch_points() == [BranchPoint("j2", 1, 2)]
        assert thread.feedback("a2") == "up" and thread.feedback("j2") == "down"

        # What the page died waiting for: a call awaiting approval and an open interrupt.
        assert [[a.id, a.name, a.arguments, a.status] for a in thread.pending_actions] == [
            ["c2", "delete_file", '{"name": "old.txt"}', "awaiting_approval"]] == RESTORED_THEN["pending_actions"]
        assert [[i.id, i.reason, i.message, i.status, i.response_schema] for i in thread.interrupts] == [
            ["i1", "input_required", "Which colour next?", "open", {"type": "object"}]] == RESTORED_THEN["interrupts"]
        assert thread.run_status == RESTORED_THEN["run_status"] == "running"

        # Both can still be answered: the agent gets the call's result and the resume.
        thread.action("c2").approve()
        thread.interrupt("i1").resolve({"colour": "green"})
        await until(lambda: thread.run_status == "idle")
        assert thread.messages[-1].content == "Cleaned: deleted old.txt"
        resumed = agent.requests[-1]
        assert [(m.role, m.content) for m in resumed.messages[-1:]] == [("tool", "deleted old.txt")]
        assert [(entry.interrupt_id, entry.status, entry.payload) for entry in agent.resumes] == [
            ("i1", "resolved", {"colour": "green"})]

        # The other answer to the joke is still there, as a branch.
        assert thread.show_branch("j2", 0) == BranchPoint("j1", 0, 2)
        assert [m.id for m in thread.messages][-2:] == ["00000012-0000-0000-0000-000000000012", "j1"]
        assert thread.message("j1").content == "Why did the chicken cross the road?"
        assert thread.show_branch("j1", 1) == BranchPoint("j2", 1, 2)
        assert [m.id for m in thread.messages][:len(HISTORY)] == [entry[0] for entry in HISTORY]

        # And a new send carries the restored history, state included.
        await thread.send("what next")
        assert thread.messages[-1].id == "n1" and thread.messages[-1].content == "Next: green."
        sent = agent.requests[-1]
        ids = [m.id for m in sent.messages]
        assert ids[:len(HISTORY)] == [entry[0] for entry in HISTORY]
        assert [m.role for m in sent.messages[len(HISTORY):]] == ["tool", "assistant", "user"]
        assert sent.messages[-1].content == "what next"
        assert sent.messages[1].encrypted_value == "enc-r1"   # reasoning echoed back as saved
        assert sent.state == {"theme": "blue", "count": 1, "trip": "Rome"}
        await thread.saved()
        thread.close()

    arun(main())
