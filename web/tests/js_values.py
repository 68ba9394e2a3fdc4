"""Test page: handlers return JS values (null, arrays, objects, a Map); the page submits and edits with JS objects.

The agent is the dev server's embedded demo model at /agent, which calls the tool a message names.
"""

import asyncio
import json

import js
from pydantic import BaseModel
from pyodide.ffi import create_proxy, to_js

from pyclient import Agent, client_tool
from pyclient.browser import log_to_console

log_to_console()


@client_tool
def missing_setting() -> str | None:
    """Read a setting that was never saved (localStorage gives JS null)."""
    return js.localStorage.getItem("pyclient-test-never-saved")


@client_tool
def parsed_list() -> list:
    """Return a list parsed by JS (an array holding null and an object)."""
    return js.JSON.parse('[1, null, {"a": null, "b": [true, "x"]}]')


@client_tool
def map_value():
    """Return a JS Map (not JSON data)."""
    return js.Map.new()


class Colour(BaseModel):
    colour: str


@client_tool(render_only=True)
def pick_colour(prompt: str) -> Colour:
    """Ask the user for a colour."""
    raise AssertionError("a render-only tool's body never runs")


@client_tool(requires_approval=True)
def send_mail(to: str, subject: str) -> str:
    """Send an e-mail."""
    return f"sent to {to}: {subject}"


agent = Agent("values", url="/agent", client_tools=[missing_setting, parsed_list, map_value, pick_colour, send_mail])
thread = agent.thread("#chat")


def results():
    return [{"name": m.tool_call_id, "content": m.content, "error": getattr(m, "error", None)}
            for m in thread.messages if m.role == "tool"]


async def send(text):
    await thread.send(text)
    return json.dumps({"status": thread.run_status, "results": results()})


async def answer_with_js(text, how, value_json):
    """Send `text`; answer the call it brings with a JS object: `how` is "submit" or "approve"."""
    task = asyncio.ensure_future(thread.send(text))
    while not thread.pending_actions:
        if task.done():
            return json.dumps({"status": thread.run_status, "results": results(), "refused": None})
        await asyncio.sleep(0.01)
    [action] = thread.pending_actions
    refused = None
    try:
        bad = js.JSON.parse('{"nope": 1}')
        if how == "submit":
            action.submit(bad)
        else:
            action.approve(arguments=bad)
    except Exception as exc:
        refused = f"{type(exc).__name__}: {exc}"
    waiting = action.status
    value = js.JSON.parse(value_json)
    if how == "submit":
        action.submit(value)
    else:
        action.approve(arguments=value)
    await task
    return json.dumps({"status": thread.run_status, "results": results(), "refused": refused, "waiting": waiting})


api = {"send": send, "answer_with_js": answer_with_js}
js.window.t = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
js.document.documentElement.dataset.pyclient = "ready"
