"""What a thread list says of a saved thread, in words: its title and when it was last updated (pure).

`updated_words(updated_at, now)` is how long ago, as people say it ("just now", "5 min ago",
"3 h ago", "yesterday", "4 days ago", then the date); `full_time` is the exact local time (the
tooltip) and `iso_time` the `datetime` attribute of the `<time>` element. `shown_title` is the
title a list shows: the thread's own, else "New chat"; `unreadable_words` counts the records a
list left out. No browser is needed: the unit tests run these on CPython.

```python
from pyclient.browser._thread_list._thread_words import shown_title, updated_words

print(updated_words(1000.0, 1030.0), "|", updated_words(1000.0, 1000.0 + 3 * 3600))   # just now | 3 h ago
print(updated_words(0.0, 86400 * 1.5), "|", shown_title(""))                          # yesterday | New chat
```
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

__all__ = ["NEW_TITLE", "full_time", "iso_time", "shown_title", "unreadable_words", "updated_words"]

NEW_TITLE = "New chat"
"""The title of a thread with no user message and no name."""

_MINUTE, _HOUR, _DAY = 60, 3600, 86400


def shown_title(title: str) -> str:
    """The title a list shows."""
    return title or NEW_TITLE


def unreadable_words(count: int) -> str:
    """What a list says of the saved threads it left out, their records unreadable ("" for none)."""
    if not count:
        return ""
    return "1 saved chat could not be read" if count == 1 else f"{count} saved chats could not be read"


def updated_words(updated_at: float, now: float) -> str:
    """How long before `now` the thread was updated, in words (a clock set back says "just now")."""
    ago = now - updated_at
    if ago < _MINUTE:
        return "just now"
    if ago < _HOUR:
        return f"{int(ago // _MINUTE)} min ago"
    if ago < _DAY:
        return f"{int(ago // _HOUR)} h ago"
    days = int(ago // _DAY)
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    then, today = time.localtime(updated_at), time.localtime(now)
    day = f"{time.strftime('%b', then)} {then.tm_mday}"
    return day if then.tm_year == today.tm_year else f"{day}, {then.tm_year}"


def full_time(updated_at: float) -> str:
    """The local date and time, to the minute (`2026-12-01 14:05`)."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(updated_at))


def iso_time(updated_at: float) -> str:
    """The instant as a `<time datetime>` value (UTC, to the second)."""
    return datetime.fromtimestamp(updated_at, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
