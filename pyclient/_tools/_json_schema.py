"""Checking a JSON value against a JSON Schema a server sent (an interrupt's `responseSchema`).

An interrupt's answer is checked before anything is sent, so the person can fix it instead of
the agent failing the run. Hand-written on purpose: `jsonschema` needs `rpds-py`, a compiled
package the offline Pyodide runtime does not have, and `fastjsonschema` stops at the first
error and compiles code with `exec`; this reports every wrong field in one pass, for the
keywords answer schemas use (listed in docs/human-in-the-loop.md). Other keywords are not
checked: the server checks the answer again, and what may be right is never refused. The work
is bounded: a `$ref` is not applied again to the value it is being applied to, and a check
past `MAX_SCHEMA_STEPS` schemas stops with a `SchemaLimitError` (a schema whose `$ref`s double
at every level would otherwise freeze the tab for hours).

```python
from pyclient._tools._json_schema import schema_errors

schema = {"type": "object", "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
          "required": ["approved"]}
print(schema_errors(schema, {"approved": True}))       # []
print(schema_errors(schema, {"approved": "yes", "reason": 3}))
# ['approved: must be a boolean, got a string', 'reason: must be a string, got an integer']
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._base._limits import MAX_SCHEMA_STEPS

__all__ = ["SchemaLimitError", "schema_errors"]

_TYPE_WORDS = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "a boolean", "null": "null"}

_MAX_ERRORS = 20  # enough to fix a form; a huge wrong payload does not make a huge message
_MAX_NESTING = 32  # schemas within schemas followed for one value (refs, allOf, items...)


class SchemaLimitError(ValueError):
    """Checking a value against a schema took more than `MAX_SCHEMA_STEPS` steps: the schema
    multiplies its own work (`allOf`/`anyOf` of `$ref`s that refer to each other), as no
    answer schema needs."""


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):  # before int: bool is an int in Python, never in JSON
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _matches_type(value: Any, wanted: str) -> bool:
    actual = _type_of(value)
    return actual == wanted or (wanted == "number" and actual == "integer")


def schema_errors(schema: Any, value: Any) -> list[str]:
    """Every way `value` breaks `schema`, each as "<field path>: <what is wrong>"; [] when it fits.

    A schema that is not an object (absent, `true`) accepts anything.

    Raises:
        SchemaLimitError: the check took more than `MAX_SCHEMA_STEPS` steps (a schema whose
            `$ref`s and `allOf`/`anyOf` multiply each other); nothing is known of the value.
    """
    errors: list[str] = []
    _Walk(schema if isinstance(schema, Mapping) else {}).check(schema, value, "", errors, 0)
    return errors[:_MAX_ERRORS]


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    if not ref.startswith("#/"):
        return None  # a remote reference: not checked here
    node: Any = root
    for key in ref[2:].split("/"):
        node = node.get(key.replace("~1", "/").replace("~0", "~")) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else None


class _Walk:
    """One check of a value: the root its `$ref`s resolve in, the steps left, the `$ref`s open.

    Depth alone does not bound the work: `{"allOf": [{"$ref": "#"}, {"$ref": "#"}]}` is two
    levels deep and doubles at each of them. So every schema visited costs a step, and a `$ref`
    already being applied to this very value is not applied again inside itself (it would
    find the same errors, or never end).
    """

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.steps = 0
        self.open: set[tuple[str, int]] = set()

    def check(self, schema: Any, value: Any, path: str, errors: list[str], depth: int) -> None:
        if not isinstance(schema, Mapping) or depth > _MAX_NESTING or len(errors) >= _MAX_ERRORS:
            return
        self.steps += 1
        if self.steps > MAX_SCHEMA_STEPS:
            raise SchemaLimitError(
                f"checking the answer against this schema takes more than {MAX_SCHEMA_STEPS:,} steps: its "
                "`$ref`s and `allOf`/`anyOf`/`oneOf` multiply each other, as no answer schema needs")
        ref = schema.get("$ref")
        key = (ref, id(value)) if isinstance(ref, str) else None
        if key is not None and key in self.open:
            return  # this $ref is being applied to this value already, further out
        resolved = _resolve(schema, self.root)
        if resolved is None:
            return
        if key is None:
            self._check(resolved, value, path, errors, depth)
            return
        self.open.add(key)
        try:
            self._check(resolved, value, path, errors, depth)
        finally:
            self.open.discard(key)

    def _check(self, schema: Mapping[str, Any], value: Any, path: str, errors: list[str], depth: int) -> None:
        where = path or "the answer"
        wanted = schema.get("type")
        types = [wanted] if isinstance(wanted, str) else [t for t in wanted if isinstance(t, str)] \
            if isinstance(wanted, list) else []
        if types and not any(_matches_type(value, t) for t in types):
            words = " or ".join(_TYPE_WORDS.get(t, t) for t in types)
            errors.append(f"{where}: must be {words}, got {_TYPE_WORDS.get(_type_of(value), _type_of(value))}")
            return
        if "const" in schema and value != schema["const"]:
            errors.append(f"{where}: must be {schema['const']!r}")
        enum = schema.get("enum")
        if isinstance(enum, list) and value not in enum:
            errors.append(f"{where}: must be one of {', '.join(repr(v) for v in enum[:10])}")
        for keyword in ("anyOf", "oneOf"):
            options = schema.get(keyword)
            if isinstance(options, list) and options:
                if not any(not self._errors_of(option, value, depth) for option in options):
                    errors.append(f"{where}: matches none of the allowed shapes")
        for option in schema.get("allOf") or ():
            self.check(option, value, path, errors, depth + 1)
        if isinstance(value, str):
            _bounds(where, len(value), schema.get("minLength"), schema.get("maxLength"), "characters", errors)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            _range(where, value, schema, errors)
        elif isinstance(value, (list, tuple)):
            _bounds(where, len(value), schema.get("minItems"), schema.get("maxItems"), "items", errors)
            items = schema.get("items")
            if isinstance(items, Mapping):
                for index, item in enumerate(value):
                    self.check(items, item, f"{path}[{index}]" if path else f"[{index}]", errors, depth + 1)
        elif isinstance(value, Mapping):
            self._check_object(schema, value, path, errors, depth)

    def _errors_of(self, schema: Any, value: Any, depth: int) -> list[str]:
        found: list[str] = []
        self.check(schema, value, "", found, depth + 1)
        return found

    def _check_object(self, schema: Mapping[str, Any], value: Mapping[str, Any], path: str, errors: list[str],
                      depth: int) -> None:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        for name in schema.get("required") or ():
            if isinstance(name, str) and name not in value:
                errors.append(f"{path + '.' if path else ''}{name}: is required")
        for name, item in value.items():
            field = f"{path}.{name}" if path else str(name)
            if name in properties:
                self.check(properties[name], item, field, errors, depth + 1)
            else:
                extra = schema.get("additionalProperties", True)
                if extra is False:
                    errors.append(f"{field}: is not a field of this answer")
                elif isinstance(extra, Mapping):
                    self.check(extra, item, field, errors, depth + 1)


def _bounds(where: str, size: int, low: Any, high: Any, unit: str, errors: list[str]) -> None:
    if isinstance(low, int) and size < low:
        errors.append(f"{where}: must have at least {low} {unit}")
    if isinstance(high, int) and size > high:
        errors.append(f"{where}: must have at most {high} {unit}")


def _range(where: str, value: float, schema: Mapping[str, Any], errors: list[str]) -> None:
    checks = (("minimum", "at least", 1, True), ("maximum", "at most", -1, True),
              ("exclusiveMinimum", "more than", 1, False), ("exclusiveMaximum", "less than", -1, False))
    for keyword, words, sign, inclusive in checks:
        bound: Any = schema.get(keyword)
        if _number(bound):
            gap = (value - bound) * sign
            if gap < 0 or (gap == 0 and not inclusive):
                errors.append(f"{where}: must be {words} {bound}")


def _number(bound: Any) -> bool:
    return isinstance(bound, (int, float)) and not isinstance(bound, bool)
