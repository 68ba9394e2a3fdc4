"""A saved thread's records folded into the snapshot they follow: what a `RecordStore`'s `load` returns.

A thread kept in a store that can append (`pyclient._base._store.RecordStore`) is saved as a whole
snapshot now and then, and as records in between (`pyclient._driver._journal`). A record is a JSON
dict: `seq` (one above the last record's, or the snapshot's own `seq`), `from` (how many of
the snapshot's messages it keeps), `messages` (the messages from there on, replacing the
rest), `head` (top-level keys it replaces: run state, run start, shared state...), `calls`
and `interrupts` (each replaces the one with its `id`, or is added). `fold` applies them in
order and stops at the first record that does not follow (a torn append, records a crash
left behind a newer snapshot), so a load restores what was complete, and says so with
`"cut": True` (the thread's next save is then whole: a record after those would be left out
too). Plain dicts: the stores call it, and it imports nothing of pyclient's.

```python
from pyclient._base._replay import fold

base = {"version": 1, "seq": 0, "messages": [{"id": "u1"}], "calls": [], "interrupts": []}
records = [{"seq": 1, "from": 1, "messages": [{"id": "a1"}], "head": {"run_state": "IDLE"}},
           {"seq": 3, "from": 0, "messages": [], "head": {}}]          # seq 2 is missing: ignored
snapshot = fold(base, records)
print([m["id"] for m in snapshot["messages"]], snapshot["run_state"], snapshot["seq"])   # ['u1', 'a1'] IDLE 1
```
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["fold"]

logger = logging.getLogger("pyclient")


def fold(base: Mapping[str, Any], records: Iterable[Any]) -> dict[str, Any]:
    """The snapshot `base` with `records` applied in order (`seq`: the last one applied).

    A record whose `seq` is not one above the last (at or below the base's: written before the
    base, so already in it; above: one is missing) or that is damaged ends the fold: what
    follows it cannot be applied safely.
    """
    snapshot = dict(base)
    seq = base.get("seq", 0)
    if not isinstance(seq, int):
        seq = 0
    messages = list(snapshot.get("messages") or ())
    calls = {call.get("id"): call for call in snapshot.get("calls") or () if isinstance(call, Mapping)}
    interrupts = {i.get("id"): i for i in snapshot.get("interrupts") or () if isinstance(i, Mapping)}
    for record in records:
        if not isinstance(record, Mapping) or not isinstance(record.get("seq"), int):
            snapshot["cut"] = True
            break
        if record["seq"] <= seq:
            continue  # already in the base
        start, added, head = record.get("from"), record.get("messages"), record.get("head")
        if (record["seq"] != seq + 1 or not isinstance(start, int) or not 0 <= start <= len(messages)
                or not isinstance(added, list) or not isinstance(head, Mapping)):
            logger.warning("pyclient: a saved thread's record %s does not follow record %s: the rest is left out",
                           record["seq"], seq)
            snapshot["cut"] = True  # the records left behind would end a later fold: save whole next
            break
        del messages[start:]
        messages.extend(added)
        snapshot.update(head)
        for call in record.get("calls") or ():
            if isinstance(call, Mapping):
                calls[call.get("id")] = call
        for interrupt in record.get("interrupts") or ():
            if isinstance(interrupt, Mapping):
                interrupts[interrupt.get("id")] = interrupt
        seq = record["seq"]
    snapshot["messages"] = messages
    snapshot["calls"] = list(calls.values())
    snapshot["interrupts"] = list(interrupts.values())
    snapshot["seq"] = seq
    return snapshot
