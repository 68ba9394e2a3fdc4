"""The chat's commands on CPython (pyclient/browser/_chat/_commands.py): which click sends, stops or
answers a call or an interrupt, and with what, over a stand-in thread that records what it was asked."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from pyclient import AttachmentError, InterruptError, LocalProtocolError, ToolError
from pyclient.browser._chat._commands import (
    CANCEL_REASON,
    REJECT_REASON,
    Commands,
    answer_interrupt,
)
from pyclient.browser._widgets._forms import FormError


class FakeAction:
    """What `Commands` uses of an `Action`: its answers, recorded in its thread's `calls`."""

    def __init__(self, call_id: str, status: str) -> None:
        self.id = call_id
        self.status = status
        self.thread: FakeThread | None = None  # set when the thread hands the action out

    def _record(self, *call: Any) -> None:
        assert self.thread is not None
        self.thread.calls.append(call)

    def approve(self, arguments: Any = None) -> None:
        assert self.thread is not None
        if self.thread.approve_error is not None:
            raise self.thread.approve_error
        self._record("approve", self.id, arguments)

    def reject(self, reason: str | None = None) -> None:
        self._record("reject", self.id, reason)

    def retry(self) -> None:
        self._record("retry", self.id)

    def cancel(self, reason: str | None = None) -> None:
        self._record("cancel", self.id, reason)


class FakeInterrupt:
    """What `Commands` uses of an `Interrupt`: its answers, recorded in its thread's `calls`."""

    def __init__(self, interrupt_id: str, status: str = "open", error: Exception | None = None) -> None:
        self.id = interrupt_id
        self.status = status
        self.error = error
        self.thread: FakeThread | None = None

    def resolve(self, payload: Any = None) -> None:
        assert self.thread is not None
        if self.error is not None:
            raise self.error
        self.thread.calls.append(("resolve", self.id, payload))

    def cancel(self, reason: str | None = None) -> None:
        assert self.thread is not None
        self.thread.calls.append(("cancel-interrupt", self.id, reason))


class FakeThread:
    """What `Commands` uses of a `Thread`; each call is recorded in `calls`."""

    def __init__(self) -> None:
        self.run_status = "idle"
        self.read_only = False
        self.deleted = False
        self.waiting_for_person = False
        self.actions: dict[str, FakeAction] = {}
        self.interrupts: dict[str, FakeInterrupt] = {}
        self.calls: list[tuple[Any, ...]] = []
        self.approve_error: Exception | None = None
        self.send_error: Exception | None = None

    async def send(self, text: str, attachments: Any = ()) -> None:
        self.calls.append(("send", text, list(attachments)) if attachments else ("send", text))
        if self.send_error is not None:
            raise self.send_error

    async def run(self) -> None:
        self.calls.append(("run",))

    def stop(self) -> None:
        self.calls.append(("stop",))

    def action(self, call_id: str) -> FakeAction:
        return self._found(self.actions, call_id, "tool call")

    def interrupt(self, interrupt_id: str) -> FakeInterrupt:
        return self._found(self.interrupts, interrupt_id, "interrupt")

    def _found(self, table: dict[str, Any], key: str, what: str) -> Any:
        """The action or interrupt under `key`, now of this thread; a `LocalProtocolError` as
        the thread raises when it has none."""
        try:
            found = table[key]
        except KeyError:
            raise LocalProtocolError(f"No {what} {key!r}") from None
        found.thread = self
        return found


class FakeBar:
    def __init__(self, values: dict[str, Any] | None = None, error: Exception | None = None) -> None:
        self.editing = False
        self.values = values or {}
        self.error = error
        self.shown: list[str | None] = []

    def toggle_edit(self) -> None:
        self.editing = not self.editing

    def read(self) -> dict[str, Any]:
        if self.error is not None:
            raise self.error
        return self.values

    def show_error(self, message: str | None) -> None:
        self.shown.append(message)


@pytest.fixture
def thread():
    return FakeThread()


class FakeForm:
    """What `Commands` uses of an interrupt card: its answer, or the error reading it."""

    def __init__(self, answer: Any = None, error: Exception | None = None) -> None:
        self.answer = answer
        self.error = error
        self.shown: list[str | None] = []

    def read(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.answer

    def show_error(self, message: str | None) -> None:
        self.shown.append(message)


def make(thread: FakeThread, bars: dict[str, FakeBar] | None = None,
         forms: dict[str, FakeForm] | None = None) -> tuple[Commands, list[str]]:
    """Commands over `thread`; the list records the chat's callbacks ("changed", "sending_text")."""
    told: list[str] = []
    bars = bars or {}
    forms = forms or {}
    commands = Commands(thread, suggestions=("Make it blue", "Say hello"), bar=bars.get, form=forms.get,
                        changed=lambda: told.append("changed"), sending_text=lambda: told.append("sending_text"))
    return commands, told


async def settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


# -- sending ----------------------------------------------------------------------------------

def test_a_send_counts_as_running_until_it_returns(thread):
    async def main() -> None:
        commands, told = make(thread)
        assert commands.send("hello") is True
        assert told == ["sending_text", "changed"] and commands.sending and not commands.can_send()
        assert commands.send("again") is False  # one send at a time
        await settle()
        assert thread.calls == [("send", "hello")]
        assert not commands.sending and told == ["sending_text", "changed", "changed"]

    asyncio.run(main())


@pytest.mark.parametrize(("run_status", "read_only"), [("running", False), ("closed", False), ("idle", True)])
def test_no_send_while_running_closed_or_read_only(thread, run_status, read_only):
    async def main() -> None:
        thread.run_status, thread.read_only = run_status, read_only
        commands, told = make(thread)
        assert commands.send("hello") is False
        commands.click("suggest", trusted=True, index="0")
        commands.click("retry-run", trusted=True)
        await settle()
        assert thread.calls == [] and told == []

    asyncio.run(main())


def test_an_empty_message_is_not_sent(thread):
    commands, told = make(thread)
    assert commands.send("") is False
    assert thread.calls == [] and told == []


def test_files_go_with_the_text_or_alone(thread):
    async def main() -> None:
        commands, told = make(thread)
        assert commands.send("look", ["file-1", "file-2"]) is True
        await settle()
        assert commands.send("", ["file-3"]) is True  # files without text
        await settle()
        assert thread.calls == [("send", "look", ["file-1", "file-2"]), ("send", "", ["file-3"])]
        assert told.count("sending_text") == 2

    asyncio.run(main())


@pytest.mark.parametrize("error", [AttachmentError("big.png is 12 MB, over the 10 MB a file may be.", limit=10),
                                   ToolError("a file (x.png) that could not be read: NotReadableError")])
def test_files_the_send_refused_are_handed_back_and_nothing_is_logged(thread, caplog, error):
    async def main() -> None:
        thread.send_error = error
        commands, told = make(thread)
        refused: list[Exception] = []
        assert commands.send("look", ["file-1"], refused=refused.append) is True
        await settle()
        assert refused == [error] and not commands.sending

    with caplog.at_level(logging.ERROR, logger="pyclient"):
        asyncio.run(main())
    assert caplog.text == ""


def test_an_error_that_is_not_about_the_files_is_logged_not_handed_back(thread, caplog):
    async def main() -> None:
        thread.send_error = RuntimeError("a bug")
        commands, told = make(thread)
        refused: list[Exception] = []
        commands.send("look", ["file-1"], refused=refused.append)
        await settle()
        assert refused == []

    with caplog.at_level(logging.ERROR, logger="pyclient"):
        asyncio.run(main())
    assert "a bug" in caplog.text


def test_a_send_that_raises_is_logged_not_lost(thread, caplog):
    async def main() -> None:
        thread.send_error = RuntimeError("a bug")
        commands, told = make(thread)
        commands.send("hello")
        await settle()
        assert not commands.sending and told == ["sending_text", "changed", "changed"]

    with caplog.at_level(logging.ERROR, logger="pyclient"):
        asyncio.run(main())
    assert "sending from the chat failed" in caplog.text and "a bug" in caplog.text


def test_a_disposed_chat_is_not_told_when_the_send_ends(thread):
    async def main() -> None:
        commands, told = make(thread)
        commands.send("hello")
        commands.dispose()
        await settle()
        assert thread.calls == [("send", "hello")] and told == ["sending_text", "changed"]

    asyncio.run(main())


def test_suggestions_and_retry_run_on_trusted_clicks(thread):
    async def main() -> None:
        commands, told = make(thread)
        commands.click("suggest", trusted=True, index="1")
        await settle()
        thread.run_status = "error"
        commands.click("retry-run", trusted=True)
        await settle()
        assert thread.calls == [("send", "Say hello"), ("run",)]
        assert told == ["sending_text", "changed", "changed", "changed", "changed"]  # a rerun keeps the input

    asyncio.run(main())


# -- trust --------------------------------------------------------------------------------------

def test_stop_acts_on_any_click_the_rest_only_on_trusted_ones(thread, caplog):
    async def main() -> None:
        thread.actions["c1"] = FakeAction("c1", "awaiting_approval")
        bar = FakeBar()
        commands, told = make(thread, {"c1": bar})
        commands.click("stop", trusted=False)
        for command in ("suggest", "retry-run"):
            commands.click(command, trusted=False, index="0")
        for command in ("approve", "reject", "edit"):
            commands.click(command, trusted=False, call_id="c1", status="awaiting_approval")
        await settle()
        assert thread.calls == [("stop",)] and told == [] and not bar.editing

    with caplog.at_level(logging.WARNING, logger="pyclient"):
        asyncio.run(main())
    ignored = [r.getMessage() for r in caplog.records]
    assert ignored == ["pyclient: ignored an untrusted click for suggest",
                       "pyclient: ignored an untrusted click for retry-run"] + \
        ["pyclient: ignored an untrusted click for c1"] * 3


# -- answering calls ---------------------------------------------------------------------------

@pytest.mark.parametrize(("command", "status", "answered"), [
    ("approve", "awaiting_approval", ("approve", "c1", None)),
    ("reject", "awaiting_approval", ("reject", "c1", REJECT_REASON)),
    ("retry", "interrupted", ("retry", "c1")),
    ("cancel", "interrupted", ("cancel", "c1", CANCEL_REASON)),
])
def test_each_button_gives_its_answer_in_the_status_it_answers(thread, command, status, answered):
    thread.actions["c1"] = FakeAction("c1", status)
    commands, told = make(thread)
    commands.click(command, trusted=True, call_id="c1", status=status)
    assert thread.calls == [answered] and told == []


@pytest.mark.parametrize("status", ["executing", "completed", "cancelled", "unavailable"])
def test_a_button_that_outlived_its_status_does_nothing(thread, status):
    thread.actions["c1"] = FakeAction("c1", status)
    commands, _ = make(thread)
    for command, answers in (("approve", "awaiting_approval"), ("reject", "awaiting_approval"),
                             ("retry", "interrupted"), ("cancel", "interrupted")):
        commands.click(command, trusted=True, call_id="c1", status=answers)
    assert thread.calls == []


def test_unknown_calls_commands_and_buttons_without_a_status_do_nothing(thread):
    thread.actions["c1"] = FakeAction("c1", "awaiting_approval")
    commands, told = make(thread)
    commands.click("approve", trusted=True, call_id="gone", status="awaiting_approval")
    commands.click("launch", trusted=True, call_id="c1", status="awaiting_approval")
    commands.click("approve", trusted=True, call_id="c1", status=None)
    commands.click("approve", trusted=True)  # not in a card
    assert thread.calls == [] and told == []


def test_approve_sends_the_edited_arguments_only_while_the_form_is_open(thread):
    thread.actions["c1"] = FakeAction("c1", "awaiting_approval")
    bar = FakeBar({"to": "bob"})
    commands, _ = make(thread, {"c1": bar})
    commands.click("edit", trusted=True, call_id="c1", status="awaiting_approval")
    assert not bar.editing and thread.calls == []  # Edit is the card's own (Card.on_command), not an answer
    bar.toggle_edit()  # the card opened the form
    commands.click("approve", trusted=True, call_id="c1", status="awaiting_approval")
    bar.toggle_edit()  # and closed it again
    commands.click("approve", trusted=True, call_id="c1", status="awaiting_approval")
    assert thread.calls == [("approve", "c1", {"to": "bob"}), ("approve", "c1", None)]


@pytest.mark.parametrize("where", ["form", "thread"])
def test_an_edit_that_does_not_read_or_validate_is_shown_and_the_call_waits(thread, where):
    thread.actions["c1"] = FakeAction("c1", "awaiting_approval")
    bar = FakeBar({"count": "x"}, error=FormError("count: not a number") if where == "form" else None)
    if where == "thread":
        thread.approve_error = ToolError("Invalid arguments for tool 'send_mail': count")
    bar.editing = True
    commands, _ = make(thread, {"c1": bar})
    commands.click("approve", trusted=True, call_id="c1", status="awaiting_approval")
    assert thread.calls == []
    assert bar.shown == ["count: not a number" if where == "form" else "Invalid arguments for tool 'send_mail': count"]


def test_edit_without_a_bar_and_approve_without_one(thread):
    thread.actions["c1"] = FakeAction("c1", "awaiting_approval")
    commands, _ = make(thread)
    commands.click("edit", trusted=True, call_id="c1", status="awaiting_approval")
    commands.click("approve", trusted=True, call_id="c1", status="awaiting_approval")
    assert thread.calls == [("approve", "c1", None)]


# -- sending while the run waits for the person ----------------------------------------------------

def test_a_message_goes_while_the_run_waits_only_for_the_person(thread):
    async def main() -> None:
        commands, told = make(thread)
        assert commands.send("delete bob") is True
        await asyncio.sleep(0)
        # The first send has not returned: the run waits for an approval or an interrupt's answer.
        thread.run_status, thread.waiting_for_person = "running", True
        assert commands.sending and commands.can_send()
        assert commands.send("never mind") is True
        # Until that send has started, the thread still looks as if it waited: no second one.
        assert not commands.can_send() and commands.send("twice") is False
        await asyncio.sleep(0)
        assert commands.can_send()  # the stand-in thread keeps waiting; a real one would not
        # A rerun is never a way out of a wait.
        commands.click("retry-run", trusted=True)
        await settle()
        assert thread.calls == [("send", "delete bob"), ("send", "never mind")]

    asyncio.run(main())


@pytest.mark.parametrize(("run_status", "read_only"), [("closed", False), ("running", True)])
def test_waiting_for_the_person_does_not_open_a_closed_or_read_only_thread(thread, run_status, read_only):
    thread.run_status, thread.read_only, thread.waiting_for_person = run_status, read_only, True
    commands, told = make(thread)
    assert commands.send("hello") is False and thread.calls == [] and told == []


# -- answering interrupts -----------------------------------------------------------------------

@pytest.mark.parametrize(("command", "payload", "answered"), [
    ("approve", None, ("resolve", "i1", {"approved": True})),
    ("approve", {"user": "carol"}, ("resolve", "i1", {"approved": True, "editedArgs": {"user": "carol"}})),
    ("reject", None, ("resolve", "i1", {"approved": False, "reason": REJECT_REASON})),
    ("resolve", {"colour": "blue"}, ("resolve", "i1", {"colour": "blue"})),
    ("resolve", None, ("resolve", "i1", None)),
    ("cancel", None, ("cancel-interrupt", "i1", CANCEL_REASON)),
])
def test_answer_interrupt_gives_each_answer(thread, command, payload, answered):
    interrupt = thread.interrupts["i1"] = FakeInterrupt("i1")
    interrupt.thread = thread
    answer_interrupt(interrupt, command, payload)  # type: ignore[arg-type]
    assert thread.calls == [answered]


def test_a_server_tools_approval_bar_answers_its_interrupt(thread):
    thread.interrupts["i1"] = FakeInterrupt("i1")
    bar = FakeBar({"user": "carol"})
    commands, told = make(thread, {"c1": bar})
    commands.click("approve", trusted=True, call_id="c1", interrupt_id="i1", status="open")
    bar.toggle_edit()  # the card's Edit (Card.on_command) opened the form
    commands.click("approve", trusted=True, call_id="c1", interrupt_id="i1", status="open")
    commands.click("reject", trusted=True, call_id="c1", interrupt_id="i1", status="open")
    assert thread.calls == [("resolve", "i1", {"approved": True}),
                            ("resolve", "i1", {"approved": True, "editedArgs": {"user": "carol"}}),
                            ("resolve", "i1", {"approved": False, "reason": REJECT_REASON})]
    assert told == []


def test_an_interrupt_card_sends_what_its_form_holds_or_cancels(thread):
    thread.interrupts["i1"] = FakeInterrupt("i1")
    form = FakeForm({"colour": "blue"})
    commands, _ = make(thread, forms={"i1": form})
    commands.click("resolve", trusted=True, interrupt_id="i1", status="open")
    commands.click("cancel", trusted=True, interrupt_id="i1", status="open")
    assert thread.calls == [("resolve", "i1", {"colour": "blue"}), ("cancel-interrupt", "i1", CANCEL_REASON)]
    assert form.shown == []


@pytest.mark.parametrize("where", ["form", "schema"])
def test_an_answer_that_does_not_read_or_fit_is_shown_and_nothing_is_sent(thread, where):
    error: Exception = FormError("colour: enter a value.") if where == "form" else InterruptError(
        "The answer to interrupt 'i1' does not fit its response schema: colour: must be a string.", ["colour"])
    thread.interrupts["i1"] = FakeInterrupt("i1", error=error if where == "schema" else None)
    form = FakeForm({"colour": 7}, error=error if where == "form" else None)
    commands, _ = make(thread, forms={"i1": form})
    commands.click("resolve", trusted=True, interrupt_id="i1", status="open")
    assert thread.calls == [] and form.shown == [str(error)]


def test_an_approval_the_schema_refuses_is_shown_in_the_bar(thread):
    thread.interrupts["i1"] = FakeInterrupt("i1", error=InterruptError("Interrupt 'i1' expired at 2020-01-01", []))
    bar = FakeBar()
    commands, _ = make(thread, {"c1": bar})
    commands.click("approve", trusted=True, call_id="c1", interrupt_id="i1", status="open")
    assert thread.calls == [] and bar.shown == ["Interrupt 'i1' expired at 2020-01-01"]


def test_interrupt_buttons_act_only_on_trusted_clicks_while_open(thread, caplog):
    thread.interrupts["i1"] = FakeInterrupt("i1")
    thread.interrupts["i2"] = FakeInterrupt("i2", status="resolved")
    thread.interrupts["i3"] = FakeInterrupt("i3")
    bar = FakeBar()
    commands, _ = make(thread, {"c1": bar}, {"i1": FakeForm("x"), "i2": FakeForm("x")})
    with caplog.at_level(logging.WARNING, logger="pyclient"):
        for command in ("approve", "reject", "edit", "resolve", "cancel"):
            commands.click(command, trusted=False, call_id="c1", interrupt_id="i1", status="open")
    assert thread.calls == [] and not bar.editing
    assert [r.getMessage() for r in caplog.records] == ["pyclient: ignored an untrusted click for i1"] * 5
    for command in ("approve", "reject", "resolve", "cancel"):
        commands.click(command, trusted=True, interrupt_id="i2", status="open")     # answered already
        commands.click(command, trusted=True, interrupt_id="i1", status="resolved")  # not what it answers
        commands.click(command, trusted=True, interrupt_id="gone", status="open")
    commands.click("launch", trusted=True, interrupt_id="i1", status="open")
    commands.click("resolve", trusted=True, interrupt_id="i3", status="open")  # no card to read it from
    assert thread.calls == []
