"""Every browser block of a pyclient docstring runs in Chromium (the CPython ones:
tests/unit/package/test_docstring_examples.py).

The blocks are those `tests.unit.package.test_docstring_examples.collect_blocks()` marks as browser
blocks (pyclient/browser/, or importing `pyscript`, `js` or `pyodide`). One page,
web/tests/examples.html, is loaded once for the module; each block is one test that hands
the block's text to `window.t.run` (web/tests/examples.py), which creates the elements the
examples select (`#chat`, `#panel`), execs the block with top-level await allowed and
returns its error and what it printed. Printed output is checked against the block's
comments by the unit test's rule (`check_prints`). Examples use the dev server's `/agent`.

Each test also fails, like every Chromium test, when the page requested anything outside
127.0.0.1 or had an uncaught error while its block ran (`pyclient.testing.PyclientPage`).
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.pages import module_page, turn
from tests.unit.package.test_docstring_examples import BLOCKS, check_prints

BROWSER_BLOCKS = [block for block in BLOCKS if block.browser]


examples_page = module_page("/tests/examples.html")
"""The examples page, loaded once, and its guard (checked and emptied by each test)."""


@pytest.mark.parametrize("block", BROWSER_BLOCKS, ids=lambda block: block.id)
def test_example_runs_in_the_page(block, examples_page):
    page = examples_page.page
    try:
        with turn(examples_page):
            result = json.loads(page.evaluate("([source, file]) => window.t.run(source, file)",
                                              [block.source, str(block.path)]))
            assert result["error"] is None, result["error"]
            problems = check_prints(block.source, [tuple(record) for record in result["prints"]])
            assert not problems, "\n".join(problems)
    finally:  # the next block starts with a clean page
        page.evaluate("document.querySelectorAll('.py-error').forEach(box => box.remove())")
