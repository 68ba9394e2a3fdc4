"""The starter project `pyclient new DIR` writes: a page with a tool and a chat, its config, and a test of it.

Four files: `index.html` (PyScript from the local runtime, `config="pyscript.json"`, a heading
and a chat element), `main.py` (a client tool, `set_heading`, and a `Chat` bound to the agent
at `/agent`), `pyscript.json` (the config `pyclient vendor` writes: `config_text()`) and
`test_page.py` (the tool in Chromium with the testing kit). Every path is relative to the page,
so the folder works as it is under `pyclient serve`, under the testing kit's `pyclient_site`
and, once `pyclient vendor` has added the runtime, on any static host. docs/getting-started.md
shows `index.html`, `main.py` and `test_page.py` as they are here (a test compares them).
Nothing is overwritten: `write_starter` checks every file first and writes none when one exists.

```python
import tempfile
from pathlib import Path
from pyclient.server._starter import write_starter

with tempfile.TemporaryDirectory() as tmp:
    print(write_starter(Path(tmp) / "my-site"))   # ['index.html', 'main.py', 'pyscript.json', 'test_page.py']
```
"""

from __future__ import annotations

from pathlib import Path

from ._vendor import CONFIG_NAME, config_text

__all__ = ["DESCRIPTIONS", "StarterError", "TEST_FILE", "starter_files", "write_starter"]

TEST_FILE = "test_page.py"

INDEX_HTML = """\
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>My page</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="pyscript/core.css">
  <script type="module" src="pyclient/pyclient.js"></script>
  <script type="module" src="pyscript/core.js"></script>
</head>
<body>
  <h1 id="title">Hello</h1>
  <div id="chat" data-pyclient-chat data-placeholder="Ask me to change the heading"></div>
  <script type="py" worker src="main.py" config="pyscript.json"></script>
</body>
</html>
"""

MAIN_PY = '''\
from pyscript import document
from pyclient import Agent, client_tool
from pyclient.browser import Chat


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading.

    Args:
        text: the new heading.
    """
    document.getElementById("title").textContent = text
    return f"the heading is now {text!r}"


agent = Agent("main", url="/agent", client_tools=[set_heading])
chat = Chat(agent.thread("#chat"), document.getElementById("chat"))
'''

# The site is this test's own folder (not the kit's default `web/`), so `pytest` finds the page
# wherever the folder sits, whatever pytest configuration a parent folder holds.
TEST_PAGE_PY = '''\
"""The page's tool in a real Chromium: the scripted agent calls set_heading, the heading
changes, the result goes back to the agent. Run `pytest test_page.py` in this folder (after
`pip install 'pyclient-agui[testing]'`)."""

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def pyclient_site_dir():
    """The folder of pages to serve: this one."""
    return Path(__file__).parent


def test_set_heading(pyclient_page, scripted_agent):
    scripted_agent.on("heading").call("set_heading", text="Hello world").then_say("Done")
    page = pyclient_page.open("/")
    pyclient_page.send("Set the heading to Hello world")
    assert scripted_agent.wait_for_result("set_heading").content == "the heading is now 'Hello world'"
    assert page.locator("#title").text_content() == "Hello world"
    pyclient_page.wait_for_status("idle")
'''

DESCRIPTIONS = {
    "index.html": 'the page: PyScript from the local runtime, config="pyscript.json", a chat',
    "main.py": "a client tool (set_heading) and a Chat bound to the agent at /agent",
    CONFIG_NAME: 'the page\'s PyScript config: the local interpreter, "packages": ["pyclient-agui"]',
    TEST_FILE: "the tool in Chromium with the testing kit (pyclient-agui[testing])",
}
"""What each starter file is, for `pyclient new`'s listing."""


class StarterError(Exception):
    """`write_starter` would overwrite a file, or its folder is a file; the message says which and the fix."""


def starter_files() -> dict[str, str]:
    """The starter's files by name, with their text."""
    return {"index.html": INDEX_HTML, "main.py": MAIN_PY, CONFIG_NAME: config_text(), TEST_FILE: TEST_PAGE_PY}


def write_starter(dest: Path) -> list[str]:
    """Write the starter into `dest` (created if missing), or nothing when a file is in the way.

    Args:
        dest: the folder.

    Returns:
        The names written, sorted.

    Raises:
        StarterError: `dest` is a file, or holds a file of the starter's name (every such name
            is in the message); nothing was written.
    """
    if dest.exists() and not dest.is_dir():
        raise StarterError(f"{dest} is a file: give a folder for the starter (it is created if missing).")
    files = starter_files()
    taken = [name for name in files if (dest / name).exists()]
    if taken:
        raise StarterError(
            f"{dest} already has {_and(taken)}; pyclient new never overwrites a file. "
            "Give a new folder, or move those files away."
        )
    dest.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        # "x": a file that appeared since the check is still never overwritten.
        with (dest / name).open("x", encoding="utf-8") as file:
            file.write(text)
    return sorted(files)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
