"""pyclient's CPython-side serving: the offline browser runtime and the static files a page needs.

Never imported in the page (it needs starlette and builds with npm and pip); the dev server
(`devserver/`) and the pytest plugin (`pyclient.testing`) use it.

```python
from pyclient.server import PYODIDE_VERSION, default_runtime_dir

print(PYODIDE_VERSION)                                   # 314.0.7
print(default_runtime_dir().is_absolute())              # True
```
"""

from ._runtime import (
    PACKAGE_DATA,
    PYODIDE_VERSION,
    PYSCRIPT_VERSION,
    RUNTIME_ENV,
    build,
    default_runtime_dir,
    package_files,
)
from ._static import StaticDir

__all__ = [
    "PACKAGE_DATA",
    "PYODIDE_VERSION",
    "PYSCRIPT_VERSION",
    "RUNTIME_ENV",
    "StaticDir",
    "build",
    "default_runtime_dir",
    "package_files",
]
