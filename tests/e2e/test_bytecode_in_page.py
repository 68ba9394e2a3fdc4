"""pyclient's modules and the standard library reach the page as bytecode: importing pyclient compiles
none of them from source, and tracebacks still show their lines."""

from __future__ import annotations

from tests.e2e.pages import wait_ready


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
    assert "site-packages/pyclient/_tools/_client_tool.py" in data["traceback"]
    assert "raise ConfigurationError(" in data["traceback"], data["traceback"]
    # The standard library: zipimport took json's .pyc beside its source, which tracebacks show.
    assert data["stdlib"] == "/lib/python314.zip/json/__init__.pyc"
    assert 'File "/lib/python314.zip/json/decoder.py"' in data["stdlibTraceback"]
    assert "obj, end = self.scan_once(s, idx)" in data["stdlibTraceback"], data["stdlibTraceback"]
    assert not guard.outside
