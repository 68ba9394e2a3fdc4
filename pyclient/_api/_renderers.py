"""`Renderers`: one kind of an agent's renderers (tool calls, interrupts, activities, state), by key.

`agent.tool_renderer`, `interrupt_renderer`, `activity_renderer` and `state_renderer` each put
a function in one of these tables; the chat reads it back with `get`, which falls back on the
catch-all `"*"`. A key set twice without `replace=True`, or a renderer that is not callable, is
a `ConfigurationError` that says how to fix it.

```python
from pyclient._api._renderers import Renderers

tools = Renderers("tool_renderer", "a ToolPart", example="create_task", owner=lambda: "main")
card = tools.register("create_task", lambda part: "a card")
print(tools.get("create_task") is card, tools.get("search"))   # True None
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .._base._errors import ConfigurationError

__all__ = ["Renderers"]

R = TypeVar("R", bound=Callable[..., Any])


class Renderers(Generic[R]):
    """The renderers of one kind, by key (a tool name, an interrupt reason, an activity type).

    Args:
        decorator: the agent method that fills the table (`"tool_renderer"`), named in errors.
        takes: what a renderer is called with (`"a ToolPart"`), named in errors.
        example: a key to show in the error for a bad key; None for a table of a single
            renderer (the state's), whose errors speak of `decorator(fn, replace=True)`.
        owner: the agent's name now (it can be renamed), named in errors.
    """

    def __init__(self, decorator: str, takes: str, *, example: str | None, owner: Callable[[], str]) -> None:
        self._decorator = decorator
        self._takes = takes
        self._example = example
        self._owner = owner
        self._table: dict[str, R] = {}

    def __len__(self) -> int:
        return len(self._table)

    def check_key(self, key: str) -> None:
        """Raise `ConfigurationError` unless `key` is a non-empty string."""
        if not isinstance(key, str) or not key:
            raise ConfigurationError(
                f"{self._decorator}() needs a name, got {key!r}. Use @agent.{self._decorator}({self._example!r})."
            )

    def register(self, key: str, render: R, *, replace: bool = False) -> R:
        """Set `render` for `key` and return it.

        Raises:
            ConfigurationError: `key` is not a non-empty string, `render` is not callable, or
                one is set for `key` and `replace` is False.
        """
        self.check_key(key)
        if not callable(render):
            raise ConfigurationError(
                f"The renderer of {key!r} must be a function taking {self._takes}, got {type(render).__name__}."
            )
        if key in self._table and not replace:
            if self._example is None:
                raise ConfigurationError(f"Agent {self._owner()!r} already has a {key} renderer. Pass "
                                         f"{self._decorator}(fn, replace=True) to take over from it.")
            raise ConfigurationError(
                f"Agent {self._owner()!r} already has a renderer for {key!r}. Pass "
                f"{self._decorator}({key!r}, replace=True) to take over from it."
            )
        self._table[key] = render
        return render

    def decorator(self, key: str, *, replace: bool = False) -> Callable[[R], R]:
        """`register` as a decorator for `key`; a bad key raises here, before any function is given."""
        self.check_key(key)

        def register(render: R) -> R:
            return self.register(key, render, replace=replace)

        return register

    def get(self, key: str) -> R | None:
        """The renderer set for `key`, else the catch-all set for `"*"`, else None."""
        found = self._table.get(key)
        return found if found is not None else self._table.get("*")
