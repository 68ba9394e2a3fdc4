"""How Playwright starts Debian's Chromium here: `pyclient.testing.chromium_launch_args`.

```python
from playwright.sync_api import sync_playwright
from devserver.chromium import launch_args

with sync_playwright() as p:
    browser = p.chromium.launch(**launch_args())
```
"""

from __future__ import annotations

from typing import Any

from pyclient.testing import CHROMIUM_ARGS, chromium_launch_args, chromium_path

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "launch_args"]

CHROMIUM = chromium_path() or "/usr/bin/chromium"


def launch_args() -> dict[str, Any]:
    """Keyword arguments for `chromium.launch()` / `launch_persistent_context()`."""
    return {"executable_path": CHROMIUM, "args": list(CHROMIUM_ARGS)}
