"""The rules a listener may name for the page to cancel its event (`Prevent`) are the rules
renderer.js decides: a name on one side only would be an event a worker's chat never cancels."""

from __future__ import annotations

import re
from pathlib import Path

import pyclient
from pyclient.browser._page._nodes import PREVENT_RULES

RENDERER = Path(pyclient.__file__).parent / "browser" / "assets" / "renderer.js"


def test_the_prevent_rules_are_the_renderer_s():
    table = re.search(r"const PREVENT = \{(?P<body>.*?)\n\};", RENDERER.read_text(), re.DOTALL)
    assert table is not None, "renderer.js has no PREVENT table"
    names = set(re.findall(r"^  (\w+):", table["body"], re.MULTILINE))
    assert names == PREVENT_RULES == {"always", "files_only", "dragged_files", "escape"}
