"""Run an ASGI app with uvicorn in a background thread on 127.0.0.1 (tests and benchmarks).

```python
from devserver.app import create_app
from devserver.background import ServerThread

with ServerThread(create_app()) as server:
    print(server.url)          # http://127.0.0.1:<free port>
```
"""

from __future__ import annotations

import socket
import threading
import time

__all__ = ["ServerThread", "free_port"]


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerThread:
    """Runs an ASGI app with uvicorn in a daemon thread; a context manager.

    Args:
        app: the ASGI app.
        port: the port; 0 (the default) picks a free one.
    """

    def __init__(self, app, port: int = 0) -> None:
        import uvicorn

        # Bound here, before the thread starts: no other process can take the port meanwhile.
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.sock.close()
