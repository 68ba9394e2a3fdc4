"""Splits, stems and groups the words of user messages and tool names: the vocabulary the demo model matches on.

A word is reduced to keys (`word_keys`): its stem (a tiny suffix stripper applied the same way to
message and tool words) and the synonym groups it belongs to, so "paint it blue" meets a
`change_background` tool on the `<color>` group. Stopwords never count; weak words (generic verbs
such as "change" or "set") count less in `pyclient.server._matcher`.

```python
from pyclient.server._words import content_words, split_identifier, word_keys

assert split_identifier("changeBackground") == ["change", "background"]
assert content_words("please make it blue") == ["blue"]
assert "<color>" in word_keys("paint")
assert content_words("make it #1e3a8a") == ["#1e3a8a"] and "<color>" in word_keys("#1e3a8a")
```
"""

from __future__ import annotations

import re

__all__ = [
    "COLOUR_NAMES",
    "COLOUR_VALUE_RE",
    "NUMBER_RE",
    "STOPWORDS",
    "WEAK_STEMS",
    "WEAK_WORDS",
    "WORD_RE",
    "content_words",
    "is_colour_word",
    "mask_colour_values",
    "split_identifier",
    "stem",
    "word_keys",
]

STOPWORDS = frozenset(
    """
    a an the and or but if then else also just too very so
    i me my mine we us our you your yours he him his she her it its they them their
    this that these those there here what which who whom whose
    is are was were be been being am do does did done doing have has had
    can could would should will shall may might must
    to of for with on in at by from into onto over under about as up down out off
    please pls make let lets want like need some any all each every now
    tool tools call calls run function functions use using slowly slow interleaved interleave
    page thing things something stuff way value values given current
    saying says called named titled labelled labeled
    """.split()
)
"""Words that never count for matching. "off"/"not" are kept out of here on purpose only for booleans."""

# Words that name a generic action: a match on them alone is weak.
WEAK_WORDS = frozenset(
    """
    change set update modify get make do turn switch give put show display open add create new
    """.split()
)

_BASIC_COLOURS = (
    "red blue green yellow orange purple pink black white gray grey brown cyan magenta teal navy "
    "lime maroon olive silver gold violet indigo beige coral salmon turquoise lavender crimson "
    "aqua fuchsia khaki tan plum orchid chocolate tomato ivory azure mintcream skyblue steelblue "
    "lightblue darkblue lightgreen darkgreen lightgray lightgrey darkgray darkgrey darkred "
    "lightpink hotpink deeppink royalblue dodgerblue seagreen forestgreen gainsboro whitesmoke "
    "rebeccapurple transparent"
).split()

# Every CSS named colour (CSS Color 4), for arguments: "make the background wheat" passes "wheat".
# Only the basic ones above are matching vocabulary (the `<color>` group): "snow" or "peru" in a
# message should not call a colour tool.
_CSS_COLOURS = """
    aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet
    brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan
    darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta
    darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen darkslateblue
    darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray dimgrey
    dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod gray
    green greenyellow grey honeydew hotpink indianred indigo ivory khaki lavender lavenderblush
    lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow lightgray
    lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray
    lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon
    mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue
    mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin
    navajowhite navy oldlace olive olivedrab orange orangered orchid palegoldenrod palegreen
    paleturquoise palevioletred papayawhip peachpuff peru pink plum powderblue purple
    rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna
    silver skyblue slateblue slategray slategrey snow springgreen steelblue tan teal thistle
    tomato turquoise violet wheat white whitesmoke yellow yellowgreen transparent
""".split()

_SYNONYM_GROUPS: dict[str, tuple[str, ...]] = {
    "color": ("color", "colour", "colors", "colours", "background", "backgrounds", "bg", "paint",
              "fill", "tint", "shade", "hue", "theme", "gradient", "gradients", "rgb", "rgba", "hsl",
              "hsla", *_BASIC_COLOURS),
    "show": ("show", "display", "render", "present", "reveal", "visible", "view", "pop"),
    "hide": ("hide", "conceal", "invisible", "dismiss"),
    "greet": ("greet", "greeting", "greetings", "hello", "hi", "hey", "welcome", "salute",
              "salutation", "howdy"),
    "save": ("save", "store", "remember", "persist", "keep", "record", "memorize", "memorise",
             "write"),
    "read": ("read", "fetch", "load", "retrieve", "recall", "lookup"),
    "delete": ("delete", "remove", "erase", "clear", "forget", "wipe", "empty"),
    "copy": ("copy", "clipboard", "paste", "duplicate"),
    "select": ("select", "selection", "selected", "highlight", "highlighted"),
    "time": ("time", "clock", "date", "today", "hour", "hours", "minute", "timezone"),
    "calc": ("sum", "plus", "calculate", "compute", "total", "math", "multiply", "add",
             "addition", "subtract", "minus", "divide"),
    "search": ("search", "find", "query", "look"),
    "notify": ("alert", "notify", "notification", "warn", "warning", "toast", "popup", "banner"),
    "note": ("note", "notes", "memo", "reminder", "todo"),
    "count": ("count", "counter", "increment", "tally", "decrement"),
    "title": ("title", "heading", "header", "headline"),
    "size": ("size", "bigger", "smaller", "larger", "zoom", "scale", "font", "resize"),
    "weather": ("weather", "temperature", "forecast", "rain", "sunny"),
    "navigate": ("navigate", "visit", "link", "url", "goto", "redirect"),
    "theme": ("theme", "dark", "light", "mode"),
    "confirm": ("confirm", "ask", "approve", "question", "prompt"),
    "random": ("random", "dice", "roll", "pick", "choose", "shuffle"),
    "scroll": ("scroll", "top", "bottom"),
    "storage": ("storage", "localstorage", "persisted", "saved"),
}

_HEX_COLOUR = r"#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})\b"
_HEX_COLOUR_RE = re.compile(_HEX_COLOUR)
WORD_RE = re.compile(_HEX_COLOUR + r"|[A-Za-z][A-Za-z']*|\d+(?:\.\d+)?")
"""A word of a message: a hex colour ("#1e3a8a" is one word, not "1", "e", "3"…), letters or a number."""
NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
COLOUR_VALUE_RE = re.compile(
    r"\b(?:repeating-)?(?:linear|radial|conic)-gradient\((?:[^()]|\([^()]*\))*\)"
    r"|\b(?:rgb|rgba|hsl|hsla|hwb|lab|lch|oklab|oklch)\([^()]*\)"
    r"|" + _HEX_COLOUR,
    re.I,
)
"""A CSS colour value written out in a message: a gradient function, a colour function or a hex colour."""


def stem(word: str) -> str:
    """A tiny suffix stripper, applied the same way to message and tool words."""
    w = word.lower().replace("'", "")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    elif len(w) > 4 and w.endswith("es") and not w.endswith("ses"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


_GROUPS_BY_STEM: dict[str, frozenset[str]] = {}
for _group, _words in _SYNONYM_GROUPS.items():
    for _w in _words:
        _s = stem(_w)
        _GROUPS_BY_STEM[_s] = _GROUPS_BY_STEM.get(_s, frozenset()) | {f"<{_group}>"}
WEAK_STEMS = frozenset(stem(w) for w in WEAK_WORDS)
COLOUR_NAMES = frozenset(_CSS_COLOURS)
"""Every CSS named colour, plus "transparent"."""


def word_keys(word: str) -> frozenset[str]:
    """The keys a word matches on: its stem and the synonym groups it belongs to (a hex colour is `<color>`)."""
    if _HEX_COLOUR_RE.fullmatch(word):
        return frozenset({word.lower(), "<color>"})
    root = stem(word)
    return frozenset({root}) | _GROUPS_BY_STEM.get(root, frozenset())


def split_identifier(name: str) -> list[str]:
    """`change_background`, `change-background`, `changeBackground` → ["change", "background"]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [p.lower() for p in re.split(r"[^A-Za-z0-9]+", spaced) if p]


def content_words(text: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in WORD_RE.finditer(text)) if w not in STOPWORDS]


def is_colour_word(word: str) -> bool:
    """True for a CSS colour name or a hex colour ("teal", "#1e3a8a")."""
    return word.lower() in COLOUR_NAMES or _HEX_COLOUR_RE.fullmatch(word) is not None


def mask_colour_values(text: str) -> str:
    """`text` with its colour values blanked out, so "#1e3a8a" or "rgb(30, 58, 138)" give no numbers."""
    return COLOUR_VALUE_RE.sub(lambda m: " " * len(m.group(0)), text)

