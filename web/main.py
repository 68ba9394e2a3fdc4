"""The demo page: two client tools, an agent on the dev server's `/agent`, and a chat."""

import sys
from importlib.metadata import version

from pyscript import document

import pyclient
from pyclient import Agent, client_tool
from pyclient.browser import Chat, log_to_console

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


agent = Agent("demo", url="/agent", client_tools=[change_background, set_heading])
thread = agent.thread("#chat")
chat = Chat(thread, document.getElementById("chat"), placeholder='Try "make it blue"', title="Assistant",
            suggestions=("Make it lavender", "Set the heading to Hello", "Make it blue and set the heading to Hi"))

versions = " · ".join(f"{name} {version(name)}" for name in ("pydantic", "ag-ui-protocol"))
tools = ", ".join(tool.name for tool in agent.client_tools)
document.getElementById("status").textContent = (
    f"pyclient {pyclient.__version__} ready ({versions}); tools: {tools}"
)
# What Python imported, for tests and for anyone debugging a boot in devtools.
document.documentElement.dataset.pyclientModules = " ".join(
    name for name in ("pyclient", "pydantic", "ag_ui.core") if name in sys.modules
)
document.documentElement.dataset.pyclient = "ready"
