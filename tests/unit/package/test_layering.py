"""The package's shape, written as tests: floors by folder with imports running down only, the
core browser-neutral, no import circles, and no module reaching into another module's private
names. `docs/architecture.md` is drawn from `LAYERS`: after moving a module, run
`.venv/bin/python -m tests.unit.package.test_layering` to draw it again."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pyclient

PACKAGE = Path(pyclient.__file__).parent
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
ALL_MODULES = sorted(
    ".".join(("pyclient", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
    for path in PACKAGE.rglob("*.py")
)
BROWSER_ONLY = {"js", "pyodide", "pyscript", "pyodide_js"}

# The floors, bottom up. A module belongs to the longest prefix below that names it; it may import
# its own floor and the floors before it, never one after (type-only imports included). Each
# folder's `__init__` docstring says what it holds: the architecture page prints them.
LAYERS = (
    "pyclient._base",
    "pyclient._wire",
    "pyclient._tools",
    "pyclient._binding",
    "pyclient._conversation",
    "pyclient._driver",
    "pyclient._api",
    "pyclient.browser._page",
    "pyclient.browser._platform",
    "pyclient.browser._widgets",
    "pyclient.browser._chat",
    "pyclient.browser._thread_list",
    "pyclient.browser.toolkit",
    "pyclient.browser",
    "pyclient.server",
    "pyclient",
    "pyclient.testing",
)
CORE_MODULES = [module for module in ALL_MODULES
                if not module.startswith(("pyclient.browser", "pyclient.server", "pyclient.testing"))]


def layer_of(module: str) -> str:
    return max((layer for layer in LAYERS if module == layer or module.startswith(layer + ".")), key=len)


def source(module: str) -> Path:
    parts = module.split(".")[1:]
    path = PACKAGE.joinpath(*parts)
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def imported_modules(tree: ast.AST, *, top_level_only: bool) -> set[str]:
    nodes = tree.body if top_level_only else list(ast.walk(tree))  # type: ignore[attr-defined]
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def imports(module: str) -> set[str]:
    """The pyclient modules `module` imports: at the top, inside functions, and under
    `if TYPE_CHECKING:` (a type-only import is a dependency too: a reader follows it)."""
    tree = ast.parse(source(module).read_text())
    package = module if source(module).name == "__init__.py" else module.rpartition(".")[0]
    edges: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names = [f"{target}.{alias.name}" for alias in node.names]
            found = [name for name in names if name in ALL_MODULES]
            edges.update(found or ([target] if target in ALL_MODULES else []))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            targets = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            edges.update(t for t in targets if t in ALL_MODULES)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    edges.discard(module)
    return edges


def test_the_core_is_every_module_but_the_bridge():
    assert {"pyclient", "pyclient._tools._client_tool", "pyclient._api._thread", "pyclient._conversation._machine",
            "pyclient._binding._scopes", "pyclient._wire._sse"} <= set(CORE_MODULES)
    assert (PACKAGE / "browser" / "__init__.py").exists()


def upward_imports() -> list[str]:
    return sorted(f"{module} ({layer_of(module)}) imports {target} ({layer_of(target)})"
                  for module in ALL_MODULES for target in imports(module)
                  if LAYERS.index(layer_of(target)) > LAYERS.index(layer_of(module)))


def test_every_folder_is_a_floor_and_imports_run_down():
    folders = {".".join(("pyclient", *path.parent.relative_to(PACKAGE).parts))
               for path in PACKAGE.rglob("__init__.py")}
    assert folders - {"pyclient.browser._page._mirror"} == set(LAYERS), "add the folder to LAYERS, in its place"
    assert upward_imports() == [], "an import runs up a floor: hand the lower floor a protocol instead"


def test_the_floor_check_sees_an_import_that_runs_up():
    assert layer_of("pyclient.browser._page._mirror._node") == "pyclient.browser._page"
    assert layer_of("pyclient._environment") == "pyclient"
    assert LAYERS.index(layer_of("pyclient._api._thread")) > LAYERS.index(layer_of("pyclient._driver._loop"))
    assert "pyclient._driver._loop" in imports("pyclient._api._thread")


@pytest.mark.parametrize("module", CORE_MODULES)
def test_no_browser_imports(module):
    tree = ast.parse(source(module).read_text())
    assert not imported_modules(tree, top_level_only=False) & BROWSER_ONLY
    assert "httpx" not in imported_modules(tree, top_level_only=True)


def test_only_the_environment_module_reaches_the_browser_package():
    reach = {module for module in ALL_MODULES if not module.startswith("pyclient.browser")
             and any(target.startswith("pyclient.browser") for target in imports(module))}
    assert reach == {"pyclient._environment"}


def test_the_machine_and_the_tables_do_no_io():
    sans_io = [module for module in ALL_MODULES if module.startswith("pyclient._conversation.")]
    for module in [*sans_io, "pyclient._wire._sse", "pyclient._wire._events"]:
        names = imported_modules(ast.parse(source(module).read_text()), top_level_only=False)
        assert not names & {"asyncio", "time", "socket", "httpx", "threading"}, module


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of an import graph (module -> the modules it imports), each as a path."""
    cycles: list[list[str]] = []
    state: dict[str, str] = {}

    def walk(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                cycles.append([*path[path.index(target):], target])
            elif target not in state:
                walk(target, [*path, target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    return cycles


def test_no_import_circles():
    graph = {module: imports(module) for module in ALL_MODULES}
    assert graph["pyclient._api._thread"] >= {"pyclient._conversation._machine", "pyclient._binding._scopes"}  # the walk sees edges
    assert import_circles(graph) == []


def test_the_testing_kit_has_no_import_circle_even_for_the_type_checker():
    kit = [module for module in ALL_MODULES if module.startswith("pyclient.testing")]
    graph = {module: {target for target in imports(module) if target in kit}
             for module in kit}
    assert graph["pyclient.testing._scripted"] >= {"pyclient.testing._script", "pyclient.testing._response",
                                                   "pyclient.testing._server"}
    assert import_circles(graph) == []


def _defined_private_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # __slots__ entries
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


@pytest.mark.parametrize("module", ALL_MODULES)
def test_no_module_touches_another_modules_private_names(module):
    """`obj._name` is only used where `_name` belongs to the same module (its own objects)."""
    tree = ast.parse(source(module).read_text())
    own = _defined_private_names(tree)
    foreign = sorted(
        f"{ast.unparse(node)} (line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
        and node.attr not in own
    )
    assert foreign == []


def test_importing_pyclient_does_not_import_httpx_jsonpatch_or_the_browser():
    code = ("import sys, pyclient; print(sorted(m for m in ('httpx', 'jsonpatch', 'pyclient.browser') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_library_leaves_logging_alone():
    code = ("import logging, pyclient; log = logging.getLogger('pyclient'); "
            "print(log.propagate, log.level, [type(h).__name__ for h in log.handlers], logging.getLogger().handlers)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True 0 ['NullHandler'] []"


LAZY_PROTOCOL = '''
import sys
from pyclient import Agent, client_tool
from pyclient._binding._platform import Platform

class Recording(Platform):
    loads = []
    def preload(self, load):
        self.loads.append(load)

@client_tool
def change_background(background: str) -> str:
    """Change the page background."""
    return background

@client_tool
def note(text: str) -> str:
    """Save a note."""
    return text

agent = Agent("main", "http://127.0.0.1:1/agent", client_tools=[change_background], platform=Recording())
thread = agent.thread()
agent.thread()
thread.register_tool(note)
assert [tool.name for tool in thread.available_tools()] == ["change_background", "note"]
print(sorted(m for m in sys.modules if m.split(".")[0] == "ag_ui"), len(Recording.loads))
for load in Recording.loads:  # the tools' schemas, then ag-ui's models
    load()
from pyclient._wire._events import decode_event
print("ag_ui.core" in sys.modules, type(decode_event('{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}')).__name__)
'''


def test_a_page_registers_tools_and_makes_threads_without_importing_ag_ui():
    # `import ag_ui.core` is most of pyclient's boot in Pyodide (~0.8 s): it is imported when
    # the platform preloads it (asked once, by the first thread) or at the first request.
    out = subprocess.run([sys.executable, "-c", LAZY_PROTOCOL], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[] 2", "True RunStartedEvent"]


LAZY_SCHEMA = '''
import json, sys
from typing import Literal
from pyclient import Agent, client_tool

@client_tool
def create_task(title: str, priority: Literal["low", "high"] = "low", done: bool = False) -> dict[str, int]:
    """Add a task.

    Args:
        title: a short title.
    """
    return {"id": 1}

agent = Agent("main", "http://127.0.0.1:1/agent", client_tools=[create_task])
agent.thread()
MACHINERY = ("pydantic.main", "pydantic.json_schema", "pydantic.fields", "pydantic._internal._generate_schema")
print(json.dumps([m for m in MACHINERY if m in sys.modules]))
print(json.dumps([create_task.parameters, create_task.output_schema]))  # the first need
print(json.dumps([m for m in MACHINERY if m in sys.modules]))
'''


def test_decoration_reads_the_signature_and_the_first_need_builds_the_same_schema():
    # pydantic's model and JSON Schema machinery is ~0.5 s of a page's boot in Pyodide, which a
    # bare `import pydantic` never loads: decorating and registering tools must not import it.
    out = subprocess.run([sys.executable, "-c", LAZY_SCHEMA], capture_output=True, text=True, check=True).stdout
    before, schemas, after = (json.loads(line) for line in out.splitlines())
    assert before == []
    assert after == ["pydantic.main", "pydantic.json_schema", "pydantic.fields", "pydantic._internal._generate_schema"]
    # The same schema the tool gets here, where pydantic is loaded, and what it must be.
    namespace: dict = {}
    exec(LAZY_SCHEMA.split("agent =")[0], namespace)
    tool = namespace["create_task"]
    assert schemas == [tool.parameters, tool.output_schema]
    assert schemas[0] == {
        "type": "object", "additionalProperties": False, "required": ["title"],
        "properties": {"title": {"type": "string", "description": "a short title."},
                       "priority": {"enum": ["low", "high"], "type": "string", "default": "low"},
                       "done": {"type": "boolean", "default": False}},
    }
    assert schemas[1] == {"type": "object", "additionalProperties": {"type": "integer"}}


# -- the architecture page, drawn from LAYERS -------------------------------------------------

BEGIN, END = "<!-- floors: drawn by tests/unit/package/test_layering.py -->", "<!-- end of floors -->"


def summary(module: str) -> str:
    doc = ast.get_docstring(ast.parse(source(module).read_text())) or ""
    first = doc.split("\n\n")[0]
    return " ".join(first.split()).replace("|", "\\|")


def floors() -> str:
    """The floors from the top down: each folder, its `__init__` paragraph and its modules."""
    lines = [BEGIN, ""]
    for layer in reversed(LAYERS):
        path = "/".join(layer.split(".")) + "/"
        modules = [m for m in ALL_MODULES if layer_of(m) == layer and m != layer]
        lines += [f"### `{path}`", "", summary(layer), "", "| module | what it holds |", "| --- | --- |"]
        for module in modules:
            name = "/".join(module.split(".")[len(layer.split(".")):])
            name += "/" if source(module).name == "__init__.py" else ".py"
            lines.append(f"| `{name}` | {summary(module)} |")
        lines.append("")
    return "\n".join([*lines, END])


def drawn(text: str) -> str:
    return re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: floors(), text, flags=re.DOTALL)


def test_the_architecture_page_is_drawn_from_the_floors():
    text = ARCHITECTURE.read_text()
    assert BEGIN in text and END in text
    assert text == drawn(text), "run `.venv/bin/python -m tests.unit.package.test_layering` to draw docs/architecture.md again"


if __name__ == "__main__":
    ARCHITECTURE.write_text(drawn(ARCHITECTURE.read_text()))
