"""The platform of this process, picked once and installed from above the core (as micropip picks its compatibility layer).

In Pyodide (`sys.platform == "emscripten"`, checked explicitly, never by trying `import js`)
it is `pyclient.browser.BrowserPlatform`; elsewhere the CPython `Platform`. `Agent` uses it
unless given `platform=`; the package-root `use_client_tool` uses it. In Pyodide, importing
pyclient also turns on `pyclient.browser.show_startup_errors()`, before the page's own code
can fail: a `ConfigurationError` at `@client_tool` is raised before any `Agent` exists.

```python
from pyclient._binding._platform import current_platform

print(current_platform().name)    # "cpython" here, "browser" in the page
```
"""

from __future__ import annotations

import sys
from typing import Any

from ._base._errors import ConfigurationError
from ._binding._platform import Platform, current_platform, install_platform
from ._binding._scopes import check_agent_agnostic, check_tool
from ._tools._client_tool import ClientTool

__all__ = ["use_client_tool"]


def _browser_platform() -> Platform:
    from .browser import BrowserPlatform

    return BrowserPlatform()


if sys.platform == "emscripten":
    from .browser import show_startup_errors

    show_startup_errors()
    install_platform(_browser_platform)


def use_client_tool(tool: ClientTool, element: Any, *, replace: bool = False, platform: Platform | None = None) -> Any:
    """Register `tool` on the thread whose element encloses `element`, whichever agent drives it.

    Agent-agnostic and component-scoped: the tool is advertised in that thread while
    `element` is connected. Needs the page; on CPython use `thread.register_tool(tool)`.

    Args:
        tool: a `ClientTool`.
        element: a DOM element (or selector) inside a thread element.
        replace: take over a registration of the same name on that thread instead of raising.
        platform: where the element lives; this process's platform by default (tests pass
            the platform of their agents).

    Returns:
        An `ElementRegistration` (`tool`, `mounted`, `registration`, `dispose()`); dispose it
        when the component goes away for good.

    Raises:
        ConfigurationError: `tool` is not a `ClientTool` or is server-declared (it belongs
            to one agent: use `agent.use_client_tool`), there is no DOM (CPython), the
            element is in no thread element, or the name is already registered on that
            thread and `replace` is False.
    """
    check_tool(tool, "use_client_tool")
    check_agent_agnostic(tool, "use_client_tool")
    binding = (platform or current_platform()).elements
    if binding is None:
        raise ConfigurationError(
            f"use_client_tool({tool.name!r}, {element!r:.60}) scopes a tool to a DOM element, "
            "which needs the page (the browser platform, pyclient.browser). On CPython the "
            "equivalent is thread.register_tool(tool) (or agent.register_tool(tool) for every thread)."
        )
    return binding.use_client_tool(tool, element, replace=replace)
