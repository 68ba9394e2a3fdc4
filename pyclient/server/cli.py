"""The `pyclient` command: serve a folder of pages with the offline runtime and an agent, or vendor the runtime into a static site.

`pyclient serve [DIR]`, `pyclient vendor DIR`, `pyclient new DIR` and `pyclient --version`;
every option is in docs/deployment.md ("The `pyclient` command"). `new` writes a starter page
(`_starter.py`), or nothing when one of its files is in the way, and needs no runtime; `serve`
and `vendor` build the runtime first (once, then from the per-user cache) and show each step
with its time. Errors are one line that names the fix: exit status 2 for what is wrong with
the command line (a `--model` whose extra or key is missing, a port in use: all checked before
anything starts), 1 for a build that failed (npm or pip missing, a registry out of reach); `-v`
adds the failing tool's output. While it serves, `serve` logs each agent run and each request
it could not serve (`RequestLog`); `-v` adds each AG-UI event.

```python
from pyclient.server.cli import parser

print(parser().parse_args(["serve", "site", "--port", "9000"]).port)   # 9000
```
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import logging
import shlex
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from ._isolation import HEADERS_NAME, ISOLATION_HEADERS
from ._models import model_problem
from ._runtime import (
    DISTRIBUTION,
    PYODIDE_VERSION,
    PYSCRIPT_VERSION,
    BuildError,
    build,
    package_version,
)
from ._starter import DESCRIPTIONS, TEST_FILE, StarterError, write_starter
from ._vendor import (
    COI_WORKER_NAME,
    CONFIG_NAME,
    PURPOSES,
    VendorError,
    config_text,
    page_config,
    vendor,
)

__all__ = ["main", "parser"]

SERVE_HELP = """\
Serve DIR (default: the current folder) on http://HOST:PORT/ with the offline browser runtime
at /pyodide/ and /pyscript/, pyclient's page bootstrap at /pyclient/ (pyclient.js),
/pyscript.json (DIR's own, else the config `pyclient vendor` writes) and an AG-UI agent at
POST /agent: the embedded one (a deterministic demo model, or --model PROVIDER:NAME), or with
--agent URL another AG-UI server, reached through a streaming proxy so pages keep posting to
/agent. A page with a <script type="py" worker> is sent the cross-origin isolation headers it
needs (Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: credentialless);
other pages are not (--coi: every response, --no-coi: none). It logs each agent run and each
request it could not serve, with the cause; -v adds each run's AG-UI events."""

VENDOR_HELP = """\
Write the runtime into the static site folder DIR: pyodide/ (Pyodide, the page's wheels, a
lock file), pyscript/ (PyScript), pyclient/ (pyclient.js, which pages load before PyScript, and
chat.css, the chat's stylesheet as a file), pyscript.json (a relative interpreter path and "packages": ["pyclient-agui"]), _headers
(COOP/COEP for the pages with a <script type="py" worker>, read by Netlify and Cloudflare
Pages), coi-worker.js (a service worker that does the same where headers cannot be set, such
as GitHub Pages; a page opts in with data-coi-worker="coi-worker.js" on pyclient.js's script
tag) and .pyclient-vendor.json (what it wrote, so the next run replaces exactly that), and
lists each with what it is for. The folder then deploys to any static host, at its root or
under a sub-path, with no CDN. An existing pyscript.json, _headers or coi-worker.js that
vendor did not write is kept unless --force."""

# The banner's line for each --coi mode.
ISOLATION_ROWS = {
    "auto": 'on the pages with a <script type="py" worker> (--coi: every response; --no-coi: none)',
    "always": "on every response (--coi)",
    "never": "never (--no-coi): worker pages run their Python on the main thread",
}

NEW_HELP = """\
Write a starter into DIR: index.html (PyScript from the local runtime, config="pyscript.json",
a chat), main.py (a client tool and a Chat bound to the agent at /agent), pyscript.json and
test_page.py (the tool tested in Chromium with the pytest plugin). Nothing is overwritten: when
one of these files exists, nothing is written and the status is 2."""


def parser() -> argparse.ArgumentParser:
    """The command's argument parser (`pyclient --help`, `pyclient serve --help`, ...)."""
    top = argparse.ArgumentParser(
        prog="pyclient",
        description="Client tools for AG-UI agents in browser Python: start a page, serve your pages, "
                    "or vendor the runtime.",
    )
    top.add_argument("--version", action="version", version=f"{DISTRIBUTION} {package_version()}")
    commands = top.add_subparsers(dest="command", required=True, metavar="{new,serve,vendor}")

    serve = commands.add_parser("serve", help="serve a folder of pages with the runtime and an agent",
                                description=SERVE_HELP)
    serve.add_argument("dir", nargs="?", default=".", type=Path, metavar="DIR",
                       help="the folder of pages (default: .)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    agent = serve.add_mutually_exclusive_group()
    agent.add_argument("--agent", metavar="URL",
                       help="forward POST /agent to this AG-UI server instead of embedding one")
    agent.add_argument("--model", metavar="PROVIDER:NAME",
                       help="the embedded agent's pydantic-ai model, e.g. openai:gpt-4o (needs its extra "
                            "and API key; default: the deterministic demo model)")
    isolation = serve.add_mutually_exclusive_group()
    isolation.add_argument("--coi", dest="coi", action="store_const", const="always", default="auto",
                           help="send the COOP/COEP headers (cross-origin isolation) with every response, not only "
                                "with the pages that have a <script type=\"py\" worker> (the default); for pages "
                                "that start workers from Python (PyWorker) or embed worker pages")
    isolation.add_argument("--no-coi", dest="coi", action="store_const", const="never",
                           help="never send them: worker pages then run their Python on the main thread "
                                "(pyclient.js says so in the console)")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                       help="let pages from ORIGIN (e.g. https://example.org, or *) call /agent (CORS); repeatable")
    serve.add_argument("--max-body", type=int, default=1_000_000, metavar="BYTES",
                       help="agent requests larger than this get 413 (default 1000000)")
    serve.add_argument("--body-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="a request body still arriving after this gets 408 (default 30)")
    serve.add_argument("-v", "--verbose", action="store_true",
                       help="log each AG-UI event of each run (type and excerpt); show the failing build tool's output")

    vend = commands.add_parser("vendor", help="write the runtime and pyscript.json into a static site folder",
                               description=VENDOR_HELP)
    vend.add_argument("dir", type=Path, metavar="DIR", help="the static site folder (created if missing)")
    vend.add_argument("--force", action="store_true",
                      help="replace a pyodide/, pyscript/, pyclient/, pyscript.json, _headers or coi-worker.js "
                           "that vendor did not write")
    vend.add_argument("-v", "--verbose", action="store_true", help="list every file; show the failing tool's output")

    new = commands.add_parser("new", help="write a starter page (a tool, a chat, its config and a test)",
                              description=NEW_HELP)
    new.add_argument("dir", type=Path, metavar="DIR", help="the folder to write it in (created if missing)")
    return top


def _fail(command: str, message: str, status: int) -> NoReturn:
    print(f"pyclient {command}: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def _show_progress() -> logging.Handler:
    """Send the runtime build's steps (logger "pyclient") to stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("  %(message)s"))
    log = logging.getLogger("pyclient")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    return handler


def _port_free_near(host: str, port: int) -> int | None:
    for candidate in range(port + 1, min(port + 20, 65535)):
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            try:
                probe.bind((host, candidate))
            except OSError:
                continue
            return candidate
    return None


def _listen(host: str, port: int) -> socket.socket:
    """Bind and listen on HOST:PORT now, before the build and the banner: a port in use is one line and
    nothing else, and the socket is held until uvicorn serves on it (no other process can take it between)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: restart past TIME_WAIT
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            free = _port_free_near(host, port)
            _fail("serve", f"port {port} is in use: pass --port" + (f", e.g. --port {free}" if free else "")
                  + ".", 2)
        _fail("serve", f"cannot listen on {host}:{port}: {exc.strerror or exc}: pass another --host or --port.", 2)
    return sock


def _build(command: str, verbose: bool) -> Path:
    started = time.perf_counter()
    try:
        runtime = build()
    except BuildError as exc:
        first, _, details = str(exc).partition("\n")
        if verbose and details.strip():
            print(details.rstrip(), file=sys.stderr)
        _fail(command, first + ("" if verbose or not details.strip() else " (-v shows its output)"), 1)
    print(f"runtime ready in {time.perf_counter() - started:.1f} s: {runtime}", file=sys.stderr)
    return runtime


def _missing_server_packages(agent_url: str | None) -> list[str]:
    needed = ["starlette", "uvicorn", "httpx" if agent_url else "pydantic_ai"]
    return [name for name in needed if importlib.util.find_spec(name) is None]


def _serve(args: argparse.Namespace) -> None:
    root: Path = args.dir
    if not root.is_dir():
        _fail("serve", f"{root} is not a folder: give the folder of your pages (default: the current one).", 2)
    missing = _missing_server_packages(args.agent)
    if missing:
        _fail("serve", f"pyclient serve needs the server extra ({', '.join(missing)} missing): "
                       f"pip install '{DISTRIBUTION}[server]'.", 2)
    if args.agent is not None and not args.agent.startswith(("http://", "https://")):
        _fail("serve", f"--agent takes the URL of an AG-UI endpoint, e.g. http://127.0.0.1:9000/agent; "
                       f"got {args.agent!r}.", 2)
    if args.model is not None:
        problem = model_problem(args.model)
        if problem:
            _fail("serve", problem, 2)
    sock = _listen(args.host, args.port)
    log = _show_progress()
    runtime = _build("serve", args.verbose)

    from ._app import create_app

    app = create_app(root, runtime, model=args.model, agent_url=args.agent, coi=args.coi,
                     allow_origins=args.allow_origin, max_body_bytes=args.max_body,
                     body_timeout=args.body_timeout)
    port = sock.getsockname()[1]
    url = f"http://{args.host}:{port}/"
    own_config = (root / CONFIG_NAME).is_file()
    agent = (f"forwarded to {args.agent}" if args.agent
             else f"the embedded agent on {args.model or 'the deterministic demo model'}")
    rows = [
        ("/", str(root.resolve())),
        ("/pyodide/", f"Pyodide {PYODIDE_VERSION}, the wheels and pyodide-lock.json"),
        ("/pyscript/", f"PyScript {PYSCRIPT_VERSION}"),
        ("/pyclient/", "pyclient.js, the page bootstrap to load before PyScript"),
        (f"/{CONFIG_NAME}", "the folder's own" if own_config
         else "the default: " + json.dumps(page_config(), separators=(", ", ": "))),
        ("POST /agent", agent),
    ]
    if args.allow_origin:
        rows.append(("CORS for", ", ".join(args.allow_origin)))
    print(f"pyclient serve: {url}")
    for where, what in rows:
        print(f"  {where:<16}{what}")
    print(f"  {'COOP/COEP':<16}{ISOLATION_ROWS[args.coi]}")
    print("Each agent run and each failed request is logged below" + ("; -v: with its events." if args.verbose
          else " (-v adds the runs' events)."))
    print("Press Ctrl+C to stop.", flush=True)
    log.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    if args.verbose:
        logging.getLogger("pyclient").setLevel(logging.DEBUG)

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=port, log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl+C once it has shut down
        pass


def _size(size: float) -> str:
    for unit in ("B", "kB", "MB"):
        if size < 1000 or unit == "MB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def _vendor(args: argparse.Namespace) -> None:
    dest: Path = args.dir
    if dest.exists() and not dest.is_dir():
        _fail("vendor", f"{dest} is a file: give the static site folder.", 2)
    _show_progress()
    started = time.perf_counter()
    try:
        report = vendor(dest, force=args.force)
    except BuildError as exc:
        first, _, details = str(exc).partition("\n")
        if args.verbose and details.strip():
            print(details.rstrip(), file=sys.stderr)
        _fail("vendor", first, 1)
    except VendorError as exc:
        _fail("vendor", str(exc), 1)
    groups: dict[str, list[int]] = {}
    for rel, size in report.written:
        if args.verbose:
            print(f"  {rel}  {_size(size)}")
        top = rel.split("/")[0] + ("/" if "/" in rel else "")
        groups.setdefault(top, []).append(size)
    print(f"pyclient vendor: wrote into {dest.resolve()} in {time.perf_counter() - started:.1f} s")
    width = max(len(top) for top in [*groups, "total"])
    sizes_shown = {top: (f"{len(sizes)} files, " if len(sizes) > 1 else "") + _size(sum(sizes))
                   for top, sizes in groups.items()}
    size_width = max(len(shown) for shown in sizes_shown.values())
    for top, shown in sizes_shown.items():
        print(f"  {top:<{width}}  {shown:<{size_width}}  {PURPOSES.get(top, '')}".rstrip())
    print(f"  {'total':<{width}}  {_size(report.total_bytes)}")
    for name, status in report.files.items():
        if status == "unchanged":
            print(f"  {name} already up to date")
    if report.worker_pages:
        print(f"Worker pages ({_and_more(report.worker_pages)}): {HEADERS_NAME} isolates them on Netlify and "
              f"Cloudflare Pages; elsewhere, data-coi-worker=\"{COI_WORKER_NAME}\" on the script tag of "
              "pyclient/pyclient.js lets its service worker do it.")
    kept = "(vendor did not write it; --force replaces it)"
    if report.files[CONFIG_NAME] == "kept":
        print(f"Kept your own {dest / CONFIG_NAME} {kept}. For pages at the folder's top it must say: "
              f"{' '.join(config_text().split())}")
    if report.files[HEADERS_NAME] == "kept":
        rules = "; ".join(f"{name}: {value}" for name, value in ISOLATION_HEADERS)
        print(f"Kept your own {dest / HEADERS_NAME} {kept}. Pages with a <script type=\"py\" worker> need: {rules}.")
    if report.files[COI_WORKER_NAME] == "kept":
        print(f"Kept your own {dest / COI_WORKER_NAME} {kept}: pages whose data-coi-worker names it get that file, "
              "not pyclient's service worker.")
    print(f"Pages at the top of {dest} load it with config=\"{CONFIG_NAME}\"; deploy the folder to any static host.")


def _and_more(names: list[str], shown: int = 5) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _new(args: argparse.Namespace) -> None:
    dest: Path = args.dir
    try:
        written = write_starter(dest)
    except StarterError as exc:
        _fail("new", str(exc), 2)
    except OSError as exc:
        _fail("new", f"cannot write into {dest}: {exc.strerror or exc}.", 1)
    print(f"pyclient new: wrote a starter into {dest.resolve()}")
    for name in written:
        print(f"  {name:<15} {DESCRIPTIONS[name]}")
    cd = "" if dest.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(str(dest))} && "
    print("Next:")
    print(f"  {cd + 'pyclient serve':<40}  serve it on http://127.0.0.1:8000/")
    print(f"  {cd + 'pytest ' + TEST_FILE:<40}  test it in Chromium (pip install '{DISTRIBUTION}[testing]' first)")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command (the `pyclient` console script and `python -m pyclient`)."""
    args = parser().parse_args(argv)
    if args.command == "serve":
        _serve(args)
    elif args.command == "new":
        _new(args)
    else:
        _vendor(args)


if __name__ == "__main__":
    main()
