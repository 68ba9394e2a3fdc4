"""Every public name a page or a test could import at commit abdf51c still imports, from the
same package (issue 39: the package's insides move, its surface does not).

The lists below are the `__all__` of each public package at abdf51c, written out. A name may
be added to a package; none may leave. `pyclient`, `pyclient.testing` and `pyclient.server`
are imported here. `pyclient.browser` and its toolkit need Pyodide (`js`): for them the
package's `__init__` and each name's home module, as its lazy `_HOMES` table names it, are
read with `ast` instead.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# The `__all__` of each public package at commit abdf51c, sorted.
ABDF51C_NAMES = {
    "pyclient": [
        "AbortController", "AbortSignal", "Action", "Agent", "Attachment", "AttachmentError", "Audio",
        "BranchPoint", "CallStatusName", "ClientTool", "ConfigurationError", "Document", "FileStore",
        "FollowUpLimitError", "HttpxTransport", "Image", "Interrupt", "InterruptError", "InterruptStatusName",
        "ListingStore", "LocalProtocolError", "MemoryStore", "MockTransport", "Platform", "ProtocolError",
        "PyClientError", "Rating", "RecordStore", "Registration", "RemoteProtocolError", "Request",
        "RequestTooLargeError", "RunAborted", "RunError", "RunStatus", "SavedThreads", "Store", "Subagent",
        "Thread", "ThreadEvent", "ThreadSummary", "ToolContext", "ToolError", "ToolPart", "ToolPartState",
        "ToolResult", "Transport", "TransportError", "UnknownEvent", "Video", "client_tool", "use_client_tool",
    ],
    "pyclient.browser": [
        "BrowserDom", "BrowserPlatform", "Chat", "ConsoleHandler", "ElementRegistration", "FetchTransport",
        "IndexedDbStore", "ThreadList", "log_to_console", "show_startup_errors", "toolkit",
    ],
    "pyclient.browser.toolkit": [
        "MAX_PROMPT_CHARS", "MAX_SET_TEXT_CHARS", "MAX_TOAST_CHARS", "ToastKind", "background_tool",
        "canvas_tool", "clipboard_tools", "dom_tools", "file_request_tool", "notify_tool", "page_text_tool",
        "selection_tool", "storage_tools",
    ],
    "pyclient.testing": [
        "CHROMIUM_ARGS", "FakeDom", "FakeElement", "PyclientPage", "Response", "ScriptedAgent", "ServerThread",
        "Site", "Turn", "agent_app", "chromium_launch_args", "chromium_path", "read_body",
    ],
    "pyclient.server": [
        "ASSETS", "BuildError", "DISTRIBUTION", "PACKAGE_DATA", "PYODIDE_VERSION", "PYSCRIPT_VERSION",
        "RUNTIME_ENV", "StaticDir", "agent_endpoint", "build", "build_agent", "create_app", "default_runtime_dir",
        "package_files", "page_config", "vendor",
    ],
}
IMPORTED = ["pyclient", "pyclient.testing", "pyclient.server"]
READ = ["pyclient.browser", "pyclient.browser.toolkit"]


def source_of(module: str) -> Path:
    """The file of `module` (a package's `__init__.py`), in this checkout."""
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def assigned(tree: ast.Module, name: str) -> object:
    """The literal value the module's top level assigns to `name`."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"no top-level {name} = ... literal")


def top_level_definitions(path: Path) -> set[str]:
    """The names a module's top level defines: classes, functions and assigned names."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_the_lists_are_abdf51c_s_and_sorted():
    assert set(ABDF51C_NAMES) == {*IMPORTED, *READ}
    for names in ABDF51C_NAMES.values():
        assert names == sorted(names) and len(set(names)) == len(names)
    assert sum(len(names) for names in ABDF51C_NAMES.values()) == 105


@pytest.mark.parametrize("package", IMPORTED)
def test_every_name_imports_and_is_the_object_all_exports(package):
    module = importlib.import_module(package)
    missing = [name for name in ABDF51C_NAMES[package] if name not in module.__all__]
    assert missing == [], f"{package} no longer exports {missing}"
    star: dict[str, object] = {}
    exec(f"from {package} import *", star)  # what `__all__` gives today
    for name in ABDF51C_NAMES[package]:
        one: dict[str, object] = {}
        exec(f"from {package} import {name}", one)
        assert one[name] is star[name] is getattr(module, name), name
        assert one[name] is not None, name


@pytest.mark.parametrize("package", READ)
def test_every_browser_name_is_exported_and_defined_where_its_lazy_table_says(package):
    tree = ast.parse(source_of(package).read_text())
    exported = assigned(tree, "__all__")
    homes = assigned(tree, "_HOMES")
    assert isinstance(exported, list) and isinstance(homes, dict)
    missing = [name for name in ABDF51C_NAMES[package] if name not in exported]
    assert missing == [], f"{package} no longer exports {missing}"
    for name in ABDF51C_NAMES[package]:
        assert name in homes, f"{package}._HOMES has no home for {name}"
        home = importlib.util.resolve_name(homes[name], package)
        path = source_of(home)
        assert path.is_file(), f"{package}.{name}: its home {home} has no file"
        if homes[name] == f".{name}":  # a subpackage, exported as the module itself
            assert path.name == "__init__.py", name
        else:
            assert name in top_level_definitions(path), f"{home} does not define {name} at its top level"
