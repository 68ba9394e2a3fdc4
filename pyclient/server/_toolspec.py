"""Describes a client tool as the demo model sees it (`ToolSpec`) and finds the word keys that name it.

`ToolSpec.of` accepts every tool shape the dev servers meet: AG-UI `Tool`s, pydantic-ai
`ToolDefinition`s, plain mappings and LangChain-style `{"type": "function", "function": {...}}`
dicts. `tool_keys` gives the keys (see `pyclient.server._words`) of its name parts, each marked weak or
not, and of its description words.

```python
from pyclient.server._toolspec import ToolSpec, tool_keys

spec = ToolSpec.of({"type": "function", "function": {"name": "change_background", "description": "Paint the page"}})
name_keys, description_keys = tool_keys(spec)
assert name_keys["<color>"] is False  # "background" is a strong (not generic) name word
assert "<color>" in description_keys  # "paint"
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._words import (
    STOPWORDS,
    WEAK_STEMS,
    content_words,
    split_identifier,
    stem,
    word_keys,
)

__all__ = ["ToolSpec", "tool_keys"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the matcher sees it: what AG-UI's `Tool` carries."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, tool: Any) -> ToolSpec:
        """Accept a `ToolSpec`, a mapping (`{"name", "description", "parameters"}`), an AG-UI `Tool`,
        a pydantic-ai `ToolDefinition` or a LangChain-style `{"type": "function", "function": {...}}`."""
        if isinstance(tool, ToolSpec):
            return tool
        if isinstance(tool, Mapping):
            if "function" in tool and isinstance(tool["function"], Mapping):
                tool = tool["function"]
            params = tool.get("parameters") or tool.get("parameters_json_schema") or tool.get("input_schema")
            return cls(str(tool.get("name", "")), str(tool.get("description") or ""), dict(params or {}))
        params = getattr(tool, "parameters_json_schema", None)
        if params is None:
            params = getattr(tool, "parameters", None)
        return cls(str(tool.name), str(getattr(tool, "description", "") or ""), dict(params or {}))


def tool_keys(tool: ToolSpec) -> tuple[dict[str, bool], set[str]]:
    """Keys of the tool's name parts (key → weak?) and of its description words."""
    name_keys: dict[str, bool] = {}
    for part in split_identifier(tool.name):
        if part in STOPWORDS:
            continue
        weak = stem(part) in WEAK_STEMS
        for key in word_keys(part):
            name_keys[key] = name_keys.get(key, True) and weak
    desc_keys: set[str] = set()
    for word in content_words(tool.description):
        desc_keys |= word_keys(word)
    return name_keys, desc_keys
