"""The worker's mirror DOM (pyclient/browser/_page/_mirror) on CPython: each change is one operation,
operations go as one batch per task, reads answer from the mirror, forwarded events reach their
listeners with the page's `isTrusted`, and the tree matches what the page would hold."""

from __future__ import annotations

import gc

import pytest

from pyclient.browser._page._mirror import MirrorDocument, MirrorElement
from pyclient.browser._page._mirror._selectors import parse


class Page:
    """A stand-in for renderer.js: collects batches, adopts and reads by id."""

    def __init__(self) -> None:
        self.batches: list[list] = []
        self.scheduled: list = []
        self.adopted: dict[int, object] = {}

    def document(self) -> MirrorDocument:
        return MirrorDocument(self.batches.append, adopt=self.adopt, read=self.adopted.get,
                              schedule=self.scheduled.append)

    def adopt(self, real: object) -> int:
        for node_id, node in self.adopted.items():
            if node is real:
                return node_id
        node_id = -1 - len(self.adopted)
        self.adopted[node_id] = real
        return node_id

    def ops(self) -> list:
        return [op for batch in self.batches for op in batch]


@pytest.fixture
def page() -> Page:
    return Page()


def test_a_task_s_changes_go_as_one_batch_scheduled_once(page):
    document = page.document()
    box = document.createElement("div")
    for index in range(50):
        box.append(document.createElement("p"))
        box.lastChild.textContent = f"row {index}"
    assert len(page.scheduled) == 1 and page.batches == []  # queued, not sent
    page.scheduled[0]()
    assert len(page.batches) == 1 and len(page.batches[0]) == 1 + 50 * 4  # e + (e, append, t, children) each
    box.className = "next"
    assert len(page.scheduled) == 2  # the next task's batch is scheduled again


def test_reads_answer_from_the_mirror_without_the_page(page):
    document = page.document()
    item = document.createElement("li")
    item.className = "pyclient-message pyclient-user"
    item.dataset.toolCallId = "c1"
    item.hidden = True
    item.append("hello ", document.createElement("b"))
    item.lastChild.textContent = "world"
    assert item.getAttribute("data-tool-call-id") == "c1" and item.dataset.toolCallId == "c1"
    assert item.hidden is True and item.textContent == "hello world"
    assert item.classList.contains("pyclient-user") and item.matches("li.pyclient-message[data-tool-call-id=c1]")
    assert item.dataset.missing is None and item.querySelector("i") is None
    assert [op[0] for op in page.ops()] == []  # nothing sent yet: all of it answered here


def test_moves_keep_one_parent_and_the_page_gets_the_same_order(page):
    document = page.document()
    first, second = document.createElement("ol"), document.createElement("ol")
    a, b, c = (document.createElement("li") for _ in range(3))
    first.append(a, b, c)
    second.append(b)          # moved, as in the DOM
    first.prepend(c)
    c.after("tail")
    assert first.childNodes == [c, first.childNodes[1], a] and first.childNodes[1].textContent == "tail"
    assert b.parentNode is second and second.children == [b]
    b.replaceWith(a)
    assert second.children == [a] and b.parentNode is None and a.parentNode is second
    fragment = document.createDocumentFragment()
    fragment.append(b)
    first.append(fragment)
    assert fragment.childNodes == [] and first.lastChild is b
    document.flush()
    codes = [op[0] for op in page.ops()]
    assert codes.count("append") == 4 and "prepend" in codes and "after" in codes and "replace" in codes


def test_selectors_the_chat_uses(page):
    document = page.document()
    root = document.createElement("div")
    root.className = "pyclient-chat"
    header = document.createElement("header")
    header.className = "pyclient-header"
    card = document.createElement("li")
    card.className = "pyclient-tool"
    card.setAttribute("data-tool-call-id", "c9")
    button = document.createElement("button")
    button.dataset.command = "approve"
    card.append(button)
    root.append(header, card)
    assert root.querySelector(":scope > .pyclient-header") is header
    assert root.querySelectorAll("[data-command]") == [button]
    assert button.closest(".pyclient-tool") is card and button.closest("[data-command]") is button
    assert root.querySelector(".pyclient-chat .pyclient-tool button") is button  # as the DOM: ancestors count
    assert root.querySelector("li button, header") is header
    with pytest.raises(ValueError, match="mirror"):
        root.querySelector("li:nth-child(2)")
    assert parse("a >b")[0][1][0] == ">"


def test_clone_numbers_the_copy_in_document_order(page):
    document = page.document()
    template = document.createElement("li")
    template.className = "card"
    head = document.createElement("div")
    head.append("name", document.createElement("span"))
    template.append(head)
    copy = template.cloneNode(True)
    assert isinstance(copy, MirrorElement) and copy is not template and copy.className == "card"
    assert copy.textContent == "name" and copy.firstChild.lastChild.localName == "span"
    document.flush()
    clone = next(op for op in page.ops() if op[0] == "clone")
    ids = [copy.node_id, copy.firstChild.node_id, copy.firstChild.firstChild.node_id,
           copy.firstChild.lastChild.node_id]
    assert clone == ["clone", template.node_id, True, ids]


def test_forwarded_events_reach_listeners_with_the_page_s_trust(page):
    document = page.document()
    root = document.createElement("div")
    button = document.createElement("button")
    root.append(button)
    seen = []
    root.addEventListener("click", lambda event: seen.append((event.target, event.isTrusted)), prevent=None)
    root.addEventListener("submit", seen.append, prevent="always")
    document.flush()
    listens = [op for op in page.ops() if op[0] == "listen"]
    assert listens == [["listen", root.node_id, "click", None], ["listen", root.node_id, "submit", "always"]]
    document.dispatch({"id": root.node_id, "type": "click", "isTrusted": False, "target": button.node_id})
    document.dispatch({"id": root.node_id, "type": "click", "isTrusted": True, "target": None})
    assert seen == [(button, False), (root, True)]


def test_picked_files_are_read_from_the_change_event(page):
    document = page.document()
    picker = document.createElement("input")
    picker.type = "file"
    got = []
    picker.addEventListener("change", lambda event: got.append(picker.files))
    document.dispatch({"id": picker.node_id, "type": "change", "isTrusted": True, "target": picker.node_id,
                       "files": ["file-1", "file-2"]})
    assert got[0].length == 2 and got[0].item(1) == "file-2" and got[0].item(5) is None


def test_live_state_is_read_from_the_page_after_a_flush(page):
    class Input:
        value = "typed by the person"

    document = page.document()
    container = document.adopt(Input())
    assert document.adopt(container.real) is container  # the same mirror each time
    field = document.createElement("input")
    container.append(field)
    assert container.value == "typed by the person"  # read from the page's node
    assert page.batches and page.batches[-1][-1][0] == "append"  # written before the read


def test_a_node_python_lets_go_of_is_forgotten_on_the_page(page):
    document = page.document()
    node = document.createElement("p")
    node_id = node.node_id
    del node
    gc.collect()
    document.flush()
    assert ["forget", node_id] in page.ops()


def test_unknown_properties_say_what_to_do(page):
    node = page.document().createElement("div")
    with pytest.raises(AttributeError, match=r"\.real"):
        node.offsetParent
    with pytest.raises(AttributeError, match="addEventListener"):
        node.onclick = print
    node.spellcheck = False  # a plain property: set on the page, read back here
    assert node.spellcheck is False


def test_a_text_node_s_replaced_data_reaches_the_page(page):
    # A user's bubble is one text node: an edited message (same id, new words) sets its `data`.
    document = page.document()
    text = document.createTextNode("first question")
    text.appendData("!")
    text.data = "second question"
    page.scheduled[0]()
    assert page.ops()[-2:] == [["data", text.node_id, "!"], ["p", text.node_id, "data", "second question"]]
    assert text.data == text.textContent == text.nodeValue == "second question"
