"""Client tools: `@client_tool` and `ClientTool`, the handler's signature and docstring read once,
the JSON Schema and validation pydantic builds from them, running one call with a timeout and a
signal, and what a handler returns (text, `ToolResult`, files). Imports only `_base`.
"""
