"""A tool call's outcome (`ToolResult`) and how a handler's value becomes the tool message's text.

A `str` is sent as is, None as "", anything else as compact JSON through pydantic (models,
dataclasses, datetimes, enums, sets, ...). Files (`Image`, `Document`, … or a list mixing text
and files, `pyclient._tools._media.split_content`) become parts of their own after that text. With an
output schema (the handler's return hint) the text/JSON value is validated, and normalized, by
it first. A value that fails the schema or cannot
be written as JSON is a failure whose message says which field and what to return instead. A
thread cuts a result's text to its agent's `max_result_chars` (`ToolResult.within`).
Nothing here knows tools: it is handed the tool's name and its output adapter.

```python
from pydantic import TypeAdapter
from pyclient._tools._results import encode_returned, encode_submitted

print(encode_returned("add", 5, None).content)                        # 5
print(encode_returned("pick", {"colour": "red"}, None).content)       # {"colour":"red"}
print(encode_returned("add", "five", TypeAdapter(int)).error)         # Tool 'add' returned a result that does not match its output schema: ...
print(encode_submitted("add", 7, TypeAdapter(int)).content)         # 7
print(encode_returned("read", "x" * 30, None).within(10).content.splitlines()[-1])
# prints "[truncated: the result was 30 characters, over this agent's max_result_chars of 10]"
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic_core import ValidationError, to_json

from .._base._errors import ToolError
from ._content import content_of, split_content
from ._media import Media
from ._validation_errors import describe_validation_error

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["ToolResult", "encode_returned", "encode_submitted"]


@dataclass(frozen=True, slots=True)  # slots: a thread keeps one a call (half the bytes of a __dict__)
class ToolResult:
    """The outcome of one tool call, ready for an AG-UI tool message.

    Attributes:
        content: the tool message's `content`.
        error: the failure message, or None on success. On failure `content` holds the same
            text, because servers drop the `error` field and the model must still see why.
        media: the files the tool returned (`Image`, `Document`, …), sent as content parts
            after the text.
    """

    content: str
    error: str | None = None
    media: tuple[Media, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.error is None

    def message_content(self) -> str | list[dict[str, Any]]:
        """The tool message's `content`: the text, or with files a list of parts (text first)."""
        return content_of(self.content, self.media)

    def within(self, max_chars: int) -> ToolResult:
        """This result, its text cut to `max_chars` characters if it is longer, with a note the
        model reads: "[truncated: the result was 52,428,800 characters, over this agent's
        max_result_chars of 1,000,000]" (files are kept: they have limits of their own)."""
        if len(self.content) <= max_chars:
            return self
        note = (f"[truncated: the result was {len(self.content):,} characters, over this agent's "
                f"max_result_chars of {max_chars:,}]")
        content = f"{self.content[:max_chars]}\n\n{note}" if max_chars else note
        return ToolResult(content, content if self.error is not None else None, self.media)

    @classmethod
    def success(cls, content: str, media: tuple[Media, ...] = ()) -> ToolResult:
        """A successful result with `content` (and files)."""
        return cls(content=content, media=media)

    @classmethod
    def failure(cls, message: str) -> ToolResult:
        """A failed result whose content and error are both `message`."""
        return cls(content=message, error=message)


def encode_returned(tool_name: str, value: Any, output_adapter: TypeAdapter[Any] | None) -> ToolResult:
    """Encode what the handler of tool `tool_name` returned as tool message content.

    Args:
        tool_name: the tool's name, for the messages.
        value: what the handler returned.
        output_adapter: the tool's output schema as a pydantic adapter, or None (no schema).

    Returns:
        A successful `ToolResult`, or a failed one saying why the value does not match the
        output schema or cannot be written as JSON.
    """
    value, media = split_content(value)
    try:
        return ToolResult.success(_encode(
            tool_name, value, output_adapter,
            heading=f"Tool {tool_name!r} returned a result that does not match its output schema:",
            footer="The tool's handler returned the wrong shape; repeating the same call will not help.",
            unwritable="The tool failed; its handler should return JSON-compatible data.",
        ), media)
    except ToolError as exc:
        return ToolResult.failure(str(exc))


def encode_submitted(tool_name: str, value: Any, output_adapter: TypeAdapter[Any] | None) -> ToolResult:
    """Encode an output the page submits for a call of `tool_name`, like `encode_returned`.

    Raises:
        ToolError: the output does not match the output schema or is not JSON-compatible; the
            message says which field and what to submit instead.
    """
    value, media = split_content(value)
    return ToolResult.success(_encode(
        tool_name, value, output_adapter,
        heading=f"The output submitted for tool {tool_name!r} does not match its output schema:",
        footer=f"Submit an output that matches the return type of {tool_name!r}; the call keeps waiting.",
        unwritable="Submit JSON-compatible data (dicts, lists, str, numbers, pydantic models).",
        verb="was given",
    ), media)


def _encode(tool_name: str, value: Any, adapter: TypeAdapter[Any] | None, *, heading: str, footer: str,
            unwritable: str, verb: str = "returned") -> str:
    if adapter is not None:
        try:
            value = adapter.validate_python(value)
        except ValidationError as exc:
            raise ToolError(describe_validation_error(exc, value, heading=heading, footer=footer,
                                                      root="(result)")) from None
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        encoded = adapter.dump_json(value) if adapter is not None else to_json(value)
    except Exception as exc:  # PydanticSerializationError, or a serializer that raised
        raise ToolError(
            f"Tool {tool_name!r} {verb} a `{type(value).__name__}` value that cannot be written as "
            f"JSON ({exc}). {unwritable}"
        ) from None
    return encoded.decode()
