"""pyclient's modules reach the page as bytecode: importing pyclient compiles none of them from source."""

from __future__ import annotations

from tests.e2e.conftest import wait_ready


def test_pyclient_imports_compile_nothing_from_source(page, guard):
    page.goto("/tests/bytecode.html")  # a worker page, as the demo
    wait_ready(page)
    data = page.evaluate("({...document.documentElement.dataset})")
    compiled = data["compiled"].split()
    # The hook saw the compiles there were: pydantic_core's wheel carries no bytecode.
    assert "pydantic_core/__init__.py" in compiled, compiled
    assert not [path for path in compiled if path.startswith("pyclient/")], compiled
    assert data["cached"].endswith("/pyclient/__pycache__/__init__.cpython-314.pyc")
    # The sources are still there: a traceback through pyclient shows its lines.
    assert "site-packages/pyclient/_tools.py" in data["traceback"]
    assert "raise ConfigurationError(" in data["traceback"], data["traceback"]
    assert not guard.outside
