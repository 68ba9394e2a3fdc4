"""Kept for the repository's tests and tools: the module moved into the package as `pyclient.server._toolspec`."""

from pyclient.server._toolspec import *  # noqa: F403
from pyclient.server._toolspec import __all__ as __all__
