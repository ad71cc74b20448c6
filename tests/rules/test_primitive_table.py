"""The table of primitives: every inline derivative the registry offers, checked by central
finite differences of the primitive itself, and against its rule's pullback.

Each primitive's entry in the rule library (`RuleSet.primitive`) may give its derivative as
arithmetic (`srcad.registry.Inline`), which `passes/inlining.py` writes into emitted
pullbacks. Here each one is planned for every combination of operand kinds it accepts
(floats, vectors, matrices, and constant exponents), written out as the pullback would
write it, evaluated, and compared with the cotangents finite differences give; where the
plan lets a cotangent stay uniform (a float standing for a filled array), that form too.
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import Any

import gast
import numpy as np
import pytest

from srcad import syntax
from srcad.kinds import FLOAT, INT, Kind, kind_of, list_of
from srcad.passes.inlining import Plan, adjoint_of
from srcad.registry import REGISTRY, Primitive
from srcad.syntax import load
from srcad.tangents import AbstractZero, Tangent
from srcad.testing import finite_difference_vjp

KINDS: list[Kind] = [FLOAT, ("f", 1), ("f", 2)]
# Complex numbers and arrays: their templates (`Inline.complex`, with `conj`), mixed with
# real operands too, each component's derivative by differences.
KINDS += [("c", 0), ("c", 1), ("c", 2)]
# Constant exponents, for `a ** p`, whose inline derivative folds the exponent in.
CONSTANTS: list[float | int] = [0, 1, 2, 3, 4, -1, 0.5, 1.5, 2.0, -0.5]
# Int exponents known when the code runs (`x ** (i % 3)`), ints of no other role.
INTS = [0, 1, 2, 3, -1, -2]
LIST_OF_FLOATS = list_of(FLOAT)  # a list the function made (`sum`, `np.array` of it)


def inlined() -> list[Primitive]:
    return [p for p in REGISTRY.primitives() if p.inline is not None]


def value_of(kind: Kind, seed: int) -> Any:
    """A value of `kind` inside every inlined primitive's domain (positive, and a matrix
    far from singular), of size 3 along each axis so that operands broadcast."""
    rng = np.random.default_rng(seed)
    if kind == FLOAT:
        return float(rng.uniform(0.2, 0.8))
    if kind == ("c", 0):
        return complex(rng.uniform(0.2, 0.8), rng.uniform(-0.5, 0.5))
    if kind == LIST_OF_FLOATS:  # Python floats, or float64 numbers (odd seeds)
        values = rng.uniform(0.2, 0.8, 3)
        return list(values) if seed % 2 else values.tolist()
    shape = (3,) * kind[1]
    values = rng.uniform(0.2, 0.8, shape)
    if kind[0] == "c":
        values = values + 1j * rng.uniform(-0.5, 0.5, shape)
    return values + 2.0 * np.eye(3) if kind[1] == 2 else values


def operand_lists() -> list[tuple[str, list[gast.expr], dict[str, Any]]]:
    """Operands for one and for two arguments: names of every kind, and a name to a
    constant power."""
    found = []
    for k in KINDS:
        found.append((f"a:{k}", [load("a")], {"a": value_of(k, 1)}))
    for seed, held in ((1, "float64"), (2, "float")):
        a = value_of(LIST_OF_FLOATS, seed)
        found.append((f"a:list of {held}", [load("a")], {"a": a}))
    for ka, kb in itertools.product(KINDS, KINDS):
        values = {"a": value_of(ka, 1), "b": value_of(kb, 2)}
        found.append((f"a:{ka}, b:{kb}", [load("a"), load("b")], values))
    for k, p in itertools.product(KINDS, CONSTANTS):
        constant = gast.Constant(value=p, kind=None)
        found.append((f"a:{k}, {p!r}", [load("a"), constant], {"a": value_of(k, 1)}))
    for k, n in itertools.product(KINDS, INTS):
        found.append((f"a:{k}, n:int={n}", [load("a"), load("n")], {"a": value_of(k, 1), "n": n}))
    return found


def planned(primitive: Primitive, operands: list[gast.expr], values: dict[str, Any]) -> Plan | None:
    def kind_of_operand(operand: gast.expr) -> Kind | None:
        if isinstance(operand, gast.Constant):
            return FLOAT if type(operand.value) is float else INT
        value = values[operand.id]
        return LIST_OF_FLOATS if isinstance(value, list) else kind_of(value)

    call = gast.Call(func=load("f"), args=operands, keywords=[])
    return adjoint_of(primitive.function, call, "y", operands, set(values), kind_of_operand)


def arguments(operands: list[gast.expr], values: dict[str, Any]) -> list[Any]:
    return [o.value if isinstance(o, gast.Constant) else values[o.id] for o in operands]


def cases() -> list[Any]:
    found = []
    for primitive in inlined():
        name = getattr(primitive.function, "__name__", str(primitive.function))
        module = getattr(primitive.function, "__module__", None) or "numpy"
        for label, operands, values in operand_lists():
            if planned(primitive, operands, values) is None:
                continue
            try:
                with np.errstate(divide="raise"):
                    primitive.function(*arguments(operands, values))
            except (ZeroDivisionError, FloatingPointError, ValueError):
                continue  # `a / 0`; outside the domain (`math.acosh` below 1)
            else:
                found.append(
                    pytest.param(primitive, operands, values, id=f"{module}.{name}({label})")
                )
    return found


CASES = cases()


def written(
    plan: Plan, values: dict[str, Any], y: Any, y_bar: Any, uniform: bool
) -> dict[str, Any]:
    """Each operand's cotangent as the inlined pullback computes it."""
    namespace: dict[str, Any] = {**values, "y": y, "y_bar": y_bar}

    def bind(value: Any, name: str) -> str:
        assert namespace.setdefault(name, value) is value, name
        return name

    # As the pullback does: the roles are the operands (a constant stays one), the result
    # and the seed.
    names: dict[str, gast.expr] = dict(zip(("a", "b"), plan.operands, strict=False))
    names.update(y=load("y"), y_bar=load("y_bar"))
    return {
        operand: eval(syntax.unparse(expression), namespace)
        for operand, expression in plan.write(names, bind, uniform=uniform)
    }


# Defined outside the values here (`value_of`): checked in tests/end_to_end/test_math_kinds.py.
OUTSIDE = {math.acosh}


def test_every_inline_derivative_is_checked():
    """No entry's inline derivative goes untested: each applies to some operands here."""
    checked = {id(case.values[0]) for case in CASES}
    assert {id(p) for p in inlined() if p.function not in OUTSIDE} == checked
    assert len(inlined()) >= 30


@pytest.mark.parametrize(("primitive", "operands", "values"), CASES)
def test_inline_derivative_matches_finite_differences(primitive, operands, values):
    plan = planned(primitive, operands, values)
    assert plan is not None
    args = arguments(operands, values)
    y = primitive.function(*args)
    y_bar = value_of(kind_of(y) or FLOAT, 3) - 0.5
    got = written(plan, values, y, y_bar, uniform=False)
    _, pullback = REGISTRY.rrule_for(primitive.function).rrule(*args)
    by_rule = pullback(y_bar)
    for position, operand in enumerate(operands):
        if not isinstance(operand, gast.Name) or type(args[position]) is int:
            continue  # (an int exponent: not differentiated)
        # (a list moved as the array of its elements, which every function here reads alike)
        moved = tuple(np.array(a) if isinstance(a, list) else a for a in args)
        expected = finite_difference_vjp(primitive.function, moved, y_bar, position)
        if operand.id not in got:  # no cotangent: a zero one (`a ** 0`)
            np.testing.assert_allclose(expected, 0.0, atol=1e-8)
            continue
        cotangent = plain(got[operand.id])
        assert np.shape(cotangent) == np.shape(args[position])
        np.testing.assert_allclose(cotangent, expected, rtol=1e-6, atol=1e-8)
        rule_bar = by_rule[1 + position]  # (`min`'s for the argument not returned: a zero)
        rule_bar = 0.0 if isinstance(rule_bar, AbstractZero) else plain(rule_bar)
        np.testing.assert_allclose(cotangent, rule_bar, rtol=1e-12, atol=1e-12)
        if isinstance(args[position], list):  # each element's a float, as the rule's are
            assert [type(e) for e in cotangent] == [type(e) for e in rule_bar]


def plain(cotangent: Any) -> Any:
    """A list's cotangent (a `Tangent` of its elements) as the list of them, 0.0 for a
    zero one."""
    if not isinstance(cotangent, Tangent):
        return cotangent
    return [0.0 if isinstance(e, AbstractZero) else e for e in cotangent.elements]


UNIFORM = [
    case
    for case in CASES
    if (lambda plan: plan.reduction is not None or plan.passes_uniform)(planned(*case.values))
]


@pytest.mark.parametrize(("primitive", "operands", "values"), UNIFORM)
def test_uniform_cotangents_match_finite_differences(primitive, operands, values):
    """Where a float stands for an array filled with it (a reduction's cotangent, passed on
    through elementwise operations), the cotangents written for it are those of the filled
    array, once expanded to each operand's shape."""
    plan = planned(primitive, operands, values)
    assert plan is not None
    args = arguments(operands, values)
    y = primitive.function(*args)
    seed = -0.7
    plan.uniform_reads("y")
    got = written(plan, values, y, seed, uniform=True)
    for position, operand in enumerate(operands):
        name = getattr(operand, "id", None)
        if name not in got or (plan.reduction is None and name not in plan.passes_uniform):
            continue
        filled = seed if plan.reduction is not None else np.full(np.shape(y), seed)
        expected = finite_difference_vjp(primitive.function, tuple(args), filled, position)
        cotangent = np.broadcast_to(got[name], np.shape(args[position]))
        np.testing.assert_allclose(cotangent, expected, rtol=1e-6, atol=1e-8)


def test_the_table_covers_what_the_passes_inlined_before():
    """The primitives inlined before the table was one (the templates `passes/inlining.py`
    held), plus `np.fabs`, added by its entry alone."""
    unary = [np.sin, np.cos, np.tan, np.exp, np.log, np.sqrt, np.tanh, np.sinh, np.cosh]
    unary += [np.log1p, np.expm1, np.arctan, np.square, np.fabs]
    unary += [math.sin, math.cos, math.tan, math.exp, math.log, math.sqrt, math.tanh]
    unary += [math.sinh, math.cosh, math.log1p, math.expm1, math.atan]
    binary = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow]
    others = [operator.neg, operator.pos, operator.matmul, np.sum, np.mean, np.linalg.inv]
    others += [abs]  # issue 19: the builtin, in loops on floats (`huber`)
    others += [np.logaddexp]  # issue 19: the stable logistic loss
    # issue 19: `math`'s functions of floats, `min` and `max` of two numbers
    others += [math.asin, math.acos, math.asinh, math.acosh, math.atanh, math.log2]
    others += [math.log10, math.fabs, math.erf, math.erfc, math.degrees, math.radians]
    others += [math.atan2, math.hypot, math.pow, min, max, np.float64]
    others += [np.max, np.amax, np.min, np.amin]  # issue 19: reductions over axes too
    others += [float]  # issue 19: `float(s)` of a float, or of a 0-d array (`kinds.ZERO_D`)
    # issue 19: complex kinds (`np.abs` of a complex argument only; a real one calls its rule)
    others += [np.absolute, np.real, np.imag, np.conjugate]
    others += [sum, np.array, np.asarray]  # issue 19: of a list of floats the function made
    expected = {*unary, *binary, *others}
    functions = {p.function for p in inlined()}
    assert expected <= functions
    assert len(functions - expected) == 1  # logabsdet


# -- np.fabs: a primitive added by one entry (rules/numpy_elementwise.py) --------------------
#
# The entry gives its rule and forward rule (from its partial), its result kind and its inline
# derivative; each is checked here by finite differences, away from the kink at 0.

FABS_POINTS = [
    pytest.param(-0.7, id="negative float"),
    pytest.param(1.3, id="positive float"),
    pytest.param(np.array([-1.5, 0.4, 2.0, -0.3]), id="vector"),
    pytest.param(np.array([[0.5, -1.2, 0.8], [-2.0, 1.1, -0.6]]), id="matrix"),
]


@pytest.mark.parametrize("x", FABS_POINTS)
def test_fabs_rules_match_finite_differences(x):
    from srcad.testing import check_frule, check_rrule

    check_rrule(np.fabs, x)
    check_frule(np.fabs, x)


def fabs_model(x):
    return np.sum(np.fabs(x) * np.sin(x))


def fabs_gradient(x):
    """d/dx |x| sin x."""
    return np.sign(x) * np.sin(x) + np.abs(x) * np.cos(x)


def test_fabs_is_inlined_and_its_kind_known():
    import srcad

    x = np.array([-1.5, 0.4, 2.0, -0.3])
    text = srcad.source(fabs_model, args=(x,))
    assert "sign(" in text  # the entry's inline derivative, in the pullback
    assert "fabs_pullback" not in text and "fabs_rrule" not in text
    result = REGISTRY.primitive(np.fabs).result
    assert result([("f", 2)]) == ("f", 2) and result([("f4", 2)]) == ("f4", 2)
    # Of an int array, a float of the ints' width (float16 of int8s): no kind.
    assert result([("i", 2)]) is None


@pytest.mark.parametrize("x", FABS_POINTS[2:])
def test_fabs_gradient_in_both_modes(x):
    import srcad

    expected = finite_difference_vjp(fabs_model, (x,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(fabs_model)(x), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(fabs_gradient(x), expected, rtol=1e-6, atol=1e-9)
    forward = srcad.jacobian(fabs_model, mode="forward")(x)
    np.testing.assert_allclose(forward, expected, rtol=1e-6, atol=1e-9)
    tangent = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    _, y_dot = srcad.jvp(fabs_model, (x,), (tangent,))
    np.testing.assert_allclose(y_dot, np.sum(expected * tangent), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("x", FABS_POINTS[2:])
def test_fabs_second_order(x):
    """The Hessian (reverse mode over the generated frule, through fabs's forward rule's own
    reverse rule) against finite differences of the exact gradient."""
    import srcad

    hessian = srcad.hessian(fabs_model)(x)
    columns = [
        finite_difference_vjp(lambda z, i=i: fabs_gradient(z).reshape(-1)[i], (x,), 1.0, 0)
        for i in range(x.size)
    ]
    expected = np.stack(columns).reshape(x.shape + x.shape)
    np.testing.assert_allclose(hessian, expected, rtol=1e-6, atol=1e-8)


# -- reductions over constant axes: the templates an entry writes for keyword options ---------

OPTIONS = [
    {"axis": 1, "keepdims": True},
    {"axis": -1},
    {"axis": (2, 0), "keepdims": True},
    {"axis": (0, -1)},
    {"axis": None, "keepdims": True},
    {"keepdims": False},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("function", [np.sum, np.mean, np.max, np.amin], ids=lambda f: f.__name__)
def test_reduction_over_axes_matches_finite_differences(function: Any, options: Any) -> None:
    primitive = REGISTRY.primitive(function)
    assert primitive is not None
    values = {"a": np.random.default_rng(4).standard_normal((2, 3, 4))}
    call = gast.Call(func=load("f"), args=[load("a")], keywords=[])
    three = ("f", 3)  # the operand's kind
    plan = adjoint_of(function, call, "y", [load("a")], {"a"}, lambda _: three, options=options)
    assert plan is not None and plan.reduction is None
    y = function(values["a"], **options)
    y_bar = np.random.default_rng(5).standard_normal(np.shape(y))
    got = written(plan, values, y, y_bar, uniform=False)["a"]
    expected = finite_difference_vjp(lambda a: function(a, **options), (values["a"],), y_bar, 0)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "options", [{"axis": 3}, {"axis": (0, 0)}, {"axis": 1.0}, {"dtype": float}, {"keepdims": 1}]
)
def test_no_template_for_other_options(options: Any) -> None:
    """An axis out of range or named twice, or an option other than `axis` and `keepdims`:
    the rule's call stays."""
    call = gast.Call(func=load("f"), args=[load("a")], keywords=[])
    for function in (np.sum, np.max):
        found = adjoint_of(
            function, call, "y", [load("a")], {"a"}, lambda _: ("f", 3), options=options
        )
        assert found is None
