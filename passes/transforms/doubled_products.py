"""A forward rule's tangent of a product of two multiples of one pair of numbers by one
power of two written as one product, doubled.

The product rule writes the tangent of `y = t * r` as `t_dot * r + t * r_dot`. Where `t`
is a multiple of `r`, `t = 0.5 * r` (a robust regression's `0.5 * r * r`) or `t = -r`
(Horner's `-p * p`), its tangent is the same multiple of `r_dot`, `t_dot = 0.5 * r_dot`
or `-r_dot`, and both terms are the same number:

    t_dot * r = (c * r_dot) * r = c * (r_dot * r)
    t * r_dot = (c * r) * r_dot = c * (r * r_dot)

exactly, for `c` a power of two or its negation (scaling by one changes no digit of a
float's significand, so it commutes with a product's rounding; a product's operands
commute): the sum is `(t * r_dot) * 2.0` (adding a number to itself doubles it exactly,
infinities and NaNs included). Only where the scaling itself rounds (`0.5 * r` of a
subnormal `r`) or overflows (`2.0 * r`) may the two differ, by that rounding, in the sum's
last digit; the negation never rounds. Two products, a sum and a read become two products.

The rewrite takes any tangent statement `y_dot = u * r + t * s` (either product's
operands, or the sum's, in either order) of numbers where, before it in the same
straight-line code (a loop's body starts afresh: the names may change from one pass to
the next), `u` is bound (once in the function) to `c * s` and `t` to `c * r` (or `-s`,
`-r`), and nothing between binds `r` or `s`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container

import gast

from srcad import syntax
from srcad.syntax import load

_Multiple = tuple[float, str]  # `(c, x)` for a name bound to `c * x`


def products_doubled(
    function: gast.FunctionDef, number: Callable[[str], bool], tangents: Container[gast.stmt]
) -> bool:
    """Rewrite each statement of `tangents` in `function` the module's docstring
    describes; whether any was. `number(name)`: whether `name` holds only numbers."""
    bindings: dict[str, int] = {}
    for node in syntax.walk(function):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            bindings[node.id] = bindings.get(node.id, 0) + 1
    once = {name for name, count in bindings.items() if count == 1 and number(name)}
    return _block(function.body, {}, once, number, tangents)


def _block(statements: list[gast.stmt], outer: dict[str, _Multiple], once: set[str],
           number: Callable[[str], bool], tangents: Container[gast.stmt]) -> bool:  # fmt: skip
    multiples = dict(outer)
    changed = False
    for statement in statements:
        if isinstance(statement, gast.FunctionDef | gast.ClassDef):
            continue
        if isinstance(statement, gast.If):
            changed = _block(statement.body, multiples, once, number, tangents) or changed
            changed = _block(statement.orelse, multiples, once, number, tangents) or changed
        elif isinstance(statement, gast.For | gast.While):
            changed = _block(statement.body, {}, once, number, tangents) or changed
            changed = _block(statement.orelse, {}, once, number, tangents) or changed
        elif isinstance(statement, gast.Assign) and statement in tangents:
            doubled = _doubled(statement.value, multiples, number)
            if doubled is not None:
                statement.value = doubled
                changed = True
        bound = {
            n.id
            for n in syntax.walk(statement)
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
        }
        for name, (_, operand) in list(multiples.items()):
            if operand in bound or name in bound:
                del multiples[name]
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            multiple = _multiple(statement.value)
            named = isinstance(target, gast.Name) and target.id in once
            if named and multiple is not None and multiple[1] != target.id:
                multiples[target.id] = multiple
    return changed


def _multiple(value: gast.expr) -> _Multiple | None:
    """`(c, x)` for `c * x`, `x * c` (`c` a power of two or its negation) or `-x`."""
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        if isinstance(value.operand, gast.Name):
            return (-1.0, value.operand.id)
        return None
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)):
        return None
    for scale, operand in ((value.left, value.right), (value.right, value.left)):
        if (
            isinstance(scale, gast.Constant)
            and type(scale.value) is float
            and _power_of_two(scale.value)
            and isinstance(operand, gast.Name)
        ):
            return (scale.value, operand.id)
    return None


def _power_of_two(c: float) -> bool:
    if not math.isfinite(c) or c == 0.0:
        return False
    mantissa, _ = math.frexp(abs(c))
    return mantissa == 0.5


def _doubled(
    value: gast.expr, multiples: dict[str, _Multiple], number: Callable[[str], bool]
) -> gast.expr | None:
    """`t * s * 2.0` for `u * r + t * s` as the module's docstring says, or None."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)):
        return None
    left, right = _names(value.left), _names(value.right)
    if left is None or right is None:
        return None
    for first, second in ((left, right), (right, left)):
        for u, r in (first, first[::-1]):
            for t, s in (second, second[::-1]):
                if u not in multiples or t not in multiples:
                    continue
                (c, of_u), (d, of_t) = multiples[u], multiples[t]
                if c == d and of_u == s and of_t == r and number(r) and number(s):
                    product = gast.BinOp(left=load(t), op=gast.Mult(), right=load(s))
                    two = gast.Constant(value=2.0, kind=None)
                    return syntax.located(gast.BinOp(left=product, op=gast.Mult(), right=two),
                                          value)  # fmt: skip
    return None


def _names(value: gast.expr) -> tuple[str, str] | None:
    """`(a, b)` for a product `a * b` of two names."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)):
        return None
    if isinstance(value.left, gast.Name) and isinstance(value.right, gast.Name):
        return (value.left.id, value.right.id)
    return None
