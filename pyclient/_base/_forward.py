"""`Forward`: a read-only attribute that reads the attribute of the same name on an object inside.

pyclient's handles are views (`Action` over its call's record, `Interrupt` over its record,
`AbortSignal` over its controller's state, `Thread` over its conversation): most of what they
show is a field of the object they hold. One declaration, typed and documented, says so where a
property would write the same body again; `help()` shows the docstring, as a property's, and the
API reference reads it too (docs/griffe_forward.py).

```python
from pyclient._base._forward import Forward

class Record:
    def __init__(self) -> None:
        self.name = "search"

class View:
    name = Forward[str]("_record", "The tool's name.")

    def __init__(self, record: Record) -> None:
        self._record = record

view = View(Record())
print(view.name, View.name.__doc__)   # search The tool's name.
```
"""

from __future__ import annotations

from typing import Generic, TypeVar, overload

__all__ = ["Forward"]

T = TypeVar("T")


class Forward(Generic[T]):
    """An attribute that is the inner object's: `view.name` is `view.<inner>.name`.

    Args:
        inner: the attribute of the owner that holds the object read.
        doc: the attribute's docstring.
        writable: `view.name = value` sets the inner object's (else it raises, as a property
            without a setter does).
    """

    def __init__(self, inner: str, doc: str, *, writable: bool = False) -> None:
        self.inner = inner
        self.name = ""
        self.writable = writable
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Forward[T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...
    def __get__(self, instance: object, owner: type | None = None) -> T | Forward[T]:
        if instance is None:
            return self
        value: T = getattr(getattr(instance, self.inner), self.name)
        return value

    # A data descriptor, as a property is, even when read-only: help() lists it with its doc.
    def __set__(self, instance: object, value: T) -> None:
        if not self.writable:
            raise AttributeError(f"property {self.name!r} of {type(instance).__name__!r} object has no setter")
        setattr(getattr(instance, self.inner), self.name, value)
