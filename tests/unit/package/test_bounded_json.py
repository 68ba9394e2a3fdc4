"""Every JSON text pyclient reads from the wire, a handler or the person at the page goes through
its one bounded parser (`pyclient._base._json.loads`: nesting and integer limits), in the core and in
the browser package alike: a plain `json.loads` of arguments nested 30,000 deep overflows the
page's stack ("RangeError: Maximum call stack size exceeded") before any `except` can run.

The walk below finds every parse of JSON in the package's source (`json.loads`, `json.load`,
json's decoder, and pydantic's parsers, which recurse too) and fails on any that is not on
`TRUSTED`: a short list of the texts pyclient wrote itself, or measured on the line before.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pyclient
from pyclient._base._json import MAX_DEPTH, JSONLimitError, loads, too_deep

PACKAGE = Path(pyclient.__file__).parent

# json's parsers, called on the module (`json.loads(...)`) or imported (`from json import loads`).
JSON_PARSERS = frozenset({"loads", "load", "JSONDecoder"})
# pydantic's and pydantic-core's, called by these names whatever they hang on.
PYDANTIC_PARSERS = frozenset({"from_json", "validate_json", "model_validate_json"})

# (file in the package, the function that parses): why its text is not untrusted or is measured.
TRUSTED: dict[tuple[str, str], str] = {
    # The bounded parser itself, once it measured the text.
    ("_base/_json.py", "loads"): "the bounded parser: json.loads after the depth scan",
    # pydantic-core's one-pass parse of an event, taken only for text too short for a huge
    # integer and with too few brackets to nest past MAX_DEPTH (checked on the line before).
    ("_wire/_events.py", "decode_event"): "the fast path, measured first",
    # The partial parse of streaming arguments, after `too_deep` measured them.
    ("_conversation/_parts.py", "parse_partial"): "measured first",
    # Texts pyclient wrote itself a moment before.
    ("_conversation/_records.py", "RunRequest.input"): "the request body pyclient wrote",
    ("_conversation/_snapshot.py", "Snapshot.of"): "the history's own dump_json",
    ("_conversation/_frozen.py", "Frozen.model"): "a message's JSON as pyclient's own dump_json wrote it",
    ("_driver/_answering.py", "ThreadAnswers._edited"): "json.dumps of the edit, on the line before",
    # A saved conversation, as the store's own `save()` wrote it (json.dumps of a snapshot of
    # what pyclient had accepted, within MAX_DEPTH but for the snapshot's own few levels).
    ("_base/_store.py", "MemoryStore.load"): "the store's own save",
    ("_base/_store.py", "FileStore.load"): "the store's own save",
    ("_base/_store.py", "FileStore._records"): "the store's own append",
    ("browser/_platform/_storage.py", "IndexedDbStore.load"): "the store's own save and appends",
    ("_driver/_journal.py", "Journal._record"): "the history's own changed_since_save",
    # CPython-side files and values of pyclient's own, never the wire.
    ("server/_agent.py", "agent_endpoint.endpoint"): "pydantic's own error list (ValidationError.json)",
    ("server/_arguments.py", "_thaw"): "_freeze's json.dumps",
    ("server/_runtime.py", "build"): "the build's stamp file and npm's lock file",
    ("server/_bytecode.py", "compile_for_pyodide"): "the compiled modules our own Node.js script wrote",
    ("server/_vendor.py", "vendor"): "vendor's own record file",
}


def json_parses(source: str) -> list[tuple[str, int]]:
    """The JSON parses in `source` that are not pyclient's bounded one: (enclosing function, line)."""
    tree = ast.parse(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module == "json" and not node.level
                for alias in node.names if alias.name in JSON_PARSERS}
    json_names = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                  for alias in node.names if alias.name == "json"}
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = [*scope, node.name]
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                on_json = isinstance(func.value, ast.Name) and func.value.id in json_names
                if (on_json and func.attr in JSON_PARSERS) or func.attr in PYDANTIC_PARSERS:
                    found.append((".".join(scope) or "<module>", node.lineno))
            elif isinstance(func, ast.Name) and (func.id in imported or func.id in PYDANTIC_PARSERS):
                found.append((".".join(scope) or "<module>", node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, scope)

    visit(tree, [])
    return found


def package_parses() -> dict[tuple[str, str], list[int]]:
    parses: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for scope, line in json_parses(path.read_text(encoding="utf-8")):
            parses.setdefault((path.relative_to(PACKAGE).as_posix(), scope), []).append(line)
    return parses


def test_every_json_parse_of_untrusted_text_goes_through_the_bounded_parser():
    untrusted = {f"pyclient/{file}:{lines} in {scope}" for (file, scope), lines in package_parses().items()
                 if (file, scope) not in TRUSTED}
    assert untrusted == set(), (
        "Parse untrusted JSON with pyclient._base._json.loads (it refuses nesting past MAX_DEPTH before "
        "parsing), or add the place to TRUSTED with the reason its text is pyclient's own.")


def test_the_trusted_list_names_only_places_that_still_parse():
    assert set(TRUSTED) <= set(package_parses())


@pytest.mark.parametrize("source", [
    "import json\ndef f(t):\n    return json.loads(t)\n",
    "import json as j\ndef f(t):\n    return j.load(t)\n",
    "from json import loads\ndef f(t):\n    return loads(t)\n",
    "from json import loads as parse\ndef f(t):\n    return parse(t)\n",
    "import json\ndef f(t):\n    return json.JSONDecoder().decode(t)\n",
    "from pydantic_core import from_json\ndef f(t):\n    return from_json(t)\n",
    "def f(model, t):\n    return model.model_validate_json(t)\n",
])
def test_the_walk_sees_each_way_of_parsing_json(source):
    assert json_parses(source) == [("f", 3 if source.count("\n") == 3 else 2)]


def test_the_walk_leaves_the_bounded_parser_alone():
    source = "from .._json import loads\nimport json\ndef f(t):\n    return loads(t), json.dumps(t)\n"
    assert json_parses(source) == []


def test_thirty_thousand_deep_arguments_are_refused_by_a_scan_not_parsed():
    deep = '{"text": ' + "[" * 30_000 + "]" * 30_000 + "}"
    assert len(deep) < 100_000 and too_deep(deep) and too_deep(deep[:40_000])  # complete or streaming
    with pytest.raises(JSONLimitError, match=f"nested deeper than {MAX_DEPTH} levels"):
        loads(deep)


def test_streaming_arguments_nested_past_the_limit_hold_nothing_yet():
    from pyclient._conversation._parts import parse_partial

    assert parse_partial('{"a": [[1], "b') == {"a": [[1], "b"]}
    assert parse_partial('{"a": ' + "[" * 100) == {}  # pydantic-core alone would build 100 levels


def test_the_scripted_agent_refuses_a_deep_request_body_with_a_422():
    import asyncio

    import httpx

    from pyclient.testing import ScriptedAgent
    from pyclient.testing._server import agent_app

    async def post(body: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=agent_app(ScriptedAgent(), "/agent"))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.post("/agent", content=body, headers={"content-type": "application/json"})

    response = asyncio.run(post('{"state": ' + "[" * 30_000 + "]" * 30_000 + "}"))
    assert response.status_code == 422 and "nested deeper than 256 levels" in response.text
