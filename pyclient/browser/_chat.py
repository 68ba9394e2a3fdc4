"""A small chat UI for a `Thread`: message list, tool-call cards, approvals, a send form.

It builds on the thread's listener API only (`thread.subscribe`), so it is also the
reference for writing your own UI. Everything is written as text nodes: model output and
tool arguments never become HTML. Approval buttons (and the Retry/Cancel buttons of a call
interrupted by a reload) act only on trusted user events (`event.isTrusted`), never on
synthetic clicks. A thread kept in a store (`store=`) is restored at once
(`thread.restore()`): its history, its cards, the partial text of a run the reload cut
(marked `data-interrupted`); a thread another tab holds is shown read-only.

The chat lives as long as its thread: the thread's listener holds it, and the page's event
listeners hold it only weakly, so a chat whose thread is closed (`thread.close()`) or freed
removes its nodes' listeners and destroys its proxies.
See https://developer.mozilla.org/en-US/docs/Web/API/Event/isTrusted

```python
from pyscript import document
from pyclient import Agent
from pyclient.browser import Chat

agent = Agent("main", url="/agent")
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"))
# chat.dispose() removes its nodes and listeners
```
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import js
from pyodide.ffi import create_proxy

if TYPE_CHECKING:
    from .._actions import Action
    from .._listeners import ThreadEvent
    from .._thread import Thread

__all__ = ["Chat"]

logger = logging.getLogger("pyclient")


def _el(tag: str, cls: str = "", text: str | None = None) -> Any:
    node = js.document.createElement(tag)
    if cls:
        node.className = cls
    if text is not None:
        node.textContent = text  # text, never innerHTML
    return node


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False)
    except ValueError:
        return arguments


class Chat:
    """Renders `thread` into `element` and sends what the user types.

    Args:
        thread: the thread to show.
        element: the container (a JS element); the chat appends its nodes to it.
        placeholder: the input's placeholder text.
    """

    def __init__(self, thread: Thread, element: Any, *, placeholder: str = "Ask the agent…") -> None:
        self.thread = thread
        self._root = _el("div", "pyclient-chat")
        self._list = _el("ol", "pyclient-messages")
        self._status = _el("p", "pyclient-run-status")
        self._form = _el("form", "pyclient-form")
        self._input = _el("input")
        self._input.name = "message"
        self._input.placeholder = placeholder
        self._input.autocomplete = "off"
        self._send = _el("button", "pyclient-send", "Send")
        self._send.type = "submit"
        self._stop = _el("button", "pyclient-stop", "Stop")
        self._stop.type = "button"
        self._form.append(self._input, self._send, self._stop)
        self._root.append(self._list, self._status, self._form)
        element.append(self._root)

        self._nodes: dict[str, Any] = {}       # message id -> its <li>
        self._texts: dict[str, str] = {}       # message id -> the text shown
        self._args: dict[str, str] = {}        # tool call id -> the arguments shown
        self._cards: dict[str, Any] = {}       # tool call id -> its card <li>
        self._approvals: dict[str, Any] = {}   # tool call id -> removes its button bar
        self._bar_kinds: dict[str, str] = {}   # tool call id -> the status its bar answers
        self._tasks: set[asyncio.Task[None]] = set()
        # Kept so dispose() can remove the listeners and destroy the proxies. The proxies
        # reach the chat through a weak reference: a JS listener must not keep it alive.
        self._proxies: list[tuple[Any, str, Any]] = []
        self._listen(self._form, "submit", "_on_submit")
        self._listen(self._stop, "click", "_on_stop")
        self._unsubscribe = thread.subscribe(self._on_thread)
        self._finalizer = weakref.finalize(self, _release, self._proxies)
        self._render()
        if thread.store is not None:
            restoring = asyncio.ensure_future(self._restore())
            self._restoring = restoring  # asyncio holds tasks weakly

    async def _restore(self) -> None:
        try:
            await self.thread.restore()
        except Exception:
            logger.exception("pyclient: restoring thread %s failed", self.thread.thread_id)
        if self._proxies:  # not disposed meanwhile
            self._render()

    def _listen(self, target: Any, kind: str, method: str) -> None:
        reference = weakref.ref(self)

        def listener(event: Any) -> None:
            chat = reference()
            if chat is not None:
                getattr(chat, method)(event)

        proxy = create_proxy(listener)
        target.addEventListener(kind, proxy)
        self._proxies.append((target, kind, proxy))

    def dispose(self) -> None:
        """Remove the chat's nodes and listeners; the thread is left as it is."""
        self._unsubscribe()
        self._finalizer()
        for remove_bar in list(self._approvals.values()):
            remove_bar()
        self._approvals.clear()
        self._bar_kinds.clear()
        self._root.remove()

    # -- user input ----------------------------------------------------------------------

    def _on_submit(self, event: Any) -> None:
        event.preventDefault()
        text = str(self._input.value).strip()
        if not text or self._tasks or self.thread.run_status in ("running", "closed") or self.thread.read_only:
            return
        self._input.value = ""
        task = asyncio.ensure_future(self.thread.send(text))
        self._tasks.add(task)  # keep a reference until it is done (asyncio holds tasks weakly)
        task.add_done_callback(self._sent)
        self._render()  # "running" from the click on: the send starts a moment later

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # send() raises only for misuse or a bug; say so instead of "never retrieved".
            logger.error("pyclient: sending from the chat failed", exc_info=task.exception())
        if self._proxies:  # not disposed meanwhile
            self._render()

    def _on_stop(self, event: Any) -> None:
        self.thread.stop()

    # -- rendering -----------------------------------------------------------------------

    def _on_thread(self, event: ThreadEvent) -> None:
        if event.kind == "closed":
            self.dispose()
        elif event.kind in ("messages", "status", "action", "error"):
            self._render()

    def _render(self) -> None:
        interrupted = set(self.thread.interrupted_messages)
        for message in self.thread.messages:
            role = message.role
            if role == "tool":
                self._render_result(message)
                continue
            text = message.content if isinstance(message.content, str) else ""
            if text or role == "user":
                self._render_text(message.id, role, text or "")
                if message.id in interrupted:
                    node = self._nodes[message.id]
                    node.dataset.interrupted = "true"
                    node.title = "interrupted: the page was reloaded while this answer streamed"
            for call in getattr(message, "tool_calls", None) or []:
                self._render_call(call)
                if message.id in interrupted:
                    self._cards[call.id].dataset.interrupted = "true"
        for action in self.thread.pending_actions:
            self._render_action(action)
        # A send scheduled but not started yet counts as running (no second send meanwhile).
        status = "running" if self._tasks and self.thread.run_status != "closed" else self.thread.run_status
        error = self.thread.error
        if self.thread.read_only:
            self._status.textContent = "read-only: another tab holds this thread"
            self._root.dataset.readOnly = "true"
        else:
            self._status.textContent = f"error: {error}" if status == "error" and error else status
        self._status.dataset.status = status
        self._root.dataset.status = status
        self._send.disabled = status == "running" or self.thread.read_only
        self._stop.disabled = status != "running"

    def _render_text(self, message_id: str, role: str, text: str) -> None:
        node = self._nodes.get(message_id)
        if node is None:
            node = self._nodes[message_id] = _el("li", f"pyclient-message pyclient-{role}")
            node.dataset.role = role
            node.append(js.document.createTextNode(""))
            self._list.append(node)
        shown = self._texts.get(message_id, "")
        if shown == text:
            return
        self._texts[message_id] = text
        if text.startswith(shown):
            # A streamed delta: append only the new part, so a long answer costs linear time.
            node.firstChild.appendData(text[len(shown):])
        else:
            node.firstChild.data = text

    def _render_call(self, call: Any) -> None:
        card = self._cards.get(call.id)
        if card is None:
            card = self._cards[call.id] = _el("li", "pyclient-tool")
            card.dataset.toolCallId = call.id
            card.dataset.tool = call.function.name
            card.dataset.state = "input-available"
            card.append(_el("span", "pyclient-tool-name", call.function.name),
                        _el("code", "pyclient-tool-args"),
                        _el("span", "pyclient-tool-result", "…"))
            self._list.append(card)
        if self._args.get(call.id) != call.function.arguments:
            # Arguments stream in: show them as they grow, pretty once they parse.
            self._args[call.id] = call.function.arguments
            card.querySelector(".pyclient-tool-args").textContent = _pretty(call.function.arguments)

    def _render_result(self, message: Any) -> None:
        card = self._cards.get(message.tool_call_id)
        if card is None or card.dataset.state in ("output-available", "output-error"):
            return
        failed = getattr(message, "error", None) is not None
        card.dataset.state = "output-error" if failed else "output-available"
        card.querySelector(".pyclient-tool-result").textContent = message.content
        remove_bar = self._approvals.pop(message.tool_call_id, None)
        self._bar_kinds.pop(message.tool_call_id, None)
        if remove_bar is not None:
            remove_bar()

    def _render_action(self, action: Action) -> None:
        card = self._cards.get(action.id)
        if card is None:
            return
        card.dataset.action = action.status
        if self._bar_kinds.get(action.id) == action.status:
            return
        # The buttons answer one status; in any other they would lie (its registration left, say).
        remove_bar = self._approvals.pop(action.id, None)
        self._bar_kinds.pop(action.id, None)
        if remove_bar is not None:
            remove_bar()
        buttons = _BARS.get(action.status)
        if buttons is None:
            return
        bar = _el("span", "pyclient-approval" if action.status == "awaiting_approval" else "pyclient-interrupted")
        card.append(bar)
        thread = weakref.ref(self.thread)
        call_id, status = action.id, action.status

        def answer(act: Callable[[Thread, str], None]) -> Any:
            def handler(event: Any) -> None:
                live = thread()
                if not event.isTrusted:  # a script's synthetic click is not the user's consent
                    logger.warning("pyclient: ignored an untrusted click for %s", call_id)
                    return
                if live is None or live.action(call_id).status != status:
                    return
                act(live, call_id)
            return create_proxy(handler)

        proxies = []
        for cls, label, act in buttons:
            button = _el("button", cls, label)
            bar.append(button)
            proxy = answer(act)
            button.addEventListener("click", proxy)
            proxies.append((button, proxy))

        def dispose() -> None:
            for button, proxy in proxies:
                button.removeEventListener("click", proxy)
                proxy.destroy()
            bar.remove()

        self._approvals[action.id] = dispose
        self._bar_kinds[action.id] = status


# The buttons of a card, per action status: (class, label, what a trusted click does).
_BARS: dict[str, list[tuple[str, str, Callable[[Thread, str], None]]]] = {
    "awaiting_approval": [
        ("pyclient-approve", "Approve", lambda thread, call_id: thread.approve_tool(call_id)),
        ("pyclient-reject", "Reject", lambda thread, call_id: thread.reject_tool(call_id, "the user clicked Reject")),
    ],
    "interrupted": [  # the page was reloaded while it ran: run it again, or give up
        ("pyclient-retry", "Retry", lambda thread, call_id: thread.retry_tool(call_id)),
        ("pyclient-cancel", "Cancel", lambda thread, call_id: thread.cancel_tool(call_id, "the user clicked Cancel")),
    ],
}


def _release(proxies: list[tuple[Any, str, Any]]) -> None:
    """Remove the chat's JS listeners and destroy their proxies (on dispose, or when it is freed)."""
    for target, kind, proxy in proxies:
        target.removeEventListener(kind, proxy)
        proxy.destroy()
    proxies.clear()
