"""`ThreadList` in Chromium: the page's IndexedDB store lists its threads, and the list beside a chat
shows them newest first, opens one (its messages in the chat), starts a new one, renames one in
place and deletes one after a confirm; the list survives a reload. A store left in a bad way: a
summary cut short (or with a time of 1e20, NaN, a word) is skipped and the list starts with the
rest; a snapshot cut short is set aside and the chat says so once; a thread deleted in another
tab (a second page of the context) stops saving in this one, which says so.

The page is web/tests/threads.html on the plugin's site (`/agent` is each test's `scripted_agent`);
each test starts from `window.t.reset()` (no saved thread, a new list on a new store;
`window.t.damage(kind)` writes what a crash or a hostile script leaves). Every click and key is
Playwright's, a trusted one; a script's `click()` does nothing. What a person does with the list
(open, rename, delete, reload, another tab) runs with the page's Python on the main thread and
in a worker (`BOTH_MODES`, where the store is the worker's IndexedDB); how a damaged store or a
server's title is read is Python's own, `MAIN_ONLY`.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from pyclient.testing import PyclientPage
from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, READY, ChatPage, module_page, said, turn

TIMEOUT = 20_000


guard = module_page("/tests/threads.html", site="plugin")
"""The page on the plugin's site, booted once for the module (in each mode)."""


@pytest.fixture
def page(guard, serving):
    """The shared page, reset: no saved thread, a new list showing a new thread."""
    serving.otherwise().say("Sure, let us talk about it.")
    with turn(guard):
        guard.page.evaluate("window.t.reset()")
        yield guard.page


def talk(page, text: str) -> None:
    """Send `text` and wait for the agent's answer."""
    chat = ChatPage(page)
    chat.send(text)
    chat.wait_idle()
    expect(chat.last_answer).to_have_text("Sure, let us talk about it.", timeout=TIMEOUT)


def titles(page):
    return page.locator(".pyclient-thread-title")


def item(page, title: str):
    return page.locator(".pyclient-thread", has=page.locator(".pyclient-thread-title", has_text=title))


def shown(page) -> dict:
    return json.loads(page.evaluate("window.t.shown()"))


def two_threads(page) -> None:
    """Talk in the new thread, then in a second new one: listed newest first."""
    expect(page.locator(".pyclient-threads-empty")).to_be_visible()
    talk(page, "Plan a trip to Lisbon")
    expect(titles(page)).to_have_text(["Plan a trip to Lisbon"], timeout=TIMEOUT)   # after its first save
    page.locator(".pyclient-thread-new").click()
    expect(page.locator(".pyclient-message")).to_have_count(0)
    expect(page.locator(".pyclient-thread[data-current]")).to_have_count(0)          # not listed until it has a message
    talk(page, "Write a poem about the sea")
    expect(titles(page)).to_have_text(["Write a poem about the sea", "Plan a trip to Lisbon"], timeout=TIMEOUT)


@BOTH_MODES
def test_the_list_shows_saved_threads_newest_first_and_opens_one(page):
    two_threads(page)
    records = json.loads(page.evaluate("window.t.records()"))   # the IndexedDB store's own listing
    assert sorted(record["title"] for record in records.values()) == ["Plan a trip to Lisbon", "Write a poem about the sea"]
    assert all(record["messages"] == 2 and record["agent"] == "threads" for record in records.values())
    assert sorted(records) == sorted(f"threads/{record['thread_id']}" for record in records.values())
    newest = item(page, "Write a poem")
    expect(newest).to_have_attribute("data-current", "true")
    expect(newest.locator(".pyclient-thread-open")).to_have_attribute("aria-current", "true")
    expect(newest.locator(".pyclient-thread-time")).to_have_text("just now")

    item(page, "Plan a trip").locator(".pyclient-thread-open").click()
    expect(page.locator(".pyclient-user")).to_have_text(["Plan a trip to Lisbon"], timeout=TIMEOUT)
    expect(page.locator(".pyclient-assistant")).to_have_text(["Sure, let us talk about it."])
    expect(item(page, "Plan a trip")).to_have_attribute("data-current", "true")
    expect(page.locator(".pyclient-thread[data-current]")).to_have_count(1)
    state = shown(page)
    assert state["thread"] == state["current"] and state["messages"] == ["Plan a trip to Lisbon", "Sure, let us talk about it."]
    assert page.locator(".pyclient-chat:not(.pyclient-thread-list)").count() == 1    # one chat: the last one was disposed
    # on_open heard each thread opened or started: the first new one, the second, the first again.
    first, second = state["opened"][0], state["opened"][1]
    assert state["opened"] == [first, second, first] and first == state["current"] != second

    # A list with on_open only (no chat=) lists the same, opens the newest, and mounts nothing.
    bare = json.loads(page.evaluate("window.t.bare()"))
    assert bare == {"heading": "Saved", "theme": "dark", "titles": ["Write a poem about the sea", "Plan a trip to Lisbon"],
                    "current": "Plan a trip to Lisbon", "opened": [second, first], "thread": True, "chats": 1}

    # Talking in the older thread moves it to the top.
    talk(page, "And a day in Sintra")
    expect(titles(page)).to_have_text(["Plan a trip to Lisbon", "Write a poem about the sea"], timeout=TIMEOUT)


@BOTH_MODES
def test_rename_in_place_from_the_keyboard_and_escape_cancels(page):
    two_threads(page)
    older = item(page, "Plan a trip")
    older.locator(".pyclient-thread-rename").focus()
    page.keyboard.press("Enter")
    field = older.locator(".pyclient-thread-input")
    expect(field).to_be_focused()
    expect(field).to_have_value("Plan a trip to Lisbon")
    page.keyboard.type("Lisbon, May")          # the text was selected: typing replaces it
    page.keyboard.press("Enter")
    expect(titles(page)).to_have_text(["Write a poem about the sea", "Lisbon, May"], timeout=TIMEOUT)
    expect(item(page, "Lisbon, May").locator(".pyclient-thread-open")).to_be_focused()
    records = json.loads(page.evaluate("window.t.records()"))
    assert sorted(record.get("name") or "" for record in records.values()) == ["", "Lisbon, May"]

    newest = item(page, "Write a poem")
    newest.locator(".pyclient-thread-rename").click()
    newest.locator(".pyclient-thread-input").fill("never saved")
    page.keyboard.press("Escape")
    expect(newest.locator(".pyclient-thread-input")).to_be_hidden()
    expect(newest.locator(".pyclient-thread-rename")).to_be_focused()
    expect(titles(page)).to_have_text(["Write a poem about the sea", "Lisbon, May"])

    # A script's clicks do nothing: only the person's.
    with said(page, "pyclient: ignored an untrusted click on the thread list", count=2):
        page.evaluate("document.querySelector('.pyclient-thread-rename').click()")
        page.evaluate("document.querySelector('.pyclient-thread-new').click()")
    expect(page.locator(".pyclient-thread-input:visible")).to_have_count(0)
    expect(page.locator(".pyclient-user")).to_have_text(["Write a poem about the sea"])


@MAIN_ONLY
def test_a_title_a_server_sent_shows_its_bidi_controls_marked(page, serving):
    # A snapshot makes the server's words the first message, and so the title: unmarked, its
    # "\u202e" showed "Notes (optional)" as "(lanoitpo) setoN".
    serving.on("snapshot").emit({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "u1", "role": "user", "content": "\u202eNotes (optional)"},
        {"id": "a1", "role": "assistant", "content": "Taken."}]})
    ChatPage(page).send("snapshot")
    ChatPage(page).wait_idle()
    title = titles(page)
    expect(title).to_have_text(["⟨U+202E⟩Notes (optional)"], timeout=TIMEOUT)
    expect(title.locator(".pyclient-invisible")).to_have_attribute("title", "invisible character U+202E")
    rename = page.locator(".pyclient-thread-rename")
    expect(rename).to_have_attribute("aria-label", "Rename “⟨U+202E⟩Notes (optional)”")   # an attribute: text markers
    page.locator(".pyclient-thread-delete").click()
    expect(page.locator(".pyclient-thread-question")).to_have_text("Delete “⟨U+202E⟩Notes (optional)”?")
    assert "\u202e" not in page.locator(".pyclient-thread-list").text_content()


@BOTH_MODES
def test_delete_asks_first_and_deleting_the_open_thread_starts_a_new_one(page):
    two_threads(page)
    older = item(page, "Plan a trip")
    older.locator(".pyclient-thread-delete").click()
    confirm = older.locator(".pyclient-thread-confirm")
    expect(confirm.locator(".pyclient-thread-question")).to_have_text("Delete “Plan a trip to Lisbon”?")
    expect(confirm.locator(".pyclient-thread-cancel")).to_be_focused()
    page.keyboard.press("Escape")
    expect(confirm).to_be_hidden()
    expect(titles(page)).to_have_count(2)

    older.locator(".pyclient-thread-delete").click()
    confirm.locator(".pyclient-thread-confirm-delete").click()
    expect(titles(page)).to_have_text(["Write a poem about the sea"], timeout=TIMEOUT)
    expect(page.locator(".pyclient-user")).to_have_text(["Write a poem about the sea"])   # the open one stays
    expect(page.locator(".pyclient-thread-list [role=status]")).to_have_text("Deleted “Plan a trip to Lisbon”")

    # The open thread: a new one is started, and the store forgets the old one.
    item(page, "Write a poem").locator(".pyclient-thread-delete").click()
    page.locator(".pyclient-thread-confirm-delete").click()
    expect(page.locator(".pyclient-threads-empty")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(".pyclient-message")).to_have_count(0)
    expect(page.locator(".pyclient-thread-new")).to_be_focused()
    assert json.loads(page.evaluate("window.t.records()")) == {}
    state = shown(page)
    assert state["thread"] == state["current"] and state["messages"] == []


@BOTH_MODES
def test_the_list_survives_a_reload_and_opens_the_newest(page, guard, mode):
    two_threads(page)
    item(page, "Plan a trip").locator(".pyclient-thread-rename").click()
    item(page, "Plan a trip").locator(".pyclient-thread-input").fill("Lisbon")
    page.keyboard.press("Enter")
    expect(titles(page)).to_have_text(["Write a poem about the sea", "Lisbon"], timeout=TIMEOUT)
    guard.reload(ready=READY)
    expect(titles(page)).to_have_text(["Write a poem about the sea", "Lisbon"], timeout=TIMEOUT)
    expect(item(page, "Write a poem")).to_have_attribute("data-current", "true")
    expect(page.locator(".pyclient-user")).to_have_text(["Write a poem about the sea"], timeout=TIMEOUT)
    item(page, "Lisbon").locator(".pyclient-thread-open").click()
    expect(page.locator(".pyclient-user")).to_have_text(["Plan a trip to Lisbon"], timeout=TIMEOUT)


# -- a store left in a bad way (by a crash, an older page, a hostile script, another tab) --------


@MAIN_ONLY
def test_a_broken_summary_is_skipped_and_the_list_starts_with_the_rest(page):
    page.evaluate("window.t.damage('summaries')")     # before: the list never started (JSONDecodeError)
    expect(titles(page)).to_have_text(["Still listed"], timeout=TIMEOUT)
    expect(page.locator(".pyclient-threads-unreadable")).to_have_text("4 saved chats could not be read")
    expect(item(page, "Still listed")).to_have_attribute("data-current", "true")       # opened: the newest
    expect(page.locator(".pyclient-user")).to_have_text(["Still listed"], timeout=TIMEOUT)
    expect(item(page, "Still listed").locator(".pyclient-thread-time")).to_have_text("just now")
    talk(page, "And one more")
    expect(page.locator(".pyclient-user")).to_have_text(["Still listed", "And one more"])
    records = json.loads(page.evaluate("window.t.records()"))
    assert records["threads/good"]["messages"] == 4
    assert {key for key, record in records.items() if record is None} == {"threads/cut"}   # the rest are dicts


@MAIN_ONLY
def test_a_snapshot_cut_short_is_set_aside_and_the_chat_says_so_once(page):
    lines: list[str] = []
    page.on("console", lambda message: lines.append(message.text) if "starts afresh" in message.text else None)
    page.evaluate("window.t.damage('snapshot')")      # the list opens the newest thread: the broken one
    notice = page.locator(".pyclient-store-notice")
    expect(notice).to_have_text("The saved copy of this chat could not be read, so it starts afresh. "
                                "The copy was kept aside, unchanged.", timeout=TIMEOUT)
    expect(page.locator(".pyclient-threads-empty")).to_be_visible()     # its summary went with it
    assert json.loads(page.evaluate("window.t.shown()"))["thread"] == "broken"
    # Before: every message sent here was dropped (restore() raised under each send).
    talk(page, "Begin again")
    expect(titles(page)).to_have_text(["Begin again"], timeout=TIMEOUT)
    talk(page, "And again")
    expect(notice).to_have_count(1)
    expect(notice).to_be_visible()
    records = json.loads(page.evaluate("window.t.records()"))
    assert records["threads/broken"]["messages"] == 4 and records["threads/broken"]["title"] == "Begin again"
    kept = page.evaluate("window.t.raw('threads/broken#unreadable')")
    assert kept.startswith('{"version": 1, "thread_id": "broken"') and kept.endswith('[{"id')   # as it was
    assert json.loads(page.evaluate("window.t.raw('threads/broken')"))["messages"][0]["content"] == "Begin again"
    assert len(lines) == 1 and "'threads/broken#unreadable'" in lines[0]


@BOTH_MODES
def test_a_thread_deleted_in_another_tab_stops_saving_and_says_so(page, guard, mode):
    talk(page, "Plan a trip to Lisbon")
    expect(titles(page)).to_have_text(["Plan a trip to Lisbon"], timeout=TIMEOUT)
    other = PyclientPage(page.context.new_page())           # a second tab: it opens the thread read-only
    tab = other.open("/tests/threads.html", ready=READY, worker=mode == "worker")
    expect(tab.locator(".pyclient-run-status")).to_have_text("Read-only: open in another tab", timeout=TIMEOUT)
    item(tab, "Plan a trip").locator(".pyclient-thread-delete").click()
    tab.locator(".pyclient-thread-confirm-delete").click()
    expect(tab.locator(".pyclient-threads-empty")).to_be_visible(timeout=TIMEOUT)

    # This tab hears it: the list drops the thread, the chat says so and takes no more input.
    expect(page.locator(".pyclient-threads-empty")).to_be_visible(timeout=TIMEOUT)   # before: still listed
    chat = ChatPage(page)
    expect(chat.status).to_have_text("Deleted in another tab")
    expect(page.locator(".pyclient-store-notice")).to_have_text(
        "This chat was deleted in another tab: nothing here is saved any more. Start a new chat to go on.")
    expect(chat.send_button).to_be_disabled()
    expect(chat.field).to_be_disabled()
    expect(page.locator(".pyclient-user")).to_have_text(["Plan a trip to Lisbon"])   # what was said stays shown
    assert json.loads(page.evaluate("window.t.records()")) == {}
    thread_id = json.loads(page.evaluate("window.t.shown()"))["thread"]
    assert page.evaluate(f"window.t.raw('threads/{thread_id}')") is None
    other.check()
    tab.close()

    page.locator(".pyclient-thread-new").click()                  # a new chat goes on, and is saved
    expect(page.locator(".pyclient-message")).to_have_count(0)
    talk(page, "Write a poem about the sea")
    expect(titles(page)).to_have_text(["Write a poem about the sea"], timeout=TIMEOUT)
