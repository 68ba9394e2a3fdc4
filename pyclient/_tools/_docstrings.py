"""Reads a handler's docstring: its summary, and its parameter descriptions from a Google-style `Args:` section.

The summary is the first paragraph, on one line; it ends at a blank line or a section header
(`Returns:`, `Raises:`...). The `Args:` section (also `Arguments:`, `Parameters:`, `Params:`)
holds one entry a parameter, `name: text` or `name (type): text`, continued on more indented
lines. A tool's description and its parameters' descriptions come from here.

```python
from pyclient._tools._docstrings import parse_docstring

summary, args = parse_docstring('''Greet someone.

    Args:
        name (str): who to greet,
            by their first name.
    ''')
print(summary)   # Greet someone.
print(args)      # {'name': 'who to greet, by their first name.'}
```
"""

from __future__ import annotations

import inspect
import re

__all__ = ["parse_docstring"]

_ARGS_HEADERS = {"args:", "arguments:", "parameters:", "params:"}
# Google-style section headers that end the summary paragraph and the Args section.
_SECTION_RE = re.compile(r"^[A-Z][A-Za-z ]{1,30}:$")
_ARG_LINE_RE = re.compile(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its summary and its Google-style parameter descriptions.

    Args:
        doc: the docstring (cleaned or not), or None.

    Returns:
        The first paragraph joined on one line, and a dict of parameter name to description
        read from an `Args:` (or `Arguments:`/`Parameters:`) section.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or _SECTION_RE.match(stripped):
            break
        summary.append(stripped)
    return " ".join(summary), _parse_args_section(lines)


def _parse_args_section(lines: list[str]) -> dict[str, str]:
    descriptions: dict[str, str] = {}
    start = next((i for i, line in enumerate(lines) if line.strip().lower() in _ARGS_HEADERS), None)
    if start is None:
        return descriptions
    # cleandoc dedents every line after the first, so a header on the first line has entries
    # at its own indentation.
    header_indent = _indent(lines[start]) if start > 0 else -1
    entry_indent: int | None = None
    current: str | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        indent = _indent(line)
        if indent <= header_indent:
            break  # the next section
        if entry_indent is None:
            entry_indent = indent
        match = _ARG_LINE_RE.match(line.strip()) if indent == entry_indent else None
        if match:
            current = match.group(1)
            descriptions[current] = match.group(2).strip()
        elif current is not None:  # a continuation line of the current entry
            descriptions[current] = f"{descriptions[current]} {line.strip()}".strip()
    return {name: text for name, text in descriptions.items() if text}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
