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
from pyclient.server._isolation import CoiMode

from .assets import ROOT, RUNTIME

__all__ = ["WEB", "create_app"]

WEB = ROOT / "web"


def create_app(
    *,
    web: Path = WEB,
    runtime: Path = RUNTIME,
    model: str | None = None,
    coi: bool | CoiMode = "auto",
    max_body_bytes: int = 1_000_000,
    body_timeout: float = 30.0,
    extra_routes: list[Any] | None = None,
) -> ASGIApp:
    """Build the dev server app (see `pyclient.server.create_app` for the arguments).

    `coi` also takes serve.py's `--coi` flag as it is: True isolates every response ("always"),
    False leaves it to each page ("auto": the pages with a `<script type="py" worker>`).
    """
    mode: CoiMode = "always" if coi is True else "auto" if coi is False else coi
    return create_server_app(web, runtime, model=model, coi=mode, max_body_bytes=max_body_bytes,
                             body_timeout=body_timeout, extra_routes=extra_routes or ())
