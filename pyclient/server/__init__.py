"""pyclient's CPython-side serving: the offline browser runtime, the static files a page needs, the embedded agent.

Never imported in the page. Building the runtime needs npm and pip (`build`, `vendor`); the
server (`create_app`, `StaticDir`, `agent_endpoint`) needs the `server` extra (starlette,
uvicorn, pydantic-ai), so those names are imported on first use: `pyclient vendor` and the
pytest plugin work without pydantic-ai. The `pyclient` command is `pyclient.server.cli`.

```python
from pyclient.server import DISTRIBUTION, PYODIDE_VERSION, default_runtime_dir

print(PYODIDE_VERSION)                                   # 314.0.7
print(DISTRIBUTION)                                      # pyclient-agui
print(default_runtime_dir().is_absolute())              # True
```
"""

from typing import TYPE_CHECKING

from .._base._lazy import lazy_exports
from ._runtime import (
    ASSETS,
    DISTRIBUTION,
    PACKAGE_DATA,
    PYODIDE_VERSION,
    PYSCRIPT_VERSION,
    RUNTIME_ENV,
    BuildError,
    build,
    default_runtime_dir,
    package_files,
)
from ._vendor import page_config, vendor

if TYPE_CHECKING:
    from ._agent import agent_endpoint
    from ._app import create_app
    from ._demo_model import build_agent
    from ._static import StaticDir

__all__ = [
    "ASSETS",
    "DISTRIBUTION",
    "PACKAGE_DATA",
    "PYODIDE_VERSION",
    "PYSCRIPT_VERSION",
    "RUNTIME_ENV",
    "BuildError",
    "StaticDir",
    "agent_endpoint",
    "build",
    "build_agent",
    "create_app",
    "default_runtime_dir",
    "package_files",
    "page_config",
    "vendor",
]

# Imported on first use: they need starlette (and pydantic-ai for the agent).
_HOMES = {"StaticDir": "._static", "agent_endpoint": "._agent", "build_agent": "._demo_model", "create_app": "._app"}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
