"""The person's feedback on a thread's answers: a thumb up or down per assistant message (sans-I/O).

`thread.set_feedback(message_id, "up")` rates an answer, `None` clears it, and
`thread.feedback(message_id)` reads it back. The ratings are kept with the thread: a thread in
a store saves them and a reload restores them (the Chat shows the thumb pressed again). A
rating stays with its message when the message goes into a branch that is not shown
(`pyclient._conversation._branches`), and is back with it when it is shown again.

```python
from pyclient._conversation._feedback import Feedback

feedback = Feedback(changed=lambda: print("changed"))
feedback.set("a1", "up")                  # changed
feedback.set("a1", "up")                  # (the same: nothing)
print(feedback.get("a1"), feedback.saved())   # up {'a1': 'up'}
feedback.set("a1", None)                  # changed
print(feedback.get("a1"))                 # None
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Literal

from .._base._errors import LocalProtocolError

__all__ = ["RATINGS", "Feedback", "Rating"]

logger = logging.getLogger("pyclient")

Rating = Literal["up", "down"]
"""A thumb: `"up"` or `"down"`."""

RATINGS: tuple[Rating, ...] = ("up", "down")


class Feedback:
    """The ratings of one thread's messages, by message id.

    Args:
        saved: ratings as `saved()` wrote them; a value that is not a rating is dropped.
        changed: called after a rating changed (the machine queues a `"feedback"` change and
            moves its checkpoint, so a store saves it).
    """

    def __init__(self, saved: Mapping[str, object] | None = None, *, changed: Callable[[], None] = lambda: None) -> None:
        self._ratings: dict[str, Rating] = {}
        for message_id, rating in (saved or {}).items():
            if rating == "up" or rating == "down":
                self._ratings[str(message_id)] = rating
            else:
                logger.warning("pyclient: dropped a saved rating %r of message %s", rating, message_id)
        self._changed = changed

    def get(self, message_id: str) -> Rating | None:
        """The rating of `message_id`, or None."""
        return self._ratings.get(message_id)

    def set(self, message_id: str, rating: Rating | None) -> None:
        """Rate `message_id` (None clears its rating); `changed` is called when that changes anything.

        Raises:
            LocalProtocolError: `rating` is not "up", "down" or None.
        """
        if rating is not None and rating not in RATINGS:
            raise LocalProtocolError(
                f"{rating!r} is not a rating. Pass 'up', 'down', or None to clear the rating."
            )
        if self._ratings.get(message_id) == rating:
            return
        if rating is None:
            del self._ratings[message_id]
        else:
            self._ratings[message_id] = rating
        self._changed()

    def saved(self) -> dict[str, Rating]:
        """The ratings as JSON data (what a snapshot keeps; `Feedback(saved)` reads it back)."""
        return dict(self._ratings)
