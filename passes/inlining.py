"""Inlining: the derivative of an operation as plain arithmetic in the emitted pullback.

Where the kinds (`srcad.kinds`) of an operation's operands are known, its rule's pullback
reduces to a few arithmetic expressions: for `y = a * b` on real floats and float arrays,
`a_bar = y_bar * b` (summed back to `a`'s shape where broadcasting stretched it). The
templates below say so, one per operation, written with the operand names `a`, `b` (by
position), the result `y` and its cotangent `y_bar`. ReverseAD emits the operation itself
in the forward sweep, keeps the values a template reads, and writes the template in the
pullback where the rule's pullback call would be.

Everything without a known kind, and every operation without a template, calls its rule.
Templates hold for real values only: kinds never describe complex numbers, so no `conj`.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import Kind
from srcad.partials import power_slope, reciprocal, strong_product
from srcad.passes.analyses.value_kinds import binary, call, subscript
from srcad.primitives import logabsdet
from srcad.projection import fill_like, outer, sum_to
from srcad.syntax import LOAD, make

# Elementwise functions of one argument: the cotangent of `a` for `y = f(a)`.
UNARY: dict[Any, str] = {}
for module in (np, math):
    UNARY.update(
        {
            module.sin: "y_bar * cos(a)",
            module.cos: "-y_bar * sin(a)",
            module.tan: "y_bar * (1.0 + y * y)",
            module.exp: "y_bar * y",
            module.log: "y_bar / a",
            # An infinite slope at 0: see `srcad.partials`.
            module.sqrt: "strong_product(0.5 * reciprocal(y), y_bar)",
            module.tanh: "y_bar * (1.0 - y * y)",
            module.sinh: "y_bar * cosh(a)",
            module.cosh: "y_bar * sinh(a)",
            module.log1p: "y_bar / (1.0 + a)",
            module.expm1: "y_bar * (y + 1.0)",
        }
    )
UNARY[np.arctan] = UNARY[math.atan] = "y_bar / (1.0 + a * a)"
UNARY[np.square] = "y_bar * 2.0 * a"
UNARY[operator.neg] = "-y_bar"
UNARY[operator.pos] = "y_bar"

# Elementwise operators of two arguments: the cotangents of `a` and `b` for `y = a op b`.
BINARY: dict[Any, tuple[str, str]] = {
    operator.add: ("y_bar", "y_bar"),
    operator.sub: ("y_bar", "-y_bar"),
    operator.mul: ("y_bar * b", "a * y_bar"),
    operator.truediv: ("y_bar / b", "-y_bar * y / b"),
}

# Matrix products, by the operands' numbers of dimensions.
MATMUL: dict[tuple[int, int], tuple[str, str]] = {
    (2, 2): ("y_bar @ b.T", "a.T @ y_bar"),
    (2, 1): ("outer(y_bar, b)", "a.T @ y_bar"),
    (1, 2): ("b @ y_bar", "outer(a, y_bar)"),
    (1, 1): ("y_bar * b", "a * y_bar"),
}

# Reductions of a whole array to a float.
REDUCTION: dict[Any, str] = {
    np.sum: "fill_like(a, y_bar)",
    np.mean: "fill_like(a, y_bar / a.size)",
}

# Functions of one matrix (a 2-d float array, not a stack): the cotangent of `a`.
MATRIX: dict[Any, str] = {
    np.linalg.inv: "-(y.T @ y_bar @ y.T)",
    logabsdet: "y_bar * inv(a).T",
}

# What the templates call, under these names (bound like rules, never shadowing the user's).
HELPERS: dict[str, Any] = {
    "outer": outer,
    "power_slope": power_slope,
    "reciprocal": reciprocal,
    "strong_product": strong_product,
    "inv": np.linalg.inv,
    "fill_like": fill_like,
}


def template(text: str, names: dict[str, gast.expr], bind: Callable[[Any, str], str],
             functions: dict[str, Any]) -> gast.expr:  # fmt: skip
    """Parse a template and put the expressions of `names` in place of its names; any
    other name is a function from `functions` (or a helper), bound for emitted code."""
    result: gast.expr = _Substitute(text, names, bind, functions).copy(_parsed(text))
    return result


class _Substitute:
    """A copy of a template with its names replaced: by copies of the expressions of
    `names` (no node is shared between two places), or by the names emitted code reaches
    its functions by. One pass over the template, copying as it goes; children are
    visited as `syntax.Rewriter` visits them (last field first), so functions are bound
    in the same order."""

    def __init__(self, text: str, names: dict[str, gast.expr], bind: Callable[[Any, str], str],
                 functions: dict[str, Any]) -> None:  # fmt: skip
        self.text, self.names, self.bind, self.functions = text, names, bind, functions

    def copy(self, node: gast.AST) -> gast.AST:
        cls = node.__class__
        if cls is gast.Name:
            return self._name(node)
        new = cls.__new__(cls)
        state = new.__dict__ = node.__dict__.copy()
        for name in syntax.child_fields(cls):
            child = state.get(name)
            if child.__class__ is list:
                state[name] = [self.copy(c) if isinstance(c, gast.AST) else c for c in child]
            elif isinstance(child, gast.AST):
                state[name] = self.copy(child)
        return new

    def _name(self, node: gast.Name) -> gast.expr:
        if node.id in self.names:
            copied: gast.expr = syntax.copy_tree(self.names[node.id])
            return copied
        value = self.functions.get(node.id, HELPERS.get(node.id))
        assert value is not None, f"template {self.text!r} names {node.id!r}"
        return make(gast.Name, id=self.bind(value, node.id), ctx=LOAD, annotation=None,
                         type_comment=None)  # fmt: skip


@functools.cache
def _parsed(text: str) -> gast.expr:
    """A template's tree, parsed once: `template` copies it, and nothing changes it."""
    statement = syntax.parse(text).body[0]
    assert isinstance(statement, gast.Expr)
    return statement.value


@functools.cache
def _names_in(text: str) -> frozenset[str]:
    """The names a template reads."""
    return frozenset(n.id for n in syntax.walk(_parsed(text)) if isinstance(n, gast.Name))


UNIFORM_REDUCTION: dict[Any, str] = {np.sum: "y_bar", np.mean: "y_bar / a.size"}


@dataclass(slots=True)
class Plan:
    """How one statement `y = op(...)` is inlined.

    A cotangent may be *uniform*: a float standing for an array of its primal's shape
    filled with it. The cotangent of a sum is one (`y_bar`, not `fill_like(a, y_bar)`),
    and elementwise operations pass one on while they multiply it by floats only, which
    saves whole-array operations. `sum_to` then needs the result `y` to count how many
    elements a stretched operand stood for; and a parameter's cotangent is expanded to
    its shape before it is returned (see ReverseAD).
    """

    reads: dict[str, str]  # role ("a", "b", "y") -> the name whose value the derivative reads
    texts: list[str | None]  # per operand, its cotangent's template (None: none needed)
    operands: list[gast.expr]
    stretched: list[bool]  # per operand, whether broadcasting may have stretched it
    functions: dict[str, Any]
    reduction: Any = None  # the primal, for a reduction of an array to a float
    elementwise: bool = False
    passes_uniform: set[str] = field(default_factory=set)  # operands a uniform seed reaches

    def uniform_reads(self, target: str) -> None:
        """The target's cotangent may be uniform: stretched operands need the result."""
        if any(s and t is not None for s, t in zip(self.stretched, self.texts, strict=True)):
            self.reads["y"] = target

    def write(self, names: dict[str, gast.expr], bind: Callable[[Any, str], str],
              uniform: bool = False) -> list[tuple[str, gast.expr]]:  # fmt: skip
        """Each active operand's cotangent, from the expressions of the roles and of
        `y_bar`; `uniform`: a reduction's gives a uniform cotangent, or the seed of an
        elementwise operation may be one."""
        out = []
        for position, text in enumerate(self.texts):
            if text is None:
                continue
            operand = self.operands[position]
            assert isinstance(operand, gast.Name)
            if uniform and self.reduction is not None:
                text = UNIFORM_REDUCTION[self.reduction]
            expression = template(text, names, bind, self.functions)
            if self.stretched[position]:
                function = make(
                    gast.Name,
                    id=bind(sum_to, "sum_to"),
                    ctx=LOAD,
                    annotation=None,
                    type_comment=None,
                )
                original = names["a" if position == 0 else "b"]
                args = [expression, original] + ([names["y"]] if uniform else [])
                expression = make(gast.Call, func=function, args=args, keywords=[])
            out.append((operand.id, expression))
        return out


# The functions templates name besides the helpers, from the module of the primal.
_FUNCTIONS: dict[Any, dict[str, Any]] = {
    module: {name: getattr(module, name) for name in ("cos", "sin", "cosh", "sinh")}
    for module in (math, np)
}


def adjoint_of(
    primal: Any,
    value: gast.expr,
    target: str,
    operands: list[gast.expr],
    active: set[str],
    kind_of: Callable[[gast.expr], Kind | None],
) -> Plan | None:
    """Whether and how `target = value` (calling `primal`) is inlined: None where a kind
    is unknown or the operation has no template."""
    if isinstance(value, gast.Subscript):
        return None  # indexing has its own inlining, into buffers: see `index_adjoint`
    kinds = [kind_of(o) for o in operands]
    if None in kinds:
        return None
    texts: list[str | None]
    reduction = None
    arithmetic = primal in BINARY  # asked once: it decides the template and broadcasting
    if arithmetic and len(operands) == 2:
        result = binary(primal, kinds[0], kinds[1])
        texts = list(BINARY[primal])
    elif primal is operator.pow and len(operands) == 2:
        exponent = operands[1]
        if not isinstance(exponent, gast.Constant) or type(exponent.value) not in (int, float):
            return None
        result = binary(primal, kinds[0], kinds[1])
        texts = [_power(exponent.value), None]
    elif primal is operator.matmul and len(operands) == 2:
        result = binary(primal, kinds[0], kinds[1])
        pair = MATMUL.get((kinds[0][1], kinds[1][1]))  # type: ignore[index]
        if pair is None:
            return None
        texts = list(pair)
    elif primal in UNARY and len(operands) == 1:
        result = call(primal, kinds) if isinstance(value, gast.Call) else kinds[0]
        texts = [UNARY[primal]]
    elif primal in MATRIX and len(operands) == 1 and kinds[0] == ("f", 2):
        result = call(primal, kinds)
        texts = [MATRIX[primal]]
    elif primal in REDUCTION and len(operands) == 1 and not getattr(value, "keywords", []):
        result = call(primal, kinds)
        texts = [REDUCTION[primal] if kinds[0][1] > 0 else "y_bar"]  # type: ignore[index]
        reduction = primal if kinds[0][1] > 0 else None  # type: ignore[index]
    else:
        return None
    if result is None or result[0] != "f":
        return None
    broadcasts = arithmetic or primal is operator.pow  # two operands, either may be stretched
    elementwise = broadcasts or primal in UNARY
    if broadcasts:
        stretched = [_stretched(kinds, 0, result), _stretched(kinds, 1, result)]
    else:
        stretched = [False] * len(texts)
    functions = _FUNCTIONS[math if getattr(primal, "__module__", None) == "math" else np]
    plan = Plan({}, texts, operands, stretched, functions, reduction, elementwise)
    roles = (("a", operands[0], kinds[0]), ("b", operands[-1], kinds[-1]))
    for position, text in enumerate(texts):
        operand = operands[position]
        if text is None or not (operand.__class__ is gast.Name and operand.id in active):
            texts[position] = None
            continue
        used = _names_in(text)
        # A uniform seed stays uniform where the template multiplies it by floats only.
        arrays = any(role in used and kind[1] for role, _, kind in roles)  # type: ignore[index]
        if elementwise and not arrays and not ("y" in used and result[1] > 0):
            plan.passes_uniform.add(operand.id)
        if stretched[position]:  # `sum_to` reads the operand's own value too
            used = used | {"a" if position == 0 else "b"}
        for role, expression, _ in roles:
            if role in used and expression.__class__ is gast.Name:
                plan.reads[role] = expression.id
        if "y" in used:
            plan.reads["y"] = target
    return plan


def _power(exponent: float) -> str | None:
    """The cotangent of `a` in `a ** exponent`, the exponent folded in (none for `a ** 0`,
    whose derivative is zero). Below power 1 the slope is infinite at 0, where Python's
    `0.0 ** -0.5` raises: `power_slope` and `strong_product` follow NumPy's float semantics
    there, and keep a zero cotangent zero (see `srcad.partials`)."""
    if exponent == 0:
        return None
    if exponent < 1:
        return f"strong_product(power_slope(a, {exponent!r}), y_bar)"
    if exponent == 1:
        return "y_bar"
    if exponent == 2:
        return f"y_bar * {exponent!r} * a"
    if exponent == 3:  # `a * a`: a product costs less than a power, and rounds the same
        return f"y_bar * {exponent!r} * (a * a)"
    return f"y_bar * {exponent!r} * a ** {exponent - 1!r}"


def _stretched(kinds: list[Kind | None], position: int, result: Kind) -> bool:
    """Whether broadcasting may have stretched operand `position` to the result's shape:
    it has fewer dimensions, or both operands are arrays of sizes unknown here."""
    own = kinds[position]
    other = kinds[1 - position]
    assert own is not None and other is not None
    return own[1] < result[1] or (own[1] > 0 and other[1] > 0)


def index_adjoint(
    value: gast.Subscript, kind_of: Callable[[gast.expr], Kind | None]
) -> list[str] | None:
    """For `y = a[index]` with a float array `a` and an index of ints and slices: the names
    the index reads (its cotangent goes into `a_bar[index]`); else None."""
    base = kind_of(value.value)
    if base is None or base[0] != "f" or base[1] == 0:
        return None
    if subscript(base, value.slice, kind_of) is None:  # ints and slices only
        return None
    return list(dict.fromkeys(n.id for n in syntax.walk(value.slice) if isinstance(n, gast.Name)))
