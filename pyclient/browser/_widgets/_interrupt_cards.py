"""Interrupt cards: one `<li>` per AG-UI interrupt the agent asks the person, with a form for the answer.

An interrupt that is not a server tool's approval shown on its tool card (a question such as
LangGraph's `interrupt()`, a confirmation) gets a card after the items of the run that raised
it: the agent's message (untrusted text, invisible characters marked), a form made from its
`response_schema` (`pyclient.browser._widgets._forms.answer_form`), and Send and Cancel
(trusted clicks only, while it is open). An answer that does not read or fit shows its message
in the card, and the form keeps what was typed. Once answered, the buttons go and the card says
so (`BADGE_WORDS`, `OUTCOME_WORDS`), keeping its form read-only as the record. A page's
`agent.interrupt_renderer(reason)` replaces the message and the form, called again when the
status changes; one that raises gets a contained fallback. See docs/chat.md ("Interrupts").

```python
from pyclient.browser._widgets._interrupt_cards import InterruptCard, InterruptView

asked = InterruptView("i1", "input_required", "Which colour?", "open",
                      {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]})
card = InterruptCard(asked)
card.update(asked)
card.node.querySelector("input").value = "blue"
print(card.node.querySelector(".pyclient-interrupt-message").textContent, card.read())
# prints "Which colour? {'colour': 'blue'}"
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._page._nodes import append_visible, el, set_visible
from ._cards import put_view, render_error
from ._forms import answer_form
from ._inputs import Inputs
from ._widget import Widget

if TYPE_CHECKING:
    from ..._conversation._interrupt_handle import Interrupt

__all__ = ["BADGE_WORDS", "OUTCOME_WORDS", "InterruptCard", "InterruptView"]

logger = logging.getLogger("pyclient")

BADGE_WORDS = {"open": "waiting for your answer", "resolved": "answered", "cancelled": "cancelled",
               "expired": "expired"}
"""The badge's words for each interrupt status."""

OUTCOME_WORDS = {"resolved": "answered", "cancelled": "cancelled",
                 "expired": "expired: this question can no longer be answered"}
"""The sentence of a card whose interrupt was not answered (a cancellation adds why); an
answered one's says "answered" too, but only its badge shows."""



@dataclass(frozen=True)
class InterruptView:
    """What an interrupt card shows of a `pyclient.Interrupt`, at one moment."""

    id: str
    reason: str
    message: str | None
    status: str
    response_schema: dict[str, Any] | None = None
    note: str = ""

    @classmethod
    def of(cls, interrupt: Interrupt) -> InterruptView:
        return cls(interrupt.id, interrupt.reason, interrupt.message, interrupt.status,
                   interrupt.response_schema, interrupt.note)


class InterruptCard(Widget):
    """The card of one interrupt (`node`), updated in place by `update(view)`.

    Args:
        interrupt: the interrupt as it is when asked (its id, reason, message and schema are read once).

    Attributes:
        node: the card's `<li>` (`data-interrupt-id`, `data-reason`, `data-status`).
        status: the interrupt status shown now ("" before the first update).
    """

    def __init__(self, interrupt: InterruptView) -> None:
        super().__init__("i:" + interrupt.id, el("li", "pyclient-interrupt", role="group"))
        self.interrupt_id = interrupt.id
        node = self.node
        node.dataset.interruptId = interrupt.id
        node.dataset.reason = interrupt.reason
        node.setAttribute("aria-label", "The agent asks you")
        head = el("div", "pyclient-tool-head")
        self._badge = el("span", "pyclient-badge")
        head.append(el("span", "pyclient-interrupt-title", "The agent asks"), self._badge)
        self._view = el("div", "pyclient-interrupt-view")
        self._view.hidden = True
        self._default = el("div", "pyclient-interrupt-default")
        message = el("p", "pyclient-interrupt-message")
        append_visible(message, interrupt.message or "The agent needs your answer to go on.")
        self._answer = answer_form(interrupt.response_schema)
        self._inputs = Inputs(self._answer.fields)
        self._form = el("form", "pyclient-edit pyclient-answer")
        for field_node in self._inputs.nodes:
            self._form.append(field_node)
        self._default.append(message, self._form)
        self._error = el("p", "pyclient-approval-error", role="alert")
        self._error.hidden = True
        self._outcome = el("p", "pyclient-interrupt-outcome", role="status")
        self._outcome.hidden = True
        self._buttons = el("div", "pyclient-buttons")
        self._send = el("button", "pyclient-answer-send", "Send", type="button", data_command="resolve", data_for="open")
        self._buttons.append(self._send, el("button", "pyclient-answer-cancel", "Cancel", type="button",
                                            data_command="cancel", data_for="open"))
        node.append(head, self._view, self._default, self._error, self._outcome, self._buttons)
        self.status = ""
        self._render_key: str | None = None

    def update(self, interrupt: InterruptView, render: Callable[[], Any] | None = None) -> None:
        """Show `interrupt` as it is now; and, when its status changed, the view `render()` makes
        (the page's interrupt renderer called with the live `Interrupt`)."""
        status = interrupt.status
        if render is not None and status != self._render_key:
            self._render_key = status
            self._render(render, interrupt)
        if status == self.status:
            return
        self.status = status
        self.node.dataset.status = status
        self._badge.textContent = BADGE_WORDS.get(status, status)
        self._badge.dataset.status = status
        is_open = status == "open"
        self._buttons.hidden = not is_open
        self._inputs.set_disabled(not is_open)
        if is_open:
            return
        self.show_error(None)
        # An answered card keeps its form, read-only, as the record of the answer, and its badge
        # says "answered"; an abandoned one's form is empty, and a sentence says why.
        answered = status == "resolved"
        self._form.hidden = not answered
        words = OUTCOME_WORDS.get(status, status)
        if status == "cancelled" and interrupt.note:
            words += f": {interrupt.note}"
        set_visible(self._outcome, words)
        self._outcome.dataset.status = status
        self._outcome.hidden = answered

    def _render(self, render: Callable[[], Any], interrupt: InterruptView) -> None:
        try:
            shown = put_view(self._view, render())
        except Exception as exc:
            logger.exception("pyclient: the interrupt renderer of %r raised on interrupt %s", interrupt.reason,
                             interrupt.id)
            put_view(self._view, render_error("This question's view could not be shown. ", exc))
            shown = False  # the default form stays, so the question can still be answered
        self._default.hidden = shown
        self._send.hidden = shown  # the view answers for itself; Cancel stays
        self.node.classList.toggle("pyclient-rendered", shown)

    def read(self) -> Any:
        """The answer the form holds.

        Raises:
            pyclient.browser._widgets._forms.FormError: a field does not read as its type, or a required one is empty.
        """
        return self._answer.read(self._inputs.values())

    def show_error(self, message: str | None) -> None:
        """Show why the answer was refused (None hides it); the form keeps what was typed."""
        if message:
            set_visible(self._error, message)
        self._error.hidden = not message

