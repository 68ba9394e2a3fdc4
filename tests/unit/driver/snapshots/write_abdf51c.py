"""Writes `filestore_abdf51c/`: a thread saved by pyclient at commit abdf51c (its modules still flat).

Run it with that commit's code, from the root of a checkout of today's code:

    git worktree add /tmp/abdf51c abdf51c
    PYTHONPATH=/tmp/abdf51c .venv/bin/python tests/unit/driver/snapshots/write_abdf51c.py
    git worktree remove /tmp/abdf51c

The thread holds what that version keeps: user and assistant messages, reasoning with an
encrypted value, a client tool call with its result, a server-side call with its result, a
picture, shared state (a snapshot and a delta), an activity, a rating, a regenerated answer
(two branches), and, when the page died, an open interrupt and a call waiting for approval.
Ids come from a counter (`uuid.uuid4` is replaced), so a run writes the same files (but for
the times in `_summaries/`). `restored_by_abdf51c.json` holds what that code restored from them;
`tests/unit/driver/test_thread_saved_by_abdf51c_restores.py` restores them with today's code.
"""

import asyncio
import itertools
import json
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

HERE = Path(__file__).parent / "filestore_abdf51c"
EXPECTED = Path(__file__).parent / "restored_by_abdf51c.json"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 16

_counter = itertools.count(1)
uuid.uuid4 = lambda: uuid.UUID(int=(n := next(_counter)) << 96 | n)  # every id pyclient and the scripted agent make

import pyclient  # noqa: E402  (after the ids are made deterministic)
from pyclient import Agent, Attachment, FileStore, Platform, client_tool  # noqa: E402
from pyclient.testing import ScriptedAgent  # noqa: E402

# abdf51c's modules lie flat in pyclient/ (today's are in folders: pyclient/_conversation/...).
assert (Path(pyclient.__file__).parent / "_history.py").exists(), f"run with abdf51c's code, not {pyclient.__file__}"


@client_tool
def change_background(background: str) -> str:
    """Change the page background."""
    return f"background is now {background}"


@client_tool(requires_approval=True)
def delete_file(name: str) -> str:
    """Delete a file."""
    return f"deleted {name}"


def server() -> ScriptedAgent:
    agent = ScriptedAgent()
    (agent.on("make it blue").state({"theme": "light", "count": 1})
     .reason("The user wants a blue page.", encrypted="enc-r1")
     .say("On it.", message_id="a1").call("change_background", background="blue", call_id="c1")
     .then_say("Done, blue."))
    agent.on("look at this").say("A one-pixel picture.", message_id="a2")
    agent.on("delete bob").server_call("delete_account", user="bob", result="deleted bob", call_id="d1")
    (agent.on("plan the trip").activity("plan", {"steps": ["book", "pack"]}, message_id="p1")
     .state_delta([{"op": "replace", "path": "/theme", "value": "blue"}, {"op": "add", "path": "/trip", "value": "Rome"}])
     .say("Planned.", message_id="a3"))
    agent.on("tell me a joke", times=1).say("Why did the chicken cross the road?", message_id="j1")
    agent.on("tell me a joke").say("Knock knock.", message_id="j2")
    (agent.on("clean up").say("Cleaning up.", message_id="a4").call("delete_file", name="old.txt", call_id="c2")
     .interrupt("Which colour next?", interrupt_id="i1", response_schema={"type": "object"}))
    return agent


def thread_on(path: Path):
    agent = Agent("main", "http://agent.test/agent", client_tools=[change_background, delete_file],
                  transport=server().transport(), platform=Platform())
    return agent.thread(thread_id="abdf51c", store=FileStore(path))


async def main() -> None:
    shutil.rmtree(HERE, ignore_errors=True)
    live = Path(tempfile.mkdtemp())
    thread = thread_on(live)
    await thread.restore()
    await thread.send("make it blue")
    await thread.send("look at this", attachments=[Attachment(data=PNG, mime_type="image/png", filename="dot.png")])
    await thread.send("delete bob")
    await thread.send("plan the trip")
    await thread.send("tell me a joke")
    await thread.regenerate()
    thread.set_feedback("a2", "up")
    thread.set_feedback("j2", "down")
    sending = asyncio.ensure_future(thread.send("clean up"))
    while not (thread.interrupts and thread.pending_actions):
        await asyncio.sleep(0.01)
    await thread.saved()
    shutil.copytree(live, HERE)  # the page dies here: what it left on disk
    sending.cancel()
    # What this code restores from it (from a copy: the restored thread saves again).
    probe = Path(tempfile.mkdtemp()) / "probe"
    shutil.copytree(HERE, probe)
    again = thread_on(probe)
    assert await again.restore()
    expected = {
        "messages": [message.model_dump(mode="json", by_alias=True, exclude_none=True) for message in again.messages],
        "state": again.state,
        "run_status": again.run_status,
        "pending_actions": [[a.id, a.name, a.arguments, a.status] for a in again.pending_actions],
        "interrupts": [[i.id, i.reason, i.message, i.status, i.response_schema] for i in again.interrupts],
        "branch_points": [[p.message_id, p.index, p.count] for p in again.branch_points()],
        "feedback": {message_id: again.feedback(message_id) for message_id in ("a2", "j1", "j2")},
    }
    EXPECTED.write_text(json.dumps(expected, indent=1) + "\n")
    print(sorted(p.name for p in HERE.iterdir()), json.dumps(expected)[:2000], file=sys.stderr)
    thread.close()
    again.close()


asyncio.run(main())
