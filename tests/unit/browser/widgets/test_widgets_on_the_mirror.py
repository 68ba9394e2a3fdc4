"""The chat's widgets on CPython: built in the worker's mirror document (`use_document`), drawn
from real threads driven by a scripted agent in this process. What only a browser shows
(layout, focus, the HTML a Markdown render makes on the page) stays in tests/e2e; here: which
nodes a widget makes and keeps, what it sends the page, and the list's one registry."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pyclient import Agent, client_tool
from pyclient.browser._chat._changes import Changes
from pyclient.browser._chat._reconcile import MessageList
from pyclient.browser._page._document import use_document
from pyclient.browser._page._mirror import MirrorDocument
from pyclient.browser._page._nodes import el
from pyclient.browser._widgets._bubbles import Bubble
from pyclient.browser._widgets._cards import Card
from pyclient.browser._widgets._thinking_section import Thinking
from pyclient.browser._widgets._widget import Click, Widgets
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, until


class Page:
    """What the page would receive: each batch of operations, sent when the test flushes."""

    def __init__(self) -> None:
        self.batches: list[list[Any]] = []
        self.scheduled: list[Any] = []
        self.document = MirrorDocument(self.batches.append, schedule=self.scheduled.append)

    def flush(self) -> list[Any]:
        """Send what the widgets queued; the operations sent."""
        while self.scheduled:
            self.scheduled.pop(0)()
        ops = [op for batch in self.batches for op in batch]
        self.batches.clear()
        return ops


@pytest.fixture
def mirror():
    page = Page()
    use_document(page.document)
    yield page
    use_document(None)


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading."""
    return f"heading is {text}"


@client_tool(requires_approval=True)
def delete_notes(reason: str) -> str:
    """Delete every note."""
    return "deleted"


def thread_of(agent: ScriptedAgent, *tools: Any) -> Any:
    return Agent("test", "http://agent.test/agent", client_tools=tools, transport=agent.transport()).thread()


class DrawnList(MessageList):
    """A thread's message list, drawn once into the mirror; `redraw()` draws it again in full,
    as the chat's frame does after a "messages" change."""

    def __init__(self, thread: Any) -> None:
        self.changes = Changes(thread.run_status, run_end=lambda: thread.run_end)
        super().__init__(thread, el("ol"), self.changes)
        self.draw(budget=10)

    def redraw(self) -> None:
        self.changes.mark_full()
        self.draw(budget=10)


def items(messages: MessageList) -> list[Any]:
    return list(messages.node.children)


def test_a_user_bubble_shows_its_text_as_text(mirror):
    bubble = Bubble("u1", "user")
    bubble.show_content("<b>hi</b> there")
    assert bubble.key == "m:u1" and bubble.node.dataset.role == "user"
    assert bubble.node.textContent == "<b>hi</b> there" and bubble.node.querySelector("b") is None
    bubble.show_content("<b>hi</b> there, again")   # an edit: the same node, its text replaced
    assert bubble.node.textContent == "<b>hi</b> there, again"


def test_an_assistant_bubble_sends_its_markdown_once_and_streams_the_rest_as_text(mirror):
    bubble = Bubble("a1", "assistant")
    bubble.update("Hi **there**", streaming=False)
    html = [op[3] for op in mirror.flush() if op[:1] == ["p"] and op[2] == "innerHTML"]
    assert html == ["<p>Hi <strong>there</strong></p>\n"]     # rendered by markdown-it, sent as HTML
    bubble.update("Hi **there**\n\nand more", streaming=True)  # right after a render: text in the tail
    assert [op for op in mirror.flush() if op[:1] == ["t"]][-1][-1] == "\n\nand more"
    bubble.update("Hi **there**\n\nand more", streaming=False)  # the end: all of it rendered, the tail gone
    sent = [op[2:] for op in mirror.flush()]
    assert sent == [["innerHTML", "<p>Hi <strong>there</strong></p>\n<p>and more</p>\n"], [[]]]
    assert bubble.text == "Hi **there**\n\nand more"
    bubble.mark_interrupted()
    assert bubble.node.dataset.interrupted == "true"


def test_a_thinking_section_starts_open_while_it_streams_and_folds_once(mirror):
    thought = Thinking("r1", streaming=True)
    thought.update("Let me think", streaming=True)
    summary = thought.node.querySelector("summary")
    assert thought.key == "m:r1" and summary.textContent == "Thinking…"
    thought.fold()
    assert summary.textContent == "Thinking"
    assert thought.node.querySelector(".pyclient-thinking-text").textContent == "Let me think"


def test_the_list_makes_one_widget_per_item_and_keeps_them_across_passes(mirror):
    agent = ScriptedAgent()
    agent.on("make it blue").say("On it.").call("set_heading", {"text": "Blue"}).then_say("Done: it is blue.")
    thread = thread_of(agent, set_heading)
    arun(thread.send("make it blue"))
    assert thread.run_status == "idle", thread.error

    messages = DrawnList(thread)
    kinds = [(node.className.split()[0], node.dataset.role or node.dataset.tool) for node in items(messages)]
    assert kinds == [("pyclient-message", "user"), ("pyclient-message", "assistant"),
                     ("pyclient-tool", "set_heading"), ("pyclient-message", "assistant")]
    [call] = [m.tool_calls[0] for m in thread.messages if getattr(m, "tool_calls", None)]
    card = items(messages)[2]
    assert card.dataset.toolCallId == call.id and card.dataset.status == "completed"
    assert "heading is Blue" in card.textContent

    before = items(messages)
    messages.redraw()  # the same thread drawn again in full: the same nodes, none made again
    assert items(messages) == before and not messages.pending


def test_a_call_awaiting_approval_has_its_bar_on_its_card_until_it_is_answered(mirror):
    agent = ScriptedAgent()
    agent.on("clear my notes").call("delete_notes", {"reason": "tidy"}).then_say("All gone.")
    thread = thread_of(agent, delete_notes)

    async def scenario() -> None:
        sending = asyncio.create_task(thread.send("clear my notes"))
        await until(lambda: thread.pending_actions)
        [action] = thread.pending_actions
        assert action.status == "awaiting_approval"

        messages = DrawnList(thread)
        bar = messages.bar(action.id)
        assert bar is not None and messages.waiting
        card = items(messages)[-1]
        assert card.querySelector(".pyclient-approval") is bar.node
        assert [b.dataset.command for b in card.querySelectorAll("button[data-command]")][:2] == ["approve", "reject"]
        # Its Edit is the card's own: it opens and closes the bar's form, for the person only.
        edit = card.querySelector("button[data-command=edit]")
        widget = messages.widget_for(edit)
        assert isinstance(widget, Card) and widget.on_command(Click("edit", edit, trusted=False)) and not bar.editing
        assert widget.on_command(Click("edit", edit, trusted=True)) and bar.editing
        assert widget.on_command(Click("edit", edit, trusted=True)) and not bar.editing

        action.approve()
        await sending
        assert thread.run_status == "idle", thread.error
        messages.redraw()
        assert messages.bar(action.id) is None and card.querySelector(".pyclient-approval") is None
        assert card.dataset.status == "completed" and not messages.waiting

    arun(scenario())


def test_an_interrupt_gets_one_card_in_the_registry_and_the_list(mirror):
    agent = ScriptedAgent()
    agent.on("pick a colour").say("Let me ask.").interrupt(
        "Which colour?", response_schema={"type": "object", "properties": {"colour": {"type": "string"}}},
        interrupt_id="i1").then_say("Thanks.")
    thread = thread_of(agent)

    async def scenario() -> None:
        sending = asyncio.create_task(thread.send("pick a colour"))
        await until(lambda: thread.interrupts)
        messages = DrawnList(thread)
        asked = [node for node in items(messages) if node.dataset.interruptId == "i1"]
        assert len(asked) == 1 and messages.asking
        card = messages.form("i1")
        assert card is not None and card.node is asked[0] and "Which colour?" in asked[0].textContent
        thread.interrupt("i1").resolve({"colour": "blue"})
        await sending
        messages.redraw()
        assert not messages.asking and messages.form("i1") is card   # answered: the same card, read-only
        assert [node for node in items(messages) if node.dataset.interruptId == "i1"] == asked

    arun(scenario())


def test_widgets_are_kept_by_key_and_looked_up_by_kind(mirror):
    widgets = Widgets()
    bubble = widgets.add(Bubble("m1", "assistant"))
    card = widgets.add(Card("c1", "set_heading"))
    assert widgets.get("m:m1", Bubble) is bubble and widgets.get("m:m1", Card) is None
    assert list(widgets.of_kind(Card)) == [card] and len(widgets) == 2
    assert widgets.forget("c:c1") is card and widgets.get("c:c1", Card) is None


def test_each_bubble_owns_its_bar_and_the_bars_act_through_the_bubbles(mirror):
    from pyclient.browser._widgets._message_bar import MessageBar, MessageBars

    agent = ScriptedAgent()
    agent.on("hello").say("Hi there.")
    thread = thread_of(agent)
    arun(thread.send("hello"))
    messages = DrawnList(thread)
    bars = MessageBars(thread, on_feedback=None, act=lambda run: True)
    bars.update(messages.bubbles(), busy=False)
    bubbles = messages.bubbles()
    assert [bubble.role for bubble in bubbles.values()] == ["user", "assistant"]
    for bubble in bubbles.values():
        assert isinstance(bubble.bar, MessageBar) and bubble.bar.node.parentNode is bubble.node
        assert bubble.bar.node.dataset.widget == "b:" + bubble.message_id
    user = next(iter(bubbles.values()))
    edit = user.node.querySelector(".pyclient-edit")
    assert messages.widget_for(edit) is user  # the bar's button: routed to the bubble that owns the bar
    assert user.on_command(Click("edit-message", edit, trusted=False))  # a script's click: taken, nothing done
    assert user.node.querySelector(".pyclient-editor") is None
    assert user.on_command(Click("edit-message", edit, trusted=True))
    assert user.node.querySelector(".pyclient-editor textarea") is not None
    cancel = user.node.querySelector(".pyclient-edit-cancel")
    assert messages.widget_for(cancel) is user and user.on_command(Click("edit-cancel", cancel, trusted=True))
    assert user.node.querySelector(".pyclient-editor") is None
    assert not user.on_command(Click("regenerate", edit, trusted=True))  # acts on the thread: MessageBars.click's
    user.on_command(Click("edit-message", edit, trusted=True))
    bars.update(messages.bubbles(), busy=True)  # drawn again: the same bars, updated in place
    assert user.bar is next(iter(messages.bubbles().values())).bar and user.bar.node.querySelector(".pyclient-edit").disabled


def test_a_click_goes_to_the_nearest_widget_and_a_card_shows_all_of_a_huge_argument(mirror):
    agent = ScriptedAgent()
    agent.on("make it blue").call("set_heading", {"text": "Blue " * 25_000}).then_say("Done.")
    thread = thread_of(agent, set_heading)
    arun(thread.send("make it blue"))
    messages = DrawnList(thread)
    card = next(node for node in items(messages) if node.dataset.tool == "set_heading")
    button = next(b for b in card.querySelectorAll(".pyclient-show-all") if b.dataset.part == "args")
    widget = messages.widget_for(button)
    assert isinstance(widget, Card) and widget.node is card
    assert widget.on_command(Click("approve", button, trusted=True)) is False  # the thread's commands are not the card's
    assert widget.on_command(Click("edit", button, trusted=True)) is False     # no approval bar: no Edit of its own
    shown = len(card.querySelector(".pyclient-tool-args").textContent)
    assert widget.on_command(Click("show-all", button, trusted=True)) is True
    assert len(card.querySelector(".pyclient-tool-args").textContent) > shown
    assert messages.widget_for(messages.node) is None            # outside every widget


def test_an_activity_card_is_a_widget_keyed_by_its_message(mirror):
    from ag_ui.core import ActivityMessage

    from pyclient.browser._widgets._activity_cards import ActivityCard

    card = ActivityCard("a1")
    card.update(ActivityMessage(id="a1", activity_type="search", content={"query": "pyodide"}))
    assert card.key == "a:a1" and card.node.dataset.widget == "a:a1" and card.node.dataset.activityType == "search"
    assert card.node.querySelector("dd").textContent == "pyodide"
    card.update(ActivityMessage(id="a1", activity_type="search", content={"query": "pyscript"}))
    assert card.node.querySelector("dd").textContent == "pyscript"   # the same node, updated


@client_tool
def tick(n: int) -> str:
    """Count."""
    return f"tick {n}"


def test_a_list_drawn_first_after_a_whole_turn_of_parallel_calls_shows_the_persons_message(mirror):
    # The first frame with messages comes after the run (a page busy with the stream): the
    # history window starts at the person's message, so its bubble and every card are made.
    server = ScriptedAgent()
    turn = server.on("many").then_say("done")
    for n in range(100):
        turn = turn.call("tick", {"n": n})
    thread = thread_of(server, tick)
    messages = DrawnList(thread)       # drawn while the history is empty
    arun(thread.send("many"))          # the whole turn, with no frame in between
    messages.redraw()
    nodes = items(messages)
    assert nodes[0].dataset.role == "user"
    assert [node.dataset.toolCallId for node in nodes[1:-1]] == [part.tool_call_id for part in thread.tool_parts()]
    assert len(nodes) == 102 and nodes[-1].dataset.role == "assistant"
