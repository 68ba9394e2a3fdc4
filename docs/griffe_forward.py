"""A Griffe extension (mkdocs.yml): the API reference shows a `Forward` attribute as the property it is.

`name: Forward[str] = Forward("_record", "The doc.")` (pyclient._base._forward) keeps its
docstring in the call, where `help()` finds it; Griffe reads source and sees a plain attribute
with no docstring, which mkdocstrings would hide. This gives it that docstring, the type `str`
and the label `property` (and `writable` when it has `writable=True`).
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

import griffe


class ForwardExtension(griffe.Extension):
    def on_attribute_instance(self, *, node: ast.AST | griffe.ObjectNode, attr: griffe.Attribute,
                              agent: griffe.Visitor | griffe.Inspector, **kwargs: Any) -> None:
        call = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Forward"):
            return
        if len(call.args) < 2 or not isinstance(call.args[1], ast.Constant):
            return
        attr.docstring = griffe.Docstring(inspect.cleandoc(call.args[1].value), lineno=call.args[1].lineno,
                                          endlineno=call.args[1].end_lineno, parent=attr)
        attr.labels = {"property"}
        if any(k.arg == "writable" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords):
            attr.labels.add("writable")
        if isinstance(attr.annotation, griffe.ExprSubscript):
            attr.annotation = attr.annotation.slice
        attr.value = None
