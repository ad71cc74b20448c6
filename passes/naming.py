"""Every naming convention of emitted code, and fresh names that never clash."""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable

import gast

MAX_DERIVED_LENGTH = 16
_NOT_WORD = re.compile(r"\W+")
_UNDERSCORES = re.compile(r"_+")

_OPERATOR_WORDS: dict[type, str] = {
    gast.Add: "plus",
    gast.Sub: "minus",
    gast.Mult: "times",
    gast.Div: "over",
    gast.FloorDiv: "floordiv",
    gast.Mod: "mod",
    gast.Pow: "pow",
    gast.MatMult: "matmul",
    gast.USub: "neg",
    gast.UAdd: "pos",
    gast.Not: "not",
    gast.Invert: "invert",
    gast.BitXor: "xor",
    gast.LShift: "lshift",
    gast.RShift: "rshift",
    gast.Eq: "eq",
    gast.NotEq: "ne",
    gast.Lt: "lt",
    gast.LtE: "le",
    gast.Gt: "gt",
    gast.GtE: "ge",
    gast.Is: "is",
    gast.IsNot: "is_not",
    gast.In: "in",
    gast.NotIn: "not_in",
}


def bar(name: str) -> str:
    """The cotangent of `name`."""
    return f"{name}_bar"


def pullback(name: str) -> str:
    """The pullback that maps `name`'s cotangent to its inputs' cotangents."""
    return f"{name}_pullback"


def rrule(function_name: str) -> str:
    """The generated reverse rule of a function."""
    return f"rrule_{function_name}"


def dot(name: str) -> str:
    """The tangent of `name`."""
    return f"{name}_dot"


def frule(function_name: str) -> str:
    """The generated forward rule of a function."""
    return f"frule_{function_name}"


def operator_word(op: gast.AST) -> str:
    return _OPERATOR_WORDS.get(type(op), type(op).__name__.lower())


def _constant_word(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, int | float):
        text = repr(value)
        if text.endswith(".0"):
            text = text[:-2]
        return text.replace("-", "m").replace(".", "_").replace("+", "")
    if isinstance(value, str):
        return value
    return "const"


def expression_words(node: gast.AST) -> list[str]:
    """Words describing an expression whose operands are already names or constants."""
    if isinstance(node, gast.Name):
        return [node.id]
    if isinstance(node, gast.Constant):
        return [_constant_word(node.value)]
    if isinstance(node, gast.BinOp):
        return [*expression_words(node.left), operator_word(node.op), *expression_words(node.right)]
    if isinstance(node, gast.Call):
        func = node.func
        callee = func.id if isinstance(func, gast.Name) else None
        if isinstance(func, gast.Attribute):
            callee = func.attr
        words = [callee or "call"]
        for arg in node.args:
            words += expression_words(arg)
        return words
    if isinstance(node, gast.Subscript):
        return [*expression_words(node.value), *expression_words(node.slice)]
    if isinstance(node, gast.Attribute):
        return [*expression_words(node.value), node.attr]
    if isinstance(node, gast.Compare):
        words = expression_words(node.left)
        for op, right in zip(node.ops, node.comparators, strict=True):
            words += [operator_word(op), *expression_words(right)]
        return words
    if isinstance(node, gast.UnaryOp):
        return [operator_word(node.op), *expression_words(node.operand)]
    if isinstance(node, gast.BoolOp):
        return ["both" if isinstance(node.op, gast.And) else "either"]
    if isinstance(node, gast.Slice):
        return ["slice"]
    if isinstance(node, gast.Tuple):
        return [w for element in node.elts for w in expression_words(element)] or ["tuple"]
    return [type(node).__name__.lower()]


def derived_name(node: gast.AST) -> str:
    """A readable name for the value of `node`: `np.sin(x)` gives `sin_x`, `a * b` gives
    `a_times_b`; long descriptions shrink to their outermost operation.

    >>> derived_name(gast.parse("np.sin(x)").body[0].value)
    'sin_x'
    >>> derived_name(gast.parse("2.0 * x").body[0].value)
    'n2_times_x'
    """
    words = expression_words(node)
    name = identifier("_".join(words))
    if len(name) > MAX_DERIVED_LENGTH:
        name = identifier(words[0] if not isinstance(node, gast.BinOp) else operator_word(node.op))
        if isinstance(node, gast.Call | gast.UnaryOp):
            name = identifier(words[0])
    return name


def identifier(text: str) -> str:
    """`text` made into a valid, non-keyword Python identifier."""
    name = text
    # Most texts are already words joined by single underscores (`x_bar`, `sin_x`): they
    # need none of the rewriting, which costs more than these tests.
    plain = text.isascii() and text.isidentifier() and "__" not in text
    if not plain or text[0] == "_" or text[-1] == "_":
        name = _NOT_WORD.sub("_", text).strip("_") or "value"
        name = _UNDERSCORES.sub("_", name)
        if name[0].isdigit():
            name = "n" + name
    if name in _KEYWORDS:
        name += "_"
    return name


# The keywords, soft ones (`match`, `type`...) included, that no name may be.
_KEYWORDS = frozenset([*keyword.kwlist, *keyword.softkwlist])


class Namer:
    """Hands out names that clash with nothing the function uses: `x`, then `x_2`, `x_3`."""

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self.taken: set[str] = set(taken)

    def fresh(self, base: str) -> str:
        return self._unused(identifier(base))

    def derived(self, node: gast.AST) -> str:
        """A fresh name for the value of `node`, from `derived_name`."""
        return self._unused(derived_name(node))  # an identifier already

    def _unused(self, base: str) -> str:
        """`base`, or `base_2`, `base_3`...: the first that is not taken, now taken."""
        name, count = base, 1
        while name in self.taken:
            count += 1
            name = f"{base}_{count}"
        self.taken.add(name)
        return name

    def reserve(self, names: Iterable[str]) -> None:
        self.taken.update(names)
