# Stub for `pyodide.ffi`, the Python side of Pyodide's JS bridge: the names pyclient's
# browser bridge and test pages use (and a few close relatives), after the signatures of
# Pyodide's own `_pyodide/_core_docs.py`. JS objects are `JsProxy` instances whose
# attributes are the JS properties, so attribute access yields `Any`.
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Generic, Literal, ParamSpec, TypeVar, final, overload

_T = TypeVar("_T")
_P = ParamSpec("_P")

class JsProxy:
    """A Python view of a JavaScript object."""

    @property
    def js_id(self) -> int: ...
    @property
    def typeof(self) -> str: ...
    def new(self, *args: Any, **kwargs: Any) -> Any: ...
    def to_py(
        self,
        *,
        depth: int = -1,
        default_converter: Callable[[JsProxy, Callable[[JsProxy], Any], Callable[[JsProxy, Any], None]], Any]
        | None = None,
    ) -> Any: ...
    # Any other attribute is a property of the JS object.
    def __getattr__(self, name: str) -> Any: ...
    def __setattr__(self, name: str, value: Any) -> None: ...

class JsDoubleProxy(JsProxy, Generic[_T]):
    """What `create_proxy` returns: a JS handle on a Python object, destroyed explicitly."""

    def destroy(self) -> None: ...
    def unwrap(self) -> _T: ...

class JsCallableDoubleProxy(JsDoubleProxy[Callable[_P, _T]], Generic[_P, _T]):
    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _T: ...

class JsOnceCallable(JsProxy, Generic[_P, _T]):
    """What `create_once_callable` returns: released after its first call."""

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _T: ...
    def destroy(self) -> None: ...

class JsException(JsProxy, Exception):
    """A JavaScript error raised into Python."""

    name: str
    message: str
    stack: str

class ConversionError(Exception): ...

@final
class JsNull:
    """JavaScript `null` (`undefined` becomes None)."""

    typeof: str
    def __bool__(self) -> Literal[False]: ...

jsnull: JsNull

@overload
def create_proxy(
    obj: Callable[_P, _T], /, *, capture_this: bool = False, roundtrip: bool = True
) -> JsCallableDoubleProxy[_P, _T]: ...
@overload
def create_proxy(obj: _T, /, *, capture_this: bool = False, roundtrip: bool = True) -> JsDoubleProxy[_T]: ...
def create_once_callable(obj: Callable[_P, _T], /) -> JsOnceCallable[_P, _T]: ...
def to_js(
    obj: Any,
    /,
    *,
    depth: int = -1,
    pyproxies: JsProxy | None = None,
    create_pyproxies: bool = True,
    dict_converter: Callable[[Iterable[Any]], Any] | None = None,
    default_converter: Callable[[Any, Callable[[Any], Any], Callable[[Any, Any], None]], Any] | None = None,
    eager_converter: Callable[[Any, Callable[[Any], Any], Callable[[Any, Any], None]], Any] | None = None,
) -> Any: ...
def destroy_proxies(pyproxies: JsProxy, /) -> None: ...
def run_sync(x: Awaitable[_T]) -> _T: ...
def can_run_sync() -> bool: ...
