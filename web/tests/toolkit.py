"""Test page for `pyclient.browser.toolkit`: window.t runs its tools for Playwright.

The page is loaded once for the test module: `reset()` puts it back as loaded before each
test (the elements' attributes and children, the same element objects, so tools bound to
them keep working; storage, selection, toasts, threads, a stubbed clipboard method).
`run(name, arguments_json)` calls a tool's `execute()` and returns `{content, error}`;
`info(name)` its definition; `run_aborted` aborts a call from outside; `send(text, names_json)`
sends `text` in a fresh thread of the demo agent at /agent that has only the named tools, and
`send_and_approve` also approves the call it brings. `config_errors()` collects what the
factories refuse. The page runs on the main thread and in a worker (`?pyclient-worker=1`): it
reaches the page through `pyscript.window` and `pyscript.document`, never the `js` module (the
worker's own scope there).
"""

import asyncio
import json
import time

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, web, window

from pyclient import AbortController, Agent, RunAborted
from pyclient.browser.toolkit import (
    background_tool,
    clipboard_tools,
    dom_tools,
    notify_tool,
    page_text_tool,
    selection_tool,
    storage_tools,
)

readonly = storage_tools("app/", writable=False, names={"storage_get": "ro_get", "storage_list": "ro_list"})
TOOLS = {tool.name: tool for tool in [
    selection_tool(),
    selection_tool(name="read_selection_short", max_chars=10),
    *clipboard_tools(),
    *clipboard_tools(write_requires_approval=False, max_chars=10, timeout_s=0.5,
                     names={"read_clipboard": "paste_quick", "write_clipboard": "copy_quick"}),
    *storage_tools("app/"),
    *storage_tools("app/", session=True, names={"storage_get": "session_get", "storage_set": "session_set",
                                                "storage_remove": "session_remove", "storage_list": "session_list"}),
    *readonly,
    *storage_tools("small/", max_value_chars=5, names={"storage_get": "small_get", "storage_set": "small_set",
                                                       "storage_remove": "small_remove", "storage_list": "small_list"}),
    page_text_tool("#app", max_chars=1000),
    page_text_tool(document.getElementById("app"), name="read_text_element"),
    page_text_tool(web.page.find("#app")[0], name="read_text_web"),
    page_text_tool(document.createElement("div"), name="read_text_detached"),
    page_text_tool("#nowhere", name="read_text_missing"),
    *dom_tools("#app"),
    *dom_tools("#app", requires_approval=True, names={"set_text": "set_text_ok", "toggle_class": "toggle_class_ok",
                                                      "set_attribute": "set_attribute_ok"}),
    background_tool("#app"),
    background_tool(name="change_page_background"),
    notify_tool("#toasts", duration_s=0.5),
    notify_tool("#toasts", name="show_toast_long"),
]}
assert len(TOOLS) == 35, sorted(TOOLS)  # no name given twice


async def run(name, arguments):
    result = await TOOLS[name].execute(arguments)
    return json.dumps({"content": result.content, "error": result.error})


def info(name):
    tool = TOOLS[name]
    return json.dumps({"requires_approval": tool.requires_approval, "description": tool.description,
                       "parameters": tool.parameters, "timeout_s": tool.timeout_s})


def names():
    return json.dumps({"all": sorted(TOOLS), "readonly": [tool.name for tool in readonly]})


async def run_aborted(name, arguments, after_ms):
    """Run a tool and abort its signal after `after_ms`: how long until execute() gave up."""
    controller = AbortController()
    asyncio.get_running_loop().call_later(after_ms / 1000, controller.abort, "stopped by the test")
    started = time.monotonic()
    try:
        result = await TOOLS[name].execute(arguments, signal=controller.signal)
        outcome = {"aborted": None, "content": result.content}
    except RunAborted as exc:
        outcome = {"aborted": str(exc)}
    return json.dumps({**outcome, "elapsed_s": time.monotonic() - started})


# The elements tests change, and copies of them as loaded.
ORIGINAL = {element_id: (document.getElementById(element_id), document.getElementById(element_id).cloneNode(True))
            for element_id in ("app", "outside", "toasts", "threads")}


def reset():
    for element_id, (element, copy) in ORIGINAL.items():
        current = document.getElementById(element_id)
        if current is not element:  # a test replaced it
            current.replaceWith(element)
        fresh = copy.cloneNode(True)
        for name in list(element.getAttributeNames()):
            element.removeAttribute(name)
        for name in fresh.getAttributeNames():
            element.setAttribute(name, fresh.getAttribute(name))
        element.replaceChildren()
        while fresh.firstChild:
            element.append(fresh.firstChild)
    document.body.removeAttribute("style")
    window.localStorage.clear()
    window.sessionStorage.clear()
    window.getSelection().removeAllRanges()
    if document.activeElement:
        document.activeElement.blur()
    window.Reflect.deleteProperty(window.navigator.clipboard, "readText")  # a test's stand-in, if any


def fill_big(count):
    document.getElementById("big").textContent = "x" * int(count)


def config_errors():
    attempts = {
        "root_number": lambda: page_text_tool(123),
        "root_bad_selector": lambda: dom_tools("p["),
        "prefix_empty": lambda: storage_tools(""),
        "prefix_no_separator": lambda: storage_tools("notes"),
        "names_unknown": lambda: storage_tools("app/", writable=False, names={"storage_set": "save"}),
        "names_typo": lambda: clipboard_tools(names={"paste": "x"}),
        "bad_name": lambda: selection_tool(name="read selection"),
        "bad_max": lambda: page_text_tool("#app", max_chars=0),
    }
    errors = {}
    for key, attempt in attempts.items():
        try:
            attempt()
            errors[key] = None
        except Exception as exc:
            errors[key] = f"{type(exc).__name__}: {exc}"
    return json.dumps(errors)


def _thread(tool_names):
    host = document.createElement("section")
    document.getElementById("threads").append(host)
    agent = Agent("toolkit", url="/agent", client_tools=[TOOLS[name] for name in json.loads(tool_names)])
    return agent.thread(host)


def _summary(thread, **extra):
    tools = [{"content": m.content, "error": getattr(m, "error", None)} for m in thread.messages if m.role == "tool"]
    return json.dumps({"status": thread.run_status, "error": None if thread.error is None else str(thread.error),
                       "tools": tools, "last": thread.messages[-1].content if thread.messages else None, **extra})


async def send(text, tool_names):
    thread = _thread(tool_names)
    await thread.send(text)
    return _summary(thread)


async def send_and_approve(text, tool_names):
    """Send `text`; once its call waits, note its status and approve it."""
    thread = _thread(tool_names)
    task = asyncio.ensure_future(thread.send(text))
    while not thread.pending_actions:
        if task.done():
            return _summary(thread, waited_as=None)
        await asyncio.sleep(0.01)
    [action] = thread.pending_actions
    await asyncio.sleep(0.2)  # it keeps waiting: nothing runs before the approval
    waited_as = action.status
    action.approve()
    await task
    return _summary(thread, waited_as=waited_as)


api = {"reset": reset, "run": run, "info": info, "names": names, "run_aborted": run_aborted, "fill_big": fill_big,
       "config_errors": config_errors, "send": send, "send_and_approve": send_and_approve}
window.t = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
