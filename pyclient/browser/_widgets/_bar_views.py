"""Which actions each message bubble of the chat offers: copy, edit, regenerate, rate, page through branches (pure).

`bar_views(messages, points, rating, feedback=...)` reads the history shown and says, for every
message that has a bubble, what its action bar holds (`BarView`): Copy on every bubble; Edit
and the branch picker (when an edit made alternatives) on a user message; on the last bubble
of an *answer* (the messages between two user messages), the thumbs (with `on_feedback`), the
picker when a regenerate made alternatives (they start at the answer's first message, which
may have no bubble) and, on the last answer only, Regenerate. An answer without a text bubble
has no bar. Pure Python: tested on CPython (tests/unit/browser/widgets/test_bar_views.py);
`pyclient.browser._widgets._message_bar` draws the bars.

```python
from ag_ui.core import AssistantMessage, UserMessage
from pyclient import BranchPoint
from pyclient.browser._widgets._bar_views import bar_views

messages = [UserMessage(id="u1", content="hi"), AssistantMessage(id="a1", content="Hello")]
views = bar_views(messages, [BranchPoint("a1", 1, 2)], lambda message_id: "up", feedback=True)
print(views["u1"].editable, views["a1"].regenerate, views["a1"].rating, views["a1"].branch.count)
# prints "True True up 2"
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..._conversation._branches import BranchPoint
from ..._conversation._feedback import Rating
from ..._tools._content import split_parts

if TYPE_CHECKING:
    from ag_ui.core import Message

__all__ = ["BarView", "bar_views"]


@dataclass(frozen=True)
class BarView:
    """What one bubble's action bar offers.

    Attributes:
        message_id: the bubble's message.
        role: "user" or "assistant".
        text: what Copy puts on the clipboard.
        editable: Edit is offered (a user message).
        regenerate: Regenerate is offered (the last answer's last bubble).
        rate: the thumbs are offered (an answer's last bubble, in a chat with `on_feedback`).
        rating: the rating shown pressed.
        branch: the alternatives the picker pages through (its `message_id` is the message they
            start at), or None.
    """

    message_id: str
    role: str
    text: str
    editable: bool = False
    regenerate: bool = False
    rate: bool = False
    rating: Rating | None = None
    branch: BranchPoint | None = None


def bar_views(messages: Sequence[Message], points: Iterable[BranchPoint], rating: Callable[[str], Rating | None],
              *, feedback: bool) -> dict[str, BarView]:
    """The bar of every bubble of `messages` (the history shown), by message id; see the module docstring.

    Args:
        messages: `thread.messages`.
        points: `thread.branch_points()`.
        rating: `thread.feedback`.
        feedback: the chat offers thumbs (`Chat(on_feedback=...)`).
    """
    point_of = {point.message_id: point for point in points}
    views: dict[str, BarView] = {}
    head: str | None = None   # the first message of the answer being read
    last: str | None = None   # its last bubble
    asked = False             # a user message came before it

    def close(final: bool) -> None:
        if last is None:
            return
        views[last] = replace(views[last], rate=feedback, rating=rating(last) if feedback else None,
                              branch=point_of.get(head) if head is not None else None,
                              regenerate=final and asked)

    for message in messages:
        if message.role == "user":
            close(False)
            head = last = None
            asked = True
            views[message.id] = BarView(message.id, "user", split_parts(message.content)[0], editable=True,
                                        branch=point_of.get(message.id))
            continue
        if head is None:
            head = message.id
        if message.role == "assistant":
            text = split_parts(message.content)[0]
            if text:
                views[message.id] = BarView(message.id, "assistant", text)
                last = message.id
    close(True)
    return views
