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

import asyncio
with agent.serve():
    asyncio.run(main())
```
"""

from ._script import Response, ScriptedAgent, Turn
from ._server import ServerThread, agent_app

__all__ = ["Response", "ScriptedAgent", "ServerThread", "Turn", "agent_app"]
