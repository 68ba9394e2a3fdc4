"""Draws what changed in a thread into the chat's message list: nodes made, updated or moved in history order.

`MessageList.draw(budget)` applies the marks of `pyclient.browser._chat._changes.Changes` to the
list, once per animation frame: a full pass walks the history in the window
(`pyclient.browser._chat._history_window`) and makes, updates or moves its bubbles and cards in order;
else only the bubbles whose text changed; then the queued cards, for up to `budget` seconds
(`FRAME_BUDGET` a frame; the rest waits for the next, so a thousand calls at once never freeze
the page), the interrupt cards, and the notices (Stopped, Cancelled by the agent, the error
bubble). A card's button bar follows its call's action status. Each step, and why, is in
`docs/architecture.md` ("How a frame draws the chat").

```python
from pyclient import Agent
from pyclient.browser._chat._changes import Changes
from pyclient.browser._page._nodes import el
from pyclient.browser._chat._reconcile import MessageList

thread = Agent("main", url="/agent").thread(messages=[
    {"id": "u1", "role": "user", "content": "hello"},
    {"id": "a1", "role": "assistant", "content": "Hi **there**"},
])
messages = MessageList(thread, el("ol"), Changes("idle", run_end=lambda: thread.run_end))
messages.draw()
print(len(messages.node.children), messages.node.querySelector("strong").textContent)   # 2 there
```
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Any

from ..._base._errors import LocalProtocolError
from ..._conversation._lifecycle import ASKING_USER, TERMINAL, CallStatus
from .._page._document import console_error
from .._widgets._activity_cards import ActivityCards
from .._widgets._approval import (
    OPEN,
    ApprovalBar,
    approval_bar,
    interrupt_approval_bar,
    interrupted_bar,
)
from .._widgets._bubbles import Bubble
from .._widgets._cards import Card
from .._widgets._error_words import console_line
from .._widgets._interrupt_cards import InterruptCard, InterruptView
from .._widgets._subagent_groups import Groups
from .._widgets._thinking_section import Thinking
from .._widgets._timeline import (
    Timeline,
    cancelled_notice,
    error_notice,
    stopped_notice,
)
from .._widgets._widget import Widget, Widgets
from ._history_window import HistoryWindow

if TYPE_CHECKING:
    from ag_ui.core import Message

    from ..._api._thread import Thread
    from ..._conversation._interrupt_handle import Interrupt
    from ..._conversation._parts import ToolPart
    from ._changes import Changes

__all__ = ["FRAME_BUDGET", "MessageList", "text_of"]

FRAME_BUDGET = 0.03
"""Seconds of card updates one frame may take; the rest waits for the next frame."""

_AT_LEAST = 4  # cards a frame makes, and updates, however long they take: every frame gets on


def text_of(message: Message) -> str:
    """The text an assistant's bubble shows of `message`: its content, or its text parts (a
    user's bubble reads its text and files with `split_parts`: `Bubble.show_content`)."""
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal user content: its text parts
        return "\n".join(str(getattr(part, "text", "")) for part in content if getattr(part, "type", "") == "text")
    return ""


class MessageList:
    """The chat's message list (`node`, an `<ol>`), drawn from `thread` by the marks of `changes`.

    Args:
        thread: the thread shown.
        node: the list element.
        changes: the marks to draw, drained by `draw()`.
        window: which messages a full pass makes nodes for (`pyclient.browser._chat._history_window`);
            None: a window on the last screens of a long history.

    Attributes:
        node: the list element.
        window: which messages a full pass makes nodes for.
    """

    def __init__(self, thread: Thread, node: Any, changes: Changes, window: HistoryWindow | None = None) -> None:
        self.thread = thread
        self.window = window or HistoryWindow()
        self.node = node
        self._changes = changes
        self._timeline = Timeline(node)            # the list's items by key, in order
        self._groups = Groups(self._timeline, thread.subagent)  # a subagent's items go in its group
        self._widgets = Widgets()                  # every item of the list with nodes of its own, by key
        # Calls a full pass left without a card: call id -> name, group, and the key of the item
        # it goes after (the one before it in the history: its card is made next to it).
        self._unmade: dict[str, tuple[str, str | None, str | None]] = {}
        self._placing = False                      # cards a full pass left were made: place them
        self._activities = ActivityCards(self._timeline, self._widgets)  # the activities' cards, in the registry
        self._renderers: dict[str, Any] = {}       # tool name -> its renderer, looked up once a draw
        self._waiting: set[str] = set()            # call ids waiting for the user
        self._working: set[str] = set()            # call ids whose handler runs
        self._stops = 0
        self._cancels = 0
        self._error_shown: BaseException | None = None
        self.reconciled = 0  # full passes so far: the chat's action bars follow each

    def __bool__(self) -> bool:
        """True once the list shows anything."""
        return bool(self._timeline)

    @property
    def waiting(self) -> bool:
        """Some call waits for the person (an approval, an input)."""
        return bool(self._waiting)

    @property
    def working(self) -> bool:
        """Some call has its handler running."""
        return bool(self._working)

    @property
    def asking(self) -> bool:
        """Some interrupt card waits for the person's answer."""
        return any(card.status == "open" for card in self._widgets.of_kind(InterruptCard))

    @property
    def pending(self) -> bool:
        """Cards to make or update, or a full pass, are left for the next frame."""
        return self._changes.pending

    def bubbles(self) -> dict[str, Bubble]:
        """Each bubble by message id, in history order (the action bars go under them)."""
        return {bubble.message_id: bubble for bubble in self._widgets.of_kind(Bubble)}

    def bar(self, call_id: str) -> ApprovalBar | None:
        """The approval bar of a call, while it awaits approval."""
        card = self._widgets.get("c:" + call_id, Card)
        return card.approval if card is not None else None

    def widget_for(self, target: Any) -> Widget | None:
        """The nearest widget of the list's registry that holds `target`, if any (a widget it
        owns, such as a bubble's bar, is its owner's to route to)."""
        holder = target.closest("[data-widget]")
        while holder:
            widget = self._widgets.get(str(holder.dataset.widget), Widget)
            if widget is not None:
                return widget
            above = holder.parentElement
            holder = above.closest("[data-widget]") if above else None
        return None

    def form(self, interrupt_id: str) -> InterruptCard | None:
        """The card of an interrupt, once it has one."""
        return self._widgets.get("i:" + interrupt_id, InterruptCard)

    def draw(self, budget: float = FRAME_BUDGET) -> None:
        """Apply what changed: nodes first (in history order), then card updates for up to
        `budget` seconds (what is left waits: `pending`), then the notices."""
        deadline = time.perf_counter() + budget
        self._renderers.clear()
        changes = self._changes
        full = changes.take_full()
        messages = changes.take_messages()
        if full:
            self._reconcile(deadline)
            self.reconciled += 1
        elif messages:
            self._update_messages(messages)
        self._update_cards(deadline)
        self._groups.refresh()
        self._update_interrupts(full)
        self._show_notices()

    def _reconcile(self, deadline: float) -> None:
        """Everything: every message and call in history order, nodes made or moved as needed;
        the cards that may have changed are queued for `_update_cards`. Cards are made until
        `deadline` (`time.perf_counter()`); past it, the calls still without one are queued, and
        `_update_cards` makes them in the next frames, in call order, at the end of their list;
        once all are made, another full pass puts them in their place (items that came
        meanwhile, a follow-up answer, go after them): a thousand new calls are made over
        frames, never in one long task."""
        thread = self.thread
        clock = time.perf_counter
        made = 0
        unmade = self._unmade
        unmade.clear()
        self._placing = False
        last: dict[str | None, str] = {}  # group -> the key kept last in it
        changes = self._changes
        interrupted = set(thread.interrupted_messages)
        groups = self._groups
        # After `window.widen()`: only the earlier messages taken in, before all the others.
        messages, front = self.window.pass_messages(thread.message_view())  # models built for these only
        groups.begin(front=front)
        seen: set[str] = set()
        thinking: list[Thinking] = []  # shown before the answer that follows them: it folds them
        for message in messages:
            role = message.role
            if role == "tool":
                continue
            if role == "activity":  # its card is in the conversation's list (ActivityCards puts it there)
                last[None] = self._activities.show(message, thread)  # type: ignore[arg-type]
                groups.keep(last[None], None, None)
                continue
            key = "m:" + message.id
            sub = getattr(message, "subagent_run_id", None)
            if role == "reasoning":
                if message.content and key not in seen:  # encrypted reasoning alone: never shown
                    seen.add(key)
                    thought = self._thought(message.id, sub)
                    thought.update(text_of(message), streaming=changes.is_streaming(message.id))
                    groups.keep(key, thought.node, sub)
                    last[sub] = key
                    thinking.append(thought)
                continue
            text = text_of(message) if role == "assistant" else ""
            if thinking and (text or getattr(message, "tool_calls", None)):
                _fold(thinking)
            if (role == "user" or role == "assistant" and text) and key not in seen:
                seen.add(key)
                bubble = self._bubble(message.id, role, sub)
                groups.keep(key, bubble.node, sub)
                last[sub] = key
                if role == "user":
                    bubble.show_content(message.content)
                else:
                    bubble.update(text, streaming=changes.is_streaming(message.id))
                if message.id in interrupted:
                    bubble.mark_interrupted()
            for call in getattr(message, "tool_calls", None) or ():
                key = "c:" + call.id
                if key in seen:
                    continue  # an id a later run used again: one card
                seen.add(key)
                card = self._widgets.get(key, Card)
                if card is None:
                    if unmade or made >= _AT_LEAST and clock() > deadline:
                        # Made by _update_cards in the next frames, in order, each after the one before.
                        unmade[call.id] = (call.function.name, sub, last.get(sub))
                        last[sub] = key
                        changes.queue_call(call.id)
                        continue
                    made += 1
                    card = self._card(call.id, call.function.name, sub)
                groups.keep(key, card.node, sub)
                last[sub] = key
                if card.status not in TERMINAL:
                    changes.queue_call(call.id)
                if message.id in interrupted:
                    card.node.dataset.interrupted = "true"
        if thinking and thread.run_status != "running":
            _fold(thinking)  # the run ended on its reasoning: nothing more streams into it
        for key in groups.place():  # gone from the history (a snapshot)
            self._widgets.forget(key)

    def _update_interrupts(self, full: bool) -> None:
        """The cards of the interrupts marked (every interrupt of the thread in a full pass)."""
        marked = self._changes.take_interrupts()
        if not marked and not (full and (any(self._widgets.of_kind(InterruptCard)) or self.thread.interrupts)):
            return
        thread = self.thread
        if full:
            interrupts = thread.all_interrupts()
        else:
            interrupts = []
            for interrupt_id in marked:
                try:
                    interrupts.append(thread.interrupt(interrupt_id))
                except LocalProtocolError:
                    continue
        for interrupt in interrupts:
            card = self._widgets.get("i:" + interrupt.id, InterruptCard)
            if card is None:
                # Shown from when it is open (or changes while the chat is there); one that a
                # reload brought back already answered is in the history as what followed it.
                if interrupt.status != "open" and interrupt.id not in marked:
                    continue
                if interrupt.is_approval and self._widgets.get(f"c:{interrupt.tool_call_id}", Card) is not None:
                    continue  # the tool card's approval bar shows it
                card = self._widgets.add(InterruptCard(InterruptView.of(interrupt)))
                timeline = self._groups.timeline(interrupt.subagent_run_id)  # a subagent's: in its group
                timeline.add_notice(card.key, card.node, after=timeline.last_item)
            renderer = self.thread.renderer_for_interrupt(interrupt.reason)
            card.update(InterruptView.of(interrupt), partial(renderer, interrupt) if renderer is not None else None)

    def _update_messages(self, wanted: dict[str, None]) -> None:
        """The bubbles of the messages whose text changed (text deltas), in the order they changed."""
        changes = self._changes
        # The "Thinking" sections an answer that starts folds: those of reasoning messages not
        # changed now (earlier ones), then the changed ones in the order they changed.
        thinking: list[Thinking] = [thought for thought in self._widgets.of_kind(Thinking)
                                    if thought.message_id not in wanted]
        # By id, in the order they changed (new ones arrive in history order): `thread.messages`
        # would build every message's model, each frame.
        for message_id in wanted:
            message = self.thread.message(message_id)
            if message is None:
                continue
            sub = getattr(message, "subagent_run_id", None)
            if message.role == "user":
                self._bubble(message.id, "user", sub).show_content(message.content)
            elif message.role == "assistant":
                text = text_of(message)
                if text or self._widgets.get("m:" + message.id, Bubble) is not None:
                    self._bubble(message.id, "assistant", sub).update(text, streaming=changes.is_streaming(message.id))
                    _fold(thinking)  # the answer started
            elif message.role == "reasoning" and text_of(message):
                thought = self._thought(message.id, sub)
                thought.update(text_of(message), streaming=changes.is_streaming(message.id))
                thinking.append(thought)

    def _update_cards(self, deadline: float) -> None:
        """Update the queued cards, in order, until `deadline` (`time.perf_counter()`); a
        queued call with no card yet gets one (at the end of its list: a new call is the
        newest item), unless a full pass is left for the next frame, which makes it in its place."""
        changes = self._changes
        clock = time.perf_counter
        done = 0
        for call_id in changes.queued_calls():
            if done >= _AT_LEAST and clock() > deadline:
                return
            if self._widgets.get("c:" + call_id, Card) is None:
                if changes.full:
                    continue  # the full pass of the next frame makes it, in its place
                if call_id in self._unmade:
                    name, sub, after = self._unmade[call_id]
                    self._card(call_id, name, sub, after=after)
                    self._placing = True
                elif (started := changes.started(call_id)) is not None:
                    self._card(call_id, *started)
            done += 1
            changes.done_call(call_id)
            self._update_card(call_id)
        if self._placing and not self._unmade:
            changes.mark_full()  # all made: the next frame's pass puts them in their place
            self._placing = False

    def _bubble(self, message_id: str, role: str, sub: str | None = None) -> Bubble:
        bubble = self._widgets.get("m:" + message_id, Bubble)
        if bubble is None:
            bubble = self._widgets.add(Bubble(message_id, role))
            self._groups.put(bubble.key, bubble.node, sub)
        return bubble

    def _thought(self, message_id: str, sub: str | None) -> Thinking:
        thought = self._widgets.get("m:" + message_id, Thinking)
        if thought is None:
            thought = self._widgets.add(Thinking(message_id, streaming=self._changes.is_streaming(message_id)))
            self._groups.put(thought.key, thought.node, sub)
        return thought

    def _card(self, call_id: str, name: str, sub: str | None = None, *, after: str | None = None) -> Card:
        self._unmade.pop(call_id, None)
        card = self._widgets.add(Card(call_id, name))
        self._groups.put(card.key, card.node, sub, after=after)
        _fold(list(self._widgets.of_kind(Thinking)))  # a call: the answer started
        return card

    def _renderer(self, tool_name: str) -> Any:
        if tool_name not in self._renderers:
            self._renderers[tool_name] = self.thread.renderer(tool_name)
        return self._renderers[tool_name]

    def _update_card(self, call_id: str) -> None:
        try:
            part = self.thread.tool_part(call_id)
        except LocalProtocolError:
            return  # not in the history (yet): the next full pass finds it
        card = self._widgets.get("c:" + call_id, Card) or self._card(call_id, part.tool_name)
        card.update(part, self._renderer(part.tool_name))
        status = card.status
        (self._waiting.add if status in ASKING_USER else self._waiting.discard)(call_id)
        (self._working.add if status == CallStatus.EXECUTING else self._working.discard)(call_id)
        self._update_bar(card, _bar_status(part), part)

    def _update_bar(self, card: Card, status: str | None, part: ToolPart) -> None:
        if card.bar_status == status:
            return
        # The buttons answer one status; in any other they would lie (its registration left, say).
        interrupt = part.interrupt
        if status == CallStatus.AWAITING_APPROVAL and part.tool is not None:
            bar = approval_bar(part.tool_name, part.tool.description, part.tool.parameters, part.arguments)
            card.set_bar(status, bar.node, bar)
        elif status == OPEN and interrupt is not None:
            bar = interrupt_approval_bar(part.tool_name, interrupt, part.arguments)
            card.set_bar(status, bar.node, bar)
        elif status == CallStatus.INTERRUPTED:
            card.set_bar(status, interrupted_bar())
        else:
            card.set_bar(None, None)

    def _show_notices(self) -> None:
        """The "Stopped" and "Cancelled by the agent" markers (after the last item when the run
        ended so), the activities no card shows, and the error bubble."""
        changes = self._changes
        broken = changes.take_broken_activities()
        if broken or self.thread.activity_problems:
            self._activities.notices(self.thread.activity_problems, broken)
        for _ in range(changes.take_stop_marks()):
            self._stops += 1
            self._timeline.add_notice(f"n:stopped-{self._stops}", stopped_notice(), after=self._timeline.last)
        for reason in changes.take_cancel_marks():
            self._cancels += 1
            self._timeline.add_notice(f"n:cancelled-{self._cancels}", cancelled_notice(reason), after=self._timeline.last)
        thread = self.thread
        error = thread.error if thread.run_status == "error" else None
        if error is self._error_shown:
            return
        self._timeline.remove("n:error")
        self._error_shown = error
        if error is not None:
            # The developer's detail goes to the console; the bubble speaks to the user.
            console_error(console_line(thread.thread_id, error))
            self._timeline.add_notice("n:error", error_notice(error), after=None)


def _fold(thinking: list[Thinking]) -> None:
    """The answer after these "Thinking" sections started: fold them (each once)."""
    for thought in thinking:
        thought.fold()
    thinking.clear()


def _bar_status(part: ToolPart) -> str | None:
    """The status a call's button bar answers: its action's, or `"open"` while an approval
    interrupt names this call of a server tool (None: no bar)."""
    if part.action is not None:
        return part.action.status
    interrupt: Interrupt | None = part.interrupt
    if interrupt is not None and interrupt.is_approval and interrupt.status == OPEN:
        return OPEN
    return None
