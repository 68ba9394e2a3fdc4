"""Fresh ids for the messages, runs and tool calls pyclient makes itself.

```python
from pyclient._base._ids import new_id

print(len(new_id()))    # 36
```
"""

from __future__ import annotations

import uuid

__all__ = ["new_id"]


def new_id() -> str:
    """A fresh id for a message or a run."""
    return str(uuid.uuid4())
