"""The dev server's ASGI app: `pyclient.server.create_app` over this checkout's `web/` and `runtime/`.

| path | what |
| --- | --- |
| `POST /agent` | the embedded AG-UI agent (pydantic-ai `AGUIAdapter`) |
| `/pyodide/…` | Pyodide core, the wheels and the local `pyodide-lock.json` |
| `/pyscript/…` | PyScript's `dist/` |
| `/…` | `web/` (pages, config, demo) |

```python
import uvicorn
from devserver.app import create_app

uvicorn.run(create_app(), host="127.0.0.1", port=8000)
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.types import ASGIApp

from pyclient.server import create_app as create_server_app

from .assets import ROOT, RUNTIME

__all__ = ["WEB", "create_app"]

WEB = ROOT / "web"


def create_app(
    *,
    web: Path = WEB,
    runtime: Path = RUNTIME,
    model: str | None = None,
    coi: bool = False,
    max_body_bytes: int = 1_000_000,
    body_timeout: float = 30.0,
    extra_routes: list[Any] | None = None,
) -> ASGIApp:
    """Build the dev server app (see `pyclient.server.create_app` for the arguments)."""
    return create_server_app(web, runtime, model=model, coi=coi, max_body_bytes=max_body_bytes,
                             body_timeout=body_timeout, extra_routes=extra_routes or ())
