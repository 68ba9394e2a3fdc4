from pyscript import document
from pyclient import Agent, client_tool
from pyclient.browser import Chat


@client_tool
def add_note(text: str) -> str:
    """Add a note to the page's list."""
    item = document.createElement("li")
    item.textContent = text
    document.getElementById("notes").append(item)
    return f"added {text!r}"


@client_tool(requires_approval=True)
def clear_notes() -> str:
    """Remove every note (asks the user first)."""
    document.getElementById("notes").replaceChildren()
    return "cleared"


agent = Agent("notes", url="/agent", client_tools=[add_note, clear_notes])
chat = Chat(agent.thread("#chat"), document.getElementById("chat"))
