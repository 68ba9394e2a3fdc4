"""The demo page: five client tools, two renderers, ready-made tools, an agent on the dev server's `/agent`, and a chat.

Each suggestion in the chat shows one feature:
- "Make the background #1e3a8a": a plain client tool (`change_background`);
- "Make it teal and set the heading to Welcome": two tools in one message (parallel calls);
- "Create a task to water the plants": a renderer that shows the arguments as they stream;
- "Let me pick a colour": a render-only tool the user answers in its card;
- "Clear the notes": a tool that asks for approval first;
- 'Show a toast saying "Saved!"': a ready-made tool from `pyclient.browser.toolkit`;
- "What is on the canvas?": the toolkit's `canvas_tool`, whose result is a PNG of the sketch.

The chat takes images, PDF and text files (the attach button, paste, drop); the demo model
names what it got.
"""

import sys
from importlib.metadata import version
from typing import Literal, TypedDict

from pyodide.ffi import create_once_callable
from pyscript import document, web, window

import pyclient
from pyclient import Agent, ToolPart, client_tool
from pyclient.browser import Chat, log_to_console
from pyclient.browser.toolkit import canvas_tool, notify_tool, page_text_tool, selection_tool

log_to_console()  # pyclient's warnings (a failing tool, a dropped stream) in devtools


@client_tool
def change_background(background: str) -> str:
    """Change the page background. Accepts any CSS background value.

    Args:
        background: a CSS background value, such as "blue" or a gradient.
    """
    document.body.style.background = background
    return f"background is now {background}"


@client_tool
def set_heading(text: str) -> str:
    """Change the page heading (title) text.

    Args:
        text: the new heading.
    """
    document.querySelector("h1").textContent = text
    return f"heading is now {text!r}"


@client_tool(requires_approval=True)
def clear_notes() -> str:
    """Delete every note on the page. The user approves first."""
    notes = document.getElementById("notes")
    count = notes.children.length
    notes.replaceChildren()
    return f"deleted {count} notes"


def task_card(part: ToolPart):
    """Renders `create_task` calls: the fields fill in while the model writes them."""
    task = part.input
    priority = task.get("priority", "…")
    card = web.div(
        web.div(web.strong(task.get("title") or "New task…"), web.span(priority, classes=["chip", f"p-{priority}"]),
                classes=["task-head"]),
        web.p(task.get("notes") or "", classes=["task-notes"]),
        classes=["task-card", part.state],
    )
    if part.state == "input-streaming":
        card.append(web.small("The assistant is writing this task…"))
    elif part.state == "output-error":
        card.append(web.small(f"Not added: {part.error_text}", classes=["task-error"]))
    elif part.state == "output-available":
        card.append(web.small(str(part.output)))
    return card


@client_tool(render=task_card)
def create_task(title: str, notes: str, priority: Literal["low", "normal", "high"]) -> str:
    """Add a task to the page's task list.

    Args:
        title: a short title.
        notes: details of the task.
        priority: how urgent it is.
    """
    tasks = document.getElementById("tasks")
    item = document.createElement("li")
    item.textContent = f"{title} ({priority}): {notes}"
    tasks.append(item)
    return f"added task {tasks.children.length}: {title}"


class PickedColour(TypedDict):
    colour: str


def colour_picker(part: ToolPart):
    """Renders `pick_colour` calls: a colour input the user answers with, then the colour picked."""
    if part.state == "output-available":
        colour = part.output["colour"]
        return web.div(web.span(classes=["swatch"], style={"background": colour}),
                       web.span(f"You picked {colour}"), classes=["picker"])
    if part.state == "output-error":
        return web.div(web.span(f"No colour: {part.error_text}"), classes=["picker"])
    action = part.action
    if action is None or action.status != "awaiting_input":
        return None  # streaming, or its tool is not mounted: the default card
    colour = web.input_(type="color", value="#1e3a8a", aria_label="colour")

    def use(event):
        if event.isTrusted:  # a script's click is not the user's answer
            action.submit({"colour": colour.value})

    def decline(event):
        if event.isTrusted:
            action.fail("the user did not pick a colour")

    return web.div(
        web.p(part.input.get("prompt") or "Pick a colour"),
        web.div(colour,
                web.button("Use this colour", type="button", classes=["primary"], on_click=use),
                web.button("Not now", type="button", on_click=decline), classes=["picker-row"]),
        classes=["picker"],
    )


@client_tool(render_only=True, render=colour_picker)
def pick_colour(prompt: str) -> PickedColour:
    """Ask the user to pick a colour in the page.

    Args:
        prompt: what to ask the user.
    """
    raise NotImplementedError  # render-only: the user answers in the card


def draw_sketch():
    """A small drawing on the page's canvas: a sun over two hills, for `capture_canvas` to see."""
    canvas = document.getElementById("sketch")
    pen = canvas.getContext("2d")
    width, height = canvas.width, canvas.height
    sky = pen.createLinearGradient(0, 0, 0, height)
    sky.addColorStop(0, "#bfdbfe")
    sky.addColorStop(1, "#eff6ff")
    pen.fillStyle = sky
    pen.fillRect(0, 0, width, height)
    pen.fillStyle = "#f59e0b"
    pen.beginPath()
    pen.arc(width * 0.72, height * 0.34, 18, 0, 6.2832)
    pen.fill()
    # Two hills: the upper halves of ellipses centred on the bottom edge (x, rx, ry as fractions).
    for colour, x, rx, ry in (("#86efac", 0.25, 0.45, 0.42), ("#22c55e", 0.8, 0.4, 0.32)):
        pen.fillStyle = colour
        pen.beginPath()
        pen.ellipse(width * x, height, width * rx, height * ry, 0, 3.1416, 6.2832)
        pen.fill()


draw_sketch()

# Ready-made tools (pyclient.browser.toolkit), each bounded to what it is given: the article's
# text (read only), the user's selection, text-only toasts in a container of their own, and
# the sketch's canvas (read as a PNG).
toasts = document.createElement("div")
toasts.className = "toasts"
document.body.append(toasts)
TOOLKIT = [page_text_tool("article.page"), selection_tool(), notify_tool(toasts),
           canvas_tool("#sketch", description="See the sketch on the page (a canvas) as a PNG image.")]

TOOLS = [change_background, set_heading, create_task, pick_colour, clear_notes, *TOOLKIT]
# Files travel as base64 in every request of the thread, and the dev server's agent takes bodies
# up to 1 MB (its --max-body): the files of one message stay well under it.
agent = Agent("demo", url="/agent", client_tools=TOOLS, max_attachment_bytes=400_000, max_message_bytes=600_000)
thread = agent.thread("#chat")


def thank(message_id, rating):
    """The chat's thumbs: a page would send the rating to its own backend here."""
    status.textContent = f"Thanks for the feedback ({rating or 'cleared'})."


# Its placeholder, the files it takes and its suggestions are in index.html (data-placeholder,
# data-accept, data-suggestions): the shell shows them from the first paint, the Chat reads them.
chat = Chat(thread, document.getElementById("chat"), on_feedback=thank)

tools = ", ".join(tool.name for tool in agent.client_tools)
status = document.getElementById("status")
status.textContent = f"pyclient {pyclient.__version__} ready; tools: {tools}"


def show_versions(*_):
    versions = " · ".join(f"{name} {version(name)}" for name in ("pydantic", "ag-ui-protocol"))
    status.textContent = f"pyclient {pyclient.__version__} ready ({versions}); tools: {tools}"


# importlib.metadata reads each METADATA file with the email parser (~0.15 s in Pyodide): once idle.
window.requestIdleCallback(create_once_callable(show_versions))
# What Python imported, for tests and for anyone debugging a boot in devtools: the page is
# usable without ag-ui's models, pydantic's schema machinery (the tools' schemas are built
# once the page is idle), markdown-it (the first answer imports it), and the stdlib modules
# only a file store (urllib.parse) or a package resource (importlib.resources) would need.
document.documentElement.dataset.pyclientModules = " ".join(
    name for name in ("pyclient", "pydantic", "ag_ui.core", "pydantic.main", "pydantic.json_schema", "markdown_it",
                      "urllib.parse", "importlib.resources")
    if name in sys.modules
)
document.documentElement.dataset.pyclient = "ready"
