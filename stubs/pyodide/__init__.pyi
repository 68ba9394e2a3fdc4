# Stub for the `pyodide` package, which exists only inside Pyodide. pyclient's browser
# bridge uses `pyodide.ffi` alone (stubbed next to this file).
__version__: str
