"""Test page for errors at a page's start-up (tests/e2e/test_startup_errors.py): each `?case=`
fails where a page's Python can fail, and pyclient shows PyScript's error box readable.

- `hint`: a `Chat` on `#chat`, then a tool without a type hint (a `ConfigurationError`):
  the box goes into the chat, under its header.
- `hint-first`: the tool without a type hint before anything else: no chat, no thread, so
  the box stays where PyScript puts it (the end of `<body>`), wrapped.
- `import`: `show_startup_errors("#chat")`, then an import of a tool module the page's config
  does not list (a `ModuleNotFoundError`): the box goes into `#chat`.
- `thread`: a thread on `#chat`, then a `Chat` with a theme that does not exist (a
  `ValueError`): the box goes into the thread element.

With `&shell=1` the page marks `#chat` `data-pyclient-chat` first, and `pyclient.js` draws the
chat's shell there before Python: the box goes under the shell's header.
"""

import js
from pyscript import document, window

from pyclient import Agent, client_tool
from pyclient.browser import Chat, show_startup_errors

case = js.URLSearchParams.new(window.location.search).get("case")  # the page's address, in a worker too
agent = Agent("startup", url="/agent")

if case == "hint":
    Chat(agent.thread("#chat"), document.querySelector("#chat"), title="Assistant")

    @client_tool
    def change_background(color):
        """Change the page background."""
        return color
elif case == "hint-first":
    @client_tool
    def change_background(color):
        """Change the page background."""
        return color
elif case == "import":
    show_startup_errors("#chat")
    from page_tools import change_background  # noqa: F401  (not in the config's "files")
elif case == "thread":
    thread = agent.thread("#chat")
    Chat(thread, document.querySelector("#chat"), theme="blue")
