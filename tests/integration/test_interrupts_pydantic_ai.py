"""AG-UI 1.0 interrupts against pydantic-ai's AGUIAdapter: a backend tool that needs approval.

The agent (`tests.agents.approval_agent`) has `delete_account(user)` registered with
`requires_approval=True`: a run that calls it ends with an interrupt outcome, and the server
runs the tool itself once a request resumes with `{"approved": true}`. pyclient never answers
that call: the interrupt is the page's to answer, the call is the server's.
"""

from __future__ import annotations

from pyclient import Agent, InterruptError
from tests.helpers import answering, arun, change_background, tool_messages
from tests.integration.conftest import served_app

approval = served_app("tests.agents.approval_agent", "log")
"""The approval agent, served for each test: its `/agent` URL and its log."""


def test_approve_runs_the_server_tool_once(approval, transport):
    url, log = approval
    thread = Agent("srv", url, client_tools=[change_background], transport=transport).thread()
    seen = []
    answering(thread, {"approved": True}, seen=seen)
    arun(thread.send("delete bob"), timeout=30)

    assert thread.run_status == "idle", thread.error
    assert log.executed == ["bob"]
    [interrupt] = seen
    assert interrupt.reason == "tool_call" and interrupt.tool_call_id == "call-delete-1"
    assert interrupt.message == 'Approve delete_account({"user":"bob"})?' and interrupt.is_approval
    assert interrupt.status == "resolved" and thread.interrupts == []
    first, resume = transport.bodies
    assert "resume" not in first
    assert resume["resume"] == [{"interruptId": "int-call-delete-1", "status": "resolved",
                                 "payload": {"approved": True}}]
    # The server's call is never answered by the client, in any request.
    assert tool_messages(first) == [] and tool_messages(resume) == []
    assert thread.messages[-1].content == "Answer: deleted bob"
    part = thread.tool_part("call-delete-1")
    assert part.state == "output-available" and part.output == "deleted bob"


def test_approve_with_edited_arguments(approval, transport):
    url, log = approval
    thread = Agent("srv", url, transport=transport).thread()
    answering(thread, {"approved": True, "editedArgs": {"user": "carol"}})
    arun(thread.send("delete bob"), timeout=30)
    assert thread.run_status == "idle", thread.error
    assert log.executed == ["carol"]
    assert thread.messages[-1].content == "Answer: deleted carol"


def test_reject_with_a_reason_reaches_the_model(approval, transport):
    url, log = approval
    thread = Agent("srv", url, transport=transport).thread()
    answering(thread, {"approved": False, "reason": "not today"})
    arun(thread.send("delete bob"), timeout=30)
    assert thread.run_status == "idle", thread.error
    assert log.executed == []
    assert thread.messages[-1].content == "Denied: not today"


def test_cancel_is_sent_as_cancelled(approval, transport):
    url, log = approval
    thread = Agent("srv", url, transport=transport).thread()
    answering(thread, cancel=True)
    arun(thread.send("delete bob"), timeout=30)
    assert thread.run_status == "idle", thread.error
    assert log.executed == []
    assert transport.bodies[1]["resume"] == [{"interruptId": "int-call-delete-1", "status": "cancelled"}]


def test_an_invalid_payload_is_refused_before_sending(approval, transport):
    url, log = approval
    thread = Agent("srv", url, transport=transport).thread()
    errors = []

    def on_event(event):
        if event.kind == "interrupt" and event.payload.status == "open":
            try:
                event.payload.resolve({"approved": "yes", "reason": 3})
            except InterruptError as exc:
                errors.append(exc)
                event.payload.resolve({"approved": True})

    thread.subscribe(on_event)
    arun(thread.send("delete bob"), timeout=30)
    [error] = errors
    assert error.errors == ["approved: must be a boolean, got a string", "reason: must be a string, got an integer"]
    assert "Nothing was sent" in str(error)
    assert len(transport.bodies) == 2 and log.executed == ["bob"]
    assert [r for r in log.resumes] == [[{"interruptId": "int-call-delete-1", "status": "resolved",
                                          "payload": {"approved": True}}]]


def test_a_new_message_cancels_the_open_interrupt_in_the_same_request(approval, transport):
    url, log = approval
    thread = Agent("srv", url, transport=transport).thread()

    async def main():
        import asyncio

        first = asyncio.ensure_future(thread.send("delete bob"))
        while not thread.interrupts:
            await asyncio.sleep(0.01)
        assert thread.run_status == "running" and not first.done()
        await thread.send("never mind, say hi")
        await first

    arun(main(), timeout=30)
    assert thread.run_status == "idle", thread.error
    assert log.executed == []
    first, second = transport.bodies
    assert second["resume"] == [{"interruptId": "int-call-delete-1", "status": "cancelled"}]
    assert second["messages"][-1] == {"id": second["messages"][-1]["id"], "role": "user",
                                      "content": "never mind, say hi"}
    assert thread.all_interrupts()[0].note == "the user sent a new message instead"
