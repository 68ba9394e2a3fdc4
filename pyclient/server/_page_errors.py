"""A page's start-up error in the `pyclient serve` log: the line the page shows, for whoever watches the terminal.

The pages `pyclient serve` answers carry a `Server-Timing: pyclient-serve` entry (`SERVE_MARK`),
which a page's script can read (`performance.getEntriesByType("navigation")[0].serverTiming`)
and a response header cannot be. When a page's Python fails at start-up, its `renderer.js`
shows the error on the page and, on such a page only, posts the exception's line to
`POST /pyclient/startup-error` (`{"page": path, "error": line}`); this endpoint logs it as a
WARNING on "pyclient.server": `/index.html did not start: ConfigurationError: ...`. A page on
any other server posts nothing. The body is the page's (any script on the origin may post):
it is read up to `MAX_BODY` bytes and logged as one cut line (`_server_log`), never parsed
beyond two strings (with pyclient's bounded JSON parser).

```python
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient
from pyclient.server._page_errors import STARTUP_ERROR_PATH, startup_error

client = TestClient(Starlette(routes=[Route(STARTUP_ERROR_PATH, startup_error, methods=["POST"])]))
print(client.post(STARTUP_ERROR_PATH, json={"page": "/", "error": "ValueError: no"}).status_code)  # 204
```
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from .._base._json import loads
from ._server_log import logger

__all__ = ["MAX_BODY", "SERVE_MARK", "STARTUP_ERROR_PATH", "startup_error"]

SERVE_MARK = "pyclient-serve"
"""The `Server-Timing` entry of the pages `pyclient serve` answers (renderer.js looks for it)."""
STARTUP_ERROR_PATH = "/pyclient/startup-error"
MAX_BODY = 4_096
"""Bytes of a report read; an exception's line and a path fit, a traceback need not."""
_SHOWN = 500  # characters of the error in the log line


async def startup_error(request: Request) -> Response:
    """Log the start-up error a page reports (see the module docstring); 204, or 400 for a body that is not one."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return Response(f"a start-up error report is at most {MAX_BODY} bytes", status_code=413)
    try:
        report = loads(body.decode())  # bounded depth: 4 kB of '[' would be too deep for json.loads
    except ValueError:  # not UTF-8, not JSON, too deep
        report = None
    if not isinstance(report, dict) or not isinstance(report.get("error"), str):
        return Response('expected JSON {"page": "/path", "error": "the exception\'s line"}', status_code=400)
    page = report.get("page") if isinstance(report.get("page"), str) else "a page"
    error = " ".join(report["error"].split())  # one line: the filter would mark each newline
    if len(error) > _SHOWN:
        error = error[: _SHOWN - 1] + "…"
    logger.warning("%s did not start: %s", page or "/", error)
    return Response(status_code=204)
