"""Every ```python block in a docstring of pyclient/ runs: the CPython ones here, the browser ones in Chromium.

`collect_blocks()` finds the blocks with `ast` (module, class and function docstrings of
every pyclient/**/*.py) and names each `module:line`, the line of its opening fence. A block
is a browser block when its module is under pyclient/browser/ or it imports `pyscript`, `js`
or `pyodide`: tests/e2e/test_browser_docstring_examples.py runs those in a real page. The others
run here, each with `exec` in a fresh namespace whose `print` records what it printed and
the line it was called from. `test_every_block_is_run_somewhere` checks that the two sets
together are every block, so no block is dropped silently.

Examples that talk to an agent use `http://127.0.0.1:8000/agent`, where `./dev demo` serves
it. Here that address is rewritten, in the block's text before `exec`, to the session's
`live_server` (the dev server app with its embedded demo agent, on a free port).

A block's output is checked against its comments (`expectations()`), by this rule:

1. `# prints "X" ...` on any line: some line printed by the block, stripped, equals X (in
   the page, callbacks that run a moment later count too). What follows the quoted text is
   prose.
2. A trailing comment on a line where a `print(...)` call ends is the expected output of
   that call, unless its first word is one of `PROSE_WORDS` ("# names the parameter and
   the fix" describes the output and is not checked). The call must have run, and each
   time it printed (stripped):
   - the quoted text, when the comment starts with a quoted string (`# "completed"` means
     it printed `completed`, as print shows a str; the rest of the comment is prose, as in
     `# "cpython" here, "browser" in the page`);
   - text starting with what precedes the `...`, when the comment ends with `...`
     (`# Invalid arguments for tool 'add': ...`);
   - else exactly the comment's text (`# ['read_selection']`, `# True 5`, `# idle hi`).
"""

from __future__ import annotations

import ast
import builtins
import io
import re
import sys
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "pyclient"
BROWSER_DIR = PACKAGE / "browser"
BROWSER_IMPORTS = frozenset({"pyscript", "js", "pyodide"})
EXAMPLE_AGENT = "http://127.0.0.1:8000"
# Words that open a comment describing the output rather than showing it (rule 2).
PROSE_WORDS = frozenset({"prints", "names", "shows", "describes"})

# A module docstring's prose (the text before its example) says what the module holds and why in
# at most this many lines; catalogues go to docs/, measurements to bench/README.md.
MAX_PROSE_LINES = 12
LONG_PROSE_ALLOWED: frozenset[str] = frozenset()  # none: every module's prose is short

FENCE = re.compile(r"^[ \t]*```python[ \t]*\n(?P<code>.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)
QUOTED = re.compile(r"""^("[^"\\]*"|'[^'\\]*')""")


@dataclass(frozen=True)
class Block:
    """One ```python block of a docstring.

    Attributes:
        id: `module:line`, the line of the opening fence in the file.
        path: the module's file.
        line: the line of the opening fence.
        code: the block's text, dedented.
    """

    id: str
    path: Path
    line: int
    code: str

    @property
    def source(self) -> str:
        """The code preceded by blank lines, so its line numbers are the file's."""
        return "\n" * self.line + self.code

    @property
    def browser(self) -> bool:
        """Whether it runs in the page only (pyclient/browser/, or imports pyscript/js/pyodide)."""
        if BROWSER_DIR in self.path.parents:
            return True
        for node in ast.walk(_parse(self.code)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            if any(name.split(".")[0] in BROWSER_IMPORTS for name in names):
                return True
        return False

    @property
    def needs_agent(self) -> bool:
        return EXAMPLE_AGENT in self.code


def _parse(code: str) -> ast.Module:
    """A block's syntax tree (browser blocks may `await` at top level, as PyScript allows)."""
    return compile(code, "<example>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def collect_blocks() -> list[Block]:
    """Every ```python block of every docstring (module, class, function) in pyclient/**/*.py."""
    blocks = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text, str(path))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            doc = ast.get_docstring(node, clean=False)
            if doc is None:
                continue
            start = node.body[0].lineno  # the line where the docstring's quotes open
            for match in FENCE.finditer(doc):
                line = start + doc.count("\n", 0, match.start())
                # Line numbers are counted in the string's value: make sure they are the file's.
                assert lines[line - 1].strip().startswith("```python"), f"{path}:{line}: fence not found"
                blocks.append(Block(f"{_module_name(path)}:{line}", path, line,
                                    textwrap.dedent(match.group("code"))))
    return blocks


BLOCKS = collect_blocks()
CPYTHON_BLOCKS = [block for block in BLOCKS if not block.browser]


# -- expected output ------------------------------------------------------------------------

@dataclass(frozen=True)
class Expectation:
    """What a comment says is printed.

    Attributes:
        line: the comment's line (the file's numbering).
        text: the expected output (stripped).
        how: "somewhere" (rule 1), "exact" or "prefix" (rule 2).
        lines: for rule 2, the lines of the `print(...)` call; its output is what it printed.
    """

    line: int
    text: str
    how: str
    lines: range | None = None

    def describe(self) -> str:
        return f"line {self.line}: {self.how} {self.text!r}"


def _quoted(comment: str) -> str | None:
    """The value of the quoted string `comment` starts with, or None."""
    match = QUOTED.match(comment)
    return ast.literal_eval(match.group(1)) if match else None


def expectations(source: str) -> list[Expectation]:
    """The printed output a block's comments promise (see the module docstring for the rule)."""
    print_calls: dict[int, range] = {}  # the line a print(...) call ends on -> its lines
    for node in ast.walk(_parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            print_calls[node.end_lineno] = range(node.lineno, node.end_lineno + 1)
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        line = token.start[0]
        comment = token.string[1:].strip()
        if comment.startswith("prints "):
            value = _quoted(comment[len("prints "):].lstrip())
            if value is not None:
                found.append(Expectation(line, value.strip(), "somewhere"))
            continue
        if line not in print_calls or not comment:
            continue
        if comment.split()[0] in PROSE_WORDS:
            continue
        quoted = _quoted(comment)
        if quoted is not None:
            found.append(Expectation(line, quoted.strip(), "exact", print_calls[line]))
        elif comment.endswith("..."):
            found.append(Expectation(line, comment[:-3].strip(), "prefix", print_calls[line]))
        else:
            found.append(Expectation(line, comment, "exact", print_calls[line]))
    return found


def check_prints(source: str, prints: list[tuple[int, str]]) -> list[str]:
    """What the recorded prints (`(line, text)`: the line `print` was called from) contradict."""
    problems = []
    everything = [line.strip() for _, text in prints for line in text.splitlines()]
    for expected in expectations(source):
        if expected.how == "somewhere":
            if expected.text not in everything:
                problems.append(f"{expected.describe()}: not printed; printed {everything}")
            continue
        printed = [text.strip() for line, text in prints if line in expected.lines]
        if not printed:
            problems.append(f"{expected.describe()}: that print(...) never ran")
        for text in printed:
            ok = text == expected.text if expected.how == "exact" else text.startswith(expected.text)
            if not ok:
                problems.append(f"{expected.describe()}: printed {text!r}")
    return problems


def recording_print(prints: list[tuple[int, str]]):
    """A `print` for a block's namespace: records `(caller's line, text)`, and still prints."""

    def print_(*args, sep=" ", end="\n", file=None, flush=False):
        if file is None or file is sys.stdout:
            text = (" " if sep is None else sep).join(str(arg) for arg in args)
            prints.append((sys._getframe(1).f_lineno, text))
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)

    return print_


# -- the tests ------------------------------------------------------------------------------

def test_every_block_is_run_somewhere():
    from tests.e2e.test_browser_docstring_examples import BROWSER_BLOCKS

    cpython = {block.id for block in CPYTHON_BLOCKS}
    browser = {block.id for block in BROWSER_BLOCKS}
    assert not cpython & browser
    assert cpython | browser == {block.id for block in BLOCKS}
    assert len(BLOCKS) == len({block.id for block in BLOCKS})


def test_every_module_docstring_ends_with_an_example():
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        private_folder = path.name == "__init__.py" and path.parent.name.startswith("_")  # one paragraph
        if not private_folder and not re.search(r"```python\n.*\n```\s*\Z", doc, re.DOTALL):
            missing.append(str(path.relative_to(ROOT)))
    assert not missing


def prose_lines(doc: str) -> int:
    """How many lines a module docstring has before its ```python example (all of them without one)."""
    prose = re.split(r"^[ \t]*```python", doc, maxsplit=1, flags=re.MULTILINE)[0].rstrip()
    return len(prose.splitlines())


def test_module_docstring_prose_is_short():
    too_long = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        lines = prose_lines(ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "")
        if lines > MAX_PROSE_LINES and name not in LONG_PROSE_ALLOWED:
            too_long[name] = lines
    assert not too_long, (f"module docstrings with more than {MAX_PROSE_LINES} lines before the example "
                          f"(move catalogues to docs/, figures to bench/README.md): {too_long}")


def test_the_prose_rule():
    """The count `test_module_docstring_prose_is_short` uses, on made-up docstrings."""
    example = "```python\nprint(1)\n```\n"
    twelve = "Summary.\n\n" + "a line\n" * 10
    assert prose_lines(twelve + "\n" + example) == 12
    assert prose_lines(twelve + "one more\n\n" + example) == 13
    assert prose_lines(twelve + "one more") == 13          # no example: the whole docstring
    assert prose_lines(example) == 0


def test_the_output_rule():
    """The rule of the module docstring, on made-up blocks: wrong output fails."""
    source = (
        "print(x)   # ['a']\n"
        "print(y)   # \"done\" once it ran\n"
        "print(z)   # Invalid arguments: ...\n"
        "print(w)   # names the thing it prints\n"
        "f()        # prints \"left\" a moment later\n"
        "g()        # or some other call\n"
    )
    assert [(e.line, e.how, e.text) for e in expectations(source)] == [
        (1, "exact", "['a']"), (2, "exact", "done"), (3, "prefix", "Invalid arguments:"),
        (5, "somewhere", "left"),
    ]
    good = [(1, "['a']"), (2, "done"), (3, "Invalid arguments: a"), (4, "anything"), (9, "left")]
    assert check_prints(source, good) == []
    assert len(check_prints(source, [(1, "['b']"), (2, "done"), (3, "Valid"), (9, "right")])) == 3
    assert check_prints(source, [])  # a promised print that never ran fails


@pytest.mark.parametrize("block", CPYTHON_BLOCKS, ids=lambda block: block.id)
def test_example_runs(block: Block, request):
    source = block.source
    if block.needs_agent:
        # The example's agent address is `./dev demo`'s; run it against the session's dev server.
        source = source.replace(EXAMPLE_AGENT, request.getfixturevalue("live_server"))
    prints: list[tuple[int, str]] = []
    namespace = {"__name__": "docstring_example", "print": recording_print(prints)}
    exec(compile(source, str(block.path), "exec"), namespace)
    problems = check_prints(block.source, prints)
    assert not problems, "\n".join(problems)
