"""Test page for pyclient in a PyScript worker (tests/e2e/test_worker.py): `import pyclient`, an
agent at the relative URL `/agent` (the dev server's demo model), a tool whose handler changes the
page's heading through `pyscript.document`, and a thread bound to `#chat` (mounts observed from
the worker with the page's `MutationObserver`).

`<html data-pyclient="ready">` once set up; `data-round-trip` holds the JSON of the round trip
(the thread's run status, its last answer, the heading), `data-js-hint` the error result of a
tool written for the main thread (`js.localStorage`), `data-error` a traceback if one failed.
"""

import json
import traceback

import js
from pyscript import RUNNING_IN_WORKER, document

import pyclient
from pyclient import Agent, client_tool


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading."""
    document.querySelector("h1").textContent = text
    return f"the heading is now {text}"


@client_tool
def read_the_saved_title() -> str:
    """Read the saved title."""
    return js.localStorage.getItem("title")   # the main thread's way: in a worker, `js` has no localStorage


async def main():
    root = document.documentElement
    try:
        agent = Agent("worker", url="/agent", client_tools=[set_heading])
        bound = agent.thread("#chat")        # watched with the page's MutationObserver
        root.dataset.bound = json.dumps({"in_worker": bool(RUNNING_IN_WORKER), "element": str(bound.element.id),
                                         "version": pyclient.__version__})
        thread = agent.thread()
        await thread.send("Set the heading to Welcome")
        root.dataset.roundTrip = json.dumps({"status": thread.run_status, "error": str(thread.error or ""),
                                             "answer": thread.messages[-1].content,
                                             "heading": document.querySelector("h1").textContent})
        # A tool written for the main thread: its error result says what to write instead.
        hinted = Agent("worker-js", url="/agent", client_tools=[read_the_saved_title]).thread()
        await hinted.send("Read the saved title")
        root.dataset.jsHint = json.dumps([m.content for m in hinted.messages if m.role == "tool"])
    except Exception:
        root.dataset.error = traceback.format_exc()
    root.dataset.pyclient = "ready"


await main()
