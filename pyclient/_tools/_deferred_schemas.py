"""Tool schemas built on first need: the `ClientTool` fields that read them, and the tools waiting.

Decorating a tool reads its handler's signature only; `parameters` and `output_schema` are
`SchemaField`s that read the handler's schema when first read (building its pydantic model
then). The tools whose schemas are not built yet wait in a weak set, and the page builds them
once it is idle (`build_pending_schemas`, through `Platform.preload`), so that neither its
boot nor its first `send()` pays for pydantic's schema machinery.

```python
from pyclient import client_tool
from pyclient._tools._deferred_schemas import build_pending_schemas

@client_tool
def add(a: int, b: int = 1) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b

print(add.schema.built)   # False
build_pending_schemas()
print(add.schema.built)   # True
```
"""

from __future__ import annotations

import logging
import time
import weakref
from enum import Enum
from typing import Final, Generic, Literal, Protocol, TypeVar, overload

from .._base._errors import ConfigurationError
from ._schema import ToolSchema

__all__ = ["FROM_HANDLER", "Deferred", "SchemaField", "build_pending_schemas", "built", "pending"]

logger = logging.getLogger("pyclient")


class Given(Enum):
    FROM_HANDLER = "from the handler"
    """Passed for `parameters`/`output_schema`: read them from the handler's schema when first needed."""


FROM_HANDLER: Final = Given.FROM_HANDLER


class Deferred(Protocol):
    """A tool whose schema may not be built yet (a `ClientTool`)."""

    @property
    def name(self) -> str: ...

    @property
    def schema(self) -> ToolSchema: ...

    def build_schema(self) -> bool: ...


_T = TypeVar("_T")


class SchemaField(Generic[_T]):
    """A `ClientTool` field that, unless given a value, is its schema's attribute of the same
    name, built on first read (descriptor-typed dataclass field: `__set__` takes the value
    `__init__` is given, `__get__` on the class gives the field's default)."""

    def __init__(self, *, required: bool) -> None:
        self._required = required
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, tool: None, owner: type) -> _T: ...
    @overload
    def __get__(self, tool: Deferred, owner: type) -> _T: ...
    def __get__(self, tool: Deferred | None, owner: type) -> _T:
        if tool is None:
            if self._required:
                raise AttributeError(self._name)  # no default: the field is required
            return None  # type: ignore[return-value]  # output_schema's default
        value = vars(tool)[f"_{self._name}_given"]
        if value is Given.FROM_HANDLER:
            return getattr(tool.schema, self._name)  # type: ignore[no-any-return]
        return value  # type: ignore[no-any-return]

    def __set__(self, tool: Deferred, value: _T | Literal[Given.FROM_HANDLER]) -> None:
        vars(tool)[f"_{self._name}_given"] = value


# The tools whose schemas are not built yet, for `build_pending_schemas` (the page's idle time).
_pending: weakref.WeakSet[Deferred] = weakref.WeakSet()


def pending(tool: Deferred) -> None:
    """`tool`'s schema is not built yet: `build_pending_schemas` builds it."""
    _pending.add(tool)


def built(tool: Deferred) -> None:
    """`tool`'s schema is built: it waits no more."""
    _pending.discard(tool)


def build_pending_schemas() -> None:
    """Build the model and JSON Schemas of every tool made so far that has not built them yet.

    The page's platform runs this once it is idle (`Platform.preload`), so that neither its
    boot nor its first `send()` pays for them. A tool whose hint has no JSON Schema is logged
    as an error on the `pyclient` logger (with the `ConfigurationError`'s text) and left as it
    is: the same error is raised again at its first need, e.g. the first `send()` of a thread
    that has it.
    """
    started, count = time.perf_counter(), 0
    while _pending:
        tool = _pending.pop()
        try:
            count += tool.build_schema()
        except ConfigurationError as exc:
            logger.error("pyclient: tool %r cannot be sent to an agent: %s", tool.name, exc)
    if count:
        logger.info("pyclient: tool schemas built ahead of the first request (%d tools, %.0f ms)",
                    count, (time.perf_counter() - started) * 1000)
