"""Test page for server-declared client tools: window.t exposes the thread to Playwright.

The agent at /agent/declared (tests/agents/declared_agent.py) declares `lookup_stock`,
`confirm_order` and `audit_log` itself; this page registers handlers for the first two only.
"""

import asyncio
import json

import js
from pyodide.ffi import create_proxy, to_js

from pyclient import Agent, client_tool, use_client_tool
from pyclient.browser import log_to_console

log_to_console()
handled = []


@client_tool(server_declared=True)
def lookup_stock(sku: str) -> str:
    """Look up the stock of a product."""
    handled.append(sku)
    return f"{sku}: 7 in stock"


@client_tool(server_declared=True, render_only=True)
def confirm_order(sku: str) -> dict:
    """The user confirms the order in the page."""
    raise AssertionError("a render-only tool's body never runs")


agent = Agent("shop", url="/agent/declared", client_tools=[lookup_stock])
thread = agent.thread("#chat")
confirming = agent.use_client_tool(confirm_order, "#c1")


def summary():
    return json.dumps({
        "status": thread.run_status,
        "error": None if thread.error is None else str(thread.error),
        "last": thread.messages[-1].content if thread.messages else None,
        "handled": handled,
        "available": [tool.name for tool in thread.available_tools()],
        "registered": [tool.name for tool in thread.registered_tools()],
    })


async def send(text):
    await thread.send(text)
    return summary()


async def send_and_submit(text, output):
    """Send `text`; answer the render-only call it brings with `action.submit(output)`."""
    task = asyncio.ensure_future(thread.send(text))
    while not thread.pending_actions:
        if task.done():
            return summary()
        await asyncio.sleep(0.01)
    [action] = thread.pending_actions
    status = action.status
    action.submit(json.loads(output))
    await task
    return json.dumps({**json.loads(summary()), "waited_as": status})


def reset():
    """A new thread and registration on the same elements, for the next test (the handlers'
    record emptied): closing a thread ends the registrations in its element."""
    global thread, confirming
    thread.close()
    confirming.dispose()
    handled.clear()
    thread = agent.thread("#chat")
    confirming = agent.use_client_tool(confirm_order, "#c1")


def package_root_error():
    try:
        use_client_tool(lookup_stock, "#c1")
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "no error"


api = {"send": send, "send_and_submit": send_and_submit, "summary": summary, "package_root_error": package_root_error,
       "reset": reset}
js.window.t = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
js.document.documentElement.dataset.pyclient = "ready"
