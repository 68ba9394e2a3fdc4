"""Kept for the repository's tests and tools: the module moved into the package as `pyclient.server._arguments`."""

from pyclient.server._arguments import *  # noqa: F403
from pyclient.server._arguments import __all__ as __all__
