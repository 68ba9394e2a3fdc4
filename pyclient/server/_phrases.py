"""What the demo model calls for a message: examples on a small page's tools, shown in
docs/getting-started.md ("What the demo model understands") and run by the tests, so the two agree.

```python
from pyclient.server._matcher import plan_tool_calls
from pyclient.server._phrases import EXAMPLES, EXAMPLE_TOOLS, shown

example = EXAMPLES[0]
print(example.message, "->", shown(plan_tool_calls(example.message, EXAMPLE_TOOLS)))  # add eggs -> add_item(item="eggs")
```
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["EXAMPLES", "EXAMPLE_TOOLS", "Example", "shown", "table"]


def _tool(name: str, description: str, **parameters: str) -> dict[str, Any]:
    properties = {key: {"type": kind} for key, kind in parameters.items()}
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(parameters)}}


EXAMPLE_TOOLS = (
    _tool("add_item", "Add an item to the shopping list.", item="string"),
    _tool("remove_item", "Remove an item from the shopping list.", item="string"),
    _tool("clear_list", "Remove every item from the shopping list."),
    _tool("set_heading", "Set the page's heading.", text="string"),
    _tool("change_background", "Change the page background.", background="string"),
)
"""The tools of the examples, as a page declares them (`@client_tool` sends the same)."""


@dataclass(frozen=True)
class Example:
    """A message, the calls it makes (as `shown` writes them) and the rule that makes them."""

    message: str
    calls: str
    why: str


EXAMPLES = (
    Example("add eggs", 'add_item(item="eggs")',
            "a message that starts with a tool's verb (the first word of its name) calls it; the rest is the argument"),
    Example("add milk to the list", 'add_item(item="milk")',
            "the verb outweighs a word another tool's name holds (`clear_list`)"),
    Example("remove eggs", 'remove_item(item="eggs")', "a word of the name beats a synonym (`clear` is one of `remove`)"),
    Example("empty the list", "clear_list()", "a word of the name (`list`), and a synonym of `clear`"),
    Example("set the heading to Hello world", 'set_heading(text="Hello world")',
            'a string takes the text after the words that name the tool (or a quoted part: "\u2026")'),
    Example("make it teal", 'change_background(background="teal")',
            "a colour word names a colour-like tool (background, color, fill, theme) and is its argument"),
    Example("add eggs, then set the heading to Shopping", 'add_item(item="eggs"), set_heading(text="Shopping")',
            "each clause (cut at commas, `and`, `then`) can call its own tool, in parallel"),
    Example("change the heading to Welcome", 'set_heading(text="Welcome")',
            "a generic verb (change, set, add, show) alone does not call a tool whose name holds another word of the message"),
    Example("what time is it?", "(none: it says which tools it has)", "no word names a tool"),
)
"""The examples, in the order the docs show them."""


def shown(calls: Iterable[Any]) -> str:
    """`calls` (`PlannedCall`s) as the examples write them: `name(key="value", ...)`, comma-separated."""
    written = [f"{call.tool_name}({', '.join(f'{key}={json.dumps(value)}' for key, value in call.args.items())})"
               for call in calls]
    return ", ".join(written) or "(none: it says which tools it has)"


def table() -> str:
    """The examples as the Markdown table of docs/getting-started.md."""
    rows = [f'| "{example.message}" | `{example.calls}` | {example.why} |' for example in EXAMPLES]
    return "\n".join(["| message | calls | why |", "| --- | --- | --- |", *rows])
