# Stub for PyScript's `pyscript` package (only in the page): the names pyclient's bridge uses.
from typing import Any

def __getattr__(name: str) -> Any: ...
