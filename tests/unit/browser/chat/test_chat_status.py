"""The chat's status line and form controls on CPython: `run_view()` and `can_send()`
(pyclient/browser/_chat/_status.py: pure functions of the thread's state), every branch."""

from __future__ import annotations

import pytest

from pyclient._conversation._records import RunEnd
from pyclient.browser._chat._status import RunView, can_send, run_view

STOPPED = RunEnd("stopped", "stopped by the user", "r1")
FINISHED = RunEnd("finished", None, "r1")
FAILED = RunEnd("failed", "HTTP 503", "r1")
CLOSED = RunEnd("closed", "closed", "r1")


def view(run_status: str = "idle", *, sending: bool = False, read_only: bool = False, waiting: bool = False,
         working: bool = False, run_end: RunEnd | None = None) -> RunView:
    return run_view(run_status, sending=sending, read_only=read_only, waiting=waiting, working=working,
                    run_end=run_end)


@pytest.mark.parametrize(("run_end", "words"), [
    (None, "Ready"),          # before the first turn ends (and after a reload)
    (FINISHED, "Ready"),
    (FAILED, "Ready"),        # a failed run, then stopped: its error is gone
    (CLOSED, "Ready"),
    (STOPPED, "Stopped"),     # a Stop click, Escape, thread.stop() from code alike
])
def test_idle_says_how_the_last_turn_ended(run_end, words):
    assert view("idle", run_end=run_end) == RunView("idle", words, can_send=True, can_stop=False, can_type=True)


@pytest.mark.parametrize(("waiting", "working", "words"), [
    (False, False, "Thinking…"),
    (False, True, "Working…"),
    (True, False, "Waiting for you"),
    (True, True, "Waiting for you"),   # the person is what the run waits for
])
def test_running_says_what_it_waits_for(waiting, working, words):
    assert view("running", waiting=waiting, working=working) == RunView(
        "running", words, can_send=False, can_stop=True, can_type=True)


def test_a_scheduled_send_counts_as_running():
    assert view("idle", sending=True, run_end=STOPPED) == RunView(
        "running", "Thinking…", can_send=False, can_stop=True, can_type=True)
    assert view("error", sending=True).status == "running"
    # A closed thread stays closed, sending or not.
    assert view("closed", sending=True) == RunView("closed", "Closed", can_send=False, can_stop=False,
                                                   can_type=False)


def test_error_and_closed():
    assert view("error", run_end=FAILED) == RunView("error", "Something went wrong", can_send=True,
                                                    can_stop=False, can_type=True)
    assert view("closed", run_end=CLOSED) == RunView("closed", "Closed", can_send=False, can_stop=False,
                                                     can_type=False)


@pytest.mark.parametrize("run_status", ["idle", "running", "error", "closed"])
def test_read_only_is_said_first_and_allows_no_sending(run_status):
    shown = view(run_status, read_only=True, waiting=True, working=True, run_end=STOPPED)
    assert shown.words == "Read-only: open in another tab"
    assert shown.status == run_status
    assert not shown.can_send and not shown.can_type
    assert shown.can_stop == (run_status == "running")


@pytest.mark.parametrize(("run_status", "sending", "read_only", "allowed"), [
    ("idle", False, False, True),
    ("error", False, False, True),
    ("running", False, False, False),
    ("closed", False, False, False),
    ("idle", True, False, False),
    ("idle", False, True, False),
])
def test_can_send(run_status, sending, read_only, allowed):
    assert can_send(run_status, sending=sending, read_only=read_only) is allowed
    assert view(run_status, sending=sending, read_only=read_only).can_send is allowed


# -- AG-UI interrupts: the run waits for the person --------------------------------------------------

@pytest.mark.parametrize(("run_status", "sending", "read_only", "allowed"), [
    ("running", False, False, True),    # waiting for an approval or an answer: a message cancels it
    ("running", True, False, True),     # the chat's own send has not returned: it waits too
    ("idle", True, False, True),
    ("running", False, True, False),    # another tab's thread stays read-only
    ("closed", False, False, False),
])
def test_a_message_may_go_while_the_run_waits_only_for_the_person(run_status, sending, read_only, allowed):
    assert can_send(run_status, sending=sending, read_only=read_only, waiting_for_person=True) is allowed
    shown = run_view(run_status, sending=sending, read_only=read_only, waiting=False, working=False, run_end=None,
                     waiting_for_person=True)
    assert shown.can_send is allowed


@pytest.mark.parametrize(("asking", "waiting", "waiting_for_person", "words"), [
    (True, False, True, "Waiting for your answer"),     # an interrupt card is open
    (True, True, True, "Waiting for your answer"),      # and an approval too: the question first
    (False, True, True, "Waiting for you"),             # an approval (a client's or a server tool's)
    (False, False, True, "Waiting for you"),            # open interrupts the chat shows on no card
    (False, False, False, "Thinking…"),
])
def test_running_says_the_agent_waits_for_an_answer(asking, waiting, waiting_for_person, words):
    shown = run_view("running", sending=False, read_only=False, waiting=waiting, working=False, run_end=None,
                     asking=asking, waiting_for_person=waiting_for_person)
    assert shown.words == words and shown.can_stop and shown.can_send is waiting_for_person


def test_a_run_the_agent_cancelled_says_so_until_the_next():
    cancelled = RunEnd("cancelled", "Cancelled by the agent", "r1")
    assert view("idle", run_end=cancelled) == RunView("idle", "Cancelled by the agent", can_send=True,
                                                      can_stop=False, can_type=True)
    assert view("running", run_end=cancelled).words == "Thinking…"
