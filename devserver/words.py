"""Kept for the repository's tests and tools: the module moved into the package as `pyclient.server._words`."""

from pyclient.server._words import *  # noqa: F403
from pyclient.server._words import __all__ as __all__
