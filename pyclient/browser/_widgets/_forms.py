"""The forms of the chat, as data: a tool's JSON Schema, or an interrupt's, mapped to simple fields.

`form_fields(schema, arguments)` maps each top-level parameter of a tool to one `FormField`: a
string to a text input (a textarea when long), a number to a number input, a boolean to a
checkbox, an enum of plain values to a select, anything else to a JSON textarea (`Optional[X]`
is X, an empty field then null; local `$ref`s are followed). `read_form(fields, values)` turns
what the user entered back into arguments, or raises `FormError` naming the field; the thread
validates them again. A server tool's call has no client schema: `values_schema(arguments)`
types each argument by its JSON value. An interrupt's answer is `answer_form(response_schema)`:
the fields of an object schema, else one field for the whole answer (with no schema, a textarea
read as JSON when it holds an object or an array). Pure Python: `_inputs` draws them.

```python
from pyclient.browser._widgets._forms import answer_form, form_fields, read_form

schema = {"type": "object", "properties": {"to": {"type": "string"}, "count": {"type": "integer"},
          "urgent": {"type": "boolean"}, "tone": {"enum": ["calm", "loud"]}}, "required": ["to"]}
fields = form_fields(schema, {"to": "alice", "count": 2, "tone": "calm"})
print([(field.name, field.kind) for field in fields])
# prints "[('to', 'text'), ('count', 'integer'), ('urgent', 'checkbox'), ('tone', 'select')]"
print(read_form(fields, {"to": "bob", "count": "3", "urgent": True, "tone": "1"}))
# prints "{'to': 'bob', 'count': 3, 'urgent': True, 'tone': 'loud'}"
print(answer_form(None).read({"": "blue"}), answer_form(None).read({"": '{"colour": "blue"}'}))
# prints "blue {'colour': 'blue'}"
```
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..._base._json import loads

__all__ = ["ALL_ARGUMENTS", "AnswerForm", "FieldKind", "FormError", "FormField", "answer_form", "form_fields",
           "initial_text", "read_form", "values_schema"]

FieldKind = Literal["text", "textarea", "number", "integer", "checkbox", "select", "json", "answer"]
"""The input of a field; `"answer"` is a textarea read as JSON when it holds an object or an
array, else as text (an interrupt's answer with no schema)."""

ALL_ARGUMENTS = ""
"""The name of the single JSON field that holds every argument (a schema without properties)."""

# A string value longer than this, or with a line break, is edited in a textarea.
_SHORT_TEXT = 60


class FormError(ValueError):
    """What the user entered cannot be read as the field's type; the message names the field."""


@dataclass(frozen=True)
class FormField:
    """One input of the edit form.

    Attributes:
        name: the parameter (`ALL_ARGUMENTS`, "", for the one JSON field of all arguments).
        label: what the form shows next to it (the schema's `title`, else the name).
        kind: the input to show.
        value: the current value (the model's argument, else the schema's default, else None).
        required: the schema lists it in `required`.
        nullable: `Optional[...]`: an empty input means null.
        description: the schema's `description`, shown as a hint.
        options: for a select, the values to choose from (the input's value is the index).
    """

    name: str
    label: str
    kind: FieldKind
    value: Any = None
    required: bool = False
    nullable: bool = False
    description: str | None = None
    options: tuple[Any, ...] = ()


def _resolve(schema: Any, root: Mapping[str, Any]) -> Any:
    """Follow a local `$ref` (`#/$defs/Name`), once; anything else is returned as it is."""
    if isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        ref: str = schema["$ref"]
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                defs = root.get(prefix[2:-1])
                if isinstance(defs, Mapping) and isinstance(defs.get(ref[len(prefix):]), Mapping):
                    return {**defs[ref[len(prefix):]], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _field(name: str, schema: Any, root: Mapping[str, Any], value: Any, required: bool) -> FormField:
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return FormField(name, name, "json", value, required)
    label = str(schema.get("title") or name)
    description = schema.get("description") if isinstance(schema.get("description"), str) else None
    nullable = False
    # Optional[X]: anyOf [X, {"type": "null"}]
    options = schema.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        inner = _resolve(next(o for o in options if o != {"type": "null"}), root)
        if isinstance(inner, Mapping):
            schema = {**inner, **{k: v for k, v in schema.items() if k not in ("anyOf",)}}
            nullable = True
    kind_of = schema.get("type")
    if isinstance(kind_of, list):  # ["string", "null"]
        rest = [k for k in kind_of if k != "null"]
        nullable = nullable or len(rest) < len(kind_of)
        kind_of = rest[0] if len(rest) == 1 else None
    if value is None and "default" in schema:
        value = schema["default"]

    def make(kind: FieldKind, options: tuple[Any, ...] = ()) -> FormField:
        return FormField(name, label, kind, value, required=required, nullable=nullable,
                         description=description, options=options)

    choices = schema.get("enum")
    if "const" in schema and choices is None:
        choices = [schema["const"]]
    if isinstance(choices, list) and choices and all(_plain(choice) for choice in choices):
        return make("select", tuple(choices))
    if kind_of == "string":
        long = isinstance(value, str) and (len(value) > _SHORT_TEXT or "\n" in value)
        return make("textarea" if long else "text")
    if kind_of == "integer":
        return make("integer")
    if kind_of == "number":
        return make("number")
    if kind_of == "boolean":
        return make("checkbox")
    return make("json")


def form_fields(schema: Any, arguments: Mapping[str, Any]) -> list[FormField]:
    """The fields of the edit form for a tool's parameter schema, filled with `arguments`.

    Args:
        schema: the tool's parameters as JSON Schema (`ClientTool.parameters`).
        arguments: the call's arguments (parsed), the fields' values.

    Returns:
        One field per property in schema order, then one JSON field per argument the schema
        does not name; or a single JSON field (`ALL_ARGUMENTS`) when the schema has no
        properties.
    """
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or not properties:
        return [FormField(ALL_ARGUMENTS, "Arguments (JSON)", "json", dict(arguments), required=True)]
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    fields = [_field(str(name), sub, schema, arguments.get(name), name in required)
              for name, sub in properties.items()]
    fields += [FormField(str(name), str(name), "json", value) for name, value in arguments.items()
               if name not in properties]
    return fields


def initial_text(field: FormField) -> str:
    """What the field's input shows at first (a select: the index of its value; a checkbox: "")."""
    value = field.value
    if field.kind == "select":
        for index, option in enumerate(field.options):
            if option == value and type(option) is type(value):
                return str(index)
        return "" if value is None else "0"
    if field.kind == "checkbox" or value is None:
        return ""
    if field.kind == "json":
        return json.dumps(value, ensure_ascii=False, indent=2)
    if field.kind in ("integer", "number") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    return str(value) if not isinstance(value, (dict, list)) else json.dumps(value, ensure_ascii=False)


def _read(field: FormField, raw: Any) -> tuple[bool, Any]:
    """(present, value) for one field; absent means "leave it out" (the default applies)."""
    if field.kind == "checkbox":
        return True, bool(raw)
    text = "" if raw is None else str(raw)
    if field.kind in ("text", "textarea"):
        if not text and field.nullable:
            return True, None
        return True, text
    if not text.strip():
        if field.nullable:
            return True, None
        if field.required:
            raise FormError(f"{field.label}: enter a value.")
        return False, None
    if field.kind == "select":
        try:
            return True, field.options[int(text)]
        except (ValueError, IndexError):
            raise FormError(f"{field.label}: choose one of the options.") from None
    if field.kind == "integer":
        try:
            return True, int(text.strip())
        except ValueError:
            raise FormError(f"{field.label}: {text.strip()!r} is not a whole number.") from None
    if field.kind == "number":
        try:
            number = float(text.strip())
        except ValueError:
            raise FormError(f"{field.label}: {text.strip()!r} is not a number.") from None
        if not math.isfinite(number):
            raise FormError(f"{field.label}: {text.strip()!r} is not a finite number.")
        return True, int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    try:
        return True, loads(text)
    except ValueError as exc:
        raise FormError(f"{field.label}: not valid JSON ({exc}).") from None


def read_form(fields: list[FormField], values: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments the user entered: `values` maps each field's name to its input's value
    (a str; a bool for a checkbox; for a select, the index as text).

    Raises:
        FormError: a field cannot be read as its type (the message names it and why).
    """
    if len(fields) == 1 and fields[0].name == ALL_ARGUMENTS:
        present, data = _read(fields[0], values.get(ALL_ARGUMENTS))
        if not present or not isinstance(data, dict):
            raise FormError("Arguments (JSON): enter a JSON object, such as {\"name\": \"value\"}.")
        return data
    arguments: dict[str, Any] = {}
    for field in fields:
        present, value = _read(field, values.get(field.name))
        if present:
            arguments[field.name] = value
    return arguments


# Most specific first: a bool is an int in Python, an int is not a float.
_JSON_TYPES: tuple[tuple[type, str], ...] = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"))


def values_schema(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """An object schema typing each argument by its JSON value (`{}`, a JSON field, for objects,
    arrays and null): the edit form of a call that has no schema of its own (a server tool's).
    The arguments the model gave a value are required: an edit changes them, it does not drop them."""
    properties: dict[str, Any] = {}
    for name, value in arguments.items():
        properties[str(name)] = next(({"type": kind} for python, kind in _JSON_TYPES if isinstance(value, python)), {})
    return {"type": "object", "properties": properties,
            "required": [str(name) for name, value in arguments.items() if value is not None]}


@dataclass(frozen=True)
class AnswerForm:
    """The form of an interrupt's answer (`answer_form`).

    Attributes:
        fields: the inputs, in order.
        whole: one field holds the whole answer (its value is the payload); else the payload
            is the object of the fields' values.
    """

    fields: tuple[FormField, ...]
    whole: bool

    def read(self, values: Mapping[str, Any]) -> Any:
        """The answer the person entered (`values` as for `read_form`).

        Raises:
            FormError: a field cannot be read as its type, or a required one is empty.
        """
        for field in self.fields:
            raw = values.get(field.name)
            if field.required and field.kind != "checkbox" and not field.nullable and not str(raw or "").strip():
                raise FormError(f"{field.label}: enter a value.")
        if not self.whole:
            return read_form(list(self.fields), values)
        field = self.fields[0]
        if field.kind == "answer":
            text = str(values.get(field.name) or "")
            if text.lstrip().startswith(("{", "[")):
                try:
                    return loads(text)
                except ValueError as exc:
                    raise FormError(f"{field.label}: not valid JSON ({exc}). Write plain text, or fix the JSON.") from None
            return text
        return _read(field, values.get(field.name))[1]


def answer_form(schema: Any) -> AnswerForm:
    """The form for an interrupt's `response_schema` (None: any answer, as text or JSON).

    Returns:
        One field per property of an object schema (none filled in); otherwise one field for
        the whole answer: the schema's own kind (a string, a number, an enum...), a JSON
        textarea for an object without named properties, an `"answer"` textarea with no schema.
    """
    if not isinstance(schema, Mapping) or not schema:
        return AnswerForm((FormField(ALL_ARGUMENTS, "Your answer", "answer", required=True),), whole=True)
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and properties:
        return AnswerForm(tuple(form_fields(schema, {})), whole=False)
    if schema.get("type") == "object":
        return AnswerForm((FormField(ALL_ARGUMENTS, "Your answer (JSON)", "json", required=True),), whole=True)
    field = _field(ALL_ARGUMENTS, schema, schema, None, True)
    label = field.label if schema.get("title") else "Your answer"
    return AnswerForm((FormField(field.name, label, field.kind, field.value, True, field.nullable, field.description,
                                 field.options),), whole=True)
