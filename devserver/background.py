"""Run an ASGI app with uvicorn in a background thread on 127.0.0.1: `pyclient.testing.ServerThread`.

```python
from devserver.app import create_app
from devserver.background import ServerThread

with ServerThread(create_app()) as server:
    print(server.url)          # http://127.0.0.1:<free port>
```
"""

from __future__ import annotations

import socket

from pyclient.testing import ServerThread

__all__ = ["ServerThread", "free_port"]


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
