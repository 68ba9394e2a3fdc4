"""Test page for AG-UI activities and shared state in the chat (tests/e2e/test_state_chat.py).

Query: `agent=<path>`, `theme=light|dark`. `window.t.open(path)` closes the chat and its thread
and opens a new one on the agent at `path` (the tests share one booted page). Activity
renderers: type `"custom"` draws `.custom-activity` with the content's `label`; type `"boom"`
raises. The state renderer draws the plan `state["steps"]` (each `{"description", "status"}`) as
`ol.plan`, and a `.mark-first` button whose (trusted or not) click marks the first step
completed with `thread.update_state(...)`; `state["document"]` as `.document`; `state["recipe"]`
as `.recipe` (its title and ingredients). `window.t.state()`
is the JSON of `thread.state`; `window.t.renders()` how many times the state renderer ran. The
page runs on the main thread and in a worker (`?pyclient-worker=1`): it reaches the page through
`pyscript.window` and `pyscript.document`, never the `js` module.
"""

import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent
from pyclient.browser import Chat, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)
thread = chat = None
renders = [0]


def custom(activity):
    box = document.createElement("div")
    box.className = "custom-activity"
    box.textContent = f"Custom: {activity.content.get('label', '?')}"
    return box


def boom(activity):
    raise RuntimeError("the activity renderer broke <b>")


def mark_first(event):
    thread.update_state([{"op": "replace", "path": "/steps/0/status", "value": "completed"}])


_mark = create_proxy(mark_first)


def plan(state):
    renders[0] += 1
    box = document.createElement("div")
    steps = state.get("steps") if isinstance(state, dict) else None
    if steps:
        listed = document.createElement("ol")
        listed.className = "plan"
        for step in steps:
            item = document.createElement("li")
            item.dataset.status = str(step.get("status"))
            item.textContent = f"{'✓' if step.get('status') == 'completed' else '○'} {step.get('description')}"
            listed.append(item)
        button = document.createElement("button")
        button.className = "mark-first"
        button.textContent = "Mark the first step done"
        button.addEventListener("click", _mark)
        box.append(listed, button)
    if isinstance(state, dict) and state.get("document"):
        text = document.createElement("p")
        text.className = "document"
        text.textContent = str(state["document"])
        box.append(text)
    recipe = state.get("recipe") if isinstance(state, dict) else None
    if isinstance(recipe, dict):
        text = document.createElement("p")
        text.className = "recipe"
        names = ", ".join(str(item.get("name")) for item in recipe.get("ingredients", []))
        text.textContent = f"{recipe.get('title')}: {names}"
        box.append(text)
    return box if box.childElementCount else None


def open_chat(url):
    """A new agent at `url`, a new thread and a chat on #chat, in place of the last ones."""
    global thread, chat
    if chat is not None:
        chat.dispose()
        thread.close()
    renders[0] = 0
    element = document.querySelector("#chat")
    element.replaceChildren()
    agent = Agent("state", url=url)
    agent.activity_renderer("custom")(custom)
    agent.activity_renderer("boom")(boom)
    agent.state_renderer(plan)
    thread = agent.thread(element)
    chat = Chat(thread, element, title="Plan", theme=params.get("theme") or None)


def state():
    return json.dumps(thread.state)


if params.get("agent"):
    open_chat(params.get("agent"))
window.t = to_js({"state": create_proxy(state), "renders": create_proxy(lambda: renders[0]),
                  "open": create_proxy(open_chat)}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
