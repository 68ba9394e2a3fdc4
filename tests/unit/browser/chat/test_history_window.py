"""Which messages the chat's list shows first (`HistoryWindow`), on CPython."""

from __future__ import annotations

from types import SimpleNamespace

from pyclient.browser._chat._history_window import HistoryWindow


def history(*roles: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(role=role, id=f"m{index}") for index, role in enumerate(roles)]


def test_a_long_history_shows_its_last_messages_first():
    messages = history(*["user", "assistant"] * 100)
    window = HistoryWindow(first=60)
    assert window.messages(messages) == messages[140:] and window.state == "tail" and window.earlier


def test_the_persons_last_message_and_all_that_followed_are_in_the_window():
    # A turn of a thousand calls: the person's message, the calls, their results and the answer.
    messages = history("user", "assistant", "user", "assistant", *["tool"] * 1000, "assistant")
    window = HistoryWindow(first=60)
    shown = window.messages(messages)
    assert shown[0] is messages[2] and len(shown) == len(messages) - 2 and window.state == "tail"


def test_a_history_with_no_message_of_the_person_keeps_its_tail():
    messages = history(*["assistant"] * 100)
    assert HistoryWindow(first=60).messages(messages) == messages[40:]
