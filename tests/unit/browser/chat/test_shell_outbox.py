"""The outbox of the chat's shell (`pyclient.browser._chat._shell.Outbox`): each message the shell
handed over is sent once, in order, one at a time, and leaves the outbox when its bubble is drawn."""

from __future__ import annotations

from pyclient.browser._chat._shell import Outbox
from pyclient.browser._page._mirror import MirrorDocument


def outbox() -> Outbox:
    return Outbox(MirrorDocument(lambda ops: None, schedule=lambda flush: None).createElement("ol"))


def test_messages_go_in_order_one_at_a_time_and_leave_when_drawn() -> None:
    box = outbox()
    box.receive(1, "first", [])
    box.receive(2, "second", ["file"])
    first = box.next_to_send()
    assert first is not None and first.text == "first"
    box.sending(first.id, messages=4)
    assert box.next_to_send() is None, "the second waits until the first is drawn"
    box.drawn(messages=4)
    assert box.node.dataset.taken is None and box.waiting, "drawn before the message was added: still waiting"
    box.drawn(messages=5)
    assert box.node.dataset.taken == "1"
    second = box.next_to_send()
    assert second is not None and (second.id, second.files) == (2, ("file",))
    assert box.next_to_send() is None
    box.sending(second.id, messages=6)
    box.drawn(messages=7)
    assert box.node.dataset.taken == "2" and not box.waiting


def test_a_refused_message_leaves_the_outbox_and_the_next_may_go() -> None:
    box = outbox()
    box.receive(1, "with a file too big", ["big"])
    box.receive(2, "next", [])
    item = box.next_to_send()
    assert item is not None
    box.sending(item.id, messages=0)
    box.refused()
    assert box.node.dataset.taken == "1"
    following = box.next_to_send()
    assert following is not None and following.text == "next"


def test_give_back_empties_the_queue_and_takes_every_item() -> None:
    box = outbox()
    for item_id, text in ((1, "a"), (2, "b"), (3, "c")):
        box.receive(item_id, text, [])
    assert [item.text for item in box.give_back()] == ["a", "b", "c"]
    assert box.node.dataset.taken == "3" and not box.waiting and box.next_to_send() is None


def test_taken_only_moves_forward() -> None:
    box = outbox()
    box.take(3)
    box.take(2)
    assert box.node.dataset.taken == "3"
