"""The dev server's AG-UI endpoint (devserver.agent), driven over real HTTP with httpx against uvicorn."""

from __future__ import annotations

import json
import math
import operator
import re
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devserver.arguments import build_arguments
from devserver.demo_model import DEMO_MODEL_NAME, build_agent, describe_tool_results
from devserver.matcher import plan_tool_calls, score_tool

try:  # a second opinion when installed; the subset validator below always runs
    import jsonschema as _jsonschema
except ImportError:  # pragma: no cover - depends on the environment
    _jsonschema = None

BACKGROUND_SCHEMA = {
    "type": "object",
    "properties": {"background": {"type": "string"}},
    "required": ["background"],
}
GREETING_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


# ------------------------------------------------------------------------------------------
# A JSON Schema validator for the subset the tests use (draft 2020-12 keywords)
# ------------------------------------------------------------------------------------------


# (keyword, violated when, shown as) for numbers; (kind, lower, upper keyword) for the sizes of values.
_NUMBER_BOUNDS = (
    ("minimum", operator.lt, "<"),
    ("maximum", operator.gt, ">"),
    ("exclusiveMinimum", operator.le, "<="),
    ("exclusiveMaximum", operator.ge, ">="),
)
_SIZE_BOUNDS = (
    (str, "minLength", "maxLength"),
    (dict, "minProperties", "maxProperties"),
    (list, "minItems", "maxItems"),
)


def schema_errors(instance: Any, schema: Any, root: Any = None, path: str = "$") -> list[str]:
    root = schema if root is None else root
    if schema is True or schema == {}:
        return []
    if schema is False:
        return [f"{path}: false schema"]
    errors: list[str] = []
    if "$ref" in schema:
        target: Any = root
        for token in schema["$ref"].lstrip("#").split("/"):
            if token:
                target = target[token]
        errors += schema_errors(instance, target, root, path)
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(_is_type(instance, t) for t in types):
            return [f"{path}: {instance!r} is not of type {types}"]
    if "const" in schema and instance != schema["const"]:
        errors.append(f"{path}: {instance!r} != const {schema['const']!r}")
    if "enum" in schema and instance not in schema["enum"]:
        errors.append(f"{path}: {instance!r} not in enum {schema['enum']!r}")
    if _is_type(instance, "number"):
        for keyword, violates, sign in _NUMBER_BOUNDS:
            if keyword in schema and violates(instance, schema[keyword]):
                errors.append(f"{path}: {instance} {sign} {keyword} {schema[keyword]}")
        if "multipleOf" in schema:
            q = instance / schema["multipleOf"]
            if abs(q - round(q)) > 1e-9:
                errors.append(f"{path}: {instance} not a multiple of {schema['multipleOf']}")
    for kind, low, high in _SIZE_BOUNDS:
        if isinstance(instance, kind):
            if len(instance) < schema.get(low, 0):
                errors.append(f"{path}: fewer than {low}")
            if len(instance) > schema.get(high, math.inf):
                errors.append(f"{path}: more than {high}")
    if isinstance(instance, str) and "pattern" in schema and not re.search(schema["pattern"], instance):
        errors.append(f"{path}: does not match {schema['pattern']!r}")
    if isinstance(instance, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in instance:
                errors.append(f"{path}: missing required {name!r}")
        for name, value in instance.items():
            if name in props:
                errors += schema_errors(value, props[name], root, f"{path}.{name}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected property {name!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += schema_errors(value, schema["additionalProperties"], root, f"{path}.{name}")
    if isinstance(instance, list):
        if schema.get("uniqueItems") and len({json.dumps(i, sort_keys=True) for i in instance}) != len(instance):
            errors.append(f"{path}: items not unique")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(instance):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if isinstance(sub, dict):
                errors += schema_errors(item, sub, root, f"{path}[{i}]")
    for sub in schema.get("allOf", []):
        errors += schema_errors(instance, sub, root, path)
    if "anyOf" in schema and not any(not schema_errors(instance, s, root, path) for s in schema["anyOf"]):
        errors.append(f"{path}: matches no anyOf branch")
    if "oneOf" in schema and sum(not schema_errors(instance, s, root, path) for s in schema["oneOf"]) != 1:
        errors.append(f"{path}: does not match exactly one oneOf branch")
    return errors


def _is_type(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    raise AssertionError(kind)


def assert_valid(instance: Any, schema: dict[str, Any]) -> None:
    errors = schema_errors(instance, schema)
    assert not errors, (instance, schema, errors)
    if _jsonschema is not None:
        _jsonschema.validate(instance, schema)


# ------------------------------------------------------------------------------------------
# One tool, then its result
# ------------------------------------------------------------------------------------------


def test_single_tool_call_streams_args_in_chunks(agent_url, agui):
    tool = agui.tool("change_background", "Change the page background. Accepts any CSS value.", BACKGROUND_SCHEMA)
    result = agui.run(agent_url, agui.run_input([agui.user("make it blue")], [tool]))
    assert result.status == 200

    types = result.types
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert result.events[0].protocol_version == "1.0"
    # pydantic-ai opens and closes an empty text message to parent the call.
    assert types[1:3] == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_END"]
    assert "TEXT_MESSAGE_CONTENT" not in types
    tool_types = [t for t in types if t.startswith("TOOL_CALL")]
    assert tool_types[0] == "TOOL_CALL_START" and tool_types[-1] == "TOOL_CALL_END"
    assert tool_types.count("TOOL_CALL_START") == 1 and tool_types.count("TOOL_CALL_END") == 1

    calls = result.tool_calls()
    [(call_id, call)] = calls.items()
    assert call["name"] == "change_background"
    assert call["arg_chunks"] >= 2
    assert call["parent_message_id"] == result.events[1].message_id
    args = json.loads(call["args"])
    assert_valid(args, BACKGROUND_SCHEMA)
    assert args == {"background": "blue"}

    finished = result.events[-1]
    assert finished.outcome is not None
    assert finished.outcome.pending_tool_call_ids == [call_id]


def test_follow_up_quotes_the_tool_result(agent_url, agui):
    tool = agui.tool("change_background", "Change the page background.", BACKGROUND_SCHEMA)
    first_input = agui.run_input([agui.user("make it blue")], [tool])
    first = agui.run(agent_url, first_input)
    follow = agui.follow_up(first_input, first, {"change_background": "background is now blue"})
    second = agui.run(agent_url, follow)
    assert second.status == 200
    assert second.types[0] == "RUN_STARTED" and second.types[-1] == "RUN_FINISHED"
    assert not second.of("TOOL_CALL_START")
    assert len(second.of("TEXT_MESSAGE_CONTENT")) >= 2
    assert 'change_background returned: "background is now blue"' in second.text()
    outcome = second.events[-1].outcome
    assert outcome is None or not outcome.pending_tool_call_ids


def test_failed_tool_result_is_quoted(agent_url, agui):
    tool = agui.tool("change_background", "Change the page background.", BACKGROUND_SCHEMA)
    first_input = agui.run_input([agui.user("make it blue")], [tool])
    first = agui.run(agent_url, first_input)
    follow = agui.follow_up(first_input, first, {}, errors={"change_background": "document.body is null"})
    second = agui.run(agent_url, follow)
    assert second.status == 200
    assert 'change_background failed: "document.body is null"' in second.text()


def test_json_result_is_quoted_verbatim(agent_url, agui):
    tool = agui.tool("change_background", "Change the page background.", BACKGROUND_SCHEMA)
    first_input = agui.run_input([agui.user("make it blue")], [tool])
    first = agui.run(agent_url, first_input)
    raw = '{"ok": true,  "background": "blue"}'
    second = agui.run(agent_url, agui.follow_up(first_input, first, {"change_background": raw}))
    assert f'change_background returned: "{raw}"' in second.text()


# ------------------------------------------------------------------------------------------
# Text answers
# ------------------------------------------------------------------------------------------


def test_without_tools_answers_in_text(agent_url, agui):
    result = agui.run(agent_url, agui.run_input([agui.user("hello there")]))
    assert result.status == 200
    assert result.types[0] == "RUN_STARTED" and result.types[-1] == "RUN_FINISHED"
    assert not result.of("TOOL_CALL_START")
    assert len(result.of("TEXT_MESSAGE_CONTENT")) >= 2
    assert "hello there" in result.text()


def test_unmatched_message_lists_the_tools(agent_url, agui):
    tool = agui.tool("change_background", "Change the page background.", BACKGROUND_SCHEMA)
    result = agui.run(agent_url, agui.run_input([agui.user("what is the weather in Oslo?")], [tool]))
    assert not result.of("TOOL_CALL_START")
    assert "I have no tool for that" in result.text()
    assert "change_background" in result.text()


# ------------------------------------------------------------------------------------------
# Parallel calls
# ------------------------------------------------------------------------------------------


def _two_tools(agui):
    return [
        agui.tool("change_background", "Change the page background.", BACKGROUND_SCHEMA),
        agui.tool("show_greeting", "Show a greeting to someone.", GREETING_SCHEMA),
    ]


def test_two_tools_in_one_run(agent_url, agui):
    result = agui.run(agent_url, agui.run_input([agui.user("make it blue and show a greeting for Ada")], _two_tools(agui)))
    assert result.status == 200
    calls = result.tool_calls()
    assert [c["name"] for c in calls.values()] == ["change_background", "show_greeting"]
    by_name = {c["name"]: json.loads(c["args"]) for c in calls.values()}
    assert by_name == {"change_background": {"background": "blue"}, "show_greeting": {"name": "Ada"}}
    assert_valid(by_name["change_background"], BACKGROUND_SCHEMA)
    assert_valid(by_name["show_greeting"], GREETING_SCHEMA)
    assert len({c["parent_message_id"] for c in calls.values()}) == 1
    assert result.events[-1].outcome.pending_tool_call_ids == list(calls)
    # Sequential streaming: each call's START, ARGS…, END before the next call starts.
    tool_events = [(t, e.tool_call_id) for t, e in zip(result.types, result.events) if t.startswith("TOOL_CALL")]
    first, second = list(calls)
    firsts = [i for i, (_, cid) in enumerate(tool_events) if cid == first]
    seconds = [i for i, (_, cid) in enumerate(tool_events) if cid == second]
    assert max(firsts) < min(seconds)

    # Both results come back in one follow-up; the answer quotes each.
    first_input = agui.run_input([agui.user("make it blue and show a greeting for Ada")], _two_tools(agui))
    follow = agui.follow_up(
        first_input, result, {"change_background": "background is now blue", "show_greeting": "greeted Ada"}
    )
    text = agui.run(agent_url, follow).text()
    assert 'change_background returned: "background is now blue"' in text
    assert 'show_greeting returned: "greeted Ada"' in text


def test_interleaved_parallel_calls_assemble_per_id(agent_url, agui):
    message = "interleaved: make it blue and show a greeting for Ada"
    result = agui.run(agent_url, agui.run_input([agui.user(message)], _two_tools(agui)))
    calls = result.tool_calls()
    assert {c["name"]: json.loads(c["args"]) for c in calls.values()} == {
        "change_background": {"background": "blue"},
        "show_greeting": {"name": "Ada"},
    }
    # The pydantic-ai quirk: the first call's END comes before its last ARGS chunk.
    first = next(iter(calls))
    tool_events = [(t, e.tool_call_id) for t, e in zip(result.types, result.events) if t.startswith("TOOL_CALL")]
    end_at = tool_events.index(("TOOL_CALL_END", first))
    assert any(t == "TOOL_CALL_ARGS" and cid == first for t, cid in tool_events[end_at + 1:])


# ------------------------------------------------------------------------------------------
# Arguments valid for richer schemas
# ------------------------------------------------------------------------------------------

WIDGET_SCHEMA = {
    "type": "object",
    "properties": {
        "mode": {"type": "string", "enum": ["light", "dark", "sepia"]},
        "size": {"type": "integer", "minimum": 1, "maximum": 100},
        "visible": {"type": "boolean"},
        "position": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number", "exclusiveMinimum": 0}, "z": {"type": "number"}},
            "required": ["x", "y"],
            "additionalProperties": False,
        },
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        "level": {"$ref": "#/$defs/Level"},
        "optional_note": {"type": "string"},
    },
    "required": ["mode", "size", "visible", "position", "tags", "level"],
    "$defs": {"Level": {"type": "string", "enum": ["low", "high"]}},
}


def test_rich_schema_gets_valid_args(agent_url, agui):
    tool = agui.tool("configure_widget", "Configure the widget.", WIDGET_SCHEMA)
    result = agui.run(agent_url, agui.run_input([agui.user("configure the widget: dark, size 500, level high")], [tool]))
    [call] = result.tool_calls().values()
    args = json.loads(call["args"])
    assert_valid(args, WIDGET_SCHEMA)
    assert args["mode"] == "dark"
    assert args["size"] == 100  # 500 clamped to maximum
    assert args["visible"] is True
    assert args["level"] == "high"
    assert "optional_note" not in args


_IDENT = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True)
_WORDS = st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), min_size=1, max_size=4, unique=True)


@st.composite
def _integer_schema(draw):
    schema: dict[str, Any] = {"type": "integer"}
    lo = draw(st.none() | st.integers(-50, 50))
    width = draw(st.integers(0, 60))
    multiple = draw(st.none() | st.sampled_from([2, 3, 5]))
    if lo is not None:
        if draw(st.booleans()):
            schema["minimum"] = lo
        else:
            schema["exclusiveMinimum"] = lo - 1
        if draw(st.booleans()):
            schema["maximum"] = lo + width + (2 * multiple if multiple else 0)
    if multiple:
        schema["multipleOf"] = multiple
    return schema


@st.composite
def _number_schema(draw):
    schema: dict[str, Any] = {"type": "number"}
    lo = draw(st.none() | st.integers(-50, 50))
    if lo is not None:
        key = draw(st.sampled_from(["minimum", "exclusiveMinimum"]))
        schema[key] = lo
        if draw(st.booleans()):
            schema[draw(st.sampled_from(["maximum", "exclusiveMaximum"]))] = lo + draw(st.integers(1, 40))
    return schema


@st.composite
def _string_schema(draw):
    schema: dict[str, Any] = {"type": "string"}
    if draw(st.booleans()):
        schema["minLength"] = draw(st.integers(0, 12))
    if draw(st.booleans()):
        schema["maxLength"] = schema.get("minLength", 0) + draw(st.integers(0, 10))
    return schema


_LEAVES = st.one_of(
    _string_schema(),
    _integer_schema(),
    _number_schema(),
    st.just({"type": "boolean"}),
    _WORDS.map(lambda ws: {"type": "string", "enum": ws}),
    st.just({"type": "null"}),
)


def _containers(children):
    objects = st.dictionaries(_IDENT, children, max_size=4).flatmap(
        lambda props: st.builds(
            lambda required, closed: {
                "type": "object",
                "properties": props,
                "required": required,
                **({"additionalProperties": False} if closed else {}),
            },
            st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]),
            st.booleans(),
        )
    )
    arrays = st.builds(lambda items, n: {"type": "array", "items": items, "minItems": n}, children, st.integers(0, 3))
    nullable = children.map(lambda s: {"anyOf": [s, {"type": "null"}]})
    return st.one_of(objects, arrays, nullable)


_SCHEMAS = st.recursive(_LEAVES, _containers, max_leaves=10)
_TOP_SCHEMAS = st.dictionaries(_IDENT, _SCHEMAS, max_size=5).flatmap(
    lambda props: st.lists(st.sampled_from(sorted(props)), unique=True).map(
        lambda required: {"type": "object", "properties": props, "required": required}
    )
    if props
    else st.just({"type": "object", "properties": {}})
)
_MESSAGES = st.sampled_from(
    [
        "configure the widget",
        "configure the widget to 7 please",
        "configure it in dark mode, 1000 times",
        "configure the widget and turn it off",
        "configure -3 and 2.5 and 42",
        'configure the widget with "quoted text"',
    ]
)


@settings(max_examples=300, deadline=None)
@given(schema=_TOP_SCHEMAS, message=_MESSAGES)
def test_build_arguments_is_valid_for_generated_schemas(schema, message):
    args = build_arguments(schema, message)
    assert_valid(args, schema)
    assert set(args) == set(schema.get("required", []))  # optional properties are omitted


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schema=_TOP_SCHEMAS, message=_MESSAGES)
def test_server_args_are_valid_for_generated_schemas(agent_url, agui, schema, message):
    tool = agui.tool("configure_widget", "Configure the widget.", schema)
    result = agui.run(agent_url, agui.run_input([agui.user(message)], [tool]))
    assert result.status == 200
    [call] = result.tool_calls().values()
    assert_valid(json.loads(call["args"]), schema)


# ------------------------------------------------------------------------------------------
# Bad requests
# ------------------------------------------------------------------------------------------

JSON = {"content-type": "application/json"}


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"",
        b"[]",
        b'{"foo": 1}',
        b'{"threadId": "t", "runId": "r", "messages": "hello"}',
        b'{"threadId": "t", "runId": "r", "messages": [{"role": "user", "id": "m", "content": 5}]}',
        b'{"threadId": "t", "runId": "r", "messages": [], "tools": [{"description": "no name"}]}',
        "\u00e9".encode("latin-1"),
    ],
    ids=["invalid-json", "empty", "array", "wrong-keys", "messages-not-list", "bad-content", "tool-without-name", "not-utf8"],
)
def test_malformed_body_is_4xx(agent_url, agui, content):
    response = agui.post(agent_url, content, JSON)
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    assert response.status_code == 422


@pytest.mark.filterwarnings("ignore:AG-UI content the installed ag-ui-protocol:UserWarning")
def test_unknown_role_is_skipped_and_empty_history_is_run_error(agent_url, agui):
    # pydantic-ai skips message roles newer than its ag-ui-protocol (forward compatibility);
    # a run left with no message answers 200 with RUN_ERROR, not an HTTP error.
    body = {"threadId": "t", "runId": "r", "messages": [{"role": "martian", "id": "m"}]}
    result = agui.run(agent_url, body)
    assert result.status == 200
    assert result.types == ["RUN_STARTED", "RUN_ERROR"]


@pytest.mark.parametrize("headers", [{}, {"content-type": "text/plain"}], ids=["none", "text-plain"])
def test_wrong_content_type_is_415(agent_url, agui, headers):
    body = json.dumps(agui.dump(agui.run_input([agui.user("hi")]))).encode()
    response = agui.post(agent_url, body, headers)
    assert response.status_code == 415


def test_unknown_tool_call_id_is_422_not_500(agent_url, agui):
    from ag_ui.core import ToolMessage

    run_input = agui.run_input([agui.user("hi"), ToolMessage(id="t1", tool_call_id="never-issued", content="x")])
    response = agui.post(agent_url, json.dumps(agui.dump(run_input)).encode(), JSON)
    assert response.status_code == 422
    assert "never-issued" in response.json()["detail"]


def test_body_over_limit_is_413(agent_server, agui):
    url = agent_server.url + "/agent-small"
    big = agui.run_input([agui.user("x" * (agui.SMALL_LIMIT + 10))])
    response = agui.post(url, json.dumps(agui.dump(big)).encode(), JSON)
    assert response.status_code == 413
    assert str(agui.SMALL_LIMIT) in response.json()["detail"]
    # Within the limit the same route runs normally.
    assert agui.run(url, agui.run_input([agui.user("hi")])).status == 200


def test_chunked_body_over_limit_is_413(agent_server, agui):
    url = agent_server.url + "/agent-small"
    payload = json.dumps(agui.dump(agui.run_input([agui.user("y" * (agui.SMALL_LIMIT * 2))]))).encode()

    def chunks():  # no Content-Length: the server must count the bytes it receives
        for i in range(0, len(payload), 1000):
            yield payload[i: i + 1000]

    response = agui.post(url, chunks(), JSON)
    assert response.status_code == 413


def test_default_limit_is_one_megabyte(agent_url, agui):
    big = agui.run_input([agui.user("z" * 1_000_100)])
    response = agui.post(agent_url, json.dumps(agui.dump(big)).encode(), JSON)
    assert response.status_code == 413
    assert "1000000" in response.json()["detail"]


# ------------------------------------------------------------------------------------------
# "slowly"
# ------------------------------------------------------------------------------------------


def test_slowly_spreads_text_deltas_over_time(agent_url, agui):
    started = time.monotonic()
    result = agui.run(agent_url, agui.run_input([agui.user("tell me a story slowly")]))
    elapsed = time.monotonic() - started
    deltas = result.of("TEXT_MESSAGE_CONTENT")
    times = [t for t, kind in zip(result.arrivals, result.types) if kind == "TEXT_MESSAGE_CONTENT"]
    assert len(deltas) >= 10
    assert times[-1] - times[0] >= 1.0
    assert elapsed >= 2.0
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert sum(g >= 0.1 for g in gaps) >= 8  # many pauses, not one burst at the end
    assert "tell me a story slowly" in result.text()


def test_closing_a_slow_stream_mid_run_leaves_the_server_healthy(agent_url, agui):
    import httpx

    body = json.dumps(agui.dump(agui.run_input([agui.user("count to ten slowly")]))).encode()
    with httpx.Client(timeout=10) as client:
        with client.stream("POST", agent_url, content=body, headers=JSON) as response:
            assert response.status_code == 200
            seen = []
            for line in response.iter_lines():
                if line.startswith("data:"):
                    seen.append(json.loads(line[5:])["type"])
                if len(seen) >= 4:  # RUN_STARTED, TEXT_MESSAGE_START and a couple of deltas
                    break
    assert "RUN_FINISHED" not in seen   # left mid-run
    assert agui.run(agent_url, agui.run_input([agui.user("hi")])).status == 200


def test_slowly_also_paces_tool_args(agent_url, agui):
    tool = agui.tool("change_background", "Change the page background.", BACKGROUND_SCHEMA)
    result = agui.run(agent_url, agui.run_input([agui.user("slowly make it blue")], [tool]))
    times = [t for t, kind in zip(result.arrivals, result.types) if kind == "TOOL_CALL_ARGS"]
    assert len(times) >= 2 and times[-1] - times[0] >= 0.3
    [call] = result.tool_calls().values()
    assert json.loads(call["args"]) == {"background": "blue"}


# ------------------------------------------------------------------------------------------
# The matcher and the agent, without HTTP
# ------------------------------------------------------------------------------------------


def _spec(name, description, schema):
    return {"name": name, "description": description, "parameters": schema}


def test_colour_words_pick_one_of_two_colour_tools():
    tools = [
        _spec("change_background", "Change the page background.", BACKGROUND_SCHEMA),
        _spec("setTextColor", "Set the text colour.", {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}),
    ]
    calls = plan_tool_calls("make it blue", tools)
    assert [(c.tool_name, c.args) for c in calls] == [("change_background", {"background": "blue"})]
    calls = plan_tool_calls("set the text color to #ff0000", tools)
    assert [(c.tool_name, c.args) for c in calls] == [("setTextColor", {"color": "#ff0000"})]


def test_generic_verbs_alone_do_not_match():
    tools = [_spec("change_background", "Change the page background.", BACKGROUND_SCHEMA)]
    assert plan_tool_calls("change the title", tools) == []
    assert score_tool("change the title", tools[0]) < 2


def test_exact_tool_name_matches():
    tools = [_spec("frobnicate", "Does things.", {"type": "object", "properties": {}})]
    assert [c.tool_name for c in plan_tool_calls("please call frobnicate", tools)] == ["frobnicate"]


def test_string_args_take_the_rest_of_the_message():
    schema = {"type": "object", "properties": {"key": {"type": "string"}, "text": {"type": "string"}}, "required": ["key", "text"]}
    [call] = plan_tool_calls("save a note called groceries saying buy milk", [_spec("save_note", "Save a note.", schema)])
    assert call.args == {"key": "groceries", "text": "buy milk"}


def test_describe_tool_results_quotes_verbatim():
    assert describe_tool_results([("a", 'x "y"', False), ("b", "boom", True)]) == 'a returned: "x "y""\nb failed: "boom"'


def test_build_agent_models():
    assert build_agent().model.model_name == DEMO_MODEL_NAME
    assert build_agent("test").model is not None
