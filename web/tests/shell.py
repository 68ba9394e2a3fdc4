"""Test page for the chat's shell (tests/e2e/test_shell.py): one client tool and a `Chat` that
takes its placeholder, suggestions and files from the element's data attributes, as the shell
drew them. Runs on the main thread and in a worker (`?pyclient-worker=1`)."""

from pyscript import document

from pyclient import Agent, client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading.

    Args:
        text: the new heading.
    """
    document.querySelector("h1").textContent = text
    return f"the heading is now {text!r}"


agent = Agent("shell", url="/agent", client_tools=[set_heading])
chat = Chat(agent.thread("#chat"), document.getElementById("chat"))
document.documentElement.dataset.pyclient = "ready"
