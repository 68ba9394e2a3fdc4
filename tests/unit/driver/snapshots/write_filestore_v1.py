"""Writes `filestore_v1/`: a thread saved whole by pyclient before saves became records (main at bd6559d).

Run with that checkout's interpreter: `/work/main/.venv/bin/python tests/unit/driver/snapshots/write_filestore_v1.py`
(from the repository of that commit). The thread: a client tool call, a user message with a
picture, a server-side call with its result, and an interrupt left open when the page died;
`expected.json` holds what that code restored from it: the messages' JSON as the next request
carries it (byte for byte), the call statuses, the interrupts, the run state.
"""

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

from pyclient import Agent, Attachment, FileStore, client_tool
from pyclient._binding._platform import Platform
from pyclient.testing import ScriptedAgent

HERE = Path(__file__).parent / "filestore_v1"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 16


@client_tool
def change_background(background: str) -> str:
    """Change the page background."""
    return f"background is now {background}"


def server() -> ScriptedAgent:
    agent = ScriptedAgent()
    agent.on("make it blue").call("change_background", background="blue", call_id="c1").then_say("Done, blue.")
    agent.on("look at this").say("A one-pixel picture.")
    agent.on("delete bob").server_call("delete_account", user="bob", result="deleted bob", call_id="d1").then_say(
        "Bob is gone.")
    agent.on("pick a colour").interrupt("Which colour?", interrupt_id="i1").then_say("Noted.")
    return agent


async def main() -> None:
    shutil.rmtree(HERE, ignore_errors=True)
    live = Path(tempfile.mkdtemp())
    agent = Agent("main", "http://agent.test/agent", client_tools=[change_background],
                  transport=server().transport(), platform=Platform())
    thread = agent.thread(thread_id="legacy", store=FileStore(live))
    await thread.restore()
    await thread.send("make it blue")
    await thread.send("look at this", attachments=[Attachment(data=PNG, mime_type="image/png", filename="dot.png")])
    await thread.send("delete bob")
    sending = asyncio.ensure_future(thread.send("pick a colour"))
    while not thread.interrupts:
        await asyncio.sleep(0.01)
    await thread.saved()
    shutil.copytree(live, HERE)  # the page dies here: what it left on disk
    # What this code restores from it (from a copy: the restored thread saves again).
    probe = Path(tempfile.mkdtemp()) / "probe"
    shutil.copytree(HERE, probe)
    again = Agent("main", "http://agent.test/agent", client_tools=[change_background],
                  transport=server().transport(), platform=Platform()).thread(thread_id="legacy",
                                                                              store=FileStore(probe))
    assert await again.restore()
    machine = again._machine
    expected = {
        "messages_json": machine._history.dump_json().decode(),
        "calls": {call_id: call.status.value for call_id, call in machine.calls.items()},
        "interrupts": [(i.id, i.status) for i in again.interrupts],
        "run_status": again.run_status,
    }
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(sorted(p.name for p in HERE.iterdir()), expected["calls"], expected["interrupts"], file=sys.stderr)


asyncio.run(main())
