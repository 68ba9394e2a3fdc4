"""JSON Patch (RFC 6902) applied within limits: the shared state's and each activity's patches.

AG-UI changes the shared state (`STATE_DELTA`) and an activity's content (`ACTIVITY_DELTA`)
with JSON Patch, and the page changes the state with `thread.update_state()`. A small patch can
make a huge document (a `copy` from `""` puts the document into itself: two dozen operations
on a kilobyte make gigabytes) or a deep one (paths are text: a few deltas build a state a
thousand levels deep that can no longer be copied, saved or sent). `patch_document(document,
operations)` applies the operations one at a time to a copy, keeping an account of its size as
JSON (`measure`), and raises `PatchLimitError` at the first one that would pass
`MAX_DOCUMENT_CHARS`, `MAX_DOCUMENT_DEPTH` or `MAX_PATCH_COPY_CHARS`, leaving the document
given as it was. `check_document(value)` holds a whole document (a snapshot) to the same limits.

```python
from pyclient._base._json_patch import PatchLimitError, patch_document

print(patch_document({"a": [1]}, [{"op": "add", "path": "/a/-", "value": 2}]))   # {'a': [1, 2]}
bomb = [{"op": "copy", "from": "", "path": f"/k{i}"} for i in range(24)]
try:
    patch_document({"text": "x" * 1_000}, bomb)
except PatchLimitError as exc:
    print(exc)   # operation 10 (copy '' to '/k9') would make the patch copy more than 1,000,000 characters
```
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from ._json import MAX_DOCUMENT_DEPTH
from ._limits import MAX_DOCUMENT_CHARS, MAX_PATCH_COPY_CHARS

__all__ = ["PatchError", "PatchLimitError", "check_document", "measure", "patch_document", "patch_operations"]

_ABSENT: Any = object()


class PatchError(ValueError):
    """A JSON Patch does not apply: an operation's path is not there, a `test` failed, or it is
    not an operation at all. The document stays as it was."""


class PatchLimitError(PatchError):
    """A shared state or an activity's content would be larger than `MAX_DOCUMENT_CHARS` as JSON
    or nest deeper than `MAX_DOCUMENT_DEPTH`, or one patch would copy more than
    `MAX_PATCH_COPY_CHARS`: pyclient does not keep it, and the document stays as it was."""


def _scalar_size(value: Any) -> int:
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return value.bit_length() // 3 + 2  # at least its digits and a sign, without writing them
    if isinstance(value, float):
        return len(repr(value))
    return 4  # null, or what is not JSON (the page's own state)


def _key_size(key: Any) -> int:
    return (len(key) if isinstance(key, str) else 8) + 4  # "key": and a comma


def measure(value: Any) -> tuple[int, int]:
    """`(size, height)` of a JSON value: about how many characters it takes as compact JSON
    (`MAX_DOCUMENT_CHARS` is counted in these), and how many arrays and objects deep it nests
    (a scalar is 0). Past `MAX_DOCUMENT_DEPTH` it stops going down: the height it returns is
    then over the limit, not exact."""
    return _measure(value, 0)


def _measure(value: Any, level: int) -> tuple[int, int]:
    if isinstance(value, dict):
        if level >= MAX_DOCUMENT_DEPTH:
            return 2, MAX_DOCUMENT_DEPTH + 1  # over: how far over does not matter
        size, height = 2, 0
        for key, child in value.items():
            child_size, child_height = _measure(child, level + 1)
            size += _key_size(key) + child_size
            height = max(height, child_height)
        return size, height + 1
    if isinstance(value, (list, tuple)):
        if level >= MAX_DOCUMENT_DEPTH:
            return 2, MAX_DOCUMENT_DEPTH + 1  # over: how far over does not matter
        size, height = 2, 0
        for child in value:
            child_size, child_height = _measure(child, level + 1)
            size += child_size + 1
            height = max(height, child_height)
        return size, height + 1
    return _scalar_size(value), 0


def _copied(value: Any, level: int) -> tuple[Any, int]:
    """A copy of the document to patch in place, and its size (one walk for both)."""
    if isinstance(value, dict):
        if level >= MAX_DOCUMENT_DEPTH:
            raise PatchLimitError(f"the document is already nested deeper than {MAX_DOCUMENT_DEPTH} levels")
        result: dict[Any, Any] = {}
        size = 2
        for key, child in value.items():
            result[key], child_size = _copied(child, level + 1)
            size += _key_size(key) + child_size
        return result, size
    if isinstance(value, list):
        if level >= MAX_DOCUMENT_DEPTH:
            raise PatchLimitError(f"the document is already nested deeper than {MAX_DOCUMENT_DEPTH} levels")
        items = []
        size = 2
        for child in value:
            item, child_size = _copied(child, level + 1)
            items.append(item)
            size += child_size + 1
        return items, size
    if value is None or isinstance(value, (str, int, float)):
        return value, _scalar_size(value)
    return copy.deepcopy(value), _measure(value, level)[0]  # not JSON: the page's own state


def _short(path: str) -> str:
    return repr(path) if len(path) <= 40 else repr(path[:40]) + f"... ({len(path):,} characters)"


def check_document(value: Any) -> None:
    """Raise `PatchLimitError` if `value` (a state or an activity's content, whole) is larger
    than `MAX_DOCUMENT_CHARS` as JSON or deeper than `MAX_DOCUMENT_DEPTH`."""
    size, height = measure(value)
    if height > MAX_DOCUMENT_DEPTH:
        raise PatchLimitError(f"it nests deeper than {MAX_DOCUMENT_DEPTH} levels")
    if size > MAX_DOCUMENT_CHARS:
        raise PatchLimitError(f"it is about {size:,} characters as JSON, over the {MAX_DOCUMENT_CHARS:,} a state "
                              "or an activity may have")


def patch_operations(patch: Iterable[Any]) -> list[Any]:
    """A JSON Patch as plain operations: ag-ui's operation models dumped by their wire names."""
    return [_plain(op) for op in patch]


def _plain(operation: Any) -> Any:
    return operation.model_dump(by_alias=True) if hasattr(operation, "model_dump") else operation


def patch_document(document: Any, operations: Iterable[Any]) -> Any:
    """`document` with the JSON Patch `operations` (plain dicts, or ag-ui's operation models)
    applied, as a new value; the document given is not changed.

    Raises:
        PatchLimitError: an operation would make the document larger than `MAX_DOCUMENT_CHARS`
            or deeper than `MAX_DOCUMENT_DEPTH`, or the patch copy more than `MAX_PATCH_COPY_CHARS`.
        PatchError: an operation does not apply (a failed `test`, a path that is not there)
            or is not an operation; the message is jsonpatch's.
    """
    import jsonpatch  # only servers with activities or shared state need it
    from jsonpointer import JsonPointerException

    account = _Account(*_copied(document, 0))
    for number, operation in enumerate(map(_plain, operations), 1):
        account.check(number, operation)
        try:
            account.document = jsonpatch.apply_patch(account.document, [operation], in_place=True)
        # Not only jsonpatch's own errors: older versions let a malformed operation's
        # TypeError or KeyError through (a `from` ending in "-", an operation that is a list).
        except (jsonpatch.JsonPatchException, JsonPointerException, TypeError, AttributeError, KeyError,
                IndexError) as exc:
            raise PatchError(str(exc) or type(exc).__name__) from None
        account.applied(number)
    return account.document


class _Account:
    """The document being patched and its size as JSON, kept up to date operation by operation.

    `add`, `replace`, `remove` and `copy` change the size by what they add and what they
    replace or remove, exactly, known before they apply. A `move` cannot make the document
    larger than by a member's key, but what it replaces, and where its removal shifts an
    array, are only known once it is done: it is counted as that key (so the size may be over
    the document's), and when that passes the limit the document is measured once it moved.
    Copies, moves to deeper places and measuring again walk values an operation does not show:
    they are paid from the patch's `MAX_PATCH_COPY_CHARS`.
    """

    def __init__(self, document: Any, size: int) -> None:
        self.document = document
        self.size = size
        self.budget = MAX_PATCH_COPY_CHARS
        self.over = False      # a move may have made `size` more than the document's
        self.recount = ""      # measure the document once this operation applied (what it is)

    def check(self, number: int, operation: Any) -> None:
        """Account for `operation` before it applies; raise `PatchLimitError` if it would pass a limit."""
        from jsonpointer import JsonPointer, JsonPointerException

        kind = operation.get("op") if isinstance(operation, Mapping) else None
        if kind not in ("add", "replace", "remove", "copy", "move"):
            return  # a test changes nothing; jsonpatch refuses what is not an operation
        try:
            pointer = JsonPointer(operation["path"])
            source = JsonPointer(operation["from"]) if kind in ("copy", "move") else None
        except (KeyError, TypeError, JsonPointerException):
            return  # jsonpatch refuses it
        where = f"{kind} {_short(source.path)} to {_short(pointer.path)}" if source is not None \
            else f"{kind} at {_short(pointer.path)}"
        old, overhead = self._target(pointer, kind)
        if kind == "remove":
            if old is not _ABSENT:
                self.size -= _measure(old, len(pointer.parts))[0] + overhead
            return
        if source is not None:
            value = source.resolve(self.document, _ABSENT)
            if value is _ABSENT:
                return  # jsonpatch refuses it
            if kind == "move":
                self._move(number, where, pointer, source, value)
                return
            size, height = self._pay(number, where, value, len(source.parts))
        elif "value" in operation:
            size, height = measure(operation["value"])
        else:
            return  # jsonpatch refuses it
        if len(pointer.parts) + height > MAX_DOCUMENT_DEPTH:
            raise _too_deep(number, where)
        change = size - _measure(old, len(pointer.parts))[0] if old is not _ABSENT else size + overhead
        size = self.size + change
        if size > MAX_DOCUMENT_CHARS and self.over:  # maybe only what moves were counted as
            self.over = False
            size = self._pay(number, where, self.document, 0)[0] + change
        if size > MAX_DOCUMENT_CHARS:
            raise _too_large(number, where, size)
        self.size = size

    def applied(self, number: int) -> None:
        """After a move that may have passed the limit: the document measured as it is now."""
        if self.recount:
            where, self.recount, self.over = self.recount, "", False
            self.size = self._pay(number, where, self.document, 0)[0]
            if self.size > MAX_DOCUMENT_CHARS:
                raise _too_large(number, where, self.size)

    def _target(self, pointer: Any, kind: str) -> tuple[Any, int]:
        """What the operation's target holds before it (`_ABSENT` for a new member or an
        insertion into an array), and what a member there costs besides its value."""
        from jsonpointer import JsonPointerException

        if not pointer.parts:
            return self.document, 0
        try:
            parent, part = pointer.to_last(self.document)
        except JsonPointerException:
            return _ABSENT, 0  # jsonpatch refuses it
        if isinstance(parent, dict):
            return parent.get(part, _ABSENT), _key_size(part)
        if isinstance(parent, list) and kind in ("replace", "remove") and isinstance(part, int) \
                and 0 <= part < len(parent):
            return parent[part], 1
        return _ABSENT, 1  # added into an array: nothing is replaced

    def _pay(self, number: int, where: str, value: Any, level: int) -> tuple[int, int]:
        size, height = _measure(value, level)
        self.budget -= size
        if self.budget < 0:
            raise PatchLimitError(f"operation {number} ({where}) would make the patch copy more than "
                                  f"{MAX_PATCH_COPY_CHARS:,} characters")
        return size, height

    def _move(self, number: int, where: str, pointer: Any, source: Any, value: Any) -> None:
        if len(pointer.parts) > len(source.parts):  # deeper than it was: its own depth matters
            _, height = self._pay(number, where, value, len(source.parts))
            if len(pointer.parts) + height > MAX_DOCUMENT_DEPTH:
                raise _too_deep(number, where)
        # At most a new member: the removal may shift an array, so that the target's parent
        # is another value than it is now (an object where it is now an array).
        self.size += _key_size(pointer.parts[-1]) if pointer.parts else 0
        self.over = True
        if self.size > MAX_DOCUMENT_CHARS:
            self.recount = where


def _too_deep(number: int, where: str) -> PatchLimitError:
    return PatchLimitError(f"operation {number} ({where}) would nest the document deeper than "
                           f"{MAX_DOCUMENT_DEPTH} levels")


def _too_large(number: int, where: str, size: int) -> PatchLimitError:
    return PatchLimitError(f"operation {number} ({where}) would make the document about {size:,} characters "
                           f"as JSON, over the {MAX_DOCUMENT_CHARS:,} a state or an activity may have")
