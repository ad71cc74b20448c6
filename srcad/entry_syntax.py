"""Building the trees of the entry functions of `grad`, `value_and_grad` (`srcad/entry.py`)
and `jvp` (`srcad/forward_entry.py`): gast nodes, and the inline tests of kinds they write."""

from __future__ import annotations

from typing import Any

import gast

from srcad import syntax
from srcad.kinds import FLOAT, INT, ZERO_DS, ArgumentKind, Kind, Structure


def _load(name: str) -> gast.Name:
    return syntax.load(name)


def _constant(value: Any) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def _call(function: str, *arguments: gast.expr) -> gast.Call:
    return gast.Call(func=_load(function), args=list(arguments), keywords=[])


def _attribute(value: gast.expr | str, attribute: str) -> gast.Attribute:
    value = _load(value) if isinstance(value, str) else value
    return gast.Attribute(value=value, attr=attribute, ctx=gast.Load())


def _item(name: str, index: int) -> gast.Subscript:
    return gast.Subscript(value=_load(name), slice=_constant(index), ctx=gast.Load())


def _tuple(elements: list[gast.expr]) -> gast.Tuple:
    context = gast.Store() if elements and isinstance(elements[0].ctx, gast.Store) else gast.Load()
    return gast.Tuple(elts=elements, ctx=context)


def _compare(left: gast.expr, op: gast.cmpop, right: gast.expr) -> gast.Compare:
    return gast.Compare(left=left, ops=[op], comparators=[right])


def _or(values: list[gast.expr]) -> gast.BoolOp:
    return gast.BoolOp(op=gast.Or(), values=values)


def _and(values: list[gast.expr]) -> gast.expr:
    """All of `values` (True for none)."""
    if not values:
        return _constant(True)
    return values[0] if len(values) == 1 else gast.BoolOp(op=gast.And(), values=values)


def _assign(target: gast.expr, value: gast.expr) -> gast.Assign:
    return gast.Assign(targets=[target], value=value, type_comment=None)


def function_module(
    name: str,
    body: list[gast.stmt],
    args: tuple[str, ...] = (),
    vararg: str | None = None,
    kwarg: str | None = None,
    positional: list[str] | None = None,
) -> gast.Module:
    """A module holding `def name(*positional, /, *args, *vararg, **kwarg): body`."""

    def parameter(name: str) -> gast.Name:
        return gast.Name(id=name, ctx=gast.Param(), annotation=None, type_comment=None)

    positional = positional or []  # (each defaulting to `UNGIVEN`)
    arguments = gast.arguments(
        args=[parameter(a) for a in args],
        posonlyargs=[parameter(a) for a in positional],
        vararg=None if vararg is None else parameter(vararg),
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None if kwarg is None else parameter(kwarg),
        defaults=[_load("UNGIVEN") for _ in positional],
    )
    function = gast.FunctionDef(
        name=name,
        args=arguments,
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        type_params=[],
    )
    return gast.Module(body=[function], type_ignores=[])


def _passed(parameters: list[str], count: int) -> list[gast.expr]:
    """The tests that a call passed `count` of the positional-only `parameters`."""
    tests = []
    if count:
        tests.append(_compare(_load(parameters[count - 1]), gast.IsNot(), _load("UNGIVEN")))
    if count < len(parameters):
        tests.append(_compare(_load(parameters[count]), gast.Is(), _load("UNGIVEN")))
    return tests


def _if(test: gast.expr, body: list[gast.stmt]) -> gast.If:  # (with no `else`)
    return gast.If(test=test, body=body, orelse=[])


def _is_type(value: gast.expr | str, cls: str) -> gast.Compare:
    """`type(value) is cls`."""
    value = _load(value) if isinstance(value, str) else value
    return _compare(_call("type", value), gast.Is(), _load(cls))


# The type of an argument of a float kind other than FLOAT, and the dtype of its array:
# a gradient of that kind has the argument's float type (`srcad.dtypes`); a 0-d array's
# (`ZERO_DS`) is a NumPy scalar of its dtype (`Dispatcher._gradient`).
_SCALAR_TYPES = {
    "f4": "float32_scalar",
    "f0": "float64_scalar",
    "f40": "float32_scalar",
    "c": "complex",
    "c8": "complex64_scalar",
}
_DTYPES = {"f": "float64", "f4": "float32", "c": "complex128", "c8": "complex64"}
_GRADIENT_TYPES = {FLOAT: "FLOAT_GRADIENTS", ("c", 0): "COMPLEX_GRADIENTS"}
_ZERO_D_TESTS = {kind: _DTYPES[scalar[0]] for kind, scalar in ZERO_DS.items()}


def _test(value: gast.expr, kind: Kind | None) -> gast.expr:
    """A test of whether `value` has `kind` (the common types only: an array of another
    byte order takes the general path). A float is a Python float or a NumPy float64 (an
    item of a float64 array), tested in that order."""
    if kind is None:
        return _compare(_call("kind_of", value), gast.Is(), _constant(None))
    if kind == FLOAT:
        return _or([_is_type(value, "float"), _is_type(value, "float64_scalar")])
    if kind == INT:
        return _is_type(value, "int")
    if kind in ZERO_DS:  # a 0-d array of the dtype
        dtype_is = _compare(_attribute(value, "dtype"), gast.Is(), _load(_ZERO_D_TESTS[kind]))
        ndim_is = _compare(_attribute(value, "ndim"), gast.Eq(), _constant(0))
        return _and([_is_type(value, "ndarray"), ndim_is, dtype_is])
    dtype, ndim = kind
    if ndim == 0:
        return _is_type(value, _SCALAR_TYPES[dtype])
    ndim_is = _compare(_attribute(value, "ndim"), gast.Eq(), _constant(ndim))
    array = [_is_type(value, "ndarray"), ndim_is]
    dtype_of = _attribute(value, "dtype")
    if dtype in _DTYPES:
        return _and([*array, _compare(dtype_of, gast.Is(), _load(_DTYPES[dtype]))])
    kind_of_dtype = gast.Attribute(value=dtype_of, attr="kind", ctx=gast.Load())
    return _and([*array, _compare(kind_of_dtype, gast.In(), _constant("iu"))])


def _result_test(name: str, kind: ArgumentKind) -> gast.expr:
    """The plain type of the gradient for an argument of `kind` (a float kind): a float,
    or an array of the argument's dtype (the code may compute an int array, `d(x * n)/dx`
    for int `n`, or a float64 one for a float32 argument); a float32 for a float32; a
    container's, shaped (`trees.shaped`: None where it could not)."""
    assert kind is not None
    if isinstance(kind, Structure):
        return _compare(_load(name), gast.IsNot(), _constant(None))
    if kind in _GRADIENT_TYPES:  # (a float or a NumPy float64: `FLOAT_GRADIENTS`; complex)
        return _compare(_call("type", _load(name)), gast.In(), _load(_GRADIENT_TYPES[kind]))
    if kind[1] == 0:
        return _is_type(name, _SCALAR_TYPES[kind[0]])
    dtype_of = _attribute(name, "dtype")
    dtype = _load(_DTYPES[kind[0]])
    return _and([_is_type(name, "ndarray"), _compare(dtype_of, gast.Is(), dtype)])
