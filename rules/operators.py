"""Rules for Python's arithmetic operators (`+ - * / ** @`, unary minus), via `operator`."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from srcad.errors import MissingRuleError
from srcad.kinds import (
    DIVIDED,
    MATRIX_PRODUCT,
    POWERED,
    PROMOTED,
    SAME_KIND,
    is_complex,
    is_int_scalar,
    is_integer,
)
from srcad.partials import (
    log_base,
    logistic,
    power,
    power_slope,
    quotient,
    reciprocal,
    strong_product,
)
from srcad.projection import (
    SEQUENCES,
    ProjectTo,
    array_operand,
    conj,
    expand,
    numpy_operand,
    operand_tangent,
    outer,
    python_numbers,
)
from srcad.registry import Inline, Linearity, RuleSet
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    elements_of,
    unthunk,
)

rules = RuleSet("operators")
Pullback = Any


def _sequence_cotangent(primal: list[Any] | tuple[Any, ...], bars: tuple[Any, ...]) -> Any:
    """A list's or tuple's cotangent from its elements' (a symbolic zero where all are)."""
    if all(isinstance(bar, AbstractZero) for bar in bars):
        return ZeroTangent()
    return Tangent(list if isinstance(primal, list) else tuple, *bars)


def _concatenation_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """`a + b` of two lists or tuples: the joined sequence's cotangent splits at `len(a)`
    (each operand gets its own elements' cotangents, never the whole sequence's)."""
    count, total = len(a), len(a) + len(b)

    def concatenation_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        bars = tuple(elements_of(unthunk(y_bar), total))
        if len(bars) != total:
            raise ValueError(f"the cotangent of a sequence of {total} has {len(bars)} elements")
        return (
            NoTangent(),
            _sequence_cotangent(a, bars[:count]),
            _sequence_cotangent(b, bars[count:]),
        )

    return a + b, concatenation_pullback


def _repetition_rrule(items: Any, times: Any) -> tuple[Any, Pullback]:
    """`items * times` of a list or tuple and an int: each element's cotangent is the sum of
    its copies'."""
    count = len(items)
    y = items * times

    def repetition_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        bars = tuple(elements_of(unthunk(y_bar), len(y)))
        if len(bars) != len(y):
            raise ValueError(f"the cotangent of a sequence of {len(y)} has {len(bars)} elements")
        sums = []
        for k in range(count):
            copies = [bar for bar in bars[k::count] if not isinstance(bar, AbstractZero)]
            sums.append(sum(copies[1:], copies[0]) if copies else ZeroTangent())
        return NoTangent(), _sequence_cotangent(items, tuple(sums)), NoTangent()

    return y, repetition_pullback


# The operands whose operators these rules follow: Python's and NumPy's numbers, arrays and
# sequences, and srcad's own (co)tangents (in the rules of rules). Any other class may
# define an operator of its own (`np.matrix`'s `*` is a matrix product, a masked array's
# skips its masked elements, a user's `__mul__` does anything), so its operand is refused
# (`_operand_checked`), unless it inherits both of the operator's methods (and, for an
# array, NumPy's dispatch) unchanged from one of these.
_PLAIN_OPERANDS = frozenset({float, int, bool, complex, np.ndarray, list, tuple, str, bytes})
_OWN_OPERANDS = (np.generic, AbstractZero, Tangent, Thunk)
_PLAIN_BASES = (np.ndarray, float, int, complex, list, tuple)
_ARRAY_DISPATCH = ("__array_ufunc__", "__array_function__", "__array_priority__")


def _operand_checked(value: Any, method: str) -> None:
    """Refuse an operand of a class whose operator `method` (`"mul"`) is not NumPy's or
    Python's own (see `_PLAIN_OPERANDS`)."""
    cls = value.__class__
    if cls in _PLAIN_OPERANDS or isinstance(value, _OWN_OPERANDS):
        return
    unary = method in ("neg", "pos")
    names = (f"__{method}__",) if unary else (f"__{method}__", f"__r{method}__")
    for base in _PLAIN_BASES:
        if isinstance(value, base):
            inherited = names + _ARRAY_DISPATCH if base is np.ndarray else names
            if all(getattr(cls, name, None) is getattr(base, name, None) for name in inherited):
                return
            break
    raise MissingRuleError(
        f"srcad's rule for the operator {names[0]} follows Python's and NumPy's arithmetic, "
        f"but its operand is a {cls.__module__}.{cls.__qualname__}, which may define it "
        "otherwise; convert it first (np.asarray), or register a rule for a function "
        "that computes it"
    )


def _operands_checked(a: Any, b: Any, method: str) -> None:
    _operand_checked(a, method)
    _operand_checked(b, method)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, list | tuple)


# Two Python floats: the general path's most common operands (values whose kinds code was
# not specialised for), whose pullbacks skip building projections while the cotangent is a
# float too; any other cotangent (a complex, an array, a zero) is projected onto a float.
_NO_TANGENT = NoTangent()
_ONTO_FLOAT = ProjectTo(0.0)


def add_floats_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
    if y_bar.__class__ is not float:
        y_bar = _ONTO_FLOAT(y_bar)
    return _NO_TANGENT, y_bar, y_bar


def sub_floats_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
    if y_bar.__class__ is not float:
        y_bar = _ONTO_FLOAT(y_bar)
    return _NO_TANGENT, y_bar, -y_bar


@rules.rrule(operator.add)
def add_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    if a.__class__ is float and b.__class__ is float:
        return a + b, add_floats_pullback
    _operands_checked(a, b, "add")
    if _is_sequence(a) and _is_sequence(b):
        return _concatenation_rrule(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def add_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        return NoTangent(), project_a(y_bar), project_b(y_bar)

    return a + b, add_pullback


@rules.rrule(operator.sub)
def sub_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    if a.__class__ is float and b.__class__ is float:
        return a - b, sub_floats_pullback
    _operands_checked(a, b, "sub")
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def sub_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        return NoTangent(), project_a(y_bar), project_b(-y_bar)

    return a - b, sub_pullback


@rules.rrule(operator.mul)
def mul_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    if a.__class__ is float and b.__class__ is float:

        def mul_floats_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if y_bar.__class__ is not float:
                y_bar = _ONTO_FLOAT(y_bar)
            return _NO_TANGENT, y_bar * b, a * y_bar

        return a * b, mul_floats_pullback
    _operands_checked(a, b, "mul")
    if _is_sequence(a) and isinstance(b, int | np.integer):
        return _repetition_rrule(a, b)
    if _is_sequence(b) and isinstance(a, int | np.integer):
        result, pullback = _repetition_rrule(b, a)

        def repeated_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            _, items_bar, _ = pullback(y_bar)
            return NoTangent(), NoTangent(), items_bar

        return result, repeated_pullback
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def mul_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        return NoTangent(), project_a(y_bar * conj(b)), project_b(conj(a) * y_bar)

    return a * b, mul_pullback


@rules.rrule(operator.truediv)
def truediv_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    _operands_checked(a, b, "truediv")
    y = a / b
    if a.__class__ is float and b.__class__ is float:

        def truediv_floats_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if y_bar.__class__ is not float:
                y_bar = _ONTO_FLOAT(y_bar)
            a_bar = y_bar / b
            return _NO_TANGENT, a_bar, -a_bar * y

        return y, truediv_floats_pullback
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def truediv_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        # (NumPy's `a` divided by a zero Python `b` gave inf: so does `a_bar`.)
        a_bar = quotient(y_bar, conj(b))
        return NoTangent(), project_a(a_bar), project_b(-a_bar * conj(y))

    return y, truediv_pullback


@rules.rrule(operator.neg)
def neg_rrule(a: Any) -> tuple[Any, Pullback]:
    _operand_checked(a, "neg")
    project_a = ProjectTo(a)

    def neg_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project_a(-y_bar)

    return -a, neg_pullback


@rules.rrule(operator.pos)
def pos_rrule(a: Any) -> tuple[Any, Pullback]:
    _operand_checked(a, "pos")
    project_a = ProjectTo(a)

    def pos_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project_a(y_bar)

    return +a, pos_pullback


@rules.rrule(operator.pow)
def pow_rrule(x: Any, p: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `x ** p`, with NumPy's float semantics at base 0 (an infinite
    slope below power 1, never an exception, and a zero cotangent staying zero) and JAX's
    `d/dp 0 ** p = 0`: see `srcad.partials`."""
    _operands_checked(x, p, "pow")
    y = x**p
    project_x, project_p = ProjectTo(x), ProjectTo(p)
    # An integer exponent (bools included) is a constant: `x ** p` at negative x exists only
    # at integer p, so its cotangent would be NaN there, and `x ** 2` should not need one.
    integer_exponent = np.asarray(p).dtype.kind in "biu"

    def pow_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, NoTangent() if integer_exponent else y_bar
        x_bar = strong_product(conj(power_slope(x, p)), y_bar)
        if integer_exponent:
            return NoTangent(), project_x(x_bar), NoTangent()
        p_bar = strong_product(conj(y * log_base(x)), y_bar)
        return NoTangent(), project_x(x_bar), project_p(p_bar)

    return y, pow_pullback


# The helpers of `srcad.partials` that rules and inlined derivatives call, as functions
# srcad can differentiate again (reverse over forward mode, for second derivatives).
rules.scalar(strong_product, lambda a, b, y: b, lambda a, b, y: a)
rules.scalar(reciprocal, lambda x, y: -(y * y))
rules.scalar(quotient, lambda n, d, y: quotient(1.0, d), lambda n, d, y: -quotient(y, d))
rules.scalar(log_base, lambda x, y: reciprocal(x))
# `logistic(x) * logistic(-x)`, not `y * (1 - y)`, which rounds to 0 for large x.
rules.scalar(logistic, lambda x, y: y * logistic(-x))
rules.scalar(
    power_slope,
    lambda x, p, y: strong_product(p, power_slope(x, p - 1)),
    lambda x, p, y: power(x, p - 1) * (1.0 + p * log_base(x)),
)
rules.scalar(
    power, lambda x, p, y: power_slope(x, p), lambda x, p, y: strong_product(y, log_base(x))
)


@rules.rrule(operator.matmul)
def matmul_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    if isinstance(a, AbstractZero) or isinstance(b, AbstractZero):
        # A symbolic zero times anything (a generated forward rule's tangent `W @ h_dot`,
        # where `h` has none yet): a zero, whose operands' cotangents are zeros.
        def zero_product_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            return NoTangent(), ZeroTangent(), ZeroTangent()

        return ZeroTangent(), zero_product_pullback

    _operands_checked(a, b, "matmul")
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_arr, b_arr = np.asarray(a), np.asarray(b)

    def matmul_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, y_bar
        y_bar = np.asarray(y_bar)
        a2 = a_arr[np.newaxis, :] if a_arr.ndim == 1 else a_arr
        b2 = b_arr[:, np.newaxis] if b_arr.ndim == 1 else b_arr
        g = y_bar
        # The trailing axis first: a vector-vector product has a 0-d y_bar, which has no -2.
        if b_arr.ndim == 1:
            g = np.expand_dims(g, -1)
        if a_arr.ndim == 1:
            g = np.expand_dims(g, -2)
        a_bar = g @ np.swapaxes(b2, -1, -2).conj()
        b_bar = np.swapaxes(a2, -1, -2).conj() @ g
        if a_arr.ndim == 1:
            a_bar = a_bar[..., 0, :]
        if b_arr.ndim == 1:
            b_bar = b_bar[..., :, 0]
        return NoTangent(), project_a(a_bar), project_b(b_bar)

    return a @ b, matmul_pullback


@rules.rrule(operator.mod)
def mod_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """`a % b` is `a - b * floor(a / b)`: the floor is piecewise constant."""
    _operands_checked(a, b, "mod")
    y = a % b
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def mod_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, y_bar
        return NoTangent(), project_a(y_bar), project_b(-y_bar * np.floor_divide(a, b))

    return y, mod_pullback


# -- forward rules: `frule((f_dot, *arg_dots), *args) -> (y, y_dot)` ---------------------------


def _sequence_tangent(tangent: Any, primal: list[Any] | tuple[Any, ...]) -> list[Any]:
    """A list's or tuple's tangent as the list of its elements' tangents: a symbolic zero
    gives one zero per element, so that a joined or repeated sequence's tangent keeps each
    element's in its place (a zero's `+` would have given the other operand's alone)."""
    dots = list(elements_of(unthunk(tangent), len(primal)))
    if len(dots) != len(primal):
        raise ValueError(f"the tangent of a sequence of {len(primal)} has {len(dots)} elements")
    return dots


def _sequence_result(y: Any, dots: list[Any]) -> tuple[Any, Any]:
    """`y` and its tangent from its elements', as `make_list`'s and `make_tuple`'s rules
    give them (a list, a tuple, or a symbolic zero)."""
    if all(isinstance(d, AbstractZero) for d in dots):
        return y, ZeroTangent()
    return y, tuple(dots) if isinstance(y, tuple) else dots


def _as_arrays(a: Any, a_dot: Any, b: Any, b_dot: Any) -> tuple[Any, Any, Any, Any]:
    """The operands and tangents of a forward rule, with a list or tuple beside an array
    read as NumPy reads it (`[x, y] * v`): as an array, its tangent the array of its
    elements' (`array_operand`, `operand_tangent`, linear, so this nests to any order)."""
    if isinstance(b, np.ndarray) and isinstance(a, SEQUENCES):
        return array_operand(a), operand_tangent(a_dot, a), b, b_dot
    if isinstance(a, np.ndarray) and isinstance(b, SEQUENCES):
        return a, a_dot, array_operand(b), operand_tangent(b_dot, b)
    return a, a_dot, b, b_dot


@rules.frule(operator.add)
def add_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    _, a_dot, b_dot = dargs
    _operands_checked(a, b, "add")
    if _is_sequence(a) and _is_sequence(b):  # joined: each element keeps its tangent
        return _sequence_result(a + b, _sequence_tangent(a_dot, a) + _sequence_tangent(b_dot, b))
    a, a_dot, b, b_dot = _as_arrays(a, a_dot, b, b_dot)
    y = a + b
    # An array with a zero tangent, plus a float: the float's tangent, as the array's.
    return y, expand(a_dot + b_dot, y)


@rules.frule(operator.sub)
def sub_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    _, a_dot, b_dot = dargs
    _operands_checked(a, b, "sub")
    a, a_dot, b, b_dot = _as_arrays(a, a_dot, b, b_dot)
    y = a - b
    return y, expand(a_dot - b_dot, y)


@rules.frule(operator.mul)
def mul_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    _, a_dot, b_dot = dargs
    _operands_checked(a, b, "mul")
    if _is_sequence(a) and isinstance(b, int | np.integer):  # repeated, not scaled
        return _sequence_result(a * b, _sequence_tangent(a_dot, a) * int(b))
    if _is_sequence(b) and isinstance(a, int | np.integer):
        return _sequence_result(a * b, int(a) * _sequence_tangent(b_dot, b))
    a, a_dot, b, b_dot = _as_arrays(a, a_dot, b, b_dot)
    return a * b, a_dot * b + a * b_dot


@rules.frule(operator.truediv)
def truediv_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    _, a_dot, b_dot = dargs
    _operands_checked(a, b, "truediv")
    a, a_dot, b, b_dot = _as_arrays(a, a_dot, b, b_dot)
    y = a / b
    numerator = a_dot - y * b_dot
    if isinstance(numerator, AbstractZero) or not isinstance(y, np.generic | np.ndarray):
        return y, numerator / b
    # NumPy divided (by a zero, it gives inf and no error): so does the tangent, whose
    # numerator may be a Python float that `/` would raise for.
    return y, np.true_divide(numerator, b)


@rules.frule(operator.neg)
def neg_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    _operand_checked(a, "neg")
    return -a, -dargs[1]


@rules.frule(operator.pos)
def pos_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    _operand_checked(a, "pos")
    return +a, dargs[1]


@rules.frule(operator.pow)
def pow_frule(dargs: tuple[Any, ...], x: Any, p: Any) -> tuple[Any, Any]:
    """Forward rule for `x ** p`, with `pow_rrule`'s partials."""
    _, x_dot, p_dot = dargs
    _operands_checked(x, p, "pow")
    x, x_dot, p, p_dot = _as_arrays(x, x_dot, p, p_dot)
    y = x**p
    y_dot = x_dot if isinstance(x_dot, AbstractZero) else strong_product(power_slope(x, p), x_dot)
    if not isinstance(p_dot, AbstractZero):
        y_dot = y_dot + strong_product(y * log_base(x), p_dot)
    return y, y_dot


@rules.frule(operator.matmul)
def matmul_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    _, a_dot, b_dot = dargs
    _operands_checked(a, b, "matmul")
    a, a_dot, b, b_dot = _as_arrays(a, a_dot, b, b_dot)
    y_dot: Any = ZeroTangent()
    if not isinstance(a_dot, AbstractZero):
        y_dot = a_dot @ b
    if not isinstance(b_dot, AbstractZero):
        y_dot = y_dot + a @ b_dot
    return a @ b, y_dot


@rules.frule(operator.mod)
def mod_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    _, a_dot, b_dot = dargs
    _operands_checked(a, b, "mod")
    a, a_dot, b, b_dot = _as_arrays(a, a_dot, b, b_dot)
    y = a % b
    return y, expand(a_dot - b_dot * np.floor_divide(a, b), y)


# -- each operator's facts (its rules are above): result kind, inline derivative, linearity --


# `a ** b` for an int `b` known when the code runs (`x ** (i % 3)`): from power 1 on, the
# slope is the arithmetic a literal exponent's template writes, finite wherever `a` is,
# where `power_slope` and `strong_product` cost two calls per use; `power_slope` below it
# (0 at power 0, where `0 * a ** -1` would divide by zero at 0; infinite at 0 below).
POSITIVE_INT_POWER = (
    "y_bar * b * a ** (b - 1) if b > 0 else strong_product(power_slope(a, b), y_bar)"
)


def power_cotangents(kinds: Any, constants: Any) -> list[str | None] | None:
    """The cotangent of `a` in `a ** p` for a literal exponent `p` (none for `a ** 0`,
    whose derivative is zero), the exponent folded in; for any other exponent, the partials
    of `pow_rrule` (an int exponent has none: `is_integer`), where the kinds let a power
    be inlined at all (`srcad.kinds._powered`: never a float power of a Python float,
    which may be complex). Below
    power 1 the slope is infinite at 0, where Python's `0.0 ** -0.5` raises: `power_slope`
    and `strong_product` follow NumPy's float semantics there, and keep a zero cotangent
    zero (see `srcad.partials`)."""
    if len(constants) != 2:
        return None
    if type(constants[1]) not in (int, float):  # an exponent known when the code runs
        if is_int_scalar(kinds[1]):
            return [POSITIVE_INT_POWER, None]
        exponent = None if is_integer(kinds[1]) else "strong_product(y * log_base(a), y_bar)"
        return ["strong_product(power_slope(a, b), y_bar)", exponent]
    p = constants[1]
    if p == 0:
        text = None
    elif p < 1:
        text = f"strong_product(power_slope(a, {p!r}), y_bar)"
    elif p == 1:
        text = "y_bar"
    elif p == 2:
        text = f"y_bar * {p!r} * a"
    elif p == 3:  # `a * a`: a product costs less than a power, and rounds the same
        text = f"y_bar * {p!r} * (a * a)"
    else:
        text = f"y_bar * {p!r} * a ** {p - 1!r}"
    return [text, None]


def matmul_cotangents(kinds: Any, constants: Any) -> tuple[str, str] | None:
    """The cotangents of `a @ b`, by the operands' numbers of dimensions (matrices and
    vectors; None for stacks)."""
    if len(kinds) != 2:
        return None
    return {
        (2, 2): ("y_bar @ b.T", "a.T @ y_bar"),
        (2, 1): ("outer(y_bar, b)", "a.T @ y_bar"),
        (1, 2): ("b @ y_bar", "outer(a, y_bar)"),
        (1, 1): ("y_bar * b", "a * y_bar"),
    }.get((kinds[0][1], kinds[1][1]))


rules.non_differentiable(_operand_checked, _operands_checked)


def complex_power_cotangents(kinds: Any, constants: Any) -> list[str | None] | None:
    """The cotangent of a complex `a` in `a ** p` for a literal int exponent `p >= 1`
    (holomorphic: `y_bar * conj(p * a ** (p - 1))`); none for any other exponent, nor a
    complex exponent (the rule's `log_base` picks a branch)."""
    if len(constants) != 2 or type(constants[1]) not in (int, float) or is_complex(kinds[1]):
        return None
    p = constants[1]
    if p != int(p) or p < 1:
        return None
    p = int(p)
    if p == 1:
        return ["y_bar", None]
    base = {2: "a", 3: "(a * a)"}.get(p, f"a ** {p - 1!r}")
    return [f"y_bar * {float(p)!r} * conj({base})", None]


rules.primitive(operator.add, result=PROMOTED, inline=Inline("y_bar", "y_bar"))
rules.primitive(operator.sub, result=PROMOTED, inline=Inline("y_bar", "-y_bar"))
rules.primitive(operator.mul, result=PROMOTED, inline=Inline("y_bar * b", "a * y_bar"))
# Its cotangents divide by `b` as `a / b` does: by a Python zero both raise.
rules.primitive(
    operator.truediv,
    result=DIVIDED,
    inline=Inline("y_bar / b", "-y_bar * y / b", primal_divisions=True),
)
rules.primitive(operator.mod, result=PROMOTED)
rules.primitive(
    operator.pow,
    result=POWERED,
    inline=Inline(
        power_cotangents,
        power_slope=power_slope,
        strong_product=strong_product,
        log_base=log_base,
        complex=complex_power_cotangents,
    ),
)
rules.primitive(
    operator.matmul,
    result=MATRIX_PRODUCT,
    inline=Inline(matmul_cotangents, outer=outer),
    linearity=Linearity.BILINEAR,
)
rules.primitive(np.matmul, linearity=Linearity.BILINEAR)
rules.primitive(operator.neg, result=SAME_KIND, inline=Inline("-y_bar"))
rules.primitive(operator.pos, result=SAME_KIND, inline=Inline("y_bar"))
# Holomorphic in each operand: complex ones inlined by the templates above conjugated,
# `y_bar * conj(b)` (`Inline.holomorphic`); `**` states its own (`complex_power_cotangents`).
rules.holomorphic(operator.add, operator.sub, operator.mul, operator.truediv)
rules.holomorphic(operator.neg, operator.pos)


# `np.power`, `np.mod` and `np.matmul` are `**`, `%` and `@` of their operands read as
# NumPy reads them (Python's operators refuse lists and tuples, or join them, and compute
# with Python's numbers: `(-2.0) ** 0.5` is complex where `np.power(-2.0, 0.5)` is NaN,
# `1.0 % 0.0` raises where `np.mod(1.0, 0.0)` is NaN). Two Python numbers are computed
# with as NumPy scalars; one beside an array stays a Python number, which NumPy's
# promotion reads at the array's precision (`np.power(float32_array, 2.0)` is float32).
# The forward rules of the first two are plain code, which srcad compiles for higher
# derivatives; `np.matmul` is bilinear (its entry below).
@rules.rrule(np.power)
def numpy_power_rrule(x: Any, p: Any) -> tuple[Any, Pullback]:
    if python_numbers(x, p):
        _, pullback = pow_rrule(numpy_operand(x), numpy_operand(p))
    else:
        _, pullback = pow_rrule(array_operand(x), array_operand(p))
    # NumPy's own value: its scalar `**` (`2 ** np.float32(1.6)`) can round otherwise.
    y = np.power(x, p)

    def numpy_power_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        return pullback(y_bar)

    return y, numpy_power_pullback


@rules.frule(np.power)
def numpy_power_frule(dargs: tuple[Any, ...], x: Any, p: Any) -> tuple[Any, Any]:
    x_dot, p_dot = operand_tangent(dargs[1], x), operand_tangent(dargs[2], p)
    if python_numbers(x, p):
        _, y_dot = pow_frule((dargs[0], x_dot, p_dot), numpy_operand(x), numpy_operand(p))
    else:
        _, y_dot = pow_frule((dargs[0], x_dot, p_dot), array_operand(x), array_operand(p))
    return np.power(x, p), y_dot


@rules.rrule(np.mod)
def numpy_mod_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    if python_numbers(a, b):
        y, pullback = mod_rrule(numpy_operand(a), numpy_operand(b))
    else:
        y, pullback = mod_rrule(array_operand(a), array_operand(b))

    def numpy_mod_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        return pullback(y_bar)

    return y, numpy_mod_pullback


@rules.frule(np.mod)
def numpy_mod_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    a_dot, b_dot = operand_tangent(dargs[1], a), operand_tangent(dargs[2], b)
    if python_numbers(a, b):
        return mod_frule((dargs[0], a_dot, b_dot), numpy_operand(a), numpy_operand(b))
    return mod_frule((dargs[0], a_dot, b_dot), array_operand(a), array_operand(b))


@rules.rrule(np.matmul)
def numpy_matmul_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    y, pullback = matmul_rrule(array_operand(a), array_operand(b))

    def numpy_matmul_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        return pullback(y_bar)

    return y, numpy_matmul_pullback


@rules.frule(np.matmul)
def numpy_matmul_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    a_dot, b_dot = operand_tangent(dargs[1], a), operand_tangent(dargs[2], b)
    return matmul_frule((dargs[0], a_dot, b_dot), array_operand(a), array_operand(b))
