"""A saved conversation taken back, as it must go on after the page died (sans-I/O).

`restored(data, tools, ...)` reads what `Conversation.snapshot()` saved (`pyclient._conversation._snapshot`)
and applies the rules of `pyclient._conversation._lifecycle.RESTORE_RUN` / `RESTORE_CALL` to what was in
flight: a streaming run is not resumed (its partial messages are listed in `interrupted`, its
unanswered calls cancelled); an executing call is interrupted (an idempotent tool's call
waits to run again); a call awaiting approval or input waits for its registration again; a
finished run whose answers were not sent yet stays in AWAITING_TOOLS, so `next_step()` asks
for the follow-up. `Conversation.restore` takes the parts, the run event and the changes.

```python
from pyclient._conversation._machine import Conversation
from pyclient._conversation._restoring import restored

saved = Conversation("t1")
saved.add_user_message("hi")
parts = restored(saved.snapshot(), {}, on_call_started=lambda call_id, name: None, changed=print,
                 feedback_changed=lambda: None)
assert parts.thread_id == "t1" and parts.history.messages()[0].content == "hi" and parts.run_event is None
```
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._tools._client_tool import ClientTool
from ._branches import Branches
from ._call_table import Calls
from ._feedback import Feedback
from ._history import History
from ._interrupt_table import Interrupts
from ._lifecycle import RESTORE_RUN, CallStatus, RunEvent, RunState
from ._records import Change, RunRecord

__all__ = ["Restored", "restored"]


@dataclass
class Restored:
    """The parts of a restored conversation, the run event its rules take (or None), and the
    changes to queue after it (every call's and interrupt's, the messages, state and status)."""

    thread_id: str
    history: History
    calls: Calls
    interrupts: Interrupts
    run_state: RunState
    run: RunRecord
    interrupted: list[str]
    branches: Branches
    feedback: Feedback
    run_event: RunEvent | None
    changes: list[Change]


def restored(data: Mapping[str, Any], tools: Mapping[str, ClientTool], *,
             on_call_started: Callable[[str, str], None], changed: Callable[[Change], None],
             feedback_changed: Callable[[], None]) -> Restored:
    """The conversation `data` saved, with the restore rules applied (see the module docstring).

    Args:
        data: what `snapshot()` returned (through JSON).
        tools: the tools by name, to give restored calls their tool (an `Action` needs it).
        on_call_started, changed, feedback_changed: the conversation's hooks, for the history,
            the calls and interrupts, and the feedback.

    Raises:
        LocalProtocolError: `data` is not a snapshot this version can read.
    """
    from ._snapshot import Snapshot

    snapshot = Snapshot.load(data)
    history = snapshot.history(on_call_started=on_call_started)
    thread_id = snapshot.thread_id
    calls = Calls(thread_id, history, changed)
    interrupts = Interrupts(thread_id, changed)
    for record in snapshot.saved_interrupts():
        interrupts.add_saved(record)
    # A closed thread was never saved; a new thread on the same id goes on.
    run_state = RunState.IDLE if snapshot.run_state is RunState.CLOSED else snapshot.run_state
    run = RunRecord(start=snapshot.run_start)
    interrupted = list(snapshot.interrupted)
    branches = Branches(fork.model_dump() for fork in snapshot.branches)
    feedback = Feedback(snapshot.feedback, changed=feedback_changed)
    saved_calls, idempotent = snapshot.saved_calls(tools)
    for call in saved_calls:
        calls.add_saved(call)
    streaming = run_state in (RunState.STREAMING, RunState.ENDED)
    calls.apply_restore_rules(idempotent)
    if streaming:
        partial = [m.id for m in (history.model_at(at) for at in range(min(run.start, len(history)), len(history)))
                   if m.role in ("assistant", "reasoning") and m.id not in interrupted]
        interrupted.extend(partial)
    changes = [Change("action", call.id) for call in calls.values() if call.status is not CallStatus.STREAMING]
    changes.extend(Change("interrupt", interrupt_id) for interrupt_id in interrupts)
    changes.extend((Change("messages"), Change("state"), Change("status")))
    return Restored(thread_id, history, calls, interrupts, run_state, run, interrupted, branches, feedback,
                    RESTORE_RUN[run_state], changes)
