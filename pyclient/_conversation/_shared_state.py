"""The page's changes to a thread's shared state: JSON Patch operations checked and applied (`thread.update_state`).

AG-UI's shared state is one JSON value both sides see: the agent sends it as `STATE_SNAPSHOT`
and `STATE_DELTA` (a JSON Patch), and every request carries the client's copy back. The page
changes it with `thread.state = value` or `thread.update_state(patch)`, whose operations
`patched(state, patch)` applies to a copy: all of them or, when one does not apply, none
(`LocalProtocolError` says which). A change is the page's at once; the server sees it with the
next request, not in the run in flight, and what it sends meanwhile applies on top (a
`STATE_SNAPSHOT` replaces the page's change: the agent's view wins). When to change what:
docs/chat.md ("Activities and shared state").

```python
from pyclient._conversation._shared_state import patched

state = {"steps": [{"title": "Plan", "done": False}]}
print(patched(state, [{"op": "replace", "path": "/steps/0/done", "value": True},
                      {"op": "add", "path": "/steps/-", "value": {"title": "Ship", "done": False}}]))
# {'steps': [{'title': 'Plan', 'done': True}, {'title': 'Ship', 'done': False}]}
# the state given is left as it is:
print(state["steps"][0]["done"])   # False
```
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._base._errors import LocalProtocolError
from .._base._json_patch import (
    PatchError,
    PatchLimitError,
    patch_document,
    patch_operations,
)

__all__ = ["patched"]


def patched(state: Any, patch: Iterable[Mapping[str, Any] | Any]) -> Any:
    """`state` with the JSON Patch `patch` applied, as a new value (`state` is not changed).

    Args:
        state: the current shared state (JSON).
        patch: JSON Patch operations: dicts (`{"op": "add", "path": "/steps/-", "value": ...}`)
            or ag-ui's operation models.

    Raises:
        LocalProtocolError: `patch` is not a list of operations, or one of them does not apply
            to `state` (a path that is not there, a failed `test`), or would make the state
            larger or deeper than `pyclient._base._json_patch` keeps; nothing is applied.
    """
    if isinstance(patch, (str, bytes, Mapping)) or not isinstance(patch, Iterable):
        raise LocalProtocolError(
            f"thread.update_state() takes a list of JSON Patch operations, got {type(patch).__name__} "
            f"{patch!r:.80}. Pass e.g. [{{'op': 'replace', 'path': '/done', 'value': True}}], or set `thread.state`."
        )
    operations = patch_operations(patch)
    try:
        return patch_document(state if state is not None else {}, operations)  # a copy
    except PatchLimitError as exc:
        raise LocalProtocolError(
            f"thread.update_state(): the patch is refused: {exc}. Nothing was changed; keep the shared state "
            "small (it goes with every request), and put large data elsewhere."
        ) from None
    except PatchError as exc:
        raise LocalProtocolError(
            f"thread.update_state(): the patch does not apply to the thread's state ({exc}): {operations!r:.200}. "
            "Nothing was changed; read `thread.state` for the paths it has."
        ) from None
