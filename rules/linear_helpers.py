"""Rules of srcad's own helpers that rules and generated forward rules call (`expand`,
`elements_of`, `unthunk`, `array_operand`, `numpy_operand`, `operand_tangent`): linear,
with rules of their own so that srcad differentiates those rules in turn (higher
derivatives)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from srcad import dtypes
from srcad.kinds import FLOAT, PYTHON_FLOAT, Kind, ResultKind, is_real
from srcad.projection import (
    ProjectTo,
    array_operand,
    conj,
    expand,
    numpy_operand,
    operand_tangent,
    real_part,
)
from srcad.registry import Linearity, RuleSet
from srcad.rules._support import cotangent_of_elements
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    elements_of,
    field_names,
    float64_number,
    float_items,
    unthunk,
)

rules = RuleSet("linear helpers")
Pullback = Any


@rules.rrule(expand)
def expand_rrule(dx: Any, x: Any) -> tuple[Any, Pullback]:
    """`expand(dx, x)`, which forward rules call to give a float tangent an array's shape:
    linear in `dx`, so its pullback sums the cotangent back to `dx`'s shape (for the
    rules srcad differentiates in turn)."""
    y = expand(dx, x)
    project_dx = ProjectTo(unthunk(dx))

    def expand_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, NoTangent()
        return NoTangent(), project_dx(y_bar), NoTangent()

    return y, expand_pullback


@rules.frule(expand)
def expand_frule(dargs: tuple[Any, ...], dx: Any, x: Any) -> tuple[Any, Any]:
    return expand(dx, x), expand(unthunk(dargs[1]), x)


@rules.rrule(conj)
def conj_rrule(x: Any) -> tuple[Any, Pullback]:
    """`conj(x)`, which inlined complex cotangents call (`passes/inlining.py`): its
    cotangent is `conj(y_bar)`, as `np.conjugate`'s; a symbolic zero stays one."""

    def conj_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), conj(unthunk(y_bar))

    return conj(x), conj_pullback


@rules.frule(conj)
def conj_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    return conj(x), conj(unthunk(dargs[1]))


@rules.rrule(real_part)
def real_part_rrule(x: Any) -> tuple[Any, Pullback]:
    """`real_part(x)`, the real part of a real operand's complex cotangent in inlined
    derivatives: its cotangent is the real part of `y_bar`, as `np.real`'s."""
    project_x = ProjectTo(x)

    def real_part_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(real_part(y_bar))

    return real_part(x), real_part_pullback


@rules.frule(real_part)
def real_part_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    return real_part(x), real_part(unthunk(dargs[1]))


rules.primitive(conj, linearity=Linearity.LINEAR)
rules.primitive(real_part, linearity=Linearity.LINEAR)


def _expanded(args: Sequence[Kind | None]) -> Kind | None:
    """`projection.expand(dx, x)`, a real tangent `dx` widened to the shape of an array
    `x`: an array of `dx`'s precision and `x`'s dimensions (`dx` a Python float: a float64
    array). Unknown where `x` has no dimensions (a 0-d array would make `dx` one)."""
    if len(args) != 2:
        return None
    dx, x = args
    if (
        dx is None
        or x is None
        or not is_real(dx)
        or dx[0] == dtypes.FLOAT32_OR_PYTHON
        or not 0 < x[1] >= dx[1]
    ):
        return None
    return (FLOAT[0] if dx[0] == PYTHON_FLOAT[0] else dx[0], x[1])


# `expand(dx, x)`, which forward rules call: `dx`'s precision, `x`'s dimensions.
EXPANDED = ResultKind("tangent widened", _expanded)
rules.primitive(expand, result=EXPANDED, linearity=Linearity.LINEAR)


@rules.rrule(elements_of)
def elements_of_rrule(tangent: Any, count: int) -> tuple[Any, Pullback]:
    """`elements_of(tangent, count)`, which generated forward rules call to take a tuple's
    tangent apart: linear in it, so its reverse rule (for second derivatives) puts the
    elements' cotangents together again, as the tangent's type holds them."""
    y = elements_of(tangent, count)

    def elements_of_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        bars = tuple(unthunk(b) for b in elements_of(unthunk(y_bar), count))
        if all(isinstance(b, AbstractZero) for b in bars):
            return NoTangent(), ZeroTangent(), NoTangent()
        if isinstance(tangent, Tangent) and tangent.fields:
            names = field_names(tangent.primal_type)
            fields = dict(zip(names, bars, strict=True))
            return NoTangent(), Tangent(tangent.primal_type, **fields), NoTangent()
        return NoTangent(), Tangent(tuple, *bars), NoTangent()

    return y, elements_of_pullback


@rules.frule(elements_of)
def elements_of_frule(dargs: tuple[Any, ...], tangent: Any, count: int) -> tuple[Any, Any]:
    """Forward rule of `elements_of` (forward over forward mode): linear, its tangent's
    elements."""
    return elements_of(tangent, count), Tangent(tuple, *elements_of(unthunk(dargs[1]), count))


rules.primitive(elements_of, linearity=Linearity.LINEAR)


@rules.rrule(unthunk)
def unthunk_rrule(tangent: Any) -> tuple[Any, Pullback]:
    """`unthunk(tangent)`, which rules call on the tangents they are given: the identity on
    values (a thunk computed), for the rules that srcad differentiates in turn."""

    def unthunk_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), y_bar

    return unthunk(tangent), unthunk_pullback


@rules.frule(unthunk)
def unthunk_frule(dargs: tuple[Any, ...], tangent: Any) -> tuple[Any, Any]:
    return unthunk(tangent), unthunk(dargs[1])


rules.primitive(unthunk, linearity=Linearity.LINEAR)


@rules.rrule(array_operand)
def array_operand_rrule(x: Any) -> tuple[Any, Pullback]:
    """`array_operand(x)`, which rules of ufuncs call on a list or tuple operand: linear, so
    its pullback gives the list the array's cotangent, which the list's own pullback
    (`make_list`'s, a parameter's) reads by position."""
    y = array_operand(x)
    project = ProjectTo(y)

    def array_operand_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project(unthunk(y_bar))

    return y, array_operand_pullback


@rules.frule(array_operand)
def array_operand_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    return array_operand(x), operand_tangent(dargs[1], x)


rules.primitive(array_operand, linearity=Linearity.LINEAR_IN_ALL)


@rules.rrule(numpy_operand)
def numpy_operand_rrule(x: Any) -> tuple[Any, Pullback]:
    """`numpy_operand(x)`: `array_operand(x)`, a Python number as a NumPy scalar (the
    identity on values), with the same cotangent."""
    y = numpy_operand(x)
    project = ProjectTo(y)

    def numpy_operand_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project(unthunk(y_bar))

    return y, numpy_operand_pullback


@rules.frule(numpy_operand)
def numpy_operand_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    return numpy_operand(x), operand_tangent(dargs[1], x)


rules.primitive(numpy_operand, linearity=Linearity.LINEAR_IN_ALL)


@rules.rrule(operand_tangent)
def operand_tangent_rrule(dot: Any, x: Any) -> tuple[Any, Pullback]:
    """`operand_tangent(dot, x)`: linear in the tangent `dot`, a list's or tuple's, whose
    cotangent is the array's, read by position as `array_operand_rrule`'s is. `x` gives
    only the shapes of its elements: no cotangent."""
    y = operand_tangent(dot, x)
    project = ProjectTo(y)

    def operand_tangent_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        return NoTangent(), project(unthunk(y_bar)), NoTangent()

    return y, operand_tangent_pullback


@rules.frule(operand_tangent)
def operand_tangent_frule(dargs: tuple[Any, ...], dot: Any, x: Any) -> tuple[Any, Any]:
    return operand_tangent(dot, x), operand_tangent(dargs[1], x)


rules.primitive(operand_tangent, linearity=Linearity.LINEAR)


@rules.rrule(float_items)
def float_items_rrule(tangent: Any) -> tuple[Any, Pullback]:
    """`float_items(tangent)`, which generated forward rules call to read a float64
    vector's elements as Python floats: the vector's elements in a list (as `list`'s rule
    takes them), or the value as it is."""
    y = float_items(tangent)
    if y is tangent:

        def float_items_same_pullback(y_bar: Any) -> tuple[Any, Any]:
            return NoTangent(), y_bar

        return y, float_items_same_pullback
    count = len(y)

    def float_items_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        bars = tuple(unthunk(b) for b in elements_of(y_bar, count))
        return NoTangent(), cotangent_of_elements(tangent, bars)

    return y, float_items_pullback


@rules.frule(float_items)
def float_items_frule(dargs: tuple[Any, ...], tangent: Any) -> tuple[Any, Any]:
    y = float_items(tangent)
    dot = unthunk(dargs[1])
    if y is tangent or isinstance(dot, AbstractZero):
        return y, dot
    return y, [unthunk(d) for d in elements_of(dot, len(y))]


rules.primitive(float_items, linearity=Linearity.LINEAR)


@rules.rrule(float64_number)
def float64_number_rrule(value: Any) -> tuple[Any, Pullback]:
    """`float64_number(value)`: the same number, as a NumPy float64 where it was a
    Python float."""

    def float64_number_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), y_bar

    return float64_number(value), float64_number_pullback


@rules.frule(float64_number)
def float64_number_frule(dargs: tuple[Any, ...], value: Any) -> tuple[Any, Any]:
    return float64_number(value), dargs[1]


rules.primitive(float64_number, linearity=Linearity.LINEAR)
