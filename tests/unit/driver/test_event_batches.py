"""What arrives together is applied together: the events of one chunk are applied and told one
by one, their changes published once; a stop or a bad event loses nothing that arrived before it.

The chunks are the tests' own: `MockTransport` handlers answer with one body or one chunk per
event (`ScriptedAgent.transport()` streams one event a chunk)."""

from __future__ import annotations

import json

from pyclient import MockTransport, RemoteProtocolError
from tests.helpers import agent_for, arun, ids, sse

WORDS = [f"w{i} " for i in range(50)]


def words_run(request) -> list[dict]:
    body = json.loads(request.body)
    return [{"type": "RUN_STARTED", **ids(body)}, {"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"},
            *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": word} for word in WORDS),
            {"type": "TEXT_MESSAGE_END", "messageId": "a"}, {"type": "RUN_FINISHED", **ids(body)}]


def one_chunk(request) -> bytes:
    return sse(*words_run(request))


def last_text(thread) -> str:
    return thread.messages[-1].content


def test_one_chunk_is_told_event_by_event_and_published_once():
    thread = agent_for(MockTransport(one_chunk)).thread()
    seen_at_event: list[str] = []
    kinds: list[str] = []
    thread.subscribe_events(lambda event: event.type == "TEXT_MESSAGE_CONTENT"
                            and seen_at_event.append(last_text(thread)))
    thread.subscribe(lambda event: kinds.append(event.kind), events=False)
    arun(thread.send("go"))
    # Each event is told right after it is applied: the listener of delta k reads the text
    # up to word k, not the whole chunk's.
    assert seen_at_event == ["".join(WORDS[:k + 1]) for k in range(len(WORDS))]
    assert last_text(thread) == "".join(WORDS)
    # 50 deltas in one chunk: the history change is published once for them.
    assert kinds.count("messages") <= 3, kinds


def test_one_chunk_per_event_publishes_each():
    thread = agent_for(MockTransport(lambda request: [sse(event) for event in words_run(request)])).thread()
    texts: list[str] = []
    thread.subscribe(lambda event: event.kind == "messages" and thread.messages
                     and texts.append(last_text(thread)), events=False)
    arun(thread.send("go"))
    for k in range(len(WORDS)):  # a listener saw the text grow word by word
        assert "".join(WORDS[:k + 1]) in texts


def test_a_stop_from_an_event_listener_applies_not_one_more_event():
    thread = agent_for(MockTransport(one_chunk)).thread()
    told: list[str] = []

    def on_event(event):
        if event.type == "TEXT_MESSAGE_CONTENT":
            told.append(event.delta)
            if len(told) == 10:
                thread.stop()

    thread.subscribe_events(on_event)
    arun(thread.send("go"))
    assert told == WORDS[:10]
    assert last_text(thread) == "".join(WORDS[:10])
    assert thread.run_status == "idle"


def test_a_bad_event_keeps_what_arrived_before_it_in_its_chunk():
    def script(request):
        body = json.loads(request.body)
        good = sse({"type": "RUN_STARTED", **ids(body)},
                   {"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"},
                   {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "kept"})
        return good + b"data: {not json\n\n" + sse({"type": "RUN_FINISHED", **ids(body)})

    thread = agent_for(MockTransport(script)).thread()
    told: list[str] = []
    thread.subscribe_events(lambda event: told.append(str(event.type.value)))
    arun(thread.send("go"))
    assert told == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert last_text(thread) == "kept"
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
