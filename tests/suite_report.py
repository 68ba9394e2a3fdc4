"""`--suite-report`: where the suite's wall time goes, module by module.

For each test module it prints the wall time its tests took (setup and teardown included, so a
module-scoped page boot counts where it happens), the CPU time the machine spent in that time
(all cores: run it on a machine doing nothing else), how many Pyodide interpreters booted (a
page, or a worker: each asks the server for `pyodide-lock.json`, which is never cached), and the
most Chromium renderer processes alive, and memory Chromium held, after one of its tests. A
CPU/wall ratio far below the number of cores is a module that waits; a high boot count one that
pays for booting instead of testing; renderers that only grow are pages nobody closed.

    ./dev test --suite-report tests/e2e
    ./dev test --suite-report            # both suites; each process prints its own table

Boots are counted on the servers this suite starts itself (`live_server`, `pyclient_site`,
through `BootCounter`); a test that starts its own server (the wheel tests, the bench smoke
tests) boots uncounted pages.
"""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
BOOT_PATH = "/pyodide-lock.json"   # fetched by every Pyodide boot: the runtime's lock is no-cache


class _Boots:
    """A thread-safe count of Pyodide boots the suite's servers saw."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def add(self) -> None:
        with self._lock:
            self.count += 1


BOOTS = _Boots()


class BootCounter:
    """ASGI middleware that counts `GET …/pyodide-lock.json` requests in `BOOTS`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].endswith(BOOT_PATH):
            BOOTS.add()
        return await self.app(scope, receive, send)


PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
def machine_cpu_seconds() -> float:
    """CPU seconds the whole machine has been busy (all cores; user, system, interrupts), from
    /proc/stat. The whole machine's, not this process tree's: Chromium's renderers are forked
    by its zygote and reaped outside the tree, so a tree's counters lose them. On a machine
    doing nothing else, this is the suite's CPU time."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(value) for value in fields[:8])
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


@dataclass
class Chromium:
    """Chromium under this process, read from /proc at one moment."""

    renderers: int = 0   # live renderer processes (one or more pages each)
    mb: float = 0.0      # resident memory of all its processes


def chromium(root: int | None = None) -> Chromium:
    """Count the Chromium processes under `root` (this process) and their memory."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = defaultdict(list)
    stats: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # ended while we looked
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        children[int(fields[1])].append(int(entry))
        stats[int(entry)] = (int(fields[21]), comm)  # rss in pages
    found, todo = Chromium(), [root]
    while todo:
        pid = todo.pop()
        rss, comm = stats.get(pid, (0, ""))
        if comm.startswith("chrom"):
            found.mb += rss * PAGE_SIZE / 1e6
            try:
                if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.renderers += 1
            except OSError:
                pass
        todo.extend(children.get(pid, ()))
    return found


@dataclass
class _Row:
    tests: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    boots: int = 0
    renderers: int = 0       # the most renderers alive after one of its tests
    chromium_mb: float = 0.0  # the most memory Chromium held after one of its tests


class SuiteReport:
    """The `--suite-report` plugin: one row per module, printed at the end of the session."""

    def __init__(self) -> None:
        self.rows: dict[str, _Row] = defaultdict(_Row)
        self.started = time.perf_counter()
        self.cpu_started = machine_cpu_seconds()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        wall, cpu, boots = time.perf_counter(), machine_cpu_seconds(), BOOTS.count
        try:
            return (yield)
        finally:
            now = chromium()
            row = self.rows[item.nodeid.split("::")[0]]
            row.tests += 1
            row.wall += time.perf_counter() - wall
            row.cpu += machine_cpu_seconds() - cpu
            row.boots += BOOTS.count - boots
            row.renderers = max(row.renderers, now.renderers)
            row.chromium_mb = max(row.chromium_mb, now.mb)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        write = terminalreporter.write_line
        wall = time.perf_counter() - self.started
        cpu = machine_cpu_seconds() - self.cpu_started
        terminalreporter.section(f"suite report: wall time, CPU time of the machine ({os.cpu_count()} cores), "
                                 "Pyodide boots, most Chromium renderers and memory after a test")
        write(f"{'module':<56} {'tests':>5} {'wall s':>7} {'CPU s':>7} {'CPU/wall':>8} {'boots':>5} "
              f"{'rend.':>5} {'MB':>6}")
        for name, row in sorted(self.rows.items(), key=lambda kv: -kv[1].wall):
            ratio = row.cpu / row.wall if row.wall else 0.0
            write(f"{name:<56} {row.tests:>5} {row.wall:>7.1f} {row.cpu:>7.1f} {ratio:>8.2f} {row.boots:>5} "
                  f"{row.renderers:>5} {row.chromium_mb:>6.0f}")
        tests, boots = sum(r.tests for r in self.rows.values()), sum(r.boots for r in self.rows.values())
        write(f"{'session (collection and start-up included)':<56} {tests:>5} {wall:>7.1f} {cpu:>7.1f} "
              f"{cpu / wall if wall else 0:>8.2f} {boots:>5}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--suite-report", action="store_true",
                     help="print each module's wall time, CPU time and Pyodide boots at the end (tests/suite_report.py)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--suite-report"):
        config.pluginmanager.register(SuiteReport(), "suite-report")
