"""TextOfNumbers: a differentiated value written as text and read back as a number.

`str`, `repr`, `format` and f-strings have no derivative: srcad marks them so
(`rules/nondiff.py`), as text cannot be perturbed. But text holds the number:
`float(str(x))` is `x`, and `float(f"{x:.17g}")` too, where srcad's derivative through the
text is 0, with no error. This check refuses, in the function's own statements, a call
that reads a number from text made from a value that depends on a differentiated one
(`float`, NumPy's scalar types and `np.array`/`np.asarray`/`astype`, `float.fromhex`,
`json.loads`, `decimal.Decimal`, `fractions.Fraction`, `ast.literal_eval`). (Text passed
to another function that reads it there is not followed: `docs/refusals.md`.)
"""

from __future__ import annotations

import ast
import decimal
import fractions
import json
import pickle
import struct
from collections.abc import Callable

import gast
import numpy as np

from srcad import primitives, syntax
from srcad.errors import Diagnostic
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import Callees, static_path

# Diagnostic code of this check.
TEXT_OF_NUMBER = "E104"

# What writes a value as text (or bytes), and the methods that do.
_WRITERS = (str, repr, format, ascii, bytes, json.dumps, pickle.dumps, struct.pack,
            np.array2string, np.array_repr, np.array_str, np.format_float_positional,
            np.format_float_scientific)  # fmt: skip
_WRITING_METHODS = frozenset({"format", "hex", "tobytes", "tostring", "__repr__", "__str__",
                              "__format__", "format_map"})  # fmt: skip
# What reads a number from text (or bytes), and the methods that do.
_READERS = (float, complex, np.float64, np.float32, np.float16, np.longdouble, np.complex128,
            np.complex64, np.array, np.asarray, np.asanyarray, np.fromstring, np.frombuffer,
            np.loadtxt, np.genfromtxt, float.fromhex, json.loads, pickle.loads, struct.unpack,
            decimal.Decimal, fractions.Fraction, ast.literal_eval)  # fmt: skip
_READING_METHODS = frozenset({"astype", "fromhex"})
# Methods of text whose results are counts, positions or truths, not text.
_NOT_TEXT_METHODS = frozenset({"count", "find", "rfind", "index", "rindex", "startswith",
                               "endswith", "isdigit", "isnumeric", "isdecimal", "isalpha",
                               "isspace", "isalnum", "__len__"})  # fmt: skip


class TextOfNumbers(Analysis[list[Diagnostic]]):
    """Every read of a number from text made of a differentiated value, located."""

    def run(self, tree: gast.Module, ctx: Context) -> list[Diagnostic]:
        function = function_of(tree)
        calls = [n for n in syntax.walk(function) if isinstance(n, gast.Call)]
        found: list[Diagnostic] = []
        callees = ctx.analysis(Callees, tree).callees
        if not any(self._reads(call, callees) for call in calls):
            return found
        self.callees = callees
        self.ctx = ctx
        self.depends = set(ctx.request.wrt) | set(ctx.request.captured)
        _close(function, self.depends, lambda value: _mentions(value, self.depends))
        self.text: set[str] = set()
        _close(function, self.text, self._is_text)
        for call in calls:
            if not self._reads(call, callees):
                continue
            parts = [*call.args, *(k.value for k in call.keywords)]
            if isinstance(call.func, gast.Attribute):
                parts.append(call.func.value)
            if any(self._is_text(p) for p in parts):
                message = (
                    "a number is read here from text made of a differentiated value: "
                    "srcad takes text as constant, so its derivative would be lost"
                )
                hint = "use the number itself, not its text (`round(x, n)` to round it)"
                found.append(ctx.diagnostic(call, TEXT_OF_NUMBER, message, hint))
        return found

    @staticmethod
    def _reads(call: gast.Call, callees: dict[gast.Call, object]) -> bool:
        """Whether `call` may read a number from text."""
        callee = callees.get(call)
        if any(callee is reader for reader in _READERS):
            return True
        return callee is primitives.method and getattr(call.func, "attr", "") in _READING_METHODS

    def _is_text(self, node: gast.expr) -> bool:
        """Whether `node` gives text (or bytes, or a container of them) that holds a value
        depending on a differentiated one: written by a writer, an f-string or `%`, or
        made from such text (a name bound to it, an item, a slice, a sum, a method of it,
        a display or comprehension of it)."""
        if isinstance(node, gast.Name):
            return node.id in self.text
        if isinstance(node, gast.JoinedStr):
            return any(
                isinstance(v, gast.FormattedValue) and _mentions(v.value, self.depends)
                for v in node.values
            )
        if isinstance(node, gast.BinOp):
            left, right = node.left, node.right
            if isinstance(node.op, gast.Mod) and _is_text_constant(left):
                return _mentions(right, self.depends) or self._is_text(right)
            return self._is_text(left) or self._is_text(right)
        if isinstance(node, gast.Subscript):
            return self._is_text(node.value)
        if isinstance(node, gast.IfExp):
            return self._is_text(node.body) or self._is_text(node.orelse)
        if isinstance(node, gast.List | gast.Tuple | gast.Set):
            return any(self._is_text(e) for e in node.elts)
        if isinstance(node, gast.Dict):
            return any(self._is_text(v) for v in [*node.keys, *node.values] if v is not None)
        if isinstance(node, gast.ListComp | gast.GeneratorExp | gast.SetComp):
            return self._is_text(node.elt) or any(self._is_text(g.iter) for g in node.generators)
        if isinstance(node, gast.Call):
            return self._call_is_text(node)
        return False

    def _is_writer(self, node: gast.expr) -> bool:
        """Whether `node` names a function that writes a value as text (`str`)."""
        path = static_path(node)
        if path is None:
            return False
        _, value = self.ctx.source.lookup(path[0]) if len(path) == 1 else (None, None)
        return any(value is writer for writer in _WRITERS)

    def _call_is_text(self, call: gast.Call) -> bool:
        callee = self.callees.get(call)
        args = [*call.args, *(k.value for k in call.keywords)]
        if any(callee is writer for writer in _WRITERS):
            return _mentions_any(args, self.depends) or any(self._is_text(a) for a in args)
        if callee is map and args and self._is_writer(args[0]):  # `map(str, xs)`
            return _mentions_any(args[1:], self.depends)
        func = call.func
        if callee is not primitives.method or not isinstance(func, gast.Attribute):
            return False
        if func.attr in _WRITING_METHODS and _mentions_any([func.value, *args], self.depends):
            return True  # `"{}".format(x)`, `x.hex()`
        if func.attr in _NOT_TEXT_METHODS:
            return False
        # A method of text (`t.strip()`), or joining text (`", ".join(parts)`).
        return self._is_text(func.value) or any(self._is_text(a) for a in args)


def _close(function: gast.FunctionDef, names: set[str], holds: Callable[[gast.expr], bool]) -> None:
    """Add to `names` the names bound, in any order of the statements, to a value for
    which `holds` (which reads `names`) holds."""
    grown = True
    while grown:
        grown = False
        for node in syntax.walk(function):
            pairs: list[tuple[gast.expr, gast.expr]] = []
            if isinstance(node, gast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            elif isinstance(node, gast.AugAssign | gast.AnnAssign) and node.value is not None:
                pairs = [(node.target, node.value)]
            elif isinstance(node, gast.For | gast.comprehension):
                pairs = [(node.target, node.iter)]
            for target, value in pairs:
                new = {n.id for n in syntax.walk(target) if isinstance(n, gast.Name)} - names
                if new and holds(value):
                    names |= new
                    grown = True


def _mentions(node: gast.AST, names: set[str]) -> bool:
    return any(isinstance(n, gast.Name) and n.id in names for n in syntax.walk(node))


def _mentions_any(nodes: list[gast.AST], names: set[str]) -> bool:
    return any(_mentions(node, names) for node in nodes)


def _is_text_constant(node: gast.expr) -> bool:
    return isinstance(node, gast.Constant) and isinstance(node.value, str | bytes)
