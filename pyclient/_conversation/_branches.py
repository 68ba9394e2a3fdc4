"""A thread's branches: the answers a regenerate or an edit replaced, kept to page through (sans-I/O).

The history a thread sends is one line of messages: the branch shown. Regenerating the last
answer, or editing a user message and sending it again, keeps what it replaces as an
alternative of a *fork*, and the new messages as another; the person pages through them
(‹ 1/2 ›), and the next request carries only the one shown. A fork is keyed by the message
before it (`parent`: its id and its text, since an edited message keeps its id; None at the
very start) and keeps its hidden alternatives as AG-UI JSON, each as it was last shown, forks
inside it included. `Branches` works on the list of messages it is handed and returns the list
to show: the machine replaces its history with it (`Conversation.show_messages`), so every
rule about what a request carries stays the history's.

```python
from ag_ui.core import AssistantMessage, UserMessage
from pyclient._conversation._branches import Branches

branches = Branches()
shown = [UserMessage(id="u1", content="hi"), AssistantMessage(id="a1", content="Hello")]
shown = branches.regenerate(shown)                    # the answer is put aside: [u1]
shown += [AssistantMessage(id="a2", content="Hi there")]
print(branches.point(shown, "a2"))                    # BranchPoint(message_id='a2', index=1, count=2)
shown = branches.show(shown, "a2", 0)
print([m.id for m in shown], shown[-1].content)       # ['u1', 'a1'] Hello
```
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._base._errors import LocalProtocolError
from .._wire._events import message_adapter
from ._entries import as_message

if TYPE_CHECKING:
    from ag_ui.core import Message

__all__ = ["BranchPoint", "Branches"]

logger = logging.getLogger("pyclient")


@dataclass(frozen=True)
class BranchPoint:
    """A message that has alternatives: what `thread.branches(message_id)` returns.

    Attributes:
        message_id: the message that starts the alternative shown (the edited user message,
            or the first message of a regenerated answer).
        index: which alternative is shown, from 0, in the order they were made (the newest last).
        count: how many alternatives there are (2 or more).
    """

    message_id: str
    index: int
    count: int


class _Fork:
    """The alternatives after one message: JSON messages, None for the one the history shows."""

    __slots__ = ("after", "alternatives", "parent", "shown")

    def __init__(self, parent: str | None, after: str, alternatives: list[list[dict[str, Any]] | None],
                 shown: int) -> None:
        self.parent = parent
        self.after = after
        self.alternatives = alternatives
        self.shown = shown


_Key = tuple[str | None, str]


def _key(messages: Sequence[Message], index: int) -> _Key:
    """The fork before `messages[index]`: the id and the text of the message before it."""
    if index == 0:
        return None, ""
    before = messages[index - 1]
    return before.id, _text(before)


def _text(message: Message) -> str:
    from .._tools._content import split_parts

    return split_parts(getattr(message, "content", None))[0]


def _dump(messages: Sequence[Message]) -> list[dict[str, Any]]:
    adapter = message_adapter()
    return [adapter.dump_python(message, mode="json", by_alias=True) for message in messages]


def _index(messages: Sequence[Message], message_id: str) -> int:
    for index, message in enumerate(messages):
        if message.id == message_id:
            return index
    raise LocalProtocolError(
        f"No message {message_id!r} in the history shown: a branch is addressed by a message of "
        "`thread.messages` (`thread.branch_points()` lists those that have alternatives)."
    )


class Branches:
    """Every fork of one thread; see the module docstring.

    Args:
        saved: forks as `saved()` wrote them (`parent`, `shown`, `alternatives`); one that
            does not hold together is dropped with a warning.
    """

    def __init__(self, saved: Iterable[Mapping[str, Any]] = ()) -> None:
        self._forks: dict[_Key, _Fork] = {}
        for item in saved:
            parent, shown, alternatives = item.get("parent"), item.get("shown"), item.get("alternatives")
            after = item.get("after") or ""
            if not (isinstance(alternatives, list) and isinstance(shown, int) and 0 <= shown < len(alternatives)
                    and len(alternatives) >= 2 and alternatives[shown] is None
                    and sum(alternative is None for alternative in alternatives) == 1):
                logger.warning("pyclient: dropped a saved branch point after %r that does not hold together", parent)
                continue
            self._forks[parent, str(after)] = _Fork(parent, str(after), list(alternatives), shown)

    def __bool__(self) -> bool:
        return bool(self._forks)

    def saved(self) -> list[dict[str, Any]]:
        """The forks as JSON data (what a snapshot keeps; `Branches(saved)` reads it back)."""
        return [{"parent": fork.parent, "after": fork.after, "shown": fork.shown, "alternatives": list(fork.alternatives)}
                for fork in self._forks.values()]

    # -- reading ----------------------------------------------------------------------------

    def point(self, messages: Sequence[Message], message_id: str) -> BranchPoint | None:
        """The alternatives of `message_id` in `messages` (the history shown), or None when it
        has none (a message that starts no alternative, or one not in `messages`)."""
        for point in self.points(messages):
            if point.message_id == message_id:
                return point
        return None

    def points(self, messages: Sequence[Message]) -> list[BranchPoint]:
        """Every message of `messages` that has alternatives, in history order."""
        if not self._forks:
            return []
        parents = {parent for parent, _ in self._forks}
        points = []
        for index, message in enumerate(messages):
            if (messages[index - 1].id if index else None) in parents:
                fork = self._forks.get(_key(messages, index))
                if fork is not None:
                    points.append(BranchPoint(message.id, fork.shown, len(fork.alternatives)))
        return points

    # -- making and paging through alternatives -------------------------------------------

    def regenerate(self, messages: Sequence[Message]) -> list[Message]:
        """Put the last answer aside: returns `messages` up to their last user message.

        Everything after the last user message becomes an alternative of the fork after it (a
        new fork, or one more alternative of the one a regenerate made before); the answer the
        next run streams is the new alternative, shown. Without an answer (a run that failed
        before any), nothing is put aside.

        Raises:
            LocalProtocolError: `messages` holds no user message.
        """
        last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
        if last is None:
            raise LocalProtocolError(
                "Cannot regenerate: the thread has no user message yet. Send one first (`await thread.send(text)`)."
            )
        return self._put_aside(messages, last + 1)

    def edit(self, messages: Sequence[Message], message_id: str, text: str) -> list[Message]:
        """Replace the user message `message_id` with `text`: returns the history before it and
        the edited message, the old message and all after it kept as an alternative.

        The edited message keeps the id and the files: a server that keeps its own history per
        thread (ag-ui-langgraph with a checkpointer) sees an edit of that message and forks its
        history there, where a new id would add a message after the old ones.

        Raises:
            LocalProtocolError: `message_id` is not a user message of `messages`, or `text` is
                not a str.
        """
        if not isinstance(text, str):
            raise LocalProtocolError(
                f"thread.edit() takes the new text as a str, got {type(text).__name__}."
            )
        index = _index(messages, message_id)
        original = messages[index]
        if original.role != "user":
            raise LocalProtocolError(
                f"Cannot edit message {message_id!r}: it is a {original.role} message. Only the "
                "user's messages are edited; regenerate an answer instead (`await thread.regenerate()`)."
            )
        from .._base._json import repair
        from .._tools._content import content_of, split_parts

        files = split_parts(original.content)[1]
        text = repair(text)
        if text == split_parts(original.content)[0]:
            # The same words again: its answers are what changes (a regenerate from there).
            return self._put_aside(messages, index + 1)
        edited = as_message({"id": original.id, "role": "user", "content": content_of(text, files)})
        self._fork(_key(messages, index), messages[index:])
        return [*messages[:index], edited]

    def show(self, messages: Sequence[Message], message_id: str, index: int) -> list[Message]:
        """Show alternative `index` of the message `message_id`: returns the history to show.

        The alternative shown until now is put aside as it is (its own forks included).

        Raises:
            LocalProtocolError: `message_id` is not in `messages` or has no alternatives, or
                `index` is not one of its alternatives.
        """
        at = _index(messages, message_id)
        fork = self._forks.get(_key(messages, at))
        if fork is None:
            raise LocalProtocolError(
                f"Message {message_id!r} has no other branches: only an edited message or a "
                "regenerated answer does (`thread.branches(message_id)` is None for the others)."
            )
        count = len(fork.alternatives)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
            raise LocalProtocolError(
                f"Message {message_id!r} has {count} branches: {index!r} is not one. Pass an index "
                f"from 0 to {count - 1}."
            )
        if index == fork.shown:
            return list(messages)
        chosen = fork.alternatives[index]
        assert chosen is not None
        fork.alternatives[fork.shown] = _dump(messages[at:])
        fork.alternatives[index] = None
        fork.shown = index
        return [*messages[:at], *(as_message(message) for message in chosen)]

    def _put_aside(self, messages: Sequence[Message], index: int) -> list[Message]:
        """The messages from `index` on are put aside (when there are any): returns the rest."""
        if index < len(messages):
            self._fork(_key(messages, index), messages[index:])
        return list(messages[:index])

    def _fork(self, key: _Key, tail: Sequence[Message]) -> None:
        """`tail`, the messages after the fork's message, is put aside; a new alternative (empty
        until the next run fills it) is shown."""
        kept = _dump(tail)
        fork = self._forks.get(key)
        if fork is None:
            self._forks[key] = _Fork(key[0], key[1], [kept, None], 1)
            return
        fork.alternatives[fork.shown] = kept
        fork.alternatives.append(None)
        fork.shown = len(fork.alternatives) - 1
