"""SSE decoding: the same stream cut anywhere gives the same events, in linear time."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyclient import RemoteProtocolError, UnknownEvent
from pyclient._wire import _sse
from pyclient._wire._events import decode_event, event_type
from pyclient._wire._sse import ServerSentEvent, SSEDecoder


def decode_in_chunks(data: bytes, cuts: list[int]) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    start = 0
    for cut in [*cuts, len(data)]:
        events += decoder.feed(data[start:cut])
        start = cut
    events += decoder.close()
    return events


def decode_all(data: bytes) -> list[ServerSentEvent]:
    return decode_in_chunks(data, [])


STREAM = (
    "\ufeff: a comment first\r\n"
    'data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "h\u00e9llo \u4e16\u754c \U0001f600"}\r\n'
    "\r\n"
    "event: custom\n"
    "id: 42\n"
    "data: line one\n"
    "data:line two\n"
    "data\n"
    ": keep-alive\n"
    "\n"
    "retry: 1500\r"
    "data: cr only \u00e9\r"
    "\r"
    "data: trailing field ignored\n"
    "unknown: x\n"
    "\n"
    "id\n"
    "data: \n"
    "\n"
    "event: no-data\n"
    "\n"
    "data: unterminated at the end"
).encode("utf-8")

EXPECTED = [
    ServerSentEvent('{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "h\u00e9llo \u4e16\u754c \U0001f600"}'),
    ServerSentEvent("line one\nline two\n", "custom", "42"),
    ServerSentEvent("cr only \u00e9", "message", "42"),
    ServerSentEvent("trailing field ignored", "message", "42"),
    ServerSentEvent("", "message", ""),
]


def test_whole_stream():
    assert decode_all(STREAM) == EXPECTED


def test_every_single_cut():
    for cut in range(len(STREAM) + 1):
        assert decode_in_chunks(STREAM, [cut]) == EXPECTED, f"cut at byte {cut}"


def test_every_pair_of_cuts():
    for first in range(0, len(STREAM) + 1, 3):
        for second in range(first, len(STREAM) + 1, 5):
            assert decode_in_chunks(STREAM, [first, second]) == EXPECTED, (first, second)


def test_one_byte_at_a_time():
    assert decode_in_chunks(STREAM, list(range(1, len(STREAM)))) == EXPECTED


def test_retry_field_is_kept_on_the_decoder():
    decoder = SSEDecoder()
    decoder.feed(b"retry: 1500\n\nretry: soon\n\n")
    assert decoder.retry == 1500


def test_crlf_split_between_chunks_is_one_line_end():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n") == []           # the \n of \r\n, not an empty line
    assert decoder.feed(b"\r\n") == [ServerSentEvent("a")]


def test_incomplete_tail_is_reported_then_discarded():
    decoder = SSEDecoder()
    assert decoder.feed(b'data: {"type": "RUN_STAR') == []
    assert decoder.incomplete
    assert "RUN_STAR" in decoder.pending_text()
    assert decoder.close() == []
    with pytest.raises(RuntimeError, match="after close"):
        decoder.feed(b"data: x\n\n")


def test_invalid_utf8_is_replaced_not_fatal():
    assert decode_all(b"data: \xff\xfe ok\n\n") == [ServerSentEvent("\ufffd\ufffd ok")]


class CountingPattern:
    """Wraps the line-end regex and counts the characters each scan covers."""

    def __init__(self, pattern) -> None:
        self.pattern = pattern
        self.scanned = 0

    def finditer(self, text, pos=0):
        self.scanned += len(text) - pos
        return self.pattern.finditer(text, pos)


def count_scanned(monkeypatch) -> CountingPattern:
    """Count every character either line splitter looks at: the regex (chunks with "\\r") and
    the "\\n"-only fast path."""
    counter = CountingPattern(_sse._LINE_END)
    monkeypatch.setattr(_sse, "_LINE_END", counter)
    fast = SSEDecoder._feed_lf_lines

    def counted(self, text, pos, events):
        counter.scanned += len(text) - pos
        return fast(self, text, pos, events)

    monkeypatch.setattr(SSEDecoder, "_feed_lf_lines", counted)
    return counter


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_linear_work_for_one_byte_chunks(monkeypatch, newline):
    """A 1 MB stream fed one byte at a time scans each character once."""
    counter = count_scanned(monkeypatch)
    line = "data: " + "x" * 1000 + newline
    data = ((line * 8 + newline) * 128).encode()    # ~1 MB, 128 events of 8 KB
    assert len(data) > 1_000_000
    decoder = SSEDecoder()
    events = []
    for i in range(len(data)):
        events += decoder.feed(data[i:i + 1])
    assert len(events) == 128
    assert all(event.data == "\n".join(["x" * 1000] * 8) for event in events)
    # Each character once (the "\\n" of a "\\r\\n" cut between two chunks is skipped, not scanned):
    # no re-scanning from the start of a buffer.
    assert counter.scanned == len(data) - data.count(b"\r\n")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_long_single_line_in_small_chunks_is_linear(monkeypatch, newline):
    counter = count_scanned(monkeypatch)
    payload = "y" * 500_000
    data = f"data: {payload}{newline}{newline}".encode()
    decoder = SSEDecoder()
    events = []
    for i in range(0, len(data), 7):
        events += decoder.feed(data[i:i + 7])
    assert [event.data for event in events] == [payload]
    assert counter.scanned == len(data)


def test_fast_path_and_regex_path_agree_on_a_mixed_stream():
    """Chunks with and without "\\r" alternate; fields other than data, comments, an event name,
    an id and a multi-line data field cross the chunk boundaries."""
    text = ("data: a\n\n: keep-alive\nevent: custom\nid: 7\ndata: b1\ndata:b2\n\r\n"
            "retry: 5\ndata: c\r\n\ndata: {\"x\": 1}\n\n")
    whole = decode_all(text.encode())
    assert [(e.data, e.event, e.id) for e in whole] == [
        ("a", "message", None), ("b1\nb2", "custom", "7"), ("c", "message", "7"), ('{"x": 1}', "message", "7")]
    for size in range(1, 12):
        decoder = SSEDecoder()
        events = []
        data = text.encode()
        for i in range(0, len(data), size):
            events += decoder.feed(data[i:i + size])
        assert events == whole, size


_FIELD = st.sampled_from([
    "data: a", 'data: {"type": "X"}', "data:b", "data", "data: ", ": keep-alive", "event: custom",
    "id: 7", "id", "retry: 5", "unknown: x", "data: é 世界", "data: with: colon",
])
# An event: one to four lines, most often a single `data:` line, then one or more blank lines.
_EVENT = st.one_of(st.just(["data: a"]), st.lists(_FIELD, min_size=1, max_size=4)).flatmap(
    lambda lines: st.integers(1, 3).map(lambda blanks: lines + [""] * blanks))


@settings(max_examples=300, deadline=None)
@given(events=st.lists(_EVENT, max_size=12), tail=st.lists(_FIELD, max_size=2),
       cuts=st.lists(st.integers(0, 300), max_size=6))
def test_block_fast_path_agrees_with_the_line_by_line_path(events, tail, cuts):
    """The "\\n"-only fast path (events cut on blank lines, one-line `data:` events taken whole)
    gives what the general path gives for the same lines ended by "\\r\\n", cut anywhere."""
    lines = [line for event in events for line in event] + tail
    lf = "".join(line + "\n" for line in lines).encode()
    reference = decode_all("".join(line + "\r\n" for line in lines).encode())
    cuts = sorted(cut for cut in cuts if cut <= len(lf))
    assert decode_in_chunks(lf, cuts) == reference
    decoder, start, data = SSEDecoder(), 0, []
    for cut in [*cuts, len(lf)]:
        data += decoder.feed_data(lf[start:cut])
        start = cut
    assert data == [event.data for event in reference]


# -- AG-UI payloads ---------------------------------------------------------------------


def test_decode_known_event():
    event = decode_event(json.dumps({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{"}))
    assert event_type(event) == "TOOL_CALL_ARGS" and event.tool_call_id == "c"


def test_unknown_type_is_kept():
    event = decode_event('{"type": "FANCY_NEW_EVENT", "payload": [1, 2]}')
    assert isinstance(event, UnknownEvent)
    assert event.type == "FANCY_NEW_EVENT" and event.raw["payload"] == [1, 2] and event.error is None


def test_known_type_with_bad_fields_is_kept_with_its_error():
    event = decode_event('{"type": "TOOL_CALL_START"}')
    assert isinstance(event, UnknownEvent) and event.type == "TOOL_CALL_START"
    assert "toolCallId" in event.error or "tool_call_id" in event.error


@pytest.mark.parametrize("payload", ["not json at all", "[1, 2]", '{"no": "type"}', '{"type": 3}'])
def test_malformed_payload_says_what_was_received(payload):
    with pytest.raises(RemoteProtocolError) as info:
        decode_event(payload)
    assert repr(payload)[1:-1][:20] in str(info.value)
