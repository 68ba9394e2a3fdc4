"""Reads the user's message once for a tool call's arguments (`ArgumentContext`): its numbers, words and negation.

It also holds what one build shares while it walks the schema (the root for `$ref`s, the
sibling properties, the first key-like value taken).

Numbers are the message's digits in order, then its number words ("two", "twenty"), skipping
the digits of colour values ("#1e3a8a" is a colour, not the numbers 1 and 3); each number
argument takes the next one (the last one again once they run out). A message negates when it
has a word such as "off", "not", "disable" or an "n't".

```python
from pyclient.server._argument_context import ArgumentContext

ctx = ArgumentContext("don't make it #1e3a8a, size two and 7", {}, None)
print(ctx.numbers, ctx.negated)                                # [7.0, 2.0] True
print(ctx.take_number(), ctx.take_number(), ctx.take_number())  # 7.0 2.0 2.0
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._toolspec import ToolSpec
from ._words import NUMBER_RE, WORD_RE, mask_colour_values

__all__ = ["ArgumentContext"]

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100,
}

_NEGATIONS = frozenset(
    "no not off disable disabled false hide hidden never without stop dont don't isn't nope".split()
)


class ArgumentContext:
    """The message, read once, and the state one build of arguments shares.

    Attributes:
        text: the user's message.
        root: the tool's parameters schema, where `$ref`s point.
        tool: the tool, or None.
        numbers: the message's numbers: its digits in order, then its number words.
        next_number: how many numbers were taken.
        words: the message's words, lowercased.
        negated: True when the message negates ("off", "not", "disable"...).
        short_taken: the first value a key-like or title-like string argument took, if any.
        siblings: the property names of the object being built.
    """

    def __init__(self, text: str, root: Mapping[str, Any], tool: ToolSpec | None) -> None:
        self.text = text
        self.root = root
        self.tool = tool
        plain = mask_colour_values(text)  # "#1e3a8a" is a colour, not the numbers 1 and 3
        numbers = [float(m.group(0)) for m in NUMBER_RE.finditer(plain)]
        for word in WORD_RE.findall(plain.lower()):
            if word in _NUMBER_WORDS:
                numbers.append(float(_NUMBER_WORDS[word]))
        self.numbers = numbers
        self.next_number = 0
        self.words = [w.lower() for w in WORD_RE.findall(text)]
        self.negated = any(w in _NEGATIONS for w in self.words) or "n't" in text.lower()
        self.short_taken: str | None = None
        self.siblings: frozenset[str] = frozenset()

    def take_number(self) -> float | None:
        """The next number of the message (the last one again once all were taken), or None without any."""
        if not self.numbers:
            return None
        value = self.numbers[min(self.next_number, len(self.numbers) - 1)]
        self.next_number += 1
        return value
