"""The embedded AG-UI agent's endpoint, now `pyclient.server.agent_endpoint` (kept for the repository's tests and tools).

Run as a script it serves the agent alone: `python -m devserver.agent [--model openai:gpt-4o] [--port 8000]`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyclient.server._agent import agent_endpoint

__all__ = ["agent_endpoint"]


def _main(argv: Sequence[str] | None = None) -> None:
    import argparse

    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Route

    parser = argparse.ArgumentParser(description="Serve the pyclient dev agent at /agent.")
    parser.add_argument("--model", default=None, help="PROVIDER:NAME pydantic-ai model (default: the demo model)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    app = Starlette(routes=[Route("/agent", agent_endpoint(args.model), methods=["POST"])])
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    _main()
