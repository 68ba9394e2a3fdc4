"""`Turn.interrupt()` and `server_call(..., requires_approval=True)`: a scripted agent that pauses
its run on AG-UI interrupts, and what it records of the page's answers (`resumes`).

Each test drives a real `pyclient.Thread` against the scripted agent, in this process
(`ScriptedAgent.transport()`) or over HTTP (`agent.serve()`), answers the interrupts the way a
page does (`interrupt.resolve(payload)`, `cancel()`), and checks the resume the thread sent,
what the agent recorded, and the follow-up text.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from ag_ui.core import ResumeEntry

from pyclient import Agent
from pyclient.testing import ScriptedAgent
from pyclient.testing._resumes import APPROVAL_SCHEMA
from tests.helpers import answering, arun, bodies, echo, texts, tool_messages

COLOUR = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}


def thread_of(agent: ScriptedAgent, *tools, **options):
    return Agent("test", "http://agent.test/agent", client_tools=tools, transport=agent.transport()).thread(**options)


def answered(agent: ScriptedAgent, text: str, payload: Any = None, *tools: Any,
             cancel: bool = False) -> tuple[Any, list[Any]]:
    """A thread on `agent` (with `tools`) that sent `text` and answered each interrupt as it
    opened (`tests.helpers.answering`): the thread, idle once the send returned, and the
    interrupts it answered."""
    thread = thread_of(agent, *tools)
    seen: list[Any] = []
    answering(thread, payload, cancel=cancel, seen=seen)
    arun(thread.send(text))
    assert thread.run_status == "idle", thread.error
    return thread, seen


# -- Turn.interrupt() ----------------------------------------------------------------------------


def test_an_interrupt_pauses_the_run_and_the_resume_gets_the_follow_up():
    agent = ScriptedAgent()
    expires = datetime.now(timezone.utc) + timedelta(hours=1)
    agent.on("pick a colour").say("Let me ask.").interrupt(
        "Which colour?", response_schema=COLOUR, interrupt_id="i1", expires_at=expires,
        metadata={"form": "colour"}).then_say(lambda resumes: f"You chose {resumes[0].payload['colour']}")
    thread, [interrupt] = answered(agent, "pick a colour", {"colour": "blue"})
    assert (interrupt.id, interrupt.reason, interrupt.message) == ("i1", "input_required", "Which colour?")
    assert interrupt.response_schema == COLOUR and interrupt.metadata == {"form": "colour"}
    assert interrupt.expires_at == expires.isoformat() and interrupt.status == "resolved"
    assert texts(thread) == ["Let me ask.", "You chose blue"]
    first, resume = bodies(agent)
    assert "resume" not in first
    assert resume["resume"] == [{"interruptId": "i1", "status": "resolved", "payload": {"colour": "blue"}}]
    assert agent.resumes == [ResumeEntry(interrupt_id="i1", status="resolved", payload={"colour": "blue"})]
    assert agent.wait_for_resume("i1", timeout_s=1).payload == {"colour": "blue"}
    assert agent.requests[1].resume == agent.resumes


def test_over_http_the_same():
    agent = ScriptedAgent()
    agent.on("confirm").interrupt("Sure?", reason="confirmation").then_say("Confirmed")

    async def main():
        thread = agent.thread()
        answering(thread, True)
        await thread.send("confirm please")
        return thread

    with agent.serve():
        thread = arun(main())
    assert thread.run_status == "idle", thread.error
    assert texts(thread) == ["Confirmed"]
    [entry] = agent.resumes
    assert entry.status == "resolved" and entry.payload is True
    # A fresh id each time the turn answers, and the resume names it.
    assert entry.interrupt_id.startswith("int_") and agent.requests[1].resume[0].interrupt_id == entry.interrupt_id
    assert agent.wait_for_resume(timeout_s=1) == entry


def test_without_then_say_the_follow_up_says_what_was_resumed():
    agent = ScriptedAgent()
    agent.on("two").interrupt("First?", interrupt_id="a").interrupt("Second?", interrupt_id="b")
    thread, _ = answered(agent, "two", lambda interrupt: {"colour": "red"} if interrupt.id == "a" else None)
    assert texts(thread) == ['resolved {"colour": "red"} | resolved']
    [resume] = [body["resume"] for body in bodies(agent) if "resume" in body]
    assert resume == [{"interruptId": "a", "status": "resolved", "payload": {"colour": "red"}},
                      {"interruptId": "b", "status": "resolved"}]


def test_several_interrupts_one_resume_each_cancelled_one_told():
    agent = ScriptedAgent()
    agent.on("two").interrupt("First?", interrupt_id="a").interrupt("Second?", interrupt_id="b").then_say(
        lambda resumes: ", ".join(f"{r.interrupt_id}={r.status}" for r in resumes))
    thread = thread_of(agent)

    def on_event(event):
        if event.kind == "interrupt" and event.payload.status == "open":
            if event.payload.id == "a":
                event.payload.resolve("yes")
            else:
                event.payload.cancel()

    thread.subscribe(on_event)
    arun(thread.send("two"))
    assert thread.run_status == "idle", thread.error
    assert texts(thread) == ["a=resolved, b=cancelled"]
    assert len(agent.requests) == 2
    assert [(r.interrupt_id, r.status, r.payload) for r in agent.resumes] == [("a", "resolved", "yes"),
                                                                             ("b", "cancelled", None)]


def test_an_interrupt_with_a_client_call_resumes_with_both_in_one_request():
    agent = ScriptedAgent()
    agent.on("both").call("echo", text="hi", call_id="c1").interrupt("Go on?", interrupt_id="i1").then_say(
        lambda resumes: f"{resumes[0].status}, tool said {agent.tool_messages[0].content}")
    thread, _ = answered(agent, "both", {"go": True}, echo)
    assert texts(thread) == ["resolved, tool said hi"]
    first, resume = bodies(agent)
    assert [m["toolCallId"] for m in tool_messages(resume)] == ["c1"]
    assert resume["resume"] == [{"interruptId": "i1", "status": "resolved", "payload": {"go": True}}]


def test_a_new_message_while_open_cancels_it_and_gets_its_own_answer():
    agent = ScriptedAgent()
    agent.on("pick").interrupt("Which colour?", interrupt_id="i1").then_say("never said")
    agent.on("never mind").say("Fine.")
    thread = thread_of(agent)

    async def main():
        first = asyncio.ensure_future(thread.send("pick"))
        while not thread.interrupts:
            await asyncio.sleep(0.01)
        await thread.send("never mind")
        await first

    arun(main())
    assert thread.run_status == "idle", thread.error
    assert texts(thread) == ["Fine."]
    assert agent.resumes == [ResumeEntry(interrupt_id="i1", status="cancelled")]
    assert agent.requests[1].messages[-1].content == "never mind"


def test_then_answers_the_resume_with_a_turn_that_may_interrupt_again():
    agent = ScriptedAgent()
    agent.on("plan").interrupt("Step 1?", interrupt_id="s1").then().interrupt(
        "Step 2?", interrupt_id="s2").then_say(lambda resumes: f"done with {resumes[0].interrupt_id}")
    thread, _ = answered(agent, "plan", "ok")
    assert texts(thread) == ["done with s2"]
    assert [r.interrupt_id for r in agent.resumes] == ["s1", "s2"] and len(agent.requests) == 3


def test_an_interrupt_that_expired_is_never_resumed():
    agent = ScriptedAgent()
    agent.on("late").interrupt("Too late?", interrupt_id="i1", expires_at="2000-01-01T00:00:00Z").then_say("never")
    thread = thread_of(agent)
    arun(thread.send("late"))
    assert thread.run_status == "idle" and thread.all_interrupts()[0].status == "expired"
    assert agent.resumes == [] and len(agent.requests) == 1


def test_finish_outcome_and_interrupts_are_one_or_the_other():
    agent = ScriptedAgent()
    with pytest.raises(ValueError, match="interrupts are its"):
        agent.on("x").interrupt("?").finish(outcome={"type": "success"})
    with pytest.raises(ValueError, match="already says how its run ends"):
        agent.on("y").finish(outcome={"type": "success"}).interrupt("?")
    # Other fields of RUN_FINISHED go with the interrupts.
    agent.on("z").interrupt("?", interrupt_id="i1").finish(result={"n": 1})
    run = {"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": "z"}],
           "tools": [], "context": [], "state": {}, "forwardedProps": {}}
    end = agent.respond(run).events[-1]
    assert end["result"] == {"n": 1} and end["outcome"]["interrupts"][0]["id"] == "i1"


def test_wait_for_resume_times_out_naming_what_it_saw():
    agent = ScriptedAgent()
    with pytest.raises(TimeoutError, match=r"No resume of interrupt 'i9' .* resumed: \[\]; raised: \[\]"):
        agent.wait_for_resume("i9", timeout_s=0.1)


def test_clear_forgets_the_resumes():
    agent = ScriptedAgent()
    agent.on("pick").interrupt("?", interrupt_id="i1").then_say("ok")
    answered(agent, "pick", 1)
    assert len(agent.resumes) == 1
    agent.clear()
    assert agent.resumes == [] and agent.requests == [] and agent.resume_of("i1") is None


# -- a server tool's approval ----------------------------------------------------------------------


@pytest.mark.parametrize("payload, cancel, result", [
    ({"approved": True}, False, "deleted bob"),
    ({"approved": True, "editedArgs": {"user": "carol"}}, False, "deleted bob"),
    ({"approved": False, "reason": "not today"}, False, "not today"),
    ({"approved": False}, False, "The tool call was denied."),
    (None, True, "Cancelled by user."),
])
def test_a_server_call_that_requires_approval(payload, cancel, result):
    agent = ScriptedAgent()
    agent.on("delete bob").server_call("delete_account", user="bob", result="deleted bob", call_id="call-1",
                                       requires_approval=True).then_say(
        lambda resumes: f"{resumes[0].status} {resumes[0].payload}")
    thread, [interrupt] = answered(agent, "delete bob", payload, cancel=cancel)
    assert interrupt.id == "int-call-1" and interrupt.tool_call_id == "call-1" and interrupt.reason == "tool_call"
    assert interrupt.message == 'Approve delete_account({"user":"bob"})?' and interrupt.is_approval
    assert interrupt.response_schema == APPROVAL_SCHEMA
    first, resume = bodies(agent)
    # The server's call is never the page's to answer: no tool message, in any request.
    assert tool_messages(first) == [] and tool_messages(resume) == []
    assert resume["resume"] == [{"interruptId": "int-call-1", "status": "cancelled" if cancel else "resolved",
                                 **({} if cancel else {"payload": payload})}]
    # The call's result came from the agent, with the resume (pydantic-ai's words when not run).
    assert thread.tool_part("call-1").output == result
    assert texts(thread) == ["cancelled None" if cancel else f"resolved {payload}"]


def test_the_first_response_of_an_approval_streams_the_call_without_its_result():
    agent = ScriptedAgent()
    agent.on("go").server_call("search", q="x", result="found", call_id="s1").server_call(
        "delete_account", user="bob", result="deleted", call_id="d1", requires_approval=True)
    run = {"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": "go"}],
           "tools": [], "context": [], "state": {}, "forwardedProps": {}}
    events = agent.respond(run).events
    kinds = [e["type"] if isinstance(e, dict) else e.type.value for e in events]
    assert kinds == ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
                     "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED"]
    assert [i["id"] for i in events[-1]["outcome"]["interrupts"]] == ["int-d1"]


def test_an_approval_then_a_turn_of_its_own_gets_the_result_first():
    agent = ScriptedAgent()
    agent.on("delete").server_call("delete_account", user="bob", result="deleted bob", call_id="d1",
                                   requires_approval=True).then().say("All done")
    thread, _ = answered(agent, "delete bob", {"approved": True})
    assert thread.tool_part("d1").output == "deleted bob" and texts(thread) == ["All done"]


# -- LangGraph's legacy channel --------------------------------------------------------------------


def legacy_colour(agent: ScriptedAgent) -> ScriptedAgent:
    agent.on("pick").interrupt("Which colour?", response_schema=COLOUR, interrupt_id="lg-1",
                               legacy=True).then_say(lambda resumes: f"You chose {resumes[0].payload['colour']}")
    return agent


def test_a_legacy_interrupt_is_an_event_before_a_bare_run_finished():
    run = {"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": "pick"}],
           "tools": [], "context": [], "state": {}, "forwardedProps": {}}
    *_, custom, end = legacy_colour(ScriptedAgent()).respond(run).events
    assert end.type.value == "RUN_FINISHED" and end.outcome is None   # a bare RUN_FINISHED
    assert custom["type"] == "CUSTOM" and custom["name"] == "on_interrupt"
    assert json.loads(custom["value"]) == {"reason": "input_required", "message": "Which colour?",
                                           "responseSchema": COLOUR}
    assert custom["rawEvent"] == {"id": "lg-1", "value": json.loads(custom["value"])}


def test_a_legacy_interrupt_is_resumed_through_forwarded_props():
    agent = legacy_colour(ScriptedAgent())
    thread, [interrupt] = answered(agent, "pick", {"colour": "green"})
    assert interrupt.id == "lg-1" and interrupt.message == "Which colour?" and interrupt.response_schema == COLOUR
    first, resume = bodies(agent)
    assert "resume" not in resume and resume["forwardedProps"] == {"command": {"resume": {"colour": "green"}}}
    assert agent.resumes == [ResumeEntry(interrupt_id="lg-1", status="resolved", payload={"colour": "green"})]
    assert texts(thread) == ["You chose green"]


def test_a_cancelled_legacy_interrupt_is_recorded_as_cancelled():
    agent = ScriptedAgent()
    agent.on("pick").interrupt("Which colour?", interrupt_id="lg-1", legacy=True).then_say(
        lambda resumes: resumes[0].status)
    thread, _ = answered(agent, "pick", cancel=True)
    assert agent.resumes == [ResumeEntry(interrupt_id="lg-1", status="cancelled")]
    assert texts(thread) == ["cancelled"]
