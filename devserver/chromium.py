"""How Playwright starts Debian's Chromium here: the binary and the flags it needs.

Running as root on a closed network, Chromium needs `--no-sandbox`, and without the
background-networking flags it keeps trying to reach Google's hosts.

```python
from playwright.sync_api import sync_playwright
from devserver.chromium import launch_args

with sync_playwright() as p:
    browser = p.chromium.launch(**launch_args())
```
"""

from __future__ import annotations

import os

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "launch_args"]

CHROMIUM = os.environ.get("PYCLIENT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def launch_args() -> dict:
    """Keyword arguments for `chromium.launch()` / `launch_persistent_context()`."""
    return {"executable_path": CHROMIUM, "args": list(CHROMIUM_ARGS)}
