"""`background_tool()`'s bound on CPython: CSS background values that would load a URL.

The browser's own check (`CSS.supports`) and the serialized value are tested in the page
(tests/e2e/test_toolkit.py).
"""

from __future__ import annotations

import pytest

from pyclient.browser.toolkit._background_rules import background_loads_url

# -- backgrounds ----------------------------------------------------------------------------

@pytest.mark.parametrize("value, loads", [
    ("teal", False), ("linear-gradient(teal, navy)", False), ("rgb(30 58 138)", False),
    ('url("https://x/a.png")', True), ("URL(a.png)", True), ("u\nrl(a)", True),
    ('image-set("a.png" 1x)', True), ('-webkit-image-set(url(a) 1x)', True), ("src(a.png)", True),
])
def test_backgrounds_that_load_urls(value, loads):
    assert background_loads_url(value) is loads
