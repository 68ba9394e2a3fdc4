"""Kept for the repository's tests and tools: the module moved into the package as `pyclient.server._matcher`."""

from pyclient.server._matcher import *  # noqa: F403
from pyclient.server._matcher import __all__ as __all__
