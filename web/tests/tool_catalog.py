"""A catalog of client tools covering every kind of type hint pyclient turns into a JSON Schema.

The unit tests check each tool's schema on CPython; a browser page loads the same module in
Pyodide and compares `to_agui_tool()` JSON with CPython's, so this module imports only
pyclient, pydantic, the standard library and typing (typing_extensions on Python < 3.12,
where pydantic cannot read `typing.TypedDict`).

```python
from tool_catalog import CATALOG

for tool in CATALOG:
    print(tool.to_agui_tool().model_dump_json(by_alias=True))
```
"""

from __future__ import annotations

import asyncio
import datetime
import enum
import sys
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, Field

from pyclient import ClientTool, ToolContext, client_tool

if sys.version_info >= (3, 12):
    from typing import TypedDict
else:  # pydantic needs typing_extensions.TypedDict before 3.12
    from typing_extensions import TypedDict


class Color(enum.Enum):
    """A colour the page can use."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Point(BaseModel):
    """A point on the page, in pixels."""

    x: int
    y: int = 0


class Shape(BaseModel):
    """A polygon with a name."""

    name: str
    points: list[Point]
    color: Color = Color.RED


class Address(TypedDict):
    street: str
    city: str


@dataclass
class Item:
    sku: str
    quantity: int = 1


@client_tool
def basic_types(text: str, count: int, ratio: float, flag: bool) -> str:
    """Echo the four JSON scalar types."""
    return f"{text} {count} {ratio} {flag}"


@client_tool
def collections(tags: list[str], scores: dict[str, float], pair: tuple[int, str], unique: set[int]) -> dict:
    """Take each collection type."""
    return {"tags": tags, "scores": scores, "pair": pair, "unique": sorted(unique)}


@client_tool
def optional_and_union(note: Optional[str], value: Union[int, str] = 0, limit: int | None = None) -> str:
    """Take optional and union parameters."""
    return f"{note} {value} {limit}"


@client_tool
def literal_choice(mode: Literal["fast", "slow"], level: Literal[1, 2, 3] = 1) -> str:
    """Pick a mode."""
    return f"{mode} {level}"


@client_tool
def enum_choice(color: Color, fallback: Color = Color.BLUE) -> str:
    """Pick a colour."""
    return color.value


@client_tool
def draw_shape(shape: Shape, origin: Point) -> Shape:
    """Draw a shape at an origin (pydantic models, nested, and a model output schema)."""
    return shape


@client_tool
def mail_to(address: Address) -> str:
    """Send a letter (a TypedDict parameter)."""
    return f"{address['street']}, {address['city']}"


@client_tool
def order(item: Item, when: datetime.datetime) -> Item:
    """Order an item (a dataclass parameter, a datetime, a dataclass output schema)."""
    return item


@client_tool
def constrained(
    count: Annotated[int, Field(description="How many, from 1 to 10.", ge=1, le=10)],
    label: Annotated[str, Field(max_length=20)] = "untitled",
) -> str:
    """Take constrained values (Annotated with Field)."""
    return f"{label}: {count}"


@client_tool
def documented(query: str, limit: int = 10, exact: bool = False) -> list[str]:
    """Search the page's text.

    Matches are case-insensitive unless `exact` is set.

    Args:
        query: the text to look for.
        limit: at most this many matches,
            counted from the top of the page.
        exact (bool): match case and whole words.

    Returns:
        The matching lines.
    """
    return [query][:limit]


@client_tool
async def with_context(query: str, ctx: ToolContext) -> str:
    """Read the call's context (ToolContext is injected, not in the schema)."""
    return f"{query} {ctx.tool_call_id}"


@client_tool
def no_parameters() -> None:
    """Do something that needs no arguments."""


@client_tool(name="confirm-purchase", description="Buy an item once the user approves.", requires_approval=True)
def purchase(item: Item) -> dict[str, Any]:
    return {"bought": item.sku}


@client_tool
def sync_tool(a: int, b: int = 1) -> int:
    """Add two numbers in a plain def."""
    return a + b


@client_tool
async def async_tool(text: str, repeat: int = 1) -> str:
    """Repeat a text in an async def."""
    await asyncio.sleep(0)
    return text * repeat


@client_tool(timeout_s=0.05)
async def slow_tool(seconds: float = 5.0) -> str:
    """Sleep longer than its timeout allows."""
    await asyncio.sleep(seconds)
    return "woke up"


@client_tool
def raising_tool(message: str = "boom") -> str:
    """Always fail with `message`."""
    raise ValueError(message)


CATALOG: list[ClientTool] = [
    basic_types,
    collections,
    optional_and_union,
    literal_choice,
    enum_choice,
    draw_shape,
    mail_to,
    order,
    constrained,
    documented,
    with_context,
    no_parameters,
    purchase,
    sync_tool,
    async_tool,
    slow_tool,
    raising_tool,
]
