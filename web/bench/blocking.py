"""Bench page of bench/blocking.py: two chats, run on the page's main thread or in a PyScript worker.

The same file serves web/bench/blocking.html (main thread) and web/bench/blocking_worker.html
(`<script type="py" worker>`, cross-origin isolated). `#chat` talks to the dev server's demo
agent with one page tool, `set_heading` (a tool round trip: "Set the heading to Welcome");
`#long` to `/bench/long?n=N` (bench/streams.py: one answer of N text deltas), N from the
page's `?n=` (default 10000). `<html data-pyclient="ready">` once both chats exist.
"""

from pyscript import document, window

from pyclient import Agent, client_tool
from pyclient.browser import Chat


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading."""
    document.querySelector("h1").textContent = text
    return f"the heading is now {text}"


def query(name, default):
    for pair in str(window.location.search).lstrip("?").split("&"):
        key, _, value = pair.partition("=")
        if key == name:
            return value
    return default


deltas = int(query("n", "10000"))
agent = Agent("blocking", url="/agent", client_tools=[set_heading])
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"))
long_agent = Agent("long", url=f"/bench/long?n={deltas}")
long_chat = Chat(long_agent.thread("#long"), document.querySelector("#long"))
document.documentElement.dataset.pyclient = "ready"
