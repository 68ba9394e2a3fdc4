"""Check `--model PROVIDER:NAME` before a server starts: the form, the provider's package, its API key.

pydantic-ai would fail later, on the first request or at import, with a traceback; this says in
one line which extra to install or which variable to set. Only the providers listed here have
an extra (`pyclient-agui[openai]`, ...); the check reads the environment and finds packages
without importing them.

```python
from pyclient.server._models import model_problem

print(model_problem("gpt4o", environ={}))   # --model takes PROVIDER:NAME, e.g. openai:gpt-4o; ...
print(model_problem("openai:gpt-4o", environ={"OPENAI_API_KEY": "sk-test"}, installed=lambda m: True))   # None
print(model_problem("openai:gpt-4o", environ={}, installed=lambda m: True))   # --model openai:gpt-4o needs an API key: set OPENAI_API_KEY.
```
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["PROVIDERS", "Provider", "model_problem"]


@dataclass(frozen=True)
class Provider:
    """What a `--model` provider needs: the extra that installs its client, the module that
    client provides, and the environment variables any one of which carries the key."""

    extra: str
    module: str
    keys: tuple[str, ...]


# The prefixes pydantic-ai 2.68 reads in "PROVIDER:NAME", with the extra of pyproject.toml that
# installs each one's client library.
PROVIDERS: dict[str, Provider] = {
    "openai": Provider("openai", "openai", ("OPENAI_API_KEY",)),
    "openai-chat": Provider("openai", "openai", ("OPENAI_API_KEY",)),
    "openai-responses": Provider("openai", "openai", ("OPENAI_API_KEY",)),
    "anthropic": Provider("anthropic", "anthropic", ("ANTHROPIC_API_KEY",)),
    "google": Provider("google", "google.genai", ("GOOGLE_API_KEY", "GEMINI_API_KEY")),
    "groq": Provider("groq", "groq", ("GROQ_API_KEY",)),
    "mistral": Provider("mistral", "mistralai", ("MISTRAL_API_KEY",)),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing: not installed
        return False


def model_problem(
    model: str,
    *,
    environ: Mapping[str, str] | None = None,
    installed: Callable[[str], bool] = _installed,
) -> str | None:
    """The one-line reason `model` cannot run here, or None when it can.

    Args:
        model: the `--model` value, "PROVIDER:NAME".
        environ: where the API key is looked up; `os.environ` when None.
        installed: whether a module can be imported (found, not imported).
    """
    environ = os.environ if environ is None else environ
    names = ", ".join(sorted({p for p in PROVIDERS if "-" not in p}))
    provider_name, sep, name = model.partition(":")
    if not sep or not provider_name or not name:
        return f"--model takes PROVIDER:NAME, e.g. openai:gpt-4o; providers: {names}."
    provider = PROVIDERS.get(provider_name)
    if provider is None:
        return f"--model {model}: unknown provider {provider_name!r}; providers: {names}."
    if not installed(provider.module):
        return (f"--model {model} needs the {provider.extra} extra: "
                f"pip install 'pyclient-agui[{provider.extra}]'.")
    if not any(environ.get(key) for key in provider.keys):
        return f"--model {model} needs an API key: set {' or '.join(provider.keys)}."
    return None
