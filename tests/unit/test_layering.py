"""The core stays browser-neutral: only pyclient/browser/ imports js/pyodide/pyscript, and the
core imports httpx only lazily (it is not in the page)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import pyclient

PACKAGE = Path(pyclient.__file__).parent
CORE_MODULES = sorted(path.stem for path in PACKAGE.glob("*.py"))
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


def test_the_core_is_every_module_but_the_bridge():
    assert {"__init__", "_tools", "_thread", "_run", "_scopes", "_sse"} <= set(CORE_MODULES)
    assert (PACKAGE / "browser" / "__init__.py").exists()


@pytest.mark.parametrize("module", CORE_MODULES)
def test_no_browser_imports(module):
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    assert not imported_modules(tree, top_level_only=False) & BROWSER_ONLY
    assert "httpx" not in imported_modules(tree, top_level_only=True)


def test_importing_pyclient_does_not_import_httpx_or_jsonpatch():
    code = "import sys, pyclient; print(sorted(m for m in ('httpx', 'jsonpatch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
