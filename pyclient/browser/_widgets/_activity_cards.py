"""Activity cards: one `<li>` per AG-UI activity message of the history, in its place, updated as it changes.

An activity (`pyclient._conversation._activities`) gets a card where the history has it
(`data-activity-id`, `data-activity-type`): its type and a readable summary of its content
(`summary(content)`: up to `SUMMARY_KEYS` keys, a line each, cut at `SUMMARY_CHARS`), with the
whole content as JSON in a collapsed "Content". A page's `agent.activity_renderer(type)`
replaces the summary with its own view, called again only when the activity changed.
Everything the server sent is untrusted text: text nodes, invisible characters marked. Nothing
an activity does breaks the chat: a renderer that raises gets a contained fallback, an update
that did not apply keeps the last good content and says so in the card, and a problem with no
card to show it on is a notice after the last item (`broken_notice`; docs/chat.md).

```python
from ag_ui.core import ActivityMessage
from pyclient.browser._widgets._activity_cards import ActivityCard, summary

print(summary({"query": "pyodide", "sources": ["a.org", "b.org"], "meta": {"n": 2}}))
# [('query', 'pyodide'), ('sources', 'a.org, b.org'), ('meta', '{"n": 2}')]
card = ActivityCard("a1")
card.update(ActivityMessage(id="a1", activity_type="search", content={"query": "pyodide"}))
print(card.node.querySelector(".pyclient-activity-type").textContent,
      card.node.querySelector("dd").textContent)     # search pyodide
```
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._page._nodes import append_visible, el, set_visible
from ._cards import formatted, put_view, render_error
from ._widget import Widget, Widgets

if TYPE_CHECKING:
    from ag_ui.core import ActivityMessage

    from ..._api._thread import Thread
    from ._timeline import Timeline

__all__ = ["SUMMARY_CHARS", "SUMMARY_KEYS", "ActivityCard", "ActivityCards", "broken_notice", "summary"]

logger = logging.getLogger("pyclient")

SUMMARY_KEYS = 8
"""The most keys of an activity's content the default card lists (a line says how many more)."""

SUMMARY_CHARS = 160
"""The longest line of the summary; longer ones end with "…"."""

ActivityRenderer = Callable[["ActivityMessage"], Any]


def _line(value: Any) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(item, (str, int, float, bool)) or item is None for item in value):
        text = ", ".join(item if isinstance(item, str) else json.dumps(item) for item in value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())  # one line
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 1] + "…"


def summary(content: Any) -> list[tuple[str, str]]:
    """The default card's lines for an activity's content: (key, value as one short line)."""
    if not isinstance(content, dict):
        return [("content", _line(content))]
    lines = [(str(key), _line(value)) for key, value in list(content.items())[:SUMMARY_KEYS]]
    if len(content) > SUMMARY_KEYS:
        lines.append(("…", f"{len(content) - SUMMARY_KEYS} more"))
    return lines


def broken_notice(words: str) -> Any:
    """The notice of an activity the chat cannot show on a card of its own."""
    node = el("li", "pyclient-notice pyclient-activity-broken", role="alert")
    node.dataset.kind = "activity-error"
    node.append(el("strong", "", "An activity could not be shown: "))
    append_visible(node, words)
    return node


class ActivityCard(Widget):
    """The card of one activity message (`node`), updated in place by `update(message, ...)`.

    Args:
        message_id: the activity message's id (`data-activity-id`).
    """

    def __init__(self, message_id: str) -> None:
        super().__init__("a:" + message_id, el("li", "pyclient-activity", role="group"))
        node = self.node
        node.dataset.activityId = message_id
        head = el("div", "pyclient-tool-head")
        self._type = el("span", "pyclient-activity-type")
        head.append(self._type)
        self._view = el("div", "pyclient-activity-view")
        self._view.hidden = True
        self._summary = el("dl", "pyclient-activity-summary")
        self._content_box = el("details", "pyclient-activity-content")
        self._content = el("pre")
        self._content_box.append(el("summary", "", "Content"), self._content)
        self._problem = el("p", "pyclient-activity-problem", role="alert")
        self._problem.hidden = True
        node.append(head, self._view, self._summary, self._content_box, self._problem)
        self._shown: Any = None
        self._renderer: ActivityRenderer | None = None
        self._problem_text: str | None = None

    def update(self, message: ActivityMessage, renderer: ActivityRenderer | None = None,
               problem: str | None = None) -> None:
        """Show `message` (drawn again only when it or the renderer changed) and `problem` (None: none)."""
        if problem != self._problem_text:
            self._problem_text = problem
            if problem:
                set_visible(self._problem, f"The latest update was not applied: {problem}")
            self._problem.hidden = not problem
            self.node.classList.toggle("pyclient-activity-failed", bool(problem))
        if message is self._shown and renderer is self._renderer:
            return
        self._shown, self._renderer = message, renderer
        self.node.dataset.activityType = message.activity_type
        set_visible(self._type, message.activity_type)
        self._summary.replaceChildren()
        for key, value in summary(message.content):
            term, detail = el("dt"), el("dd")
            append_visible(term, key)
            append_visible(detail, value)
            self._summary.append(term, detail)
        set_visible(self._content, formatted(message.content))
        rendered = False
        if renderer is not None:
            try:
                rendered = put_view(self._view, renderer(message))
            except Exception as exc:
                logger.exception("pyclient: the activity renderer of %r raised on activity %s",
                                 message.activity_type, message.id)
                put_view(self._view, render_error("This activity's view could not be shown. ", exc))
        # A renderer's view replaces the summary; a fallback shows above it.
        self._summary.hidden = self._content_box.hidden = rendered
        self.node.classList.toggle("pyclient-rendered", rendered)


class ActivityCards:
    """The activity cards of a message list, by message id, and the notices of the problems no
    card shows.

    Args:
        timeline: the list's items (`pyclient.browser._widgets._timeline.Timeline`): cards are keyed
            `"a:<message id>"`, notices `"n:activity-<n>"`.
        widgets: the list's registry, where the cards are kept with the list's other widgets.
    """

    def __init__(self, timeline: Timeline, widgets: Widgets) -> None:
        self._timeline = timeline
        self._widgets = widgets
        self._told: set[tuple[str, str]] = set()   # (message id, problem) shown as a notice
        self._notices = 0

    def show(self, message: ActivityMessage, thread: Thread) -> str:
        """Make or update the card of `message` (appended when new); returns its key."""
        key = "a:" + message.id
        card = self._widgets.get(key, ActivityCard)
        if card is None:
            card = self._widgets.add(ActivityCard(message.id))
            self._timeline.add(key, card.node)
        card.update(message, thread.agent.renderer_for_activity(message.activity_type),
                    thread.activity_problems.get(message.id))
        return key

    def notices(self, problems: dict[str, str], broken: list[str]) -> None:
        """A notice after the last item for each problem no card shows: `problems` of ids with
        no card (once each), and `broken`, the events that did not validate (emptied)."""
        carded = {message_id for message_id in problems if self._widgets.get("a:" + message_id, ActivityCard)}
        words = [problem for message_id, problem in problems.items()
                 if message_id not in carded and (message_id, problem) not in self._told]
        self._told.update((message_id, problem) for message_id, problem in problems.items()
                          if message_id not in carded)
        words += broken
        broken.clear()
        for text in words:
            self._notices += 1
            self._timeline.add_notice(f"n:activity-{self._notices}", broken_notice(text), after=self._timeline.last)
