"""How Playwright starts Chromium for pyclient's tests: the binary and the flags a closed machine needs.

`PYCLIENT_CHROMIUM` names a Chromium binary; else Debian's `/usr/bin/chromium` is used when
it exists; else nothing is set and Playwright starts its own browser. With a system binary
(often run as root on a closed network) Chromium needs `--no-sandbox`, and without the
background-networking flags it keeps trying to reach Google's hosts.

```python
from pyclient.testing import chromium_launch_args

args = chromium_launch_args()
print(set(args) <= {"executable_path", "args"})     # True
```
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM_ARGS", "SYSTEM_CHROMIUM", "chromium_launch_args", "chromium_path"]

SYSTEM_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
"""The flags a system Chromium gets: headless, no sandbox (root), no background requests to the network."""


def chromium_path() -> str | None:
    """The Chromium binary to launch: `$PYCLIENT_CHROMIUM`, else `/usr/bin/chromium` if it exists, else None."""
    named = os.environ.get("PYCLIENT_CHROMIUM")
    if named:
        return named
    return SYSTEM_CHROMIUM if Path(SYSTEM_CHROMIUM).exists() else None


def chromium_launch_args() -> dict[str, Any]:
    """Keyword arguments for `chromium.launch()` / `launch_persistent_context()` ({} for Playwright's own browser)."""
    path = chromium_path()
    if path is None:
        return {}
    return {"executable_path": path, "args": list(CHROMIUM_ARGS)}
