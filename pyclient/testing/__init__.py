"""Test your own page's client tools: a scripted AG-UI agent, and pytest fixtures (the pytest plugin).

```python
from pyclient import client_tool
from pyclient.testing import ScriptedAgent

@client_tool
def change_background(background: str) -> str:
    \"\"\"Change the page background.\"\"\"
    return f"background is now {background}"

agent = ScriptedAgent()
agent.on("make it blue").call("change_background", background="blue").then_say("Done")

async def main():
    thread = agent.thread(client_tools=[change_background])
    await thread.send("make it blue")
    print(thread.messages[-1].content)                        # Done
    print([m.content for m in agent.tool_messages])           # ['background is now blue']
    print(agent.wait_for_result("change_background").content)  # background is now blue

import asyncio
with agent.serve():
    asyncio.run(main())
```
"""

from typing import TYPE_CHECKING

from .._base._lazy import lazy_exports

if TYPE_CHECKING:
    from ._chromium import CHROMIUM_ARGS, chromium_launch_args, chromium_path
    from ._dom import FakeDom, FakeElement
    from ._page import PyclientPage
    from ._response import Response
    from ._script import Turn
    from ._scripted import ScriptedAgent
    from ._server import ServerThread, agent_app, read_body
    from ._site import Site

__all__ = [
    "CHROMIUM_ARGS",
    "FakeDom",
    "FakeElement",
    "PyclientPage",
    "Response",
    "ScriptedAgent",
    "ServerThread",
    "Site",
    "Turn",
    "agent_app",
    "chromium_launch_args",
    "chromium_path",
    "read_body",
]

# Imported on first use, so that loading the pytest plugin (`pyclient.testing.plugin`) in every
# pytest run imports neither ag_ui's encoder nor the servers.
_HOMES = {
    "FakeDom": "._dom", "FakeElement": "._dom",
    "CHROMIUM_ARGS": "._chromium", "chromium_launch_args": "._chromium", "chromium_path": "._chromium",
    "PyclientPage": "._page", "Response": "._response", "ScriptedAgent": "._scripted", "Turn": "._script",
    "ServerThread": "._server", "agent_app": "._server", "read_body": "._server", "Site": "._site",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
