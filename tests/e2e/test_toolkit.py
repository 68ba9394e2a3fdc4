"""`pyclient.browser.toolkit` in Chromium: each tool against the real DOM, clipboard and Web Storage.

The page is web/tests/toolkit.html (its Python API, `window.t`, is web/tests/toolkit.py): the
root-bound tools work in `<main id="app">`, and `<aside id="outside">` and the page heading
hold elements their selectors also match, which must never be read or changed. Two tests go
through a thread of the dev server's demo agent at /agent (request bodies: `agent_log`).

The page boots once for the module (a boot takes seconds): each test gets it reset
(`window.t.reset()`: the DOM as loaded, empty storage, no selection), with the clipboard
permissions cleared, and fails, like every Chromium test, on a request leaving 127.0.0.1 or
an uncaught error in the page. Each tool that reaches the page runs with the page's Python on
the main thread and in a worker (`BOTH_MODES`), where it reaches the page's DOM, clipboard and
storage through PyScript's `window`; what the tools check before they reach it (factories,
schemas, prefixes, limits, approval, the words of a toast) is Python's own, `MAIN_ONLY`.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, module_page, turn
from tests.helpers import fetch_after_a_frame


def run(page, name: str, arguments: dict | None = None) -> dict:
    return json.loads(page.evaluate("([name, args]) => window.t.run(name, args)",
                                    [name, json.dumps(arguments or {})]))


def call(page, name: str, *args):
    result = page.evaluate("([name, args]) => window.t[name](...args)", [name, list(args)])
    return None if result is None else json.loads(result)


def ok(result: dict) -> str:
    assert result["error"] is None, result["error"]
    return result["content"]


def refused(result: dict) -> str:
    assert result["error"] is not None and result["error"] == result["content"], result
    return result["error"]



session = module_page("/tests/toolkit.html")
"""The toolkit page, loaded once (in the module's `mode`)."""


@pytest.fixture
def toolkit(session, module_profiles, live_server):
    module_profiles[live_server].reset_permissions([live_server])
    session.page.evaluate("window.t.reset()")
    with turn(session):
        yield session.page


@pytest.fixture
def context(toolkit):
    """The shared page's context (for permissions), instead of pytest-playwright's own."""
    return toolkit.context


@MAIN_ONLY
def test_the_factories_make_every_tool_and_refuse_what_can_never_work(toolkit):
    names = call(toolkit, "names")
    assert names["readonly"] == ["ro_get", "ro_list"]  # writable=False: no set, no remove
    assert {"read_selection", "read_clipboard", "write_clipboard", "storage_get", "storage_set", "storage_remove",
            "storage_list", "read_page_text", "set_text", "toggle_class", "set_attribute", "change_background",
            "show_toast"} <= set(names["all"])
    errors = call(toolkit, "config_errors")
    assert errors["root_number"].startswith("ConfigurationError: page_text_tool() needs a DOM element")
    assert errors["root_bad_selector"].startswith("ConfigurationError: dom_tools() got 'p[', which is not a valid")
    assert "non-empty prefix" in errors["prefix_empty"]
    assert "Pass 'notes/'" in errors["prefix_no_separator"]
    assert "renames 'storage_set', which this call does not make" in errors["names_unknown"]
    assert "renames 'paste'" in errors["names_typo"]
    assert errors["bad_name"].startswith("ConfigurationError: Tool name 'read selection' is invalid")
    assert errors["bad_max"].startswith("ConfigurationError: max_chars=0")


# -- selection ------------------------------------------------------------------------------

@BOTH_MODES
def test_read_selection_reads_what_the_user_selected(toolkit):
    assert ok(run(toolkit, "read_selection")) == ""  # nothing selected
    toolkit.locator("#selectable").select_text()
    assert ok(run(toolkit, "read_selection")) == "Select me please"
    short = ok(run(toolkit, "read_selection_short"))
    assert short == "Select me \n[... 6 more characters cut: showing the first 10 of 16. Ask the user to select less.]"
    toolkit.evaluate("getSelection().removeAllRanges()")
    assert ok(run(toolkit, "read_selection")) == ""


@BOTH_MODES
def test_read_selection_reads_a_text_field_but_never_a_password(toolkit):
    toolkit.evaluate("const a = document.querySelector('#area'); a.focus(); a.setSelectionRange(1, 4)")
    assert ok(run(toolkit, "read_selection")) == "bcd"
    toolkit.locator("#secret").select_text()
    assert toolkit.evaluate("document.activeElement.id") == "secret"
    assert ok(run(toolkit, "read_selection")) == ""


# -- clipboard ------------------------------------------------------------------------------

@pytest.fixture
def granted(toolkit, context, live_server):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server)


@BOTH_MODES
def test_clipboard_round_trip_with_permissions_granted(granted, toolkit):
    assert ok(run(toolkit, "write_clipboard", {"text": "from the model"})) == "copied 14 characters to the clipboard"
    assert toolkit.evaluate("navigator.clipboard.readText()") == "from the model"
    toolkit.evaluate("navigator.clipboard.writeText('from the user, a long text')")
    assert ok(run(toolkit, "read_clipboard")) == "from the user, a long text"
    # max_chars: reading cuts and says so, writing more is refused by the schema.
    assert ok(run(toolkit, "paste_quick")).startswith("from the u\n[... 16 more characters cut")
    error = refused(run(toolkit, "copy_quick", {"text": "eleven char"}))
    assert "Invalid arguments for tool 'copy_quick'" in error and "text" in error
    assert toolkit.evaluate("navigator.clipboard.readText()") == "from the user, a long text"


@BOTH_MODES
def test_read_clipboard_refused_by_the_browser_is_an_error_that_says_so(toolkit):
    # No grant: headless Chromium refuses clipboard-read at once (NotAllowedError), no prompt.
    assert toolkit.evaluate("navigator.permissions.query({name: 'clipboard-read'}).then(p => p.state)") == "prompt"
    error = refused(run(toolkit, "read_clipboard"))
    assert error.startswith("The user or the browser refused to let this page read the clipboard "
                            "(NotAllowedError: ")
    assert "Ask the user to allow clipboard access for this site" in error


@BOTH_MODES
def test_read_clipboard_refused_after_the_grant_is_cleared(granted, toolkit, context):
    toolkit.evaluate("navigator.clipboard.writeText('secret')")
    assert ok(run(toolkit, "read_clipboard")) == "secret"
    context.clear_permissions()
    assert "refused to let this page read the clipboard" in refused(run(toolkit, "read_clipboard"))


@BOTH_MODES
def test_write_clipboard_without_focus_is_refused_by_the_browser(granted, toolkit, context):
    # Playwright emulates focus for every page; without it, a page in the background has none.
    cdp = context.new_cdp_session(toolkit)
    cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": False})
    other = context.new_page()
    try:
        other.bring_to_front()
        assert toolkit.evaluate("document.hasFocus()") is False
        error = refused(run(toolkit, "copy_quick", {"text": "x"}))
        assert error.startswith("The browser refused to write the clipboard because the page does not have focus")
        assert "Ask the user to click on the page" in error
    finally:
        other.close()
        cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        toolkit.bring_to_front()
    assert ok(run(toolkit, "copy_quick", {"text": "x"})) == "copied 1 character to the clipboard"


@BOTH_MODES
def test_an_unanswered_clipboard_prompt_times_out_and_ctx_signal_aborts_the_wait(toolkit):
    # A headed browser may show a prompt and wait for the user: stand-in for that wait.
    toolkit.evaluate("() => { navigator.clipboard.readText = () => new Promise(() => {}) }")
    error = refused(run(toolkit, "paste_quick"))
    assert error.startswith("The browser did not let the page read the clipboard within 0.5 s")
    aborted = call(toolkit, "run_aborted", "read_clipboard", "{}", 200)
    assert aborted["aborted"] == "aborted: stopped by the test" and aborted["elapsed_s"] < 5


@BOTH_MODES
def test_write_clipboard_waits_for_approval_in_a_thread(granted, toolkit, agent_log):
    assert call(toolkit, "info", "write_clipboard")["requires_approval"] is True
    assert call(toolkit, "info", "copy_quick")["requires_approval"] is False  # write_requires_approval=False
    agent_log.clear()
    result = call(toolkit, "send_and_approve", 'call write_clipboard with text "hello from the agent"',
                  '["write_clipboard"]')
    assert result["waited_as"] == "awaiting_approval" and result["status"] == "idle"
    assert result["tools"] == [{"content": "copied 20 characters to the clipboard", "error": None}]
    assert toolkit.evaluate("navigator.clipboard.readText()") == "hello from the agent"
    first, follow_up = agent_log.bodies
    assert [tool["name"] for tool in first["tools"]] == ["write_clipboard"]
    [message] = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert message["content"] == "copied 20 characters to the clipboard"


# -- storage --------------------------------------------------------------------------------

OUTSIDE_KEYS = {"secret": "s1", "app-other": "s2", "appx/y": "s3", "other/app/z": "s4", "app/../secret": "s5"}


def set_outside_keys(page, storage: str = "localStorage") -> None:
    page.evaluate("([storage, items]) => { for (const [k, v] of Object.entries(items)) window[storage].setItem(k, v) }",
                  [storage, OUTSIDE_KEYS])


@BOTH_MODES
def test_storage_round_trip_in_local_storage(toolkit):
    assert ok(run(toolkit, "storage_get", {"key": "todo"})) == '{"key":"todo","value":null}'  # missing: null
    assert ok(run(toolkit, "storage_set", {"key": "todo", "value": "water the plants"})) == "saved 'todo' (16 characters)"
    assert ok(run(toolkit, "storage_set", {"key": "lists/groceries", "value": ""})) == "saved 'lists/groceries' (0 characters)"
    assert json.loads(ok(run(toolkit, "storage_get", {"key": "todo"}))) == {"key": "todo", "value": "water the plants"}
    assert toolkit.evaluate("localStorage.getItem('app/todo')") == "water the plants"
    assert toolkit.evaluate("sessionStorage.length") == 0
    assert json.loads(ok(run(toolkit, "storage_list"))) == ["lists/groceries", "todo"]
    assert ok(run(toolkit, "storage_remove", {"key": "todo"})) == "removed 'todo'"
    assert ok(run(toolkit, "storage_remove", {"key": "todo"})) == "'todo' was not set; nothing removed"
    assert toolkit.evaluate("localStorage.getItem('app/todo')") is None


@MAIN_ONLY
def test_storage_never_reaches_a_key_outside_the_prefix(toolkit):
    set_outside_keys(toolkit)
    toolkit.evaluate("localStorage.setItem('app/visible', 'v')")
    assert json.loads(ok(run(toolkit, "storage_list"))) == ["visible"]  # 'app/../secret' is not readable: not listed
    assert json.loads(ok(run(toolkit, "ro_list"))) == ["visible"]
    assert json.loads(ok(run(toolkit, "storage_get", {"key": "secret"})))["value"] is None  # app/secret
    for key in ("../secret", "/secret", "", "k" * 300, "a/../../secret", "..\\secret", "x\u0000"):
        for tool in ("storage_get", "storage_set", "storage_remove", "ro_get"):
            arguments = {"key": key, "value": "overwritten"} if tool == "storage_set" else {"key": key}
            error = refused(run(toolkit, tool, arguments))
            assert "s1" not in error and "s5" not in error
            assert "refused" in error or "Invalid arguments" in error, error
    assert toolkit.evaluate("Object.fromEntries(Object.entries(localStorage))") == {**OUTSIDE_KEYS, "app/visible": "v"}


@MAIN_ONLY
def test_refused_keys_say_why(toolkit):
    assert "'..' segment" in refused(run(toolkit, "storage_get", {"key": "../x"}))
    assert "starts with '/'" in refused(run(toolkit, "storage_get", {"key": "/x"}))
    empty = refused(run(toolkit, "storage_get", {"key": ""}))
    assert "Invalid arguments for tool 'storage_get'" in empty and "key" in empty
    long = refused(run(toolkit, "storage_set", {"key": "k" * 300, "value": "v"}))
    assert "key" in long and "200" in long


@BOTH_MODES
def test_session_storage_tools_use_session_storage_only(toolkit):
    set_outside_keys(toolkit, "sessionStorage")
    assert ok(run(toolkit, "session_set", {"key": "draft", "value": "hi"})) == "saved 'draft' (2 characters)"
    assert toolkit.evaluate("sessionStorage.getItem('app/draft')") == "hi"
    assert toolkit.evaluate("localStorage.getItem('app/draft')") is None
    assert json.loads(ok(run(toolkit, "session_list"))) == ["draft"]
    assert json.loads(ok(run(toolkit, "storage_list"))) == []  # localStorage tools do not see it
    assert json.loads(ok(run(toolkit, "session_get", {"key": "draft"})))["value"] == "hi"
    assert "'..' segment" in refused(run(toolkit, "session_get", {"key": "../secret"}))


@MAIN_ONLY
def test_read_only_storage_tools_have_no_set_or_remove(toolkit):
    toolkit.evaluate("localStorage.setItem('app/theme', 'dark')")
    assert json.loads(ok(run(toolkit, "ro_get", {"key": "theme"})))["value"] == "dark"
    assert [tool for tool in call(toolkit, "names")["all"] if tool.startswith("ro_")] == ["ro_get", "ro_list"]


@MAIN_ONLY
def test_values_are_bounded_by_max_value_chars(toolkit):
    assert ok(run(toolkit, "small_set", {"key": "a", "value": "12345"})) == "saved 'a' (5 characters)"
    error = refused(run(toolkit, "small_set", {"key": "a", "value": "123456"}))
    assert "Invalid arguments for tool 'small_set'" in error and "value" in error
    assert toolkit.evaluate("localStorage.getItem('small/a')") == "12345"
    toolkit.evaluate("localStorage.setItem('small/long', 'abcdefgh')")  # written by the page itself
    assert json.loads(ok(run(toolkit, "small_get", {"key": "long"}))) == {"key": "long", "value": "abcde", "cut": 3}
    assert call(toolkit, "info", "small_set")["parameters"]["properties"]["value"]["maxLength"] == 5


# -- page text ------------------------------------------------------------------------------

@BOTH_MODES
def test_read_page_text_reads_inside_root_only(toolkit):
    assert ok(run(toolkit, "read_page_text", {"selector": "h1"})) == "Inside heading"
    notes = ok(run(toolkit, "read_page_text", {"selector": ".note"}))
    assert notes == "inside note\n\nouter nested"  # the nested .note is read once, with its parent
    for selector in ("#out-note", "body > aside .note", ":scope ~ aside .note", "aside *"):
        assert ok(run(toolkit, "read_page_text", {"selector": selector})) == \
            f"No element inside '#app' matches {selector!r}."
    for selector in ("body .note", "html *", "*"):
        text = ok(run(toolkit, "read_page_text", {"selector": selector}))
        assert "outside" not in text and "Toolkit page heading" not in text and "inside note" in text
    for name in ("read_text_element", "read_text_web"):  # a JS element, a pyscript.web element
        assert ok(run(toolkit, name, {"selector": ".note"})) == notes


@MAIN_ONLY
def test_a_megabyte_of_page_text_is_capped_with_the_count_cut(toolkit):
    call(toolkit, "fill_big", 1_000_000)
    text = ok(run(toolkit, "read_page_text", {"selector": "#big"}))
    kept, note = text.split("\n", 1)
    assert kept == "x" * 1000
    assert note == ("[... 999,000 more characters cut: showing the first 1,000 of 1,000,000. "
                    "Read a narrower selector to see the rest.]")


@BOTH_MODES
def test_an_invalid_selector_is_an_error_naming_it(toolkit):
    error = refused(run(toolkit, "read_page_text", {"selector": "p["}))
    assert error.startswith("'p[' is not a valid CSS selector (SyntaxError: ")
    assert "Call read_page_text again with a valid selector" in error


@BOTH_MODES
def test_a_root_that_is_not_in_the_document_is_an_error(toolkit):
    error = refused(run(toolkit, "read_text_detached", {"selector": "p"}))
    assert error.startswith("The page area <div> this tool works in is not in the document")
    error = refused(run(toolkit, "read_text_missing", {"selector": "p"}))
    assert error.startswith("The page area '#nowhere' this tool works in is not on the page right now")
    # A selector root is looked up at each call: a new #app is the one read.
    toolkit.evaluate("const m = document.createElement('main'); m.id = 'app'; m.textContent = 'new app';"
                     "const p = document.createElement('p'); p.textContent = 'fresh'; m.append(p);"
                     "document.querySelector('#app').replaceWith(m)")
    assert ok(run(toolkit, "read_page_text", {"selector": "p"})) == "fresh"
    assert "not in the document" in refused(run(toolkit, "read_text_element", {"selector": "p"}))


# -- DOM ------------------------------------------------------------------------------------

def outside_html(page) -> str:
    return page.evaluate("document.querySelector('#outside').outerHTML + document.querySelector('h1').outerHTML")


@BOTH_MODES
def test_set_text_writes_text_inside_root_only(toolkit):
    before = outside_html(toolkit)
    result = ok(run(toolkit, "set_text", {"selector": ".note", "text": "<b>bold</b><img src=x onerror=alert(1)>"}))
    assert result == "set the text of 2 elements matching '.note'"
    assert toolkit.evaluate("document.querySelector('#in-note').textContent") == "<b>bold</b><img src=x onerror=alert(1)>"
    assert toolkit.evaluate("document.querySelectorAll('#app b, #app img').length") == 0
    assert outside_html(toolkit) == before
    assert "nothing was changed" in refused(run(toolkit, "set_text", {"selector": "#out-note", "text": "x"}))
    assert outside_html(toolkit) == before


@BOTH_MODES
def test_toggle_class_inside_root_only(toolkit):
    assert ok(run(toolkit, "toggle_class", {"selector": "a", "class_name": "active", "on": True})) == \
        "added class 'active' on 1 element matching 'a'"
    assert toolkit.evaluate("[...document.querySelectorAll('a')].map(a => a.className)") == ["active", ""]
    assert ok(run(toolkit, "toggle_class", {"selector": "a", "class_name": "active", "on": False})).startswith("removed")
    assert toolkit.evaluate("document.querySelector('#in-link').className") == ""
    assert "one CSS class name" in refused(run(toolkit, "toggle_class", {"selector": "a", "class_name": "a b", "on": True}))


@BOTH_MODES
def test_set_attribute_allowlist(toolkit):
    links = "[...document.querySelectorAll('a')].map(a => [a.getAttribute('href'), a.getAttribute('onclick'), a.dataset.x ?? null])"
    before = toolkit.evaluate(links)
    assert "event handler" in refused(run(toolkit, "set_attribute", {"selector": "a", "name": "onclick", "value": "alert(1)"}))
    for value in ("javascript:alert(1)", " JaVaScRiPt:alert(1)", "\tjava\nscript:alert(1)", "data:text/html,<b>x</b>",
                  "vbscript:x"):
        error = refused(run(toolkit, "set_attribute", {"selector": "a", "name": "href", "value": value}))
        assert "is refused: its scheme" in error
    for name in ("srcdoc", "formaction", "style", "data-pyclient-thread"):
        assert "is refused" in refused(run(toolkit, "set_attribute", {"selector": "a", "name": name, "value": "x"}))
    assert toolkit.evaluate(links) == before
    assert ok(run(toolkit, "set_attribute", {"selector": "a", "name": "data-x", "value": "1"})) == \
        "set 'data-x' on 1 element matching 'a'"
    assert ok(run(toolkit, "set_attribute", {"selector": "a", "name": "href", "value": "https://example.org/help"}))
    assert ok(run(toolkit, "set_attribute", {"selector": "a", "name": "Title", "value": "Help"}))
    assert toolkit.evaluate(links) == [["https://example.org/help", None, "1"], ["/start", None, None]]
    assert ok(run(toolkit, "set_attribute", {"selector": "a", "name": "title", "value": None})) == \
        "removed 'title' from 1 element matching 'a'"
    assert toolkit.evaluate("document.querySelector('#in-link').hasAttribute('title')") is False


@MAIN_ONLY
def test_requires_approval_passes_through_to_every_dom_tool(toolkit):
    for name in ("set_text", "toggle_class", "set_attribute"):
        assert call(toolkit, "info", name)["requires_approval"] is False
        assert call(toolkit, "info", f"{name}_ok")["requires_approval"] is True
        assert "The user approves each call first." in call(toolkit, "info", f"{name}_ok")["description"]


# -- background and toasts ------------------------------------------------------------------

@BOTH_MODES
def test_change_background_applies_a_valid_value_and_refuses_others(toolkit):
    style = "document.querySelector('#app').getAttribute('style')"
    assert ok(run(toolkit, "change_background", {"background": "teal"})) == \
        "the background of the element '#app' is now teal"
    assert toolkit.evaluate("getComputedStyle(document.querySelector('#app')).backgroundColor") == "rgb(0, 128, 128)"
    assert toolkit.evaluate("document.body.getAttribute('style')") is None
    before = toolkit.evaluate(style)
    requests = []
    toolkit.on("request", lambda request: requests.append(request.url))
    for value in ("notacolour(", "red; color: blue", "teal !important"):
        assert "is not a CSS background value" in refused(run(toolkit, "change_background", {"background": value}))
    for value in ('url("/x.png")', "image-set('/x.png' 1x)", "teal URL(/x.png)"):
        assert "would load a URL" in refused(run(toolkit, "change_background", {"background": value}))
    assert toolkit.evaluate(style) == before
    assert ok(run(toolkit, "change_page_background", {"background": "linear-gradient(teal, navy)"}))
    assert "linear-gradient" in toolkit.evaluate("document.body.style.backgroundImage")
    # A refused value that reached a style would load x.png once the style is computed: a
    # request made after a frame shows none was asked for.
    fetch_after_a_frame(toolkit, "/tests/toolkit.html?after-the-backgrounds")
    assert requests[-1].endswith("?after-the-backgrounds"), requests
    assert not [url for url in requests if "x.png" in url]


@BOTH_MODES
def test_show_toast_writes_text_only_and_goes_away(toolkit):
    payload = "<img src=x onerror=alert(1)>Saved <b>2</b> notes"
    assert ok(run(toolkit, "show_toast", {"message": payload, "kind": "warning"})) == \
        "showed the user a notification (warning) for 0.5 s"
    toast = toolkit.evaluate("""() => { const t = document.querySelector('#toasts > div');
        return [t.className, t.getAttribute('role'), t.getAttribute('aria-live'), t.dataset.kind, t.textContent,
                t.children.length, document.querySelectorAll('#toasts img, #toasts b').length] }""")
    assert toast == ["pyclient-toast pyclient-toast-warning", "status", "polite", "warning", payload, 0, 0]
    toolkit.wait_for_function("document.querySelector('#toasts').children.length === 0", timeout=5000)
    assert ok(run(toolkit, "show_toast_long", {"message": "default kind"}))== "showed the user a notification (info) for 5 s"
    # A short toast shown after it goes away first: the long one outlives the short one's 0.5 s.
    assert ok(run(toolkit, "show_toast", {"message": "short", "kind": "warning"})).endswith("for 0.5 s")
    toolkit.wait_for_function("!document.querySelector('#toasts .pyclient-toast-warning')", timeout=5000)
    assert toolkit.evaluate("document.querySelector('#toasts .pyclient-toast-info').textContent") == "default kind"


@MAIN_ONLY
def test_a_toast_shows_the_models_bidi_controls_marked(toolkit):
    # Unmarked, "\u202e" showed "refund sent (ok)" as "(ko) tnes dnufer".
    assert ok(run(toolkit, "show_toast_long", {"message": "\u202erefund sent (ok)"})).startswith("showed")
    shown = toolkit.evaluate("""() => { const t = document.querySelector('#toasts .pyclient-toast-info');
        t.remove(); return t.textContent }""")   # removed now: the next test starts with no toast
    assert shown == "⟨U+202E⟩refund sent (ok)"


@MAIN_ONLY
def test_show_toast_kind_and_length_are_checked_by_the_schema(toolkit):
    kinds = call(toolkit, "info", "show_toast")["parameters"]["properties"]["kind"]
    assert kinds["enum"] == ["info", "success", "warning", "error"]
    error = refused(run(toolkit, "show_toast", {"message": "hi", "kind": "danger"}))
    assert "Invalid arguments for tool 'show_toast'" in error and "kind" in error
    assert "Invalid arguments" in refused(run(toolkit, "show_toast", {"message": "x" * 501}))
    assert toolkit.evaluate("document.querySelector('#toasts').children.length") == 0


# -- through a thread of the demo agent -----------------------------------------------------

@MAIN_ONLY
def test_the_demo_agent_calls_read_page_text_and_gets_the_text(toolkit, agent_log):
    agent_log.clear()
    result = call(toolkit, "send", 'call read_page_text with selector "h1"', '["read_page_text"]')
    assert result["status"] == "idle" and result["error"] is None
    assert result["tools"] == [{"content": "Inside heading", "error": None}]
    first, follow_up = agent_log.bodies
    assert [tool["name"] for tool in first["tools"]] == ["read_page_text"]
    assert "inside '#app' only" in first["tools"][0]["description"]
    [message] = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert message["content"] == "Inside heading"  # the page heading outside #app is not read
    assert 'read_page_text returned: "Inside heading"' in result["last"]
