"""chat.css's table of contents, on CPython: its header lists exactly the section banners, in order.

The stylesheet is one file (served as it is, or inlined with a nonce), so a reader finds a
widget's rules through the numbered contents at the top; each section opens with a banner
`/* == N. Name ==… */` that repeats its entry. A banner added without an entry, an entry
without a banner, or sections out of order fail here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyclient.browser

CHAT_CSS = Path(pyclient.browser.__file__).parent / "assets" / "chat.css"

BANNER = re.compile(r"^/\* == (\d+)\. (.+?) =+ \*/$", re.MULTILINE)
ENTRY = re.compile(r"^ +(\d+)\. (.+)$", re.MULTILINE)


def contents(css: str) -> list[tuple[int, str]]:
    """The (number, name) entries of the header comment's "Contents" list."""
    header = css[: css.index("*/")]
    listed = header[header.index("\n   Contents\n"):]
    return [(int(number), name.strip()) for number, name in ENTRY.findall(listed)]


def banners(css: str) -> list[tuple[int, str]]:
    """The (number, name) of every section banner, in the file's order."""
    return [(int(number), name.strip()) for number, name in BANNER.findall(css)]


def test_the_contents_list_exactly_the_banners_in_order() -> None:
    css = CHAT_CSS.read_text()
    listed = contents(css)
    assert listed, "chat.css's header has no Contents list"
    assert banners(css) == listed
    assert [number for number, _ in listed] == list(range(1, len(listed) + 1))


def test_every_rule_sits_in_a_section() -> None:
    css = CHAT_CSS.read_text()
    first = BANNER.search(css)
    assert first is not None
    before = re.sub(r"/\*.*?\*/", "", css[: first.start()], flags=re.DOTALL)
    assert before.strip() == "", "rules before the first section banner"


def test_a_banner_missing_from_the_contents_is_found() -> None:
    css = CHAT_CSS.read_text()
    added = css + "\n/* == 99. Toasts ============================================ */\n.pyclient-chat .x { color: red; }\n"
    assert banners(added) != contents(added)
    renamed = css.replace(f"/* == 1. {contents(css)[0][1]} ", "/* == 1. Colours ", 1)
    assert banners(renamed) != contents(renamed)
