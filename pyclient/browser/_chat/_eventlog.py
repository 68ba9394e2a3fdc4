"""The chat's event log: every AG-UI event the thread saw, with its time and a short excerpt, and a download.

`EventLog.add(event)` keeps each event (all of them, for the download) with the time it
arrived. It runs for every event of every stream, so it only appends, to lists the garbage
collector need not walk: a text or argument delta is kept as its delta string alone (its class
and id once for each run of deltas), made into a model again only when shown or downloaded,
because keeping every event model alive made each young-generation collection walk them; and
the clock, whose read crosses into JavaScript, is read once per frame and every `STAMP_EVERY`
events. The panel shows the newest `MAX_ROWS` rows, written by `flush()` once per frame and
only while it is open, so a stream costs nothing until someone looks. `download()` saves every
event as JSON Lines through a `Blob` and an `<a download>`.

```python
from ag_ui.core import RunStartedEvent
from pyclient.browser._chat._eventlog import EventLog

log = EventLog("demo")
log.add(RunStartedEvent(thread_id="t1", run_id="r1"))
log.toggle()                  # open: the rows are written at the next flush()
log.flush()
print(log.node.querySelector(".pyclient-log-type").textContent)   # RUN_STARTED
print(log.jsonl())            # {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
```
"""

from __future__ import annotations

import bisect
import json
import time
from typing import Any

import js
from pyodide.ffi import to_js

from ..._wire._events import AGUIEvent, UnknownEvent, event_type
from .._page._document import page_document
from .._page._nodes import el, later, marked, set_visible

__all__ = ["MAX_ROWS", "STAMP_EVERY", "EventLog"]

MAX_ROWS = 500
"""How many rows the open panel shows (the newest); every event is kept for the download."""

STAMP_EVERY = 32
"""Between two frames, the clock is read again after this many events (a power of two)."""

_EXCERPT = 160

# The delta events kept as their delta alone: class name -> (the name of its id field, the
# fields it may have set). Only when nothing else was set (no timestamp, no extra keys), so the
# model made again is the same. By name: ag_ui.core is imported on first use
# (`pyclient._wire._events.event_adapter`), after a Chat and its log exist.
_COMPACT: dict[str, tuple[str, frozenset[str]]] = {
    "TextMessageContentEvent": ("message_id", frozenset({"type", "message_id", "delta"})),
    "ToolCallArgsEvent": ("tool_call_id", frozenset({"type", "tool_call_id", "delta"})),
}
_BY_CLASS: dict[type, tuple[str, frozenset[str]] | None] = {}  # _COMPACT by class, filled as classes come
_UNSEEN: Any = object()

_Key = tuple[type, str, Any, frozenset[str]]   # a run of compact deltas: class, id field, id, fields
_NO_KEY: _Key = (type(None), "", None, frozenset())   # no event's class is NoneType: matches none


def event_json(event: AGUIEvent) -> dict[str, Any]:
    """An event as its JSON object (camelCase, unset fields left out)."""
    if isinstance(event, UnknownEvent):
        return dict(event.raw)
    data: dict[str, Any] = event.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


def excerpt(event: AGUIEvent) -> str:
    """A one-line excerpt of an event's fields (its type left out), at most `_EXCERPT` characters."""
    data = event_json(event)
    data.pop("type", None)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


class EventLog:
    """The panel of one chat (`node`, hidden until `toggle()`), and the events behind it.

    Args:
        name: used in the download's file name (`pyclient-events-<name>.jsonl`).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        # Events come in runs: _runs[j] starts at event _starts[j]. In a run whose _runs[j] is
        # None, event i is _items[i]; in a run of one message's (or call's) compact deltas,
        # _runs[j] = (class, id field, id, fields it may set) and _items[i] is a delta. The clock
        # was read at the events _stamps[j], at _times[j] (time.monotonic()); the events after
        # one share its time.
        self._items: list[Any] = []
        self._starts: list[int] = []
        self._runs: list[_Key | None] = []
        self._key: _Key = _NO_KEY      # the last run's key while it is compact: a delta continues it
        self._stamps: list[int] = []
        self._times: list[float] = []
        self._stale = True              # read the clock at the next event
        self._start: float | None = None
        self._shown = 0          # events[:_shown] have had their turn to be rendered
        self._rows = 0           # rows in the DOM
        node = self.node = el("section", "pyclient-log")
        node.setAttribute("aria-label", "Event log")
        node.hidden = True
        bar = el("div", "pyclient-log-bar")
        self._count = el("span", "pyclient-log-count", "0 events")
        self._download = el("button", "pyclient-log-download", "Download", type="button",
                            data_command="download-log")
        self._download.setAttribute("aria-label", "Download the events as JSON Lines")
        bar.append(self._count, self._download)
        self._list = el("ol", "pyclient-log-rows")
        node.append(bar, self._list)

    @property
    def open(self) -> bool:
        """True while the panel is shown."""
        return not bool(self.node.hidden)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, event: AGUIEvent) -> None:
        """Keep `event` with its arrival time (cheap: no DOM work until `flush()`)."""
        items = self._items
        if self._stale or not len(items) & (STAMP_EVERY - 1):
            self._stale = False
            self._stamps.append(len(items))
            self._times.append(time.monotonic())
            if self._start is None:
                self._start = self._times[0]
        # `__pydantic_fields_set__` is what `model_fields_set` returns, without the property's
        # call: this runs for every event.
        model: Any = event
        key = self._key
        cls = type(model)
        if cls is key[0] and model.__pydantic_fields_set__ <= key[3] and getattr(model, key[1]) == key[2]:
            items.append(model.delta)  # the run goes on: nothing else to keep
            return
        compact = _BY_CLASS.get(cls, _UNSEEN)
        if compact is _UNSEEN:
            compact = _BY_CLASS[cls] = _COMPACT.get(cls.__name__)
        if compact is not None and model.__pydantic_fields_set__ <= compact[1]:
            key = self._key = (cls, compact[0], getattr(model, compact[0]), compact[1])
            self._starts.append(len(items))
            self._runs.append(key)
            items.append(model.delta)
            return
        if self._key is not _NO_KEY or not self._runs:
            self._key = _NO_KEY
            self._starts.append(len(items))
            self._runs.append(None)
        items.append(event)

    def arrived(self, index: int) -> float:
        """When the `index`-th event arrived (`time.monotonic()`, read once a frame, see above)."""
        return self._times[bisect.bisect_right(self._stamps, index) - 1]

    def event(self, index: int) -> AGUIEvent:
        """The `index`-th event kept (a delta kept compactly is made into its model again)."""
        key = self._runs[bisect.bisect_right(self._starts, index) - 1]
        if key is None:
            return self._items[index]  # type: ignore[no-any-return]
        cls, field, ident, _ = key
        made: AGUIEvent = cls(**{field: ident, "delta": self._items[index]})
        return made

    def toggle(self) -> bool:
        """Show or hide the panel; returns True when it is now open."""
        self.node.hidden = self.open
        return self.open

    def flush(self) -> None:
        """Write the rows of the events that arrived since the last flush (newest `MAX_ROWS` only)."""
        self._stale = True  # a frame passed: the next event reads the clock
        total = len(self._items)
        if not self.open:
            return
        if total == self._shown:
            return
        self._count.textContent = f"{total} event{'s' if total != 1 else ''}"
        start = max(self._shown, total - MAX_ROWS)
        fragment = page_document().createDocumentFragment()
        base = self._start or 0.0
        for index in range(start, total):
            event = self.event(index)
            arrived = self.arrived(index)
            row = el("li", "pyclient-log-row")
            row.append(el("time", "pyclient-log-time", f"+{(arrived - base) * 1000:.0f} ms"),
                       marked("code", "pyclient-log-type", event_type(event)))  # an unknown type is the server's
            text = el("span", "pyclient-log-excerpt")
            set_visible(text, excerpt(event))
            row.append(text)
            fragment.append(row)
        self._list.append(fragment)
        self._rows += total - start
        self._shown = total
        while self._rows > MAX_ROWS:  # the oldest rows go
            self._list.firstElementChild.remove()
            self._rows -= 1

    def reopen(self) -> None:
        """The panel opened: render its rows again from the newest events."""
        self._list.replaceChildren()
        self._rows = 0
        self._shown = max(0, len(self._items) - MAX_ROWS)
        self._count.textContent = ""
        self.flush()
        total = len(self._items)
        self._count.textContent = f"{total} event{'s' if total != 1 else ''}"

    def jsonl(self) -> str:
        """Every event, one JSON object per line."""
        return "".join(json.dumps(event_json(event), ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
                       for event in map(self.event, range(len(self._items))))

    def download(self) -> None:
        """Save every event as `pyclient-events-<name>.jsonl`."""
        blob = js.Blob.new(to_js([self.jsonl()]), to_js({"type": "application/jsonl"},
                                                       dict_converter=js.Object.fromEntries))
        url = js.URL.createObjectURL(blob)
        link = el("a", "", href=url, download=f"pyclient-events-{self.name}.jsonl")
        link.hidden = True
        page_document().body.append(link)
        link.click()
        link.remove()

        def revoke() -> None:
            js.URL.revokeObjectURL(url)

        later(revoke, 1000)  # once the download has started: the URL would otherwise live on
