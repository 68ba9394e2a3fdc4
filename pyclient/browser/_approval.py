"""The button bars of tool cards: approve (with an edit form), reject, retry or cancel a call.

A call awaiting approval gets a bar that says what will happen (the tool's description; its
arguments are in the card above it, open), with Approve, Reject and Edit. Edit reveals a small
form made from the tool's JSON Schema (`pyclient.browser._forms`): a text input or textarea per
string, a number input per number, a checkbox per boolean, a select per enum, a JSON
textarea for anything else. An interrupted call (the page was reloaded while it ran) gets
Retry and Cancel.

The buttons carry `data-command` ("approve", "reject", "edit", "retry", "cancel") and
`data-for` (the status they answer); the chat listens once, on its root, and acts only on a
trusted click in that status (`event.isTrusted`: a script's synthetic click is not the
user's consent). An edit that does not read or validate shows its message in the bar
(`show_error`) and the call keeps waiting.
See https://developer.mozilla.org/en-US/docs/Web/API/Event/isTrusted

```python
from pyclient.browser._approval import approval_bar

schema = {"type": "object", "properties": {"to": {"type": "string"}}}
bar = approval_bar("send_mail", "Send an email.", schema, '{"to": "bob"}')
print([b.textContent for b in bar.node.querySelectorAll("button")])  # ['Approve', 'Reject', 'Edit']
print(bar.read())                                                      # {'to': 'bob'}
```
"""

from __future__ import annotations

import json
from typing import Any

import js
from pyodide.ffi import to_js

from ._forms import FormField, form_fields, initial_text, read_form
from ._nodes import append_visible, el, set_visible

__all__ = ["ApprovalBar", "approval_bar", "interrupted_bar"]


def _button(cls: str, label: str, command: str, status: str, **attributes: str) -> Any:
    return el("button", cls, label, type="button", data_command=command, data_for=status, **attributes)


class ApprovalBar:
    """The bar of a call awaiting approval: buttons, the (hidden) edit form and its error line.

    Attributes:
        node: the bar's element.
    """

    def __init__(self, name: str, description: str, fields: list[FormField], *, has_arguments: bool = True) -> None:
        self.fields = fields
        node = self.node = el("div", "pyclient-approval", role="group")
        node.setAttribute("aria-label", f"Approve the call of {name}?")
        if description:
            about = el("p", "pyclient-tool-description")
            append_visible(about, description)
            node.append(about)
        question = f"Allow {name} to run with the arguments above?" if has_arguments else f"Allow {name} to run?"
        node.append(el("p", "pyclient-approval-question", question))
        self._form = el("form", "pyclient-edit")
        self._form.hidden = True
        self._inputs: list[Any] = []
        for index, field in enumerate(fields):
            self._form.append(self._field(index, field))
        self._error = el("p", "pyclient-approval-error", role="alert")
        self._error.hidden = True
        buttons = el("div", "pyclient-buttons")
        self._edit = _button("pyclient-edit-toggle", "Edit", "edit", "awaiting_approval", aria_expanded="false")
        buttons.append(
            _button("pyclient-approve", "Approve", "approve", "awaiting_approval"),
            _button("pyclient-reject", "Reject", "reject", "awaiting_approval"),
            self._edit,
        )
        node.append(self._form, self._error, buttons)

    def _field(self, index: int, field: FormField) -> Any:
        label = el("label", f"pyclient-field pyclient-field-{field.kind}")
        caption = el("span", "pyclient-field-label", field.label + ("" if field.required else " (optional)"))
        text = initial_text(field)
        if field.kind == "checkbox":
            control = el("input", type="checkbox")
            control.checked = bool(field.value)
            label.append(control, caption)
        else:
            if field.kind == "select":
                control = el("select")
                if field.value is None or text == "":
                    control.append(el("option", "", "—", value=""))
                for position, option in enumerate(field.options):
                    control.append(el("option", "", json.dumps(option, ensure_ascii=False) if not isinstance(option, str)
                                      else option, value=str(position)))
            elif field.kind in ("textarea", "json"):
                control = el("textarea", rows="4" if field.kind == "json" else "3")
                control.spellcheck = field.kind != "json"
            else:
                control = el("input", type="number" if field.kind in ("number", "integer") else "text")
                if field.kind == "integer":
                    control.step = "1"
                elif field.kind == "number":
                    control.step = "any"
            control.value = text
            label.append(caption, control)
        control.name = field.name or "arguments"
        control.dataset.field = str(index)
        if field.description:
            label.append(el("small", "pyclient-field-hint", field.description))
        self._inputs.append(control)
        return label

    @property
    def editing(self) -> bool:
        """True while the edit form is shown: Approve sends what it holds."""
        return not bool(self._form.hidden)

    def toggle_edit(self) -> None:
        """Show or hide the edit form (the Edit button says which, `aria-expanded`)."""
        show = not self.editing
        self._form.hidden = not show
        self._edit.textContent = "Cancel edit" if show else "Edit"
        self._edit.setAttribute("aria-expanded", "true" if show else "false")
        if show:
            self.node.scrollIntoView(to_js({"block": "nearest"}, dict_converter=js.Object.fromEntries))
            if self._inputs:
                self._inputs[0].focus(to_js({"preventScroll": True}, dict_converter=js.Object.fromEntries))

    def read(self) -> dict[str, Any]:
        """The arguments the form holds.

        Raises:
            pyclient.browser._forms.FormError: a field does not read as its type.
        """
        values: dict[str, Any] = {}
        for field, control in zip(self.fields, self._inputs):
            values[field.name] = bool(control.checked) if field.kind == "checkbox" else str(control.value)
        return read_form(self.fields, values)

    def show_error(self, message: str | None) -> None:
        """Show why the edit was refused (None hides it)."""
        if message:
            set_visible(self._error, message)
        self._error.hidden = not message


def approval_bar(name: str, description: str, schema: Any, arguments: str) -> ApprovalBar:
    """The approval bar of a call of `name` (the tool's `description`, its parameters' `schema`)
    with `arguments` (JSON text)."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        parsed = {}
    arguments_object = parsed if isinstance(parsed, dict) else {}
    return ApprovalBar(name, description, form_fields(schema, arguments_object), has_arguments=bool(arguments_object))


def interrupted_bar() -> Any:
    """The bar of a call the page was reloaded in the middle of: Retry or Cancel."""
    node = el("div", "pyclient-interrupted", role="group")
    node.setAttribute("aria-label", "Interrupted call")
    node.append(el("p", "pyclient-approval-question", "The page was reloaded while this ran. Run it again?"))
    buttons = el("div", "pyclient-buttons")
    buttons.append(_button("pyclient-retry", "Retry", "retry", "interrupted"),
                   _button("pyclient-cancel", "Cancel", "cancel", "interrupted"))
    node.append(buttons)
    return node
