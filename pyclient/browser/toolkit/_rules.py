"""The bounds several toolkit families share, as pure functions: capped text, a factory's limits, `names=`.

Nothing here touches the browser, so these import and are tested on CPython
(tests/unit/browser/toolkit/test_toolkit_rules.py). A check raises `ConfigurationError` for what the page
author passes to a factory; the family rules beside their tools (`_storage_rules`,
`_dom_rules`, `_background_rules`) build on these: `cap_text` (the first `max_chars`
characters, saying how many were cut), `check_limit` (a factory's numeric bound), `tool_names`
(the `names=` mapping), `compact` (how a value that may name a URL is judged: whitespace,
control and invisible characters removed, case folded) and `count_of` ("3 elements").

```python
from pyclient.browser.toolkit._rules import cap_text, compact, count_of, tool_names

print(cap_text("abcdef", 4))                   # prints "abcd" then the note
print(compact(" Java\\tScRiPt:"), count_of(3, "key"))   # javascript: 3 keys
chosen = tool_names(("read_clipboard", "write_clipboard"), {"read_clipboard": "paste"}, factory="clipboard_tools")
print(chosen["read_clipboard"], chosen["write_clipboard"])   # paste write_clipboard
```
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

from ..._base._errors import ConfigurationError

__all__ = ["cap_text", "check_limit", "compact", "count_of", "tool_names"]


def cap_text(text: str, max_chars: int, *, hint: str = "") -> str:
    """`text`, or its first `max_chars` characters followed by a note saying how much was cut.

    Args:
        text: the full text.
        max_chars: how many characters to keep.
        hint: a sentence added to the note (what to do to read the rest).

    Returns:
        `text` when it fits, else `text[:max_chars]` + "\\n[... N more characters cut: showing
        the first M of T.<hint>]".
    """
    if len(text) <= max_chars:
        return text
    cut = len(text) - max_chars
    note = f"[... {cut:,} more characters cut: showing the first {max_chars:,} of {len(text):,}."
    if hint:
        note += " " + hint.strip()
    return f"{text[:max_chars]}\n{note}]"


def check_limit(value: object, what: str, *, minimum: float = 1) -> None:
    """A factory's numeric bound: a number (not a bool) of at least `minimum`.

    Raises:
        ConfigurationError: naming `what` and the value.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= minimum:
        raise ConfigurationError(f"{what}={value!r} is not a number of at least {minimum:g}. Pass e.g. {what}=1000.")


def compact(value: str) -> str:
    """`value` without whitespace, control or invisible (format) characters, case-folded:
    how a URL's scheme is judged, so `" Java\\tScript:"` and `"java\\u200bscript:"` read as `javascript:`."""
    kept = (ch for ch in value if not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf"))
    return "".join(kept).casefold()


def count_of(n: int, noun: str = "element") -> str:
    """`n` and `noun`, plural unless `n` is 1: "1 element", "3 elements"."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def tool_names(defaults: Sequence[str], names: Mapping[str, str] | None, *, factory: str) -> dict[str, str]:
    """The name of each tool a multi-tool factory makes: its default, or the one `names` gives.

    Args:
        defaults: the default names of the tools the factory makes.
        names: default name -> the name to use instead; None keeps every default.
        factory: the factory's name, for the message.

    Returns:
        default name -> the tool's name, for every default.

    Raises:
        ConfigurationError: `names` is not a mapping, names a tool the factory does not make,
            or gives two tools the same name.
    """
    if names is None:
        return {default: default for default in defaults}
    if not isinstance(names, Mapping):
        raise ConfigurationError(
            f"{factory}(names=...) takes a mapping from default name to new name, got {type(names).__name__}. "
            f"Pass e.g. names={{{defaults[0]!r}: 'my_{defaults[0]}'}}."
        )
    unknown = sorted(set(names) - set(defaults))
    if unknown:
        raise ConfigurationError(
            f"{factory}(names=...) renames {', '.join(map(repr, unknown))}, which this call does not make; "
            f"it makes {', '.join(map(repr, defaults))}. Use those names as the keys."
        )
    chosen = {default: names.get(default, default) for default in defaults}
    if len(set(chosen.values())) != len(chosen):
        raise ConfigurationError(
            f"{factory}(names=...) gives two tools the same name: {chosen}. Give each tool a name of its own."
        )
    return chosen
