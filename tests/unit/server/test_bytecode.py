"""Where pyclient's bytecode goes in its wheel, and what building it without Node.js says."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyclient.server import _bytecode
from pyclient.server._bytecode import BytecodeError, compile_for_pyodide, pyc_name


def test_pyc_name_is_where_the_import_system_looks():
    assert pyc_name("pyclient/browser/_chat/_chat.py", "cpython-314") == "pyclient/browser/_chat/__pycache__/_chat.cpython-314.pyc"
    assert pyc_name("pyclient/__init__.py", "cpython-314") == "pyclient/__pycache__/__init__.cpython-314.pyc"
    assert pyc_name("top.py", "cpython-314") == "__pycache__/top.cpython-314.pyc"


def test_without_node_the_error_says_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(_bytecode.shutil, "which", lambda name: None)
    with pytest.raises(BytecodeError, match="`node` is not on PATH. Install Node.js"):
        compile_for_pyodide(tmp_path, {}, {"pyclient/__init__.py": b""})


def test_a_broken_runtime_folder_is_named_with_node_output(tmp_path: Path):
    if _bytecode.shutil.which("node") is None:
        pytest.fail("this machine has no Node.js, which building the runtime needs")
    with pytest.raises(BytecodeError, match=r"could not compile Python for the page \(exit 1\)") as info:
        compile_for_pyodide(tmp_path, {}, {"pyclient/__init__.py": b""})
    assert "pyodide.mjs" in str(info.value)  # Node's own words: the file it did not find
