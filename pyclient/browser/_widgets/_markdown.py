"""Assistant text as HTML through markdown-it-py, with nothing in it that can run or load.

`render(text)` returns the HTML the chat puts in an assistant bubble. It is the only HTML the
chat ever writes, and it comes from markdown-it alone (the `js-default` preset: CommonMark,
tables, strikethrough), configured so model output cannot become active content: raw HTML is
off, links are limited to `http:`, `https:` and `mailto:` (`is_safe_link`) and open in a new
tab with `rel="noopener noreferrer nofollow"`, images become links so no request leaves the
page, and a table column's alignment is a class, not a `style` attribute a strict
Content-Security-Policy would refuse. markdown-it-py is imported on the first `render()`, so a
page pays for it when the first answer arrives, not at boot.
See https://markdown-it-py.readthedocs.io/en/latest/security.html

```python
from pyclient.browser._widgets._markdown import is_safe_link, render

print(render("**bold** [x](javascript:alert(1))").strip())  # <p><strong>bold</strong> [x](javascript:alert(1))</p>
print(is_safe_link("https://example.org"), is_safe_link("javascript:alert(1)"))  # True False
print('<td class="pyclient-align-right">7</td>' in render("| n |\\n| -: |\\n| 7 |"))  # True
```
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["LINK_REL", "BlockSplitter", "is_safe_link", "render"]

LINK_REL = "noopener noreferrer nofollow"
"""The `rel` of every link in rendered text."""

# A line that may continue the block before a blank line: indented, a list item, a quote.
_CONTINUES = re.compile(r"[ \t]|[-*+>]|\d{1,9}[.)]")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")

# Checked on the URL markdown-it has normalized (entities decoded, then percent-encoded), so
# "java&#115;cript:" or "java\tscript:" cannot pass for a web link.
_SAFE_LINK = re.compile(r"(?:https?|mailto):", re.IGNORECASE)

_parser: MarkdownIt | None = None


def is_safe_link(url: str) -> bool:
    """True for an absolute `http:`, `https:` or `mailto:` URL; every other link stays text."""
    return _SAFE_LINK.match(url.strip()) is not None


def render(text: str) -> str:
    """The HTML of `text` read as Markdown (see the module docstring for what is left out)."""
    global _parser
    if _parser is None:
        _parser = _make_parser()
    return str(_parser.render(text))


def _make_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from markdown_it.common.utils import escapeHtml

    class _SafeMarkdown(MarkdownIt):
        def validateLink(self, url: str) -> bool:  # noqa: N802 (markdown-it's name)
            return is_safe_link(url)

    def link_open(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        token.attrSet("target", "_blank")
        token.attrSet("rel", LINK_REL)
        return str(renderer.renderToken(tokens, idx, options, env))

    def image(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        # A link to the image instead of the image: nothing loads unless the user clicks.
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = renderer.renderInlineAsText(token.children or [], options, env)
        label = escapeHtml(alt or src)
        return (f'<a class="pyclient-image-link" href="{escapeHtml(src)}" target="_blank" '
                f'rel="{LINK_REL}">{label}</a>')

    def cell_open(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        # A column's alignment as a class: markdown-it writes `style="text-align:right"`, which
        # a Content-Security-Policy whose style-src has no 'unsafe-inline' refuses.
        token = tokens[idx]
        style = str(token.attrs.pop("style", ""))
        if style.startswith("text-align:"):
            token.attrJoin("class", "pyclient-align-" + style.removeprefix("text-align:"))
        return str(renderer.renderToken(tokens, idx, options, env))

    # breaks: a single newline is a line break, as people expect in a chat answer.
    parser = _SafeMarkdown("js-default", {"html": False, "linkify": False, "typographer": False, "breaks": True})
    parser.add_render_rule("link_open", link_open)
    parser.add_render_rule("image", image)
    parser.add_render_rule("th_open", cell_open)
    parser.add_render_rule("td_open", cell_open)
    return parser


class BlockSplitter:
    """Finds where streaming Markdown can be cut: blocks before the cut never change again.

    A cut is a blank line, outside a fenced code block, followed by a line that starts a new
    block (not indented, not a list item, not a quote: those may continue the block before).
    Everything before the last cut can be rendered once and kept; only the text after it
    needs rendering again as more arrives. Reading is incremental: each call scans only the
    complete lines it has not seen.

    ```python
    from pyclient.browser._widgets._markdown import BlockSplitter

    splitter = BlockSplitter()
    print(splitter.cut("One.\\n\\nTwo"))             # "0": the line after the blank is not complete
    print(splitter.cut("One.\\n\\nTwo.\\n\\n- a\\n"))  # "6": before "Two."; "- a" may continue a list
    ```
    """

    def __init__(self) -> None:
        self._scanned = 0                 # text[:_scanned] is read (complete lines)
        self._fence: str | None = None    # the open fence's marker (```, ~~~~...), or None
        self._blank = False               # the last line read was blank (outside a fence)
        self._cut = 0

    def cut(self, text: str) -> int:
        """The last cut in `text` (0 when there is none); `text` only grows between calls."""
        position = self._scanned
        while True:
            end = text.find("\n", position)
            if end < 0:
                break
            line = text[position:end]
            fence = _FENCE.match(line)
            if self._fence is not None:
                if fence and fence.group(1)[0] == self._fence[0] and len(fence.group(1)) >= len(self._fence) \
                        and not line[fence.end():].strip():
                    self._fence = None
            else:
                if self._blank and line.strip() and not _CONTINUES.match(line):
                    self._cut = position
                if fence:
                    self._fence = fence.group(1)
                self._blank = not line.strip()
            position = end + 1
        self._scanned = position
        return self._cut
