"""The demo page: register a client tool and show that pyclient is ready."""

import sys
from importlib.metadata import version

from pyscript import document

import pyclient
from pyclient import client_tool


@client_tool
def change_background(background: str) -> str:
    """Change the page background. Accepts any CSS background value.

    Args:
        background: a CSS background value, such as "blue" or a gradient.
    """
    document.body.style.background = background
    return f"background is now {background}"


TOOLS = [change_background]

versions = " · ".join(f"{name} {version(name)}" for name in ("pydantic", "ag-ui-protocol"))
tools = ", ".join(tool.name for tool in TOOLS)
document.getElementById("status").textContent = (
    f"pyclient {pyclient.__version__} ready ({versions}); tools: {tools}"
)
# What Python imported, for tests and for anyone debugging a boot in devtools.
document.documentElement.dataset.pyclientModules = " ".join(
    name for name in ("pyclient", "pydantic", "ag_ui.core") if name in sys.modules
)
document.documentElement.dataset.pyclient = "ready"
