"""The chat's pure helpers on CPython: invisible characters marked, Markdown with nothing
active in it, the approval form's schema-to-field mapping and an interrupt's answer form, and
what the chat marks dirty (pyclient/browser/_page/_visible.py, _markdown.py, _forms.py, _changes.py:
importable without a browser)."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Literal, Optional

import pytest
from pydantic import Field

from pyclient import client_tool
from pyclient.browser._page._visible import (
    INVISIBLE,
    MARKED_RUNS,
    split_invisible,
    visible,
)
from pyclient.browser._widgets._forms import (
    ALL_ARGUMENTS,
    FormError,
    answer_form,
    form_fields,
    initial_text,
    read_form,
    values_schema,
)
from pyclient.browser._widgets._markdown import LINK_REL, is_safe_link, render

# -- invisible characters ------------------------------------------------------------------------

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
        "\u200e", "\u200f", "\u061c"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]


@pytest.mark.parametrize("char", BIDI + ZERO_WIDTH + ["\U000e0041", "\u2062"])
def test_every_listed_character_becomes_a_marker(char):
    shown = visible(f"a{char}b")
    assert char not in shown
    assert shown == f"a⟨U+{ord(char):04X}⟩b"


def test_the_rtl_override_cannot_pass_for_a_name():
    assert visible("\u202eecila") == "⟨U+202E⟩ecila"
    assert split_invisible('{"to": "\u202eecila"}') == [
        ('{"to": "', None), ("⟨U+202E⟩", "invisible character U+202E"), ('ecila"}', None)]


def test_ordinary_text_is_one_run_and_left_alone():
    text = "héllo wörld — עברית العربية 😀 \t\n"
    assert split_invisible(text) == [(text, None)]
    assert visible(text) == text
    assert split_invisible("") == []
    assert not INVISIBLE.search("zero\u00a0width")  # a no-break space is visible


def test_marking_is_linear(monkeypatch):
    """A text of 200,000 runs costs markers for the first `MARKED_RUNS` and one for the rest
    (`visible` makes one marker per distinct run): the work does not grow with the runs."""
    from pyclient.browser._page import _visible

    made: list[str] = []
    marker = _visible.marker
    monkeypatch.setattr(_visible, "marker", lambda run: made.append(run) or marker(run))
    pieces = split_invisible("ab\u200b" * 200_000)
    assert len(pieces) == 2 * _visible.MARKED_RUNS + 1
    assert len(made) == _visible.MARKED_RUNS + 1


def test_a_run_of_invisible_characters_is_one_marker_that_says_how_many():
    zero_width = "\u200b" * 500_000
    assert split_invisible(f"x{zero_width}y") == [
        ("x", None), ("⟨U+200B×500000⟩", "500,000 invisible characters: U+200B"), ("y", None)]
    assert visible("a\u202e\u2066b") == "a⟨U+202E U+2066⟩b"          # which ones, in order
    mixed = "\u200b\u200c" * 5
    assert split_invisible(mixed) == [("⟨U+200B U+200C U+200B U+200C … 10 in all⟩",
                                       "10 invisible characters: U+200B, U+200C, …")]


def test_text_alternating_letters_and_invisible_characters_makes_a_bounded_number_of_markers():
    text = "a\u200b" * 100_000
    pieces = split_invisible(text)
    assert sum(title is not None for _, title in pieces) == MARKED_RUNS
    # The rest is still marked, as plain text: nothing invisible is left, nothing is lost.
    assert not any(INVISIBLE.search(piece) for piece, _ in pieces)
    assert "".join(pieces[i][0] for i in range(len(pieces))).count("⟨U+200B⟩") == 100_000


# -- Markdown -------------------------------------------------------------------------------------

def test_markdown_basics():
    html = render("**b** *i*\n\n- one\n- two\n\n`code`\n\n```\nx < 1\n```")
    assert "<strong>b</strong>" in html and "<em>i</em>" in html
    assert "<li>one</li>" in html and "<code>code</code>" in html
    assert "x &lt; 1" in html


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>",
    '<a href="javascript:alert(1)">x</a>', "<iframe src=javascript:alert(1)>",
])
def test_raw_html_stays_text(text):
    html = render(text)
    assert "<" + text[1:] not in html
    assert "&lt;" in html


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java&#115;cript:alert(1)", "  javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)", "//evil.example/x", "file:///etc/passwd",
])
def test_links_other_than_web_and_mail_stay_text(url):
    html = render(f"[x]({url}) ![y]({url}) <{url}>")
    assert "href" not in html


def test_web_links_open_apart_and_images_never_load():
    html = render("[docs](https://example.org/d) [mail](mailto:a@b.c) ![cat](http://example.org/cat.png)")
    assert f'<a href="https://example.org/d" target="_blank" rel="{LINK_REL}">docs</a>' in html
    assert 'href="mailto:a@b.c"' in html
    assert "<img" not in html
    assert 'class="pyclient-image-link" href="http://example.org/cat.png"' in html and ">cat</a>" in html
    assert is_safe_link("HTTPS://x") and not is_safe_link("ftp://x")


def test_table_alignment_is_a_class_never_a_style_attribute():
    # A strict Content-Security-Policy (style-src without 'unsafe-inline') refuses style attributes.
    html = render("| a | b | c | d |\n| :- | :-: | -: | - |\n| 1 | 2 | 3 | 4 |")
    assert "style=" not in html
    assert '<th class="pyclient-align-left">a</th>' in html and '<td class="pyclient-align-center">2</td>' in html
    assert '<td class="pyclient-align-right">3</td>' in html and "<td>4</td>" in html


def test_markdown_is_imported_on_first_render_only():
    import subprocess

    code = ("import sys; import pyclient.browser._widgets._markdown as m; a = 'markdown_it' in sys.modules; "
            "m.render('x'); print(a, 'markdown_it' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


# -- the approval form ----------------------------------------------------------------------------

def schema_of(func):
    return client_tool(func).parameters


def test_fields_from_a_tool_schema():
    def send_mail(to: str, count: int, ratio: float, urgent: bool, tone: Literal["calm", "loud"],
                  cc: Optional[str] = None, tags: list[str] = [], note: str = "a" * 100) -> str:  # noqa: B006
        """Send."""
        return ""

    fields = form_fields(schema_of(send_mail), {"to": "bob", "count": 2, "ratio": 0.5, "urgent": True, "tone": "loud"})
    kinds = {field.name: field.kind for field in fields}
    assert kinds == {"to": "text", "count": "integer", "ratio": "number", "urgent": "checkbox", "tone": "select",
                     "cc": "text", "tags": "json", "note": "textarea"}
    by_name = {field.name: field for field in fields}
    assert by_name["to"].required and not by_name["cc"].required and by_name["cc"].nullable
    assert by_name["tone"].options == ("calm", "loud") and initial_text(by_name["tone"]) == "1"
    assert initial_text(by_name["tags"]) == "[]" and initial_text(by_name["count"]) == "2"


class Size(Enum):
    S = "s"
    L = "l"


def test_enums_behind_refs_and_constraints():
    def order(size: Size, qty: Annotated[int, Field(ge=1)] = 1) -> str:
        """Order."""
        return ""

    fields = form_fields(schema_of(order), {"size": "l"})
    assert [(f.name, f.kind) for f in fields] == [("size", "select"), ("qty", "integer")]
    assert fields[0].options == ("s", "l")
    assert read_form(fields, {"size": "0", "qty": "3"}) == {"size": "s", "qty": 3}


def test_read_form_types_and_errors():
    def f(a: str, n: int, x: float, b: bool, o: Optional[int] = None, d: dict = {}) -> str:  # noqa: B006
        """F."""
        return ""

    fields = form_fields(schema_of(f), {})
    values = {"a": "hi", "n": "4", "x": "2.5", "b": False, "o": "", "d": '{"k": [1]}'}
    assert read_form(fields, values) == {"a": "hi", "n": 4, "x": 2.5, "b": False, "o": None, "d": {"k": [1]}}
    with pytest.raises(FormError, match="not a whole number"):
        read_form(fields, {**values, "n": "1.5"})
    with pytest.raises(FormError, match="enter a value"):
        read_form(fields, {**values, "n": ""})
    with pytest.raises(FormError, match="not a finite number"):
        read_form(fields, {**values, "x": "inf"})
    with pytest.raises(FormError, match="not valid JSON"):
        read_form(fields, {**values, "d": "{"})
    # An optional field left empty is left out: its default applies.
    fields = form_fields({"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}, {})
    assert read_form(fields, {"n": ""}) == {}


def test_a_schema_without_properties_is_one_json_field():
    fields = form_fields({"type": "object"}, {"anything": [1, 2]})
    assert [(f.name, f.kind) for f in fields] == [(ALL_ARGUMENTS, "json")]
    assert read_form(fields, {ALL_ARGUMENTS: '{"a": 1}'}) == {"a": 1}
    with pytest.raises(FormError, match="JSON object"):
        read_form(fields, {ALL_ARGUMENTS: "[1]"})
    # Arguments the schema does not name keep a JSON field each.
    fields = form_fields({"type": "object", "properties": {"a": {"type": "string"}}}, {"a": "x", "extra": 1})
    assert [(f.name, f.kind) for f in fields] == [("a", "text"), ("extra", "json")]


# -- a server tool's edit form and an interrupt's answer form -------------------------------------

def test_a_call_without_a_schema_is_typed_by_its_values():
    arguments = {"user": "bob", "n": 2, "ratio": 0.5, "hard": True, "tags": ["a"], "none": None}
    schema = values_schema(arguments)
    assert schema == {"type": "object", "properties": {
        "user": {"type": "string"}, "n": {"type": "integer"}, "ratio": {"type": "number"},
        "hard": {"type": "boolean"}, "tags": {}, "none": {}}, "required": ["user", "n", "ratio", "hard", "tags"]}
    fields = form_fields(schema, arguments)
    assert [(f.name, f.kind) for f in fields] == [("user", "text"), ("n", "integer"), ("ratio", "number"),
                                                   ("hard", "checkbox"), ("tags", "json"), ("none", "json")]
    values = {"user": "carol", "n": "3", "ratio": "1.5", "hard": False, "tags": '["b"]', "none": ""}
    assert read_form(fields, values) == {"user": "carol", "n": 3, "ratio": 1.5, "hard": False, "tags": ["b"]}
    with pytest.raises(FormError, match="tags: enter a value"):
        read_form(fields, {**values, "tags": ""})


COLOUR = {"type": "object", "properties": {"colour": {"type": "string"}, "shade": {"type": "integer"}},
          "required": ["colour"]}


def test_an_object_schema_answers_with_its_fields():
    form = answer_form(COLOUR)
    assert not form.whole and [(f.name, f.kind, f.required) for f in form.fields] == [
        ("colour", "text", True), ("shade", "integer", False)]
    assert form.read({"colour": "blue", "shade": ""}) == {"colour": "blue"}
    assert form.read({"colour": "blue", "shade": "2"}) == {"colour": "blue", "shade": 2}
    # A required field left empty is refused here, before the schema could take "" for a colour.
    for empty in ("", "   ", None):
        with pytest.raises(FormError, match="^colour: enter a value.$"):
            form.read({"colour": empty, "shade": ""})
    with pytest.raises(FormError, match="not a whole number"):
        form.read({"colour": "blue", "shade": "x"})


def test_no_schema_answers_with_text_or_json():
    for schema in (None, {}):
        form = answer_form(schema)
        assert form.whole and [(f.name, f.label, f.kind) for f in form.fields] == [
            (ALL_ARGUMENTS, "Your answer", "answer")]
        assert form.read({ALL_ARGUMENTS: "blue"}) == "blue"
        assert form.read({ALL_ARGUMENTS: "42"}) == "42"          # text unless it is an object or an array
        assert form.read({ALL_ARGUMENTS: ' {"a": [1]}'}) == {"a": [1]}
        assert form.read({ALL_ARGUMENTS: "[1, 2]"}) == [1, 2]
        with pytest.raises(FormError, match="not valid JSON"):
            form.read({ALL_ARGUMENTS: "{oops"})
        with pytest.raises(FormError, match="enter a value"):
            form.read({ALL_ARGUMENTS: ""})


def test_a_schema_that_is_not_an_object_of_fields_answers_whole():
    form = answer_form({"type": "integer", "description": "How many?"})
    [field] = form.fields
    assert form.whole and (field.kind, field.label, field.description) == ("integer", "Your answer", "How many?")
    assert form.read({ALL_ARGUMENTS: "3"}) == 3
    choice = answer_form({"enum": ["yes", "no"], "title": "Sure?"})
    assert (choice.fields[0].kind, choice.fields[0].label) == ("select", "Sure?")
    assert choice.read({ALL_ARGUMENTS: "1"}) == "no"
    anything = answer_form({"type": "object"})
    assert anything.fields[0].kind == "json" and anything.read({ALL_ARGUMENTS: '{"k": 1}'}) == {"k": 1}
    approval = answer_form({"type": "object", "properties": {"approved": {"type": "boolean"},
                                                            "reason": {"type": "string"}}, "required": ["approved"]})
    assert approval.read({"approved": True, "reason": ""}) == {"approved": True, "reason": ""}


# -- what the chat marks dirty ---------------------------------------------------------------------

def test_deltas_mark_ids_and_the_rest_reconciles():
    from ag_ui.core import (
        MessagesSnapshotEvent,
        RunFinishedEvent,
        RunStartedEvent,
        TextMessageContentEvent,
        TextMessageEndEvent,
        ToolCallArgsEvent,
        ToolCallStartEvent,
    )

    from pyclient import ThreadEvent
    from pyclient._conversation._records import RunEnd
    from pyclient.browser._chat._changes import Changes

    changes = Changes("idle", run_end=lambda: RunEnd("finished", None, "r"))
    assert changes.take_full() and not changes.take_full()  # a new chat draws everything, once
    event = ThreadEvent
    assert changes.note(event("status", "running")) == "frame" and changes.take_full()
    changes.note(event("event", RunStartedEvent(thread_id="t", run_id="r")))
    for delta in ("a", "b", "c"):  # each delta and the history change it makes: marked by id only
        assert changes.note(event("event", TextMessageContentEvent(message_id="m1", delta=delta))) == "frame"
        changes.note(event("messages"))
    assert list(changes.take_messages()) == ["m1"] and changes.is_streaming("m1") and not changes.full
    assert list(changes.take_messages()) == []  # drained
    changes.note(event("event", ToolCallStartEvent(tool_call_id="c1", tool_call_name="echo")))
    changes.note(event("messages"))
    changes.note(event("event", ToolCallArgsEvent(tool_call_id="c1", delta="{}")))
    changes.note(event("messages"))
    assert changes.queued_calls() == ["c1"] and changes.started("c1") == ("echo", None) and not changes.full
    assert changes.pending
    changes.done_call("c1")
    assert changes.queued_calls() == [] and not changes.pending
    changes.note(event("event", TextMessageEndEvent(message_id="m1")))
    assert not changes.is_streaming("m1")
    changes.note(event("messages"))  # a change no delta explains (a user message): everything
    changes.note(event("messages"))
    assert changes.take_full()
    changes.note(event("event", MessagesSnapshotEvent(messages=[])))
    assert changes.full
    changes.note(event("event", RunFinishedEvent(thread_id="t", run_id="r")))
    assert changes.note(event("status", "idle")) == "now"   # the run is over: draw at once
    assert changes.take_stop_marks() == 0                    # it finished: no "Stopped" marker
    assert changes.note(event("closed")) == "closed"


def test_a_run_the_thread_says_was_stopped_gets_one_marker():
    from pyclient import ThreadEvent
    from pyclient._conversation._records import RunEnd
    from pyclient.browser._chat._changes import Changes

    ends: list[RunEnd | None] = [None]
    reads: list[RunEnd | None] = []

    def run_end():
        reads.append(ends[-1])
        return ends[-1]

    changes = Changes("idle", run_end=run_end)

    def end(status, how=None):
        ends.append(RunEnd(how, "why", "r") if how else None)
        return changes.note(ThreadEvent("status", status))

    assert end("running") == "frame" and reads == []       # read only when a run ends
    assert end("idle", "stopped") == "now"                 # Stop, Escape or thread.stop(): the thread says so
    assert changes.take_stop_marks() == 1 and len(reads) == 1
    end("running")
    end("idle", "finished")                                # finished by the server: no marker
    end("running")
    end("error", "failed")                                 # a failed run is not a stop
    assert changes.take_stop_marks() == 0
    end("idle")                                            # error -> idle (a stop with nothing running)
    ends.append(RunEnd("stopped", "why", "r"))
    changes.note(ThreadEvent("status", "idle"))            # idle again (a restore): no run ended here
    assert changes.take_stop_marks() == 0
    end("running")
    end("idle", "stopped")
    end("running")
    end("idle", "stopped")
    assert changes.take_stop_marks() == 2                  # one marker per stopped run
    end("running")
    assert end("closed", "closed") == "now" and changes.take_stop_marks() == 0
    assert changes.note(ThreadEvent("closed")) == "closed"


def test_interrupts_mark_their_card_and_the_call_they_name():
    from pyclient import ThreadEvent
    from pyclient._conversation._records import RunEnd
    from pyclient.browser._chat._changes import Changes

    class Asked:
        def __init__(self, interrupt_id, tool_call_id=None):
            self.id, self.tool_call_id = interrupt_id, tool_call_id

    changes = Changes("running", run_end=lambda: RunEnd("finished", None, "r"))
    changes.take_full()
    assert changes.note(ThreadEvent("interrupt", Asked("i1"))) == "frame"
    assert changes.note(ThreadEvent("interrupt", Asked("i2", "call-1"))) == "frame"
    changes.note(ThreadEvent("interrupt", Asked("i1")))
    assert list(changes.take_interrupts()) == ["i1", "i2"] and changes.queued_calls() == ["call-1"]
    assert not changes.full and list(changes.take_interrupts()) == []  # only what changed is drawn, once


def test_a_run_the_agent_cancelled_gets_a_marker():
    from pyclient import ThreadEvent
    from pyclient._conversation._records import RunEnd
    from pyclient.browser._chat._changes import Changes

    ends = [RunEnd("cancelled", "Cancelled by the agent", "r")]
    changes = Changes("idle", run_end=lambda: ends[-1])
    changes.note(ThreadEvent("status", "running"))
    assert changes.note(ThreadEvent("status", "idle")) == "now"
    assert changes.take_cancel_marks() == ["Cancelled by the agent"] and changes.take_stop_marks() == 0
    ends.append(RunEnd("stopped", "stopped by the user", "r"))
    changes.note(ThreadEvent("status", "running"))
    changes.note(ThreadEvent("status", "idle"))
    assert changes.take_cancel_marks() == [] and changes.take_stop_marks() == 1


# -- streaming Markdown: blocks rendered once ------------------------------------------------------

LONG_ANSWER = (
    "# Plan\n\nFirst **step**: read the [docs](https://example.org).\n\n"
    "```python\nx = 1\n\n\ny = 2\n```\n\n"
    "- one\n\n- two\n  continued\n\n1. first\n\n    indented code or continuation\n\n"
    "> quoted\n\n> more quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "~~~\nfenced ~~~ text\n\n~~~\n\nLast paragraph with `code`.\n"
)


def test_cut_blocks_render_as_the_whole_text_does():
    from pyclient.browser._widgets._markdown import BlockSplitter

    splitter = BlockSplitter()
    cuts = []
    for end in range(len(LONG_ANSWER) + 1):  # the text as it streams, one character at a time
        cut = splitter.cut(LONG_ANSWER[:end])
        assert cut <= end and (not cuts or cut >= cuts[-1])
        if not cuts or cut != cuts[-1]:
            cuts.append(cut)
    assert len(cuts) > 5  # it does cut
    pieces = [LONG_ANSWER[a:b] for a, b in zip(cuts, [*cuts[1:], len(LONG_ANSWER)])]
    assert "".join(render(piece) for piece in pieces) == render(LONG_ANSWER)
    for cut in cuts[1:]:  # never inside a fence, never before a line that may continue a block
        assert LONG_ANSWER[cut - 2:cut] == "\n\n"
        assert LONG_ANSWER[cut] not in " \t-*+>0123456789"
        assert LONG_ANSWER[:cut].count("```") % 2 == 0


def test_a_long_answer_renders_each_block_once():
    from pyclient.browser._widgets._markdown import BlockSplitter

    paragraph = "A sentence with **bold** and `code` in it. " * 4
    text = "\n\n".join(f"{i}: {paragraph}" for i in range(2000))
    rendered = 0   # characters given to `render`: its work is linear in them

    def render_counted(part: str) -> None:
        nonlocal rendered
        rendered += len(part)
        render(part)

    splitter, frozen = BlockSplitter(), 0
    for end in range(2000, len(text) + 2000, 2000):   # ~180 chunks
        cut = splitter.cut(text[:end])
        if cut > frozen:
            render_counted(text[frozen:cut])   # the blocks that are complete, once
            frozen = cut
        render_counted(text[frozen:end])       # the live part, every step
    # Each block once, plus the live part of each step (1.13× here); rendering the whole text
    # again at each step would be ~90×.
    assert rendered < 2 * len(text)
