"""Lazy exports for a package's `__init__` (PEP 562): each name's module is imported on first use.

pyclient's subpackages export names whose modules are costly or need optional extras
(`pyclient.browser` needs Pyodide, `pyclient.server` starlette, `pyclient.testing` Playwright),
so their `__init__` names the home of each and imports it when the name is first read.

```python
import types, sys
from pyclient._base._lazy import lazy_exports

package = types.ModuleType("demo_pkg")
sys.modules["demo_pkg"] = package
package.__getattr__, package.__dir__ = lazy_exports("demo_pkg", {"dumps": "json"})
print(package.dumps([1]), "dumps" in dir(package))      # [1] True
```
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, whose names live in the modules `homes` gives.

    Args:
        package: the package's `__name__`.
        homes: each exported name and its module, relative to the package (`"._chat"`,
            `".._elements"`) or absolute; a name whose home is `"."+name` is that module itself.
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(home, package)
        value = module if home == f".{name}" else getattr(module, name)
        setattr(sys.modules[package], name, value)  # once: later lookups find the attribute
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__
