"""Kept for the repository's tests and tools: the module moved into the package as `pyclient.server._demo_model`."""

from pyclient.server._demo_model import *  # noqa: F403
from pyclient.server._demo_model import __all__ as __all__
