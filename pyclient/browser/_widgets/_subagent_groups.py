"""A subagent's group in the chat: its messages, tool calls and interrupts under a header with its name and status.

What a subagent produced carries its `subagentRunId` (`message.subagent_run_id`, and an
interrupt's `subagent_run_id`; a tool call belongs to its message's subagent). The chat puts
those items in one group per invocation, a `<details>` whose summary names the subagent
(`thread.subagent(id)`: `pyclient._conversation._subagents.Subagent`) and says its status in words
("running", "finished", "waiting", "failed: <the error>", "interrupted"), with
`data-status` for styling. The group sits in the conversation where the subagent's first item
is; inside it the items keep history order in a list of their own (a
`pyclient.browser._widgets._timeline.Timeline`). It starts open, and the person folds it.
An invocation the thread never saw start (its name unknown) is headed "Subagent". Its name,
error and description are the server's words: invisible characters marked.

```python
from pyclient._conversation._subagents import Subagent
from pyclient.browser._page._nodes import el
from pyclient.browser._widgets._subagent_groups import SubagentGroup

group = SubagentGroup("s1")
group.update(Subagent("s1", name="researcher", status="running"))
group.timeline.add("m:1", el("li", "", "Looking…"))
print(group.node.querySelector("summary").textContent)   # researcher · running
group.update(Subagent("s1", name="researcher", status="error", error="no results"))
print(group.node.dataset.status, group.node.querySelector(".pyclient-subagent-status").textContent)
# error failed: no results
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._page._nodes import el, set_visible
from .._page._visible import visible
from ._timeline import Timeline

if TYPE_CHECKING:
    from ..._conversation._subagents import Subagent

__all__ = ["Groups", "SubagentGroup", "status_words"]

_WORDS = {"running": "running", "finished": "finished", "suspended": "waiting", "error": "failed",
          "interrupted": "interrupted"}


def status_words(subagent: Subagent | None) -> str:
    """A subagent's status in words ("running" for one never announced: its work is arriving)."""
    if subagent is None:
        return "running"
    words = _WORDS.get(subagent.status, str(subagent.status))
    if subagent.status == "error" and subagent.error:
        words += f": {subagent.error}"
    return words


class SubagentGroup:
    """The `<li>` of one subagent invocation (`node`) and the list of its items (`timeline`).

    Args:
        subagent_run_id: the invocation's id (`data-subagent-run-id`).
    """

    def __init__(self, subagent_run_id: str) -> None:
        self.subagent_run_id = subagent_run_id
        node = self.node = el("li", "pyclient-subagent")
        node.dataset.subagentRunId = subagent_run_id
        details = el("details", "pyclient-subagent-details")
        details.open = True
        summary = el("summary", "pyclient-subagent-summary")
        self._name = el("span", "pyclient-subagent-name", "Subagent")
        self._status = el("span", "pyclient-subagent-status", "running")
        summary.append(self._name, el("span", "pyclient-subagent-sep", " · "), self._status)
        items = el("ol", "pyclient-subagent-items")
        details.append(summary, items)
        node.append(details)
        self.timeline = Timeline(items)
        self._shown: tuple[str, str, str] | None = None
        node.dataset.status = "running"

    def update(self, subagent: Subagent | None) -> None:
        """Show the invocation's name and status (None: not announced, or not yet)."""
        name = (subagent.name if subagent is not None else None) or "Subagent"
        status = subagent.status if subagent is not None else "running"
        words = status_words(subagent)
        if self._shown == (name, status, words):
            return
        self._shown = (name, status, words)
        set_visible(self._name, name)   # the server's words: invisible characters marked
        set_visible(self._status, words)
        self.node.dataset.status = status
        description = subagent.description if subagent is not None else None
        self.node.title = visible(description or "")


class Groups:
    """Which list each item of the chat goes in: the conversation's (`main`), or its subagent's group.

    `put(key, node, subagent_run_id)` adds a new item where it belongs (making the group, in
    the conversation after what is there, when it is the subagent's first item). A full pass
    says where every item is, in history order: `begin()`, `keep(key, node, subagent_run_id)`
    for each, then `place()` puts each list in that order (an item whose subagent changed, a
    snapshot's doing, moves to its new list) and drops what was not kept.

    Args:
        main: the conversation's list.
        subagent: reads an invocation's record (`thread.subagent`).
    """

    def __init__(self, main: Timeline, subagent: Callable[[str], Subagent | None]) -> None:
        self.main = main
        self._subagent = subagent
        self._groups: dict[str, SubagentGroup] = {}
        self._homes: dict[str, Timeline] = {}     # item key -> the list it is in
        self._keys: dict[str | None, list[str]] = {}
        self._front = False  # this pass keeps earlier items only: they go before the others

    def timeline(self, subagent_run_id: str | None) -> Timeline:
        """The list the items of this subagent go in (the conversation's for None)."""
        if subagent_run_id is None:
            return self.main
        group = self._groups.get(subagent_run_id)
        if group is None:
            group = self._groups[subagent_run_id] = SubagentGroup(subagent_run_id)
            group.update(self._subagent(subagent_run_id))
            self.main.add("g:" + subagent_run_id, group.node)
        return group.timeline

    def put(self, key: str, node: Any, subagent_run_id: str | None, *, after: str | None = None) -> None:
        """Add a new item to its list: at its end, or after the item `after` when that list has it."""
        timeline = self.timeline(subagent_run_id)
        timeline.add(key, node, after=after)
        self._homes[key] = timeline

    def begin(self, *, front: bool = False) -> None:
        """A full pass starts: `keep()` each item, in history order, then `place()`. `front`:
        the pass keeps only earlier items, which go before those there (nothing is dropped)."""
        self._keys = {None: []}
        self._front = front

    def keep(self, key: str, node: Any, subagent_run_id: str | None) -> None:
        """The item `key` (made already) is in the history, in its subagent's list (`node` may
        be None for an item its own widget added to that list)."""
        if subagent_run_id is not None and subagent_run_id not in self._keys:
            self._keys[None].append("g:" + subagent_run_id)
            self._keys[subagent_run_id] = []
        timeline = self.timeline(subagent_run_id)
        home = self._homes.get(key)
        if home is None and key in timeline:  # put there by its own widget (an activity's card)
            self._homes[key] = home = timeline
        if home is not timeline:
            if home is not None:
                home.remove(key)
            timeline.add(key, node)
            self._homes[key] = timeline
        self._keys[subagent_run_id].append(key)

    def place(self) -> list[str]:
        """Put every list in the order kept; returns the keys of the items dropped (groups aside)."""
        front = self._front
        gone = [key for key in self.main.place(self._keys[None], front=front) if not key.startswith("g:")]
        for run_id, group in list(self._groups.items()):
            if run_id in self._keys:
                gone += group.timeline.place(self._keys[run_id], front=front)
            elif not front:  # the snapshot took all of its items: the group went with them
                del self._groups[run_id]
                gone += [key for key, home in self._homes.items() if home is group.timeline]
        for key in gone:
            self._homes.pop(key, None)
        return gone

    def refresh(self) -> None:
        """Show each group's name and status as the thread has them now."""
        for run_id, group in self._groups.items():
            group.update(self._subagent(run_id))
