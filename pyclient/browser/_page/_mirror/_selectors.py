"""CSS selectors matched against mirror nodes: the subset the chat's own code uses.

A compound of a tag, `#id`, `.class`es, `[attr]` and `[attr="value"]`, joined by descendant
(space) or child (`>`) combinators, in comma lists; `:scope` is the node searched from. The
mirror holds only nodes the worker made, so matching them here costs no round trip to the
page; anything else raises a `ValueError` that names the selector (read the real node with
`MirrorNode.real` instead).

```python
from pyclient.browser._page._mirror._selectors import parse

print(parse(":scope > .pyclient-header, [data-command='stop']"))
# [[(' ', (':scope', '', (), ())), ('>', ('', '', ('pyclient-header',), ()))], [(' ', ('', '', (), (('data-command', 'stop'),)))]]
```
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Protocol

__all__ = ["Compound", "Matchable", "Selector", "matcher", "parse"]

Compound = tuple[str, str, tuple[str, ...], tuple[tuple[str, str | None], ...]]
"""One compound selector: (tag or ":scope" or "", id, classes, attributes as (name, value or None))."""

Selector = list[list[tuple[str, Compound]]]
"""Comma alternatives, each a chain of (combinator before it, compound), the subject last."""

_TOKEN = re.compile(
    r"""\s*(?:(?P<comb>>)|(?P<scope>:scope)|(?P<tag>[a-zA-Z][\w-]*|\*)|\#(?P<id>[\w-]+)|\.(?P<cls>[\w-]+)"""
    r"""|\[\s*(?P<attr>[\w-]+)\s*(?:=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[\w-]+))\s*)?\]|(?P<comma>,))"""
)


class Matchable(Protocol):
    """What matching reads of a node."""

    @property
    def localName(self) -> str: ...

    @property
    def parentElement(self) -> Matchable | None: ...

    def getAttribute(self, name: str) -> str | None: ...


@lru_cache(maxsize=256)
def _parse(selector: str) -> tuple[tuple[tuple[str, Compound], ...], ...]:
    alternatives: list[tuple[tuple[str, Compound], ...]] = []
    chain: list[tuple[str, Compound]] = []
    comb = " "
    tag, ident = "", ""
    classes: list[str] = []
    attrs: list[tuple[str, str | None]] = []
    started = False

    def close() -> None:
        nonlocal tag, ident, classes, attrs, started, comb
        if started:
            chain.append((comb, (tag, ident, tuple(classes), tuple(attrs))))
        tag, ident, classes, attrs, started, comb = "", "", [], [], False, " "

    position = 0
    text = selector.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"the selector {selector!r} is more than pyclient's mirror of the chat matches "
                             "(tags, #id, .class, [attr], [attr=value], :scope, descendant and >)")
        gap = match.group(0)[:1].isspace()
        if gap and started and not match.group("comb") and not match.group("comma"):
            close()  # whitespace between compounds: the descendant combinator
        position = match.end()
        if match.group("comma"):
            close()
            alternatives.append(tuple(chain))
            chain = []
        elif match.group("comb"):
            close()
            comb = ">"
        elif match.group("scope"):
            tag, started = ":scope", True
        elif match.group("tag"):
            tag, started = ("" if match.group("tag") == "*" else match.group("tag").lower()), True
        elif match.group("id"):
            ident, started = match.group("id"), True
        elif match.group("cls"):
            classes.append(match.group("cls"))
            started = True
        else:
            value = next((v for v in (match.group("dq"), match.group("sq"), match.group("bare")) if v is not None), None)
            attrs.append((match.group("attr").lower(), value))
            started = True
    close()
    alternatives.append(tuple(chain))
    if any(not alternative for alternative in alternatives):
        raise ValueError(f"the selector {selector!r} has an empty part")
    return tuple(alternatives)


def parse(selector: str) -> Selector:
    """The selector's alternatives (raises `ValueError` for what the mirror does not match)."""
    return [list(alternative) for alternative in _parse(selector)]


def _compound(node: Matchable, compound: Compound, scope: object) -> bool:
    tag, ident, classes, attrs = compound
    if tag == ":scope":
        if node is not scope:
            return False
    elif tag and node.localName != tag:
        return False
    if ident and node.getAttribute("id") != ident:
        return False
    if classes:
        have = (node.getAttribute("class") or "").split()
        if any(name not in have for name in classes):
            return False
    for name, value in attrs:
        got = node.getAttribute(name)
        if got is None or (value is not None and got != value):
            return False
    return True


def _chain(node: Matchable, chain: tuple[tuple[str, Compound], ...], scope: object) -> bool:
    comb, last = chain[-1]
    if not _compound(node, last, scope):
        return False
    if len(chain) == 1:
        return True
    rest = chain[:-1]
    parent = node.parentElement
    if comb == ">":
        return parent is not None and _chain(parent, rest, scope)
    while parent is not None:
        if _chain(parent, rest, scope):
            return True
        parent = parent.parentElement
    return False


def matcher(selector: str, scope: object) -> Callable[[Matchable], bool]:
    """A test of nodes against `selector`, `:scope` being `scope` (the node searched from)."""
    alternatives = _parse(selector)
    return lambda node: any(_chain(node, chain, scope) for chain in alternatives)
