"""One thread's records by id, as a read-only mapping: what `Calls` and `Interrupts` share.

A thread's tool calls (`pyclient._conversation._call_table`) and its interrupts (`pyclient._conversation._interrupt_table`) are kept
the same way: every record by id in the order it appeared, looked up by an id the page gives
(a wrong id names the thread and the ids waiting for an answer), restored as saved, and told
to `changed` as it moves through its lifecycle table. `Registry` is that shape once; each
subclass names its records and says which ones wait.

```python
from pyclient._conversation._records import InterruptRecord
from pyclient._conversation._registry import Registry

class Notes(Registry[InterruptRecord]):
    noun, waiting_word, hint = "note", "open", "Use one from `notes`."
    def waiting(self) -> list[InterruptRecord]:
        return list(self.values())

notes = Notes("t1", changed=print)
notes.add_saved(InterruptRecord("n1", "input_required"))
print(list(notes), repr(notes))          # ['n1'] <Notes of 't1': 1, 1 open>
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import ClassVar, Protocol, TypeVar

from .._base._errors import LocalProtocolError
from ._records import Change

__all__ = ["Registry"]


class _Record(Protocol):
    @property
    def id(self) -> str: ...


R = TypeVar("R", bound=_Record)


class Registry(Mapping[str, R]):
    """Every record of one thread by id, in the order they appeared.

    Args:
        thread_id: names the thread in error messages.
        changed: receives a `Change` for every record that appears or changes (the subclass tells it).

    Attributes:
        noun: what a record is called in messages ("tool call").
        waiting_word: what the waiting ones are called ("pending").
        hint: what to do after a wrong id (which attribute lists the right ones).
    """

    noun: ClassVar[str] = "record"
    waiting_word: ClassVar[str] = "waiting"
    hint: ClassVar[str] = ""

    def __init__(self, thread_id: str, changed: Callable[[Change], None]) -> None:
        self.thread_id = thread_id
        self.changed = changed
        self._all: dict[str, R] = {}

    def __getitem__(self, record_id: str) -> R:
        return self._all[record_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.thread_id!r}: {len(self._all)}, {len(self.waiting())} {self.waiting_word}>"

    def waiting(self) -> list[R]:
        """The records waiting for an answer, in order (what a wrong id's message lists)."""
        raise NotImplementedError(f"{type(self).__name__} must say which of its records wait")

    def find(self, record_id: str) -> R:
        """The record with this id.

        Raises:
            LocalProtocolError: no record has this id (the message lists the waiting ones).
        """
        record = self._all.get(record_id)
        if record is None:
            ids = ", ".join(repr(r.id) for r in self.waiting()) or "none"
            raise LocalProtocolError(
                f"No {self.noun} has id {record_id!r} in thread {self.thread_id!r} ({self.waiting_word}: {ids}). "
                f"{self.hint}"
            )
        return record

    def put(self, record: R, *, last: bool = False) -> None:
        """Keep `record` under its id: in the place of one it replaces, or, with `last`, after every other."""
        if last:
            self._all.pop(record.id, None)
        self._all[record.id] = record

    def add_saved(self, record: R) -> None:
        """A record restored from a snapshot, as saved."""
        self.put(record)
