"""The controls of a chat form: one labelled input per `FormField`, and the values read back from them.

`Inputs(fields)` builds a `<label>` per field (`pyclient.browser._widgets._forms`): a text input, a
textarea for long text, JSON or a free answer, a number input, a checkbox, or a select whose
option values are the choices' positions. Each label holds its caption ("(optional)" when the
schema does not require it), the control (named after the field, `data-field` its position)
and the schema's description as a hint: the schema's words are the server's, their invisible
characters marked (`pyclient.browser._page._visible`). The caller appends `nodes` to its own form; `values()`
maps each field's name to what its control holds, for `read_form` or `AnswerForm.read`. The
approval bars' edit forms (`pyclient.browser._widgets._approval`) and the interrupt cards
(`pyclient.browser._widgets._interrupt_cards`) are both made of these.
See https://developer.mozilla.org/en-US/docs/Web/HTML/Element/input

```python
from pyclient.browser._widgets._forms import answer_form
from pyclient.browser._widgets._inputs import Inputs

form = answer_form({"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]})
inputs = Inputs(form.fields)
inputs.controls[0].value = "blue"
print(inputs.nodes[0].textContent, form.read(inputs.values()))   # colour {'colour': 'blue'}
```
"""

from __future__ import annotations

import json
from typing import Any

from .._page._document import focus_quietly
from .._page._nodes import el, marked
from .._page._visible import visible
from ._forms import FormField, initial_text

__all__ = ["Inputs"]


class Inputs:
    """The labelled controls of `fields`, in order.

    Attributes:
        fields: the fields, as given.
        nodes: one `<label>` per field, to append to a form.
        controls: the input, textarea or select of each field.
    """

    def __init__(self, fields: list[FormField] | tuple[FormField, ...]) -> None:
        self.fields = tuple(fields)
        self.controls: list[Any] = []
        self.nodes = [self._field(index, field) for index, field in enumerate(self.fields)]

    def _field(self, index: int, field: FormField) -> Any:
        label = el("label", f"pyclient-field pyclient-field-{field.kind}")
        # The schema's words are the server's: marked, so a bidi override in a title cannot
        # reverse what follows it ("(optional)" shown as "(lanoitpo)").
        caption = marked("span", "pyclient-field-label", field.label + ("" if field.required else " (optional)"))
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
                    shown = option if isinstance(option, str) else json.dumps(option, ensure_ascii=False)
                    control.append(el("option", "", visible(shown), value=str(position)))  # an option holds no span
            elif field.kind in ("textarea", "json", "answer"):
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
        if field.required and field.kind != "checkbox":
            # Not `required`: the browser's own check would stop a submit before the chat's,
            # whose message names the field in the card.
            control.setAttribute("aria-required", "true")
        if field.description:
            label.append(marked("small", "pyclient-field-hint", field.description))
        self.controls.append(control)
        return label

    def values(self) -> dict[str, Any]:
        """What each control holds, by field name: a str (a select: its option's position), a bool for a checkbox."""
        return {field.name: bool(control.checked) if field.kind == "checkbox" else str(control.value)
                for field, control in zip(self.fields, self.controls)}

    def focus_first(self) -> None:
        """Put the focus in the first control, without scrolling the list."""
        if self.controls:
            focus_quietly(self.controls[0])

    def set_disabled(self, disabled: bool) -> None:
        """Enable or disable every control (an answered question's form stays, read-only)."""
        for control in self.controls:
            control.disabled = disabled
