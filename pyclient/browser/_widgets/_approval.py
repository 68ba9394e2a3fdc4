"""The button bars of tool cards: approve (with an edit form), reject, retry or cancel a call.

A call awaiting approval gets a bar that says what will happen (the tool's description), with
Approve, Reject and Edit; Edit reveals a form made from the tool's JSON Schema
(`pyclient.browser._widgets._forms`, drawn by `_inputs`). Arguments that cannot be read (not
JSON, or nested past `pyclient._base._json.MAX_DEPTH`) stay as the model wrote them, and the
bar says why. An interrupted call (the page reloaded while it ran) gets Retry and Cancel. A
server tool's call that waits for approval (`interrupt_approval_bar`) gets the same bar, with
the interrupt's message (untrusted text) and a form from the schema's `editedArgs`, else from
the arguments' own JSON types (`values_schema`). The buttons carry `data-command` and
`data-for` (the status they answer); the chat acts only on a trusted click in that status.

```python
from pyclient.browser._widgets._approval import approval_bar

schema = {"type": "object", "properties": {"to": {"type": "string"}}}
bar = approval_bar("send_mail", "Send an email.", schema, '{"to": "bob"}')
print([b.textContent for b in bar.node.querySelectorAll("button")])  # ['Approve', 'Reject', 'Edit']
print(bar.read())                                                      # {'to': 'bob'}
deep = approval_bar("send_mail", "", schema, '{"to": ' + "[" * 30_000 + "]" * 30_000 + "}")
print(deep.node.querySelector(".pyclient-approval-unread").textContent[:50])
# prints "These arguments cannot be read: JSON nested deeper"
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..._base._json import JSONLimitError, loads
from .._page._document import scroll_into_view
from .._page._nodes import append_visible, el, marked, set_visible
from .._page._visible import visible
from ._forms import FormField, form_fields, read_form, values_schema
from ._inputs import Inputs

if TYPE_CHECKING:
    from ..._conversation._interrupt_handle import Interrupt

__all__ = ["ApprovalBar", "approval_bar", "interrupt_approval_bar", "interrupted_bar"]

APPROVAL = "awaiting_approval"
"""The action status a client tool's approval bar answers."""

OPEN = "open"
"""The interrupt status a server tool's approval bar answers."""


def _button(cls: str, label: str, command: str, status: str, **attributes: str) -> Any:
    return el("button", cls, label, type="button", data_command=command, data_for=status, **attributes)


class ApprovalBar:
    """The bar of a call awaiting approval: buttons, the (hidden) edit form and its error line.

    Args:
        name: the tool's name.
        description: what the call will do (the tool's description, an interrupt's message).
        fields: the edit form's fields.
        has_arguments: the call has arguments to show ("with the arguments above").
        answers: the status the buttons answer (`data-for`).
        editable: show Edit (and its form).
        unread: why the arguments cannot be read (not JSON, nested too deep), said in the bar;
            None when they can.

    Attributes:
        node: the bar's element.
        fields: the edit form's fields.
    """

    def __init__(self, name: str, description: str, fields: list[FormField], *, has_arguments: bool = True,
                 answers: str = APPROVAL, editable: bool = True, unread: str | None = None) -> None:
        self.fields = fields
        node = self.node = el("div", "pyclient-approval", role="group")
        node.setAttribute("aria-label", visible(f"Approve the call of {name}?"))
        if description:
            about = el("p", "pyclient-tool-description")
            append_visible(about, description)
            node.append(about)
        question = f"Allow {name} to run with the arguments above?" if has_arguments else f"Allow {name} to run?"
        node.append(marked("p", "pyclient-approval-question", question))  # a server tool's name is the server's
        if unread is not None:
            note = el("p", "pyclient-approval-unread")
            append_visible(note, unread)
            node.append(note)
        self._form = el("form", "pyclient-edit")
        self._form.hidden = True
        self._inputs = Inputs(fields)
        for field_node in self._inputs.nodes:
            self._form.append(field_node)
        self._error = el("p", "pyclient-approval-error", role="alert")
        self._error.hidden = True
        buttons = el("div", "pyclient-buttons")
        self._edit = _button("pyclient-edit-toggle", "Edit", "edit", answers, aria_expanded="false")
        buttons.append(_button("pyclient-approve", "Approve", "approve", answers),
                       _button("pyclient-reject", "Reject", "reject", answers))
        if editable:
            buttons.append(self._edit)
        node.append(self._form, self._error, buttons)

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
            scroll_into_view(self.node)
            self._inputs.focus_first()

    def read(self) -> dict[str, Any]:
        """The arguments the form holds.

        Raises:
            pyclient.browser._widgets._forms.FormError: a field does not read as its type.
        """
        return read_form(self.fields, self._inputs.values())

    def show_error(self, message: str | None) -> None:
        """Show why the edit was refused (None hides it)."""
        if message:
            set_visible(self._error, message)
        self._error.hidden = not message


def _arguments_object(arguments: str) -> tuple[dict[str, Any], str | None]:
    """The arguments as an object (`{}` when they are not one), and why they cannot be read
    (None when they can): read with pyclient's bounded parser, as the call itself reads them,
    so arguments nested thousands deep are refused here too, not parsed."""
    if not arguments.strip():
        return {}, None
    try:
        parsed = loads(arguments)
    except JSONLimitError as exc:
        return {}, f"These arguments cannot be read: {exc}"
    except ValueError as exc:
        return {}, f"These arguments cannot be read: they are not valid JSON ({exc})."
    return (parsed if isinstance(parsed, dict) else {}), None


def approval_bar(name: str, description: str, schema: Any, arguments: str) -> ApprovalBar:
    """The approval bar of a call of `name` (the tool's `description`, its parameters' `schema`)
    with `arguments` (JSON text). Arguments that cannot be read are said so in the bar:
    approved as they are, the call fails (its arguments are read again, and refused, before
    its handler would run); Edit replaces them."""
    arguments_object, unread = _arguments_object(arguments)
    if unread is not None:
        unread += " Approved as they are, the call fails; Edit replaces them."
    return ApprovalBar(name, description, form_fields(schema, arguments_object),
                       has_arguments=bool(arguments_object) or unread is not None, unread=unread)


def interrupt_approval_bar(name: str, interrupt: Interrupt, arguments: str) -> ApprovalBar:
    """The approval bar of a server tool's call of `name` with `arguments` (JSON text), answering `interrupt`."""
    arguments_object, unread = _arguments_object(arguments)
    schema = interrupt.response_schema
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    edited = properties.get("editedArgs") if isinstance(properties, Mapping) else None
    # Edit only where the agent reads edited arguments: a schema that names `editedArgs`, or
    # none at all (any payload); elsewhere an edit would be dropped without a word.
    editable = schema is None or edited is not None
    if isinstance(edited, Mapping) and isinstance(edited.get("properties"), Mapping) and edited["properties"]:
        fields = form_fields(edited, arguments_object)
    else:
        fields = form_fields(values_schema(arguments_object), arguments_object)
    bar = ApprovalBar(name, interrupt.message or "", fields, has_arguments=bool(arguments_object) or unread is not None,
                      answers=OPEN, editable=editable, unread=unread)
    bar.node.dataset.interruptId = interrupt.id
    return bar


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
