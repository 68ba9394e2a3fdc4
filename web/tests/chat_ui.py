"""Test page for the chat UI: a `Chat` on `POST /agent`, answered by pyclient.testing's `scripted_agent`
(tests/e2e/test_chat_ui.py scripts it).

Query: `theme=light|dark` (the Chat's `theme=`), `agent=<path>` (another endpoint). Tools:
`echo(text)` returns its text, `send_mail(...)` requires approval (it records what it ran
with in `window.mailed`; `to` must hold an "@"), `wait_a_bit(seconds)` sleeps, `tick(n)` for the parallel-calls test; renderers: `create_task`
records every part it was called with (`window.t.parts()`: their JSON, kept in Python so that
recording costs the renderer no round trip to the page in a worker) and shows the title so far,
`boom` raises, `pick_color` (render-only, output schema `{"color": str}`) shows buttons that
submit, submit something invalid, or fail. `window.t.state()` returns the thread's run status;
`window.t.reset()` puts a new thread and chat in place of the last. The page runs on the main
thread and in a worker (`?pyclient-worker=1`): it reaches the page through `pyscript.window`
and `pyscript.document`, never the `js` module, which is the worker's own scope there.
"""

import asyncio
import json
from typing import Annotated, Literal

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, web, window
from pydantic import BaseModel, Field

from pyclient import Agent, ToolError, client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)


@client_tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


@client_tool(requires_approval=True)
def send_mail(to: Annotated[str, Field(pattern=r".+@.+")], count: int = 1, urgent: bool = False, tone: Literal["calm", "loud"] = "calm") -> str:
    """Send an email to a colleague.

    Args:
        to: the address.
        count: how many copies.
        urgent: mark it urgent.
        tone: how it reads.
    """
    window.mailed = json.dumps({"to": to, "count": count, "urgent": urgent, "tone": tone})
    return f"sent {count} to {to}"


@client_tool
async def wait_a_bit(seconds: float) -> str:
    """Wait, then answer."""
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


@client_tool
def tick(n: int) -> str:
    """Tick once."""
    return f"tick {n}"


@client_tool
async def create_task(title: str, due: str = "today") -> str:
    """Create a task (it takes a moment)."""
    await asyncio.sleep(0.3)
    return f"created {title}"


@client_tool
def boom(x: str) -> str:
    """A tool whose renderer breaks."""
    return f"boom {x}"


class Color(BaseModel):
    color: str


@client_tool(render_only=True)
def pick_color(choices: list[str]) -> Color:
    """Ask the user to pick a colour."""
    raise NotImplementedError


agent = Agent("ui", url=params.get("agent") or "/agent",
              client_tools=[echo, send_mail, wait_a_bit, tick, create_task, boom, pick_color])
task_parts = []


@agent.tool_renderer("create_task")
def task_card(part):
    task_parts.append({"state": part.state, "title": part.input.get("title"),
                       "input": part.input, "status": part.status})
    return web.div(f"Task: {part.input.get('title', '…')} ({part.state})", classes=["task-view"])


@agent.tool_renderer("boom")
def broken(part):
    raise RuntimeError("the renderer broke <script>")


@agent.tool_renderer("web_search")
def search_view(part):
    return f"searching {part.input.get('query', '')}: {part.output or '…'}"


@agent.tool_renderer("pick_color")
def color_picker(part):
    box = document.createElement("div")
    box.className = "picker"
    box.textContent = f"state {part.state}"
    action = part.action
    if action is None:
        return box
    error = document.createElement("p")
    error.className = "picker-error"

    def make(label, answer):
        button = document.createElement("button")
        button.textContent = label
        button.className = "pick-" + label.split()[0]

        def click(event):
            try:
                answer()
            except ToolError as exc:
                error.textContent = str(exc)

        button.addEventListener("click", create_proxy(click))
        box.append(button)

    make("blue", lambda: action.submit({"color": "blue"}))
    make("invalid output", lambda: action.submit({"colour": 7}))
    make("fail", lambda: action.fail("no colour for me"))
    box.append(error)
    return box


thread = chat = None
generation = 0


def reset():
    """A new thread and a new chat on #chat in place of the last ones (tests share one booted page).

    Returns the new chat's generation, set as `data-generation` on #chat with its nodes: in a
    worker they reach the page after this returns, in the worker's next batch."""
    global thread, chat, generation
    if chat is not None:
        chat.dispose()
        thread.close()
    element = document.querySelector("#chat")
    element.replaceChildren()
    task_parts.clear()
    window.Reflect.deleteProperty(window, "mailed")
    thread = agent.thread(element)
    chat = Chat(thread, element, placeholder="Say something",
                suggestions=("markdown", "Say hello"), title="Test chat", theme=params.get("theme") or None)
    generation += 1
    chat.element.parentElement.dataset.generation = str(generation)
    return generation


reset()


def state():
    return thread.run_status


def stop():
    """`thread.stop()` from code, not from the chat's Stop button."""
    thread.stop("stopped by the page")


def parts():
    return json.dumps(task_parts)


window.t = to_js({"state": create_proxy(state), "stop": create_proxy(stop), "reset": create_proxy(reset),
                  "parts": create_proxy(parts)},
                    dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
