"""The `pyclient` command run as a process for the tests (`python -m pyclient`, this checkout on PYTHONPATH).

`pyclient(*args)` runs it to the end; `serving(*args)` runs `pyclient serve` on a free port of
127.0.0.1 until the block ends, reading its stderr (the log) as it comes, so a test can wait for
a line and the pipe never fills.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from devserver.background import free_port

ROOT = Path(__file__).resolve().parents[2]


def env(runtime: Path | str, **extra: str) -> dict[str, str]:
    """The environment of a `pyclient` process: no API key of the machine's, the runtime at `runtime`."""
    base = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    return {**base, "PYTHONPATH": str(ROOT), "PYCLIENT_RUNTIME_DIR": str(runtime), **extra}


def pyclient(*args: str, environ: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyclient", *args], env=environ, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


@dataclass
class Served:
    """A running `pyclient serve`: its base URL, and the lines of its log (stderr) so far."""

    url: str
    log: list[str] = field(default_factory=list)
    stdout: str = ""

    def wait_for(self, pattern: str, timeout: float = 20) -> str:
        """The first log line matching the regular expression `pattern`, waiting up to `timeout` s for it."""
        deadline = time.monotonic() + timeout
        while True:
            found = next((line for line in list(self.log) if re.search(pattern, line)), None)
            if found is not None:
                return found
            assert time.monotonic() < deadline, f"no log line matches {pattern!r}; the log:\n" + "\n".join(self.log)
            time.sleep(0.05)

    def lines(self, pattern: str) -> list[str]:
        return [line for line in list(self.log) if re.search(pattern, line)]


@contextmanager
def serving(*args: str, environ: dict[str, str]) -> Iterator[Served]:
    """`pyclient serve ARGS` on a free port until the block ends."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pyclient", "serve", *args, "--port", str(port)], env=environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    served = Served(f"http://127.0.0.1:{port}")
    assert proc.stderr is not None and proc.stdout is not None
    stderr = proc.stderr

    def read() -> None:
        for line in stderr:
            served.log.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"pyclient serve exited {proc.returncode}: " + "\n".join(served.log)
            try:
                httpx.get(served.url + "/pyscript.json", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "pyclient serve did not start within 90 s"
                time.sleep(0.2)
        yield served
    finally:
        proc.terminate()
        served.stdout = proc.stdout.read()
        proc.wait(timeout=10)
        reader.join(timeout=10)
        proc.stdout.close()
        proc.stderr.close()
