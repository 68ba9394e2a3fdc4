"""Test page for registration scopes: window.t exposes the threads to Playwright.

Handlers log what happens to them in `window.__log` (a JS array of strings), so the test
can see starts, aborts and their reasons without reaching into Python. The page runs on the
main thread and in a worker (`?pyclient-worker=1`): it reaches the page through
`pyscript.window` and `pyscript.document`, never the `js` module (the worker's own scope there).
"""

import asyncio
import gc
import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

import weakref

from pyclient import Agent, ToolContext, client_tool, use_client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()
window.__log = window.Array.new()


def log(text):
    window.__log.push(text)


@client_tool
def binding_tool() -> str:
    """A stable binding tool of agent A."""
    return "binding"


@client_tool
def wrapper_tool() -> str:
    """Registered on the wrapper that encloses both threads of agent A."""
    return "wrapper"


@client_tool
def change_background(background: str) -> str:
    """Change the page background to a CSS background value."""
    document.body.style.background = background
    return f"background is now {background}"


@client_tool
def set_heading(text: str) -> str:
    """Change the page heading text."""
    log(f"set_heading {text}")
    document.querySelector("h1").textContent = text
    return f"heading is now {text}"


@client_tool
async def slow_fetch(ctx: ToolContext) -> str:
    """Download the slow document."""
    seconds = getattr(window, "__slow_seconds", 5) or 5
    log("fetch started")
    try:
        # The page's address: in a worker a relative URL would resolve against the worker's.
        url = f"{window.location.origin}/test/slow?seconds={seconds}"
        response = await js.fetch(url, to_js({"signal": ctx.signal.js}, dict_converter=js.Object.fromEntries))
        text = await response.text()
        log("fetch completed")
        return f"fetched {len(str(text))} bytes"
    except BaseException as exc:  # the task is cancelled (CancelledError) as the fetch aborts
        log(f"fetch failed: {type(exc).__name__} reason={ctx.signal.reason}")
        raise
    finally:
        log(f"fetch finally aborted={ctx.signal.aborted} js_aborted={ctx.signal.js.aborted}")


@client_tool
async def wait_forever(ctx: ToolContext) -> str:
    """Wait until aborted."""
    log("wait started")
    try:
        await asyncio.Future()
    finally:
        log(f"wait finally reason={ctx.signal.reason}")


@client_tool(timeout_s=0.3)
async def wait_briefly(ctx: ToolContext) -> str:
    """Wait briefly, longer than its timeout."""
    log("briefly started")
    try:
        await asyncio.sleep(30)
    finally:
        log(f"briefly finally reason={ctx.signal.reason}")


@client_tool
def cycle_tool(n: int) -> str:
    """Count a mount cycle.

    Args:
        n: the cycle number.
    """
    return f"cycle {n}"


# The page's elements as loaded (the Python script's own tag aside), for `reset()`.
LOADED = [element.cloneNode(True) for element in document.body.children if element.tagName != "SCRIPT"]
agent_a = agent_b = None
threads = {}
handles = {}
tasks = set()


def setup():
    """The agents, threads and registrations on the page's elements."""
    global agent_a, agent_b, threads, handles
    agent_a = Agent("a", url="/agent", client_tools=[binding_tool])
    agent_b = Agent("b", url="/agent")
    threads = {
        "t1": agent_a.thread("#t1"),
        "t2": agent_a.thread(document.getElementById("t2")),
        "t3": agent_b.thread("#t3"),
    }
    handles = {
        "wrapper_tool": agent_a.use_client_tool(wrapper_tool, document.getElementById("wrapper")),
        "change_background": agent_a.use_client_tool(change_background, document.getElementById("c1")),
        "slow_fetch": agent_a.use_client_tool(slow_fetch, document.getElementById("c3")),
        "wait_forever": agent_a.use_client_tool(wait_forever, document.getElementById("c3")),
        "wait_briefly": agent_a.use_client_tool(wait_briefly, document.getElementById("c3")),
        "set_heading@t2": use_client_tool(set_heading, document.getElementById("c2")),
        "set_heading@t3": use_client_tool(set_heading, document.getElementById("c4")),
    }


async def reset():
    """The page as loaded, for the next test: every thread closed (its handlers aborted), every
    registration disposed, the elements as they were, new agents and threads on them."""
    for thread in threads.values():
        thread.close()
    for handle in handles.values():
        handle.dispose()
    for task in list(tasks):
        task.cancel()
    await asyncio.sleep(0)  # the closed threads' tasks end
    for element in [e for e in document.body.children if e.tagName != "SCRIPT"]:
        element.remove()
    script = document.body.querySelector("script")
    for element in LOADED:
        document.body.insertBefore(element.cloneNode(True), script)
    document.body.style.background = ""
    window.__log = window.Array.new()
    window.__parked = window.Object.new()
    window.__slow_seconds = 0
    setup()
    gc.collect()


setup()


def summary(key):
    thread = threads[key]
    return json.dumps({
        "status": thread.run_status,
        "error": str(thread.error) if thread.error else None,
        "available": sorted(tool.name for tool in thread.available_tools()),
        "pending": [{"id": a.id, "name": a.name, "status": a.status} for a in thread.pending_actions],
        "messages": [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in thread.messages],
    })


async def send(key, text):
    await threads[key].send(text)
    return summary(key)


def send_later(key, text):
    """Start a send without waiting for it (the test watches the page meanwhile)."""
    task = asyncio.ensure_future(threads[key].send(text))
    tasks.add(task)
    task.add_done_callback(tasks.discard)


# Detach an element, keeping it and its parent in `window.__parked` for the test's `unpark()`.
park = window.Function.new(
    "id", "const e = document.getElementById(id); (window.__parked ||= {})[id] = [e, e.parentNode]; e.remove();")


def park_on_tool_call(key, element_id):
    """Detach `element_id` the moment a tool call starts streaming in thread `key`.

    Done in the page, inside the run, so the element is gone before the call's arguments end
    however slow the machine is (the test parks it again with `window.__parked`).
    """
    def listener(event):
        if event.kind == "event" and getattr(event.payload, "type", None) == "TOOL_CALL_START":
            unsubscribe()
            park(element_id)
            log(f"parked {element_id}")

    unsubscribe = threads[key].subscribe(listener)


def cancel(key, reason):
    for action in threads[key].pending_actions:
        action.cancel(reason)


def stop(key):
    threads[key].stop()


def config_error(code):
    """Run a registration that must fail; return the ConfigurationError's message."""
    try:
        exec(code, globals())
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "no error"


# How many panel threads and chats were created, and how many were freed (counted by
# weakref.finalize, which leaves nothing behind once it has run).
panel_counts = {"created": 0, "threads_freed": 0, "chats_freed": 0}


def freed(what):
    panel_counts[what] += 1


async def panels(count):
    """Create, use and remove `count` chat panels; return what stays alive.

    Each panel is a section with its own thread, a `Chat` and a component-scoped tool inside
    it; a message makes the model call that tool (a full round trip). Then the panel goes,
    three ways in turn: `thread.close()`; the element removed with nothing else done (the
    thread and its chat are freed once nobody references them); and the registration
    disposed, then the element removed.
    """
    import pyodide_js

    module = pyodide_js._module
    # Prove the tracing counts: one proxy made here shows up, and goes when destroyed.
    before = module.pyproxy_alloc_map.size
    probe = create_proxy(lambda: None)
    tracing_works = module.pyproxy_alloc_map.size == before + 1
    probe.destroy()
    host = document.getElementById("panels")
    results = []
    for n in range(count):
        panel = document.createElement("section")
        host.append(panel)
        thread = agent_a.thread(panel)
        chat = Chat(thread, panel)
        tool_host = document.createElement("div")
        panel.append(tool_host)
        handle = agent_a.use_client_tool(cycle_tool, tool_host)
        await thread.send(f"cycle tool {n}")
        results.append(thread.messages[-2].content if thread.run_status == "idle" else thread.run_status)
        shown = panel.querySelectorAll(".pyclient-message").length
        if shown < 2:
            results.append(f"panel {n} showed {shown} messages")
        panel_counts["created"] += 1
        weakref.finalize(thread, freed, "threads_freed")
        weakref.finalize(chat, freed, "chats_freed")
        if n % 3 == 0:
            thread.close()
            panel.remove()
        elif n % 3 == 1:
            panel.remove()
        else:
            handle.dispose()
            panel.remove()
        del thread, chat, handle
    await asyncio.sleep(0)  # the MutationObserver reports the last removal
    gc.collect()
    return json.dumps({
        "live_proxies": module.pyproxy_alloc_map.size,
        "tracing_works": tracing_works,
        "python_objects": len(gc.get_objects()),
        "results": results[-1:],
        "errors": [r for r in results if not r.startswith("cycle")],
        "threads_alive": panel_counts["created"] - panel_counts["threads_freed"],
        "chats_alive": panel_counts["created"] - panel_counts["chats_freed"],
        "panels": panel_counts["created"],
        "agent_threads": len(agent_a.threads),
        "watched": len(agent_a.platform.dom.observer),
        "marked": document.querySelectorAll("#panels [data-pyclient-thread]").length,
    })


def trace_proxies():
    import pyodide_js

    pyodide_js._module.enable_pyproxy_allocation_tracing()


api = {
    "send": send, "send_later": send_later, "park_on_tool_call": park_on_tool_call, "summary": summary, "cancel": cancel, "stop": stop,
    "config_error": config_error, "panels": panels, "trace_proxies": trace_proxies, "reset": reset,
}
# Kept for the page's life: these proxies are the test's handle on Python.
window.t = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
window.t.park = park  # already a JS function
document.documentElement.dataset.pyclient = "ready"
