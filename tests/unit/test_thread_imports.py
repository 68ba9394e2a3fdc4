"""The run-loop modules stay browser-neutral: no js/pyodide/pyscript, httpx only lazily."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import pyclient

PACKAGE = Path(pyclient.__file__).parent
RUN_LOOP_MODULES = ["_actions", "_agent", "_events", "_messages", "_run", "_scopes", "_sse", "_state", "_thread", "_transport"]
BROWSER_ONLY = {"js", "pyodide", "pyscript"}


def imported_modules(tree: ast.AST, *, top_level_only: bool) -> set[str]:
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("module", RUN_LOOP_MODULES)
def test_no_browser_imports(module):
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    assert not imported_modules(tree, top_level_only=False) & BROWSER_ONLY
    assert "httpx" not in imported_modules(tree, top_level_only=True)


def test_importing_pyclient_does_not_import_httpx_or_jsonpatch():
    code = "import sys, pyclient; print(sorted(m for m in ('httpx', 'jsonpatch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
