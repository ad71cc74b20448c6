"""Inlining: the derivative of an operation as plain arithmetic in the emitted pullback.

Where the kinds (`srcad.kinds`) of an operation's operands are known, its rule's pullback
reduces to a few arithmetic expressions: for `y = a * b` on real floats and float arrays,
`a_bar = y_bar * b` (summed back to `a`'s shape where broadcasting stretched it). Each
primitive's entry in the rule library says so (`srcad.registry.Inline`): per operand, a
template written with the operand names `a`, `b` (by position), the result `y` and its
cotangent `y_bar`. This module asks the registry for a primitive's templates and result
kind, and turns them into a `Plan`; ReverseAD emits the operation itself in the forward
sweep, keeps the values a template reads, and writes the template in the pullback where
the rule's pullback call would be.

Everything without a known kind, and every operation whose entry has no inline
derivative, calls its rule. The templates are written for real values; where an operand or
the result is complex (`srcad.kinds.is_complex`), only an entry that states its complex
cotangents (`Inline.complex`, with `conj`) is inlined: in reverse mode by those, a real
operand's cotangent the real part of its template's (`projection.real_part`); in forward
mode by the real templates, which the entry's `complex` states hold for complex operands
too (a holomorphic primitive's `y_dot = f'(a) * a_dot`), or by its own tangent templates
where it is not holomorphic (`abs`: `Inline.complex_tangents`).
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import dtypes, syntax
from srcad.kinds import (
    PYTHON_INT,
    Kind,
    as_scalars,
    is_complex,
    is_int_scalar,
    is_integer,
    is_real,
)
from srcad.passes.analyses.value_kinds import subscript
from srcad.passes.normal_form import integral_exponent
from srcad.projection import conj, real_part, sum_to
from srcad.registry import REGISTRY, Registry
from srcad.syntax import LOAD, make


def template(text: str, names: dict[str, gast.expr], bind: Callable[[Any, str], str],
             functions: Mapping[str, Any]) -> gast.expr:  # fmt: skip
    """Parse a template and put the expressions of `names` in place of its names; any
    other name is one of `functions` (the entry's), bound for emitted code."""
    result: gast.expr = _Substitute(text, names, bind, functions).copy(_parsed(text))
    return result


class _Substitute:
    """A copy of a template with its names replaced: by copies of the expressions of
    `names` (no node is shared between two places), or by the names emitted code reaches
    its functions by. One pass over the template, copying as it goes; children are
    visited as `syntax.Rewriter` visits them (last field first), so functions are bound
    in the same order."""

    def __init__(self, text: str, names: dict[str, gast.expr], bind: Callable[[Any, str], str],
                 functions: Mapping[str, Any]) -> None:  # fmt: skip
        self.text, self.names, self.bind, self.functions = text, names, bind, functions

    def copy(self, node: gast.AST) -> gast.AST:
        if isinstance(node, gast.Name):
            return self._name(node)
        cls: Any = type(node)
        new = cls.__new__(cls)
        state = new.__dict__ = node.__dict__.copy()
        for name in syntax.child_fields(cls):
            child = state.get(name)
            if isinstance(child, list):
                state[name] = [self.copy(c) if isinstance(c, gast.AST) else c for c in child]
            elif isinstance(child, gast.AST):
                state[name] = self.copy(child)
        return new

    def _name(self, node: gast.Name) -> gast.expr:
        if node.id in self.names:
            copied: gast.expr = syntax.copy_tree(self.names[node.id])
            return copied
        value = self.functions.get(node.id)
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
def names_in(text: str) -> frozenset[str]:
    """The names a template reads."""
    return frozenset(n.id for n in syntax.walk(_parsed(text)) if isinstance(n, gast.Name))


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
    functions: Mapping[str, Any]
    reduction: Any = None  # the primal, for a reduction of an array to a float
    elementwise: bool = False
    passes_uniform: set[str] = field(default_factory=set)  # operands a uniform seed reaches
    uniform_text: str | None = None  # a reduction's: its operand's uniform cotangent
    primal: Any = None  # the function the statement calls

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
                assert self.uniform_text is not None
                text = self.uniform_text
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


def adjoint_of(
    primal: Any,
    value: gast.expr,
    target: str,
    operands: list[gast.expr],
    active: set[str],
    kind_of: Callable[[gast.expr], Kind | None],
    registry: Registry | None = None,
    options: Mapping[str, Any] | None = None,
    forward: bool = False,
) -> Plan | None:
    """Whether and how `target = value` (calling `primal`) is inlined: None where a kind
    is unknown or the primitive's entry (in `registry`, by default srcad's) has no inline
    derivative for these operands and constant keyword `options` (`axis=1`). `forward`:
    the templates are read with tangents for `y_bar` (`ForwardAD`), which for complex
    operands differ from the cotangents (the module's docstring)."""
    if isinstance(value, gast.Subscript):
        return None  # indexing has its own inlining, into buffers: see `index_adjoint`
    kinds = list(as_scalars(primal, [kind_of(o) for o in operands]))
    if None in kinds or (getattr(value, "keywords", []) and not options):
        return None
    primitive = (REGISTRY if registry is None else registry).primitive(primal)
    if primitive is None or primitive.inline is None:
        return None
    moving = primitive.inline.moving  # (a result of any kind: see `Inline`)
    if primitive.result is None and not moving:
        return None
    known: list[Kind] = kinds  # type: ignore[assignment]
    constants = [o.value if isinstance(o, gast.Constant) else None for o in operands]
    if primal is operator.pow and integral_exponent(operands[-1]):
        known[-1] = PYTHON_INT  # `a ** 2.0` is as real as `a ** 2` (`normal_form.integral_power`)
    result = None if primitive.result is None else primitive.result.given(kinds, options or {})
    if not moving and (result is None or not (is_real(result) or is_complex(result))):
        return None
    functions = primitive.inline.functions
    if (result is not None and is_complex(result)) or any(is_complex(k) for k in known):
        if options or moving:  # (moving templates are written for real lists only)
            texts = None
        elif forward:
            texts = primitive.inline.tangent_texts(known, constants)
        else:
            texts = primitive.inline.complex_texts(known, constants)
        if texts is not None and not forward:  # a real (or int) operand's cotangent is real
            texts = [
                None
                if t is None
                else f"real_part({_unconjugated(t, known)})"
                if not is_complex(k)
                else _unconjugated(t, known)
                for t, k in zip(texts, known, strict=False)
            ]
        functions = {**functions, **_COMPLEX_FUNCTIONS}
    else:
        texts = primitive.inline.texts(known, constants, options)
        if texts is not None and not primitive.inline.primal_divisions:
            numbers = _python_number_roles(known, result)
            texts = [None if t is None else nonraising_divisions(t, numbers) for t in texts]
            functions = {**functions, "float64": np.float64}
    if texts is None or len(texts) != len(operands):
        return None
    elementwise = primitive.elementwise
    broadcasts = elementwise and len(operands) == 2  # either operand may be stretched
    if broadcasts:
        assert result is not None  # (a moving primitive is not elementwise)
        stretched = [_stretched(known, 0, result), _stretched(known, 1, result)]
    else:
        stretched = [False] * len(texts)
    uniform_text = primitive.inline.uniform if known[0][1] > 0 and not options else None
    reduction = primal if uniform_text is not None else None
    plan = Plan({}, texts, operands, stretched, functions, reduction, elementwise,
                uniform_text=uniform_text, primal=primal)  # fmt: skip
    roles = (("a", operands[0], known[0]), ("b", operands[-1], known[-1]))
    for position, text in enumerate(texts):
        operand = operands[position]
        if text is None or not (isinstance(operand, gast.Name) and operand.id in active):
            texts[position] = None
            continue
        used = names_in(text)
        # A uniform seed stays uniform where the template multiplies it by floats only.
        arrays = any(role in used and kind[1] for role, _, kind in roles)
        if (
            elementwise
            and not arrays
            and not ("y" in used and result is not None and result[1] > 0)
        ):
            plan.passes_uniform.add(operand.id)
        if stretched[position]:  # `sum_to` reads the operand's own value too
            used = used | {"a" if position == 0 else "b"}
        for role, expression, _ in roles:
            if role in used and isinstance(expression, gast.Name):
                plan.reads[role] = expression.id
        if "y" in used:
            plan.reads["y"] = target
    return plan


# The kinds of values that may be Python numbers, whose division by zero raises.
_PYTHON_NUMBER_CODES = frozenset({dtypes.FLOAT64, dtypes.PYTHON_FLOAT, *dtypes.INTEGERS})


def _python_number_roles(kinds: list[Kind], result: Kind | None) -> frozenset[str]:
    """The roles of a template that may be Python numbers (a float kind is a Python float
    or a NumPy float64: `srcad.kinds`)."""
    roles = [("a", kinds[0]), ("b", kinds[-1]), ("y", result), ("y_bar", result)]
    return frozenset(
        role for role, kind in roles if kind is not None and kind[1] == 0
        and kind[0] in _PYTHON_NUMBER_CODES
    )  # fmt: skip


@functools.cache
def nonraising_divisions(text: str, numbers: frozenset[str]) -> str:
    """A template whose divisions by the roles in `numbers` (which may be Python numbers)
    divide in NumPy's float semantics at zero: `y_bar / (a or float64(a))`, infinite or
    NaN (with NumPy's warning) where the primal, NumPy's function of a Python float, is
    (`np.log(0.0)`: its slope is inf), never Python's `ZeroDivisionError`. A nonzero divisor
    costs one truth test. A divisor that reads a role of another kind (an array), or
    that is never zero (`1.0 + a * a`), stays as it is.

    >>> nonraising_divisions("-y_bar * y / b", frozenset({"y", "y_bar", "b"}))
    '-y_bar * y / (b or float64(b))'
    >>> nonraising_divisions("y_bar / (1.0 + a * a)", frozenset({"a", "y_bar"}))
    'y_bar / (1.0 + a * a)'
    """
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
            continue
        divisor = node.right
        read = {n.id for n in ast.walk(divisor) if isinstance(n, ast.Name)}
        if read and read <= numbers and not _never_zero(divisor):
            as_float64 = ast.Call(func=ast.Name(id="float64", ctx=ast.Load()), args=[divisor],
                                  keywords=[])  # fmt: skip
            node.right = ast.BoolOp(op=ast.Or(), values=[divisor, as_float64])
    return ast.unparse(tree)


def _never_zero(divisor: ast.expr) -> bool:
    """Whether a template's divisor is a positive constant plus a square (`1.0 + a * a`),
    which is never zero (a NaN is no zero)."""
    if not (isinstance(divisor, ast.BinOp) and isinstance(divisor.op, ast.Add)):
        return False
    for constant, square in ((divisor.left, divisor.right), (divisor.right, divisor.left)):
        value = constant.value if isinstance(constant, ast.Constant) else None
        if (
            isinstance(value, int | float)
            and value > 0
            and isinstance(square, ast.BinOp)
            and isinstance(square.op, ast.Mult)
            and ast.dump(square.left) == ast.dump(square.right)
        ):
            return True
    return False


# What the complex templates call: `conj` of a primal, the real part of a real operand's.
_COMPLEX_FUNCTIONS = {"conj": conj, "real_part": real_part}


def _unconjugated(text: str, kinds: list[Kind]) -> str:
    """A complex template with `conj(a)`, `conj(b)` of a real operand written `a`, `b`."""
    for role, kind in (("a", kinds[0]), ("b", kinds[-1])):
        if is_real(kind) or is_integer(kind):
            text = text.replace(f"conj({role})", role)
    return text


def _stretched(kinds: list[Kind], position: int, result: Kind) -> bool:
    """Whether broadcasting may have stretched operand `position` to the result's shape:
    it has fewer dimensions, or both operands are arrays of sizes unknown here."""
    own = kinds[position]
    other = kinds[1 - position]
    return own[1] < result[1] or (own[1] > 0 and other[1] > 0)


def index_adjoint(
    value: gast.Subscript, kind_of: Callable[[gast.expr], Kind | None]
) -> list[str] | None:
    """For `y = a[index]` with a float (or complex) array `a` and an index of ints and
    slices: the names
    the index reads (its cotangent goes into `a_bar[index]`); else None."""
    base = kind_of(value.value)
    if base is None or not (is_real(base) or is_complex(base)) or base[1] == 0:
        return None
    if subscript(base, value.slice, kind_of) is None:  # ints and slices only
        return None
    return list(dict.fromkeys(n.id for n in syntax.walk(value.slice) if isinstance(n, gast.Name)))


def repeated_index_adjoint(
    value: gast.Subscript, kind_of: Callable[[gast.expr], Kind | None]
) -> list[str] | None:
    """For `y = a[index]` with a float array `a` and an index of int arrays and ints (names
    or constants), one array at least (`log_probs[rows, labels]`): the names the index reads (its
    cotangent goes into `a_bar` by `np.add.at`, which adds once per repeated element);
    else None (a boolean mask, a slice beside arrays, an unknown kind)."""
    base = kind_of(value.value)
    if base is None or not (is_real(base) or is_complex(base)) or base[1] == 0:
        return None
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    if not 0 < len(parts) <= base[1] or not all(
        isinstance(p, gast.Name | gast.Constant) for p in parts
    ):
        return None
    kinds = [kind_of(p) for p in parts]
    if not all(is_integer(k) for k in kinds):
        return None
    if all(is_int_scalar(k) for k in kinds):
        return None  # ints alone: `index_adjoint`
    return list(dict.fromkeys(p.id for p in parts if isinstance(p, gast.Name)))
