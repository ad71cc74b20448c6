"""Objectives that reach each primitive srcad has a forward rule for, for the second-order
walk of `test_higher_order.py`: each a real scalar of one argument, nonlinear around the
primitive, so that its Hessian needs both the primitive's second derivative and its
first derivative twice over."""

from __future__ import annotations

import dataclasses
import functools
import heapq
import itertools
import math
import operator
import statistics
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from srcad import primitives
from srcad.keywords import keyword_call
from srcad.partials import (
    direction,
    log_base,
    logistic,
    power,
    power_slope,
    quotient,
    reciprocal,
    reciprocal_or_zero,
    strong_product,
)
from srcad.primitives import logabsdet
from srcad.projection import (
    array_operand,
    conj,
    expand,
    numpy_operand,
    operand_tangent,
    real_part,
)
from srcad.rules.numpy_factorisations import _inverse_differences
from srcad.rules.numpy_linalg import multilinear_sum
from srcad.tangents import elements_of, float64_number, float_items, unthunk

Objective = Callable[..., Any]


def unary(fn: Any) -> Objective:
    """Through an elementwise function of one array."""

    def objective(x):
        return np.sum(np.sin(fn(x)) * x)

    return objective


def binary(fn: Any) -> Objective:
    """Through an elementwise function of two arrays, the halves of `z`."""

    def objective(z):
        a = z[:3]
        b = z[3:]
        return np.sum(np.sin(fn(a, b)) * a)

    return objective


def in_second(fn: Any, first: float) -> Objective:
    """Through an elementwise function of two arguments in its second, the first a constant
    (a parameter it is not differentiated in)."""

    def objective(x):
        return np.sum(np.sin(fn(first, x)) * x)

    return objective


def scalar_unary(fn: Any) -> Objective:
    """Through a function of one float."""

    def objective(x):
        return math.sin(fn(x)) * x

    return objective


def scalar_binary(fn: Any) -> Objective:
    """Through a function of two floats."""

    def objective(x, y):
        return math.sin(fn(x, y)) * x + y * y

    return objective


def reduction(fn: Any) -> Objective:
    """Through a reduction along the rows of a matrix."""

    def objective(m):
        return np.sum(np.sin(fn(m * m, 0)))

    return objective


def of_matrix(fn: Any) -> Objective:
    """Through a function of a square matrix giving an array (or a number)."""

    def objective(m):
        return np.sum(np.sin(fn(m)))

    return objective


# -- functions of several arrays, calls and containers, one objective each ----------------------


def where(x):
    return np.sum(np.where(x > 0.5, x * x, np.sin(x)) * x)


def clip(x):
    return np.sum(np.clip(x * x, 0.1, 0.5) ** 3)


def clip_array_bounds(x):
    return np.sum(np.clip(x * 2.0, x * x, x + 0.6) ** 2)


def concatenate(x):
    return np.sum(np.sin(np.concatenate([x, x * x])) * np.concatenate([x * x, x]))


def stack(x):
    return np.sum(np.sin(np.stack([x, x * x], 1)))


def index_concatenate(x):
    return np.sum(np.sin(np.r_[x, 0.5, 1:3, x * x]) * np.r_[x * x, x, 2.0, 1.0, 0.0])


def hstack(x):
    return np.sum(np.sin(np.hstack([x, x * x])) * np.hstack([x * x, x]))


def vstack(x):
    return np.sum(np.sin(np.vstack([x, x * x])))


def dstack(x):
    return np.sum(np.sin(np.dstack([x, x * x])))


def column_stack(x):
    return np.sum(np.sin(np.column_stack([x, x * x])))


def einsum(x):
    return np.einsum("i,i,i->", x, np.sin(x), x)


def einsum_matrices(m):
    return np.sum(np.sin(np.einsum("ij,jk->ik", m, m * m)))


def vdot(x):
    return np.vdot(x, np.sin(x)) ** 2


def kron(x):
    return np.sum(np.sin(np.kron(x, x * x)))


def cross(x):
    return np.sum(np.sin(np.cross(x, x * x)))


def full(x):
    return np.sum(np.sin(np.full(6, x[0] * x[1])) * x)


def pad(x):
    return np.sum(np.sin(np.pad(x * x, 1)) ** 2)


def atleast_1d(x):
    return np.sum(np.sin(np.atleast_1d(x * x)) * x)


def atleast_2d(x):
    return np.sum(np.sin(np.atleast_2d(x * x)))


def atleast_3d(x):
    return np.sum(np.sin(np.atleast_3d(x * x)))


def norm(x):
    return np.linalg.norm(x) ** 3 + np.sum(np.linalg.norm(np.outer(x, x), axis=0) ** 2)


def var(x):
    return np.var(x) ** 2 + np.sum(np.var(np.outer(x, x), axis=1, ddof=1) ** 2)


def std(x):
    return np.std(x) ** 3 + np.sum(np.std(np.outer(x, x), axis=0))


def nansum(x):
    return np.nansum(x * x) ** 2


def median(x):
    return np.median(x * x) ** 3


def builtin_abs(x):
    return abs(x - 0.5) ** 3


def builtin_max(x, y):
    return max(x * x, y) ** 3 + x * y


def builtin_min(x, y):
    return min(x * x, y) ** 3 + x * y


def builtin_float(x):
    return float(x * x) ** 3


def builtin_pow(x, y):
    return pow(x, y) * x


def builtin_sum(x):
    return np.sum(sum([x * x, np.sin(x), x]) ** 3)


def indexed_loop(x):
    # Its forward rule reads `x_dot` as `float_items` and its sum as `float64_number`.
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i] * x[i]
    return s / len(x)


def containers(x):
    pair = (x * x, np.sin(x))
    items = [x, pair[0], pair[1]]
    first, second = pair
    total = 0.0
    for index, item in enumerate(items):
        total = total + item * (index + 1.0)
    for a, b in zip(items, [first, second, x]):  # noqa: B905 (srcad's zip rule)
        total = total + a * b
    return np.sum(np.sin(np.asarray(total)) * np.array(list(tuple(items))[0]))  # noqa: RUF015


def dictionary(x):
    table = {"a": x, "b": x * x}
    return np.sum(np.sin(table["a"]) * table["b"])


def container_methods(x):
    table = {"a": x, "b": x * x}
    total = table.get("b") + sum(table.values())
    for _key, value in table.copy().items():
        total = total + value * value
    copied = [x, total].copy()
    return np.sum(np.sin(copied[1]) * copied[0])


def appending(x):
    out = []
    out.append(x)
    out.append(x * x)
    return np.sum(np.sin(out[0]) * out[1])


def operators(x):
    a = x[:3]
    b = x[3:]
    y = operator.mul(a, b) + a / b - b**2.5 + (-a) * (+b) + a**b + b % 0.3
    return np.sum(np.sin(y + 1.0 / a + a @ b))


def matmul(m):
    return np.sum(np.sin(m @ (m * m)))


def complex_helpers(x):
    """`conj`, `real_part` and `direction`, which complex kinds' inline derivatives call."""
    z = x * (1.0 + 0.5j) + 0.3j
    w = conj(z) * z * z + direction(z, np.abs(z)) * x
    return np.sum(real_part(w * w))


def list_operands(x):
    """NumPy functions given lists and tuples, which they read as arrays
    (`projection.array_operand`, and `operand_tangent` for their tangents)."""
    a = np.multiply([x[0], x[1] * x[2]], (x[3], 2.0))
    return np.sum(np.sin(a) * a) + np.dot([x[4], x[5]], np.cos(a)) + np.sum(np.exp([a, a * x[4]]))


def numpy_powers_of_numbers(x):
    """`np.power` and `np.mod` of Python floats, which they compute as NumPy scalars
    (`projection.numpy_operand`)."""
    return np.power(float(x[0]), 1.5) + np.mod(float(x[1]) * 3.0, 2.0) * np.power(x[2], 2.0)


def method_calls(x):
    return np.sin(x.sum()) * (x * x).max() + np.sum(x.reshape(2, 3).T ** 3)


def of_array(fn: Any, *options: Any) -> Objective:
    """Through a function of one array (with up to two constant options, passed one by
    one): the real part of its result, for the complex results of the FFTs."""
    if len(options) == 2:
        first, second = options

        def objective(m):
            return np.sum(np.real(np.sin(fn(m * m, first, second))))

    elif options:
        (option,) = options

        def objective(m):
            return np.sum(np.real(np.sin(fn(m * m, option))))

    else:

        def objective(m):
            return np.sum(np.real(np.sin(fn(m * m))))

    return objective


def of_pieces(fn: Any, count: int) -> Objective:
    """Through a function that splits an array into `count` pieces."""

    def objective(m):
        pieces = fn(m * m, count)
        return np.sum(np.sin(pieces[0]) * pieces[1])

    return objective


def of_two(fn: Any) -> Objective:
    """Through a function of two matrices, `m` and `m * m`."""

    def objective(m):
        return np.sum(np.sin(fn(m, m * m)))

    return objective


def tensordot(m):
    return np.sum(np.sin(np.tensordot(m, m * m, 1)))


def multilinear_terms(m):  # the tangents of multilinear functions' forward rules
    return np.sum(np.sin(multilinear_sum(np.dot, ((m, m * m), (np.cos(m), m)), {})))


def select(m):
    return np.sum(np.sin(np.select([m > 2.0, m < 0.5], [m * m, np.sin(m)], m)))


def calls(x):
    f = np.sin
    y = f(x)
    pieces = list(map(np.cos, [x, y]))
    real = getattr(x, "real")  # noqa: B009 (the primitive `getattr`)
    return np.sum(np.sin(real * pieces[1] + np.add(*[x, y])) * y)


def slogdet(m):
    sign, logdet = np.linalg.slogdet(m)
    return sign * logdet**2 + np.linalg.slogdet(m * m)[1]


def lstsq(m):
    return np.sum(np.sin(np.linalg.lstsq(m, np.sin(m[:, 0]), rcond=None)[0]))


def decomposed(fn: Any, part: int) -> Objective:
    """Through one part of a decomposition (the values of `eigh`, `R` of `qr`, ...)."""

    def objective(m):
        return np.sum(np.sin(fn(m @ m.T)[part]))

    return objective


def matrix_power(m):
    """Positive, negative and zero powers (the cube is scaled down: `sin` of the cube of
    `m * m` turns too fast for central differences of the gradient at their step)."""
    cube = np.linalg.matrix_power(0.3 * m, 3)
    inverse_square = np.linalg.matrix_power(m, -2)
    return np.sum(np.sin(cube)) + np.sum(inverse_square**2) + np.sum(np.linalg.matrix_power(m, 0))


def determinant(m):
    """Of a matrix and of a stack (`sin` of the determinant of `m * m` turns too fast for
    central differences of the gradient at their step)."""
    stack = np.stack([m, 0.3 * (m @ m)])
    return np.sin(np.linalg.det(0.5 * m)) + np.sum(np.linalg.det(stack))


def inverse_differences(x):
    """Through the helper of eigh's and svd's forward rules that has rules of its own."""
    return np.sum(np.sin(_inverse_differences(x * x + np.arange(6.0))) * x)


def eigenvalues(m):
    return np.sum(np.real(np.sin(np.linalg.eigvals(m @ m.T)))) + np.sum(
        np.real(np.linalg.eig(m @ m.T)[0]) ** 2
    )


def interp(x):
    return np.sum(np.sin(np.interp(x * 0.5, [0.0, 0.2, 0.5], [x[0] * x[1], 1.0, x[2] ** 2])))


def linspace(x):
    return np.sum(np.sin(np.linspace(x[0] * x[1], x[2] ** 2, 5)))


def arange(x):
    return np.sum(np.sin(np.arange(x[0] * x[1], 3.0, x[2] ** 2 + 0.3)))


def dict_built(x):
    params = dict(zip(["a", "b"], [x[0] * x[1], x[2] ** 2], strict=True))
    copied = dict(params)
    return np.sin(copied["a"]) * params["b"] + np.sum(x)


def dict_merged(x):
    merged = {"a": x[0] * x[1], "b": 1.0} | {"b": x[2] ** 2}
    return np.sin(merged["a"]) * merged["b"] + np.sum(x)


def floors_and_masks(x):
    d = {"a": x[0], "b": x[1]}  # (read from a dict: no kind, so through the flat rules)
    flat = (d["a"] // 0.3) + round(d["b"], 1) + math.floor(d["a"] / 0.2) * math.ceil(d["b"])
    keep = (x > 0.3) & ~(x > 0.7) ^ (x > 0.9)
    counts = {"n": 3}  # (an int read from a dict: through the flat rules of the shifts)
    scale = (counts["n"] << 2) + (counts["n"] >> 1)
    return np.sum(x**2 * (x // 0.3)) + np.sum(np.where(keep, x**3, x)) + x[2] ** 2 * flat * scale


FLAT = (operator.floordiv, operator.and_, operator.invert, operator.xor, operator.lshift,
        operator.rshift, round, math.floor, math.ceil, math.trunc)  # fmt: skip
RNG = np.random.default_rng(7)
POSITIVE = RNG.uniform(0.2, 0.8, 3)
VECTOR = RNG.uniform(0.2, 0.8, 6)
MATRIX = RNG.uniform(0.2, 0.8, (3, 3)) + 2.0 * np.eye(3)

# Each primitive that is no elementwise function, by what reaches it.
# -- the Python constructs the normal form turns into primitives ------------------------


class Pair(NamedTuple):
    first: Any
    second: Any


@dataclasses.dataclass
class Box:
    first: Any
    second: Any


def partial_of_multiply(x):
    scale = functools.partial(np.multiply, x)
    return np.sum(scale(np.sin(x)) ** 2)


def sorted_items(x):
    ys = sorted([x[0], x[1] * x[2], x[2] ** 2])
    return ys[0] ** 3 + ys[1] * ys[2] ** 2


def reversed_items(x):
    ys = list(reversed([x[0], x[1] ** 2, x[2]]))
    return ys[0] * ys[1] ** 2 + ys[2] ** 3


def angle(x):
    z = x[0] + 1j * x[1]
    return np.angle(z) * x[2] ** 2 + np.angle(z) ** 2


def nan_to_num(x):
    return np.sum(np.nan_to_num(x * x) ** 2 * x)


def item_writes(x):
    out = np.zeros(3)
    out[0] = x[0] * x[1]
    out[1:] = x[1:] ** 2
    out[2] += x[0]
    return np.sum(out**3)


def named_tuple(x):
    pair = Pair(x * x, np.sin(x))
    return np.sum(pair.first * pair.second)


class Built:
    """A class built by its own `__init__` (`srcad.constructors`)."""

    def __init__(self, first, second):
        self.first = first
        self.second = second * first


def built_instance(x):
    built = Built(x * x, np.sin(x))
    return np.sum(built.first * built.second)


def _keyword_only(x, *, scale):
    return x * scale


def keyword_only(x):
    return np.sum(_keyword_only(x, scale=np.sin(x)))


def replaced_field(x):
    box = dataclasses.replace(Box(x, x * x), second=np.sin(x))
    return np.sum(box.first * box.second**2)


def standard_library(fn: Any) -> Objective:
    """Through a function of the standard library (`rules/standard_library.py`), over the
    list of the vector's squares."""

    def objective(x):
        return np.sin(fn([v * v for v in x])) * x[0]

    return objective


def _times_plus(a, b):
    return a * b + 0.5


STANDARD_LIBRARY = {
    math.prod: math.prod,
    math.fsum: math.fsum,
    math.dist: lambda values: math.dist(values, [1.0] * len(values)),
    statistics.mean: statistics.mean,
    statistics.fmean: statistics.fmean,
    statistics.variance: statistics.variance,
    statistics.pvariance: statistics.pvariance,
    statistics.stdev: statistics.stdev,
    statistics.pstdev: statistics.pstdev,
    statistics.median: statistics.median,
    statistics.median_low: statistics.median_low,
    statistics.median_high: statistics.median_high,
    statistics.geometric_mean: statistics.geometric_mean,
    statistics.harmonic_mean: statistics.harmonic_mean,
    functools.reduce: lambda values: functools.reduce(_times_plus, values, values[1]),
    itertools.starmap: lambda values: sum(
        itertools.starmap(operator.mul, [(v, v + 1.0) for v in values])
    ),
    itertools.accumulate: lambda values: sum(itertools.accumulate(values, _times_plus)),
    primitives.with_initial: lambda values: sum(
        itertools.accumulate(values[1:], _times_plus, initial=values[0])
    ),
    # (`rules/iterator_tools.py`: the items chosen and ordered)
    itertools.chain: lambda values: sum(
        v * w for v, w in zip(values, itertools.chain(values[1:], [2.0]), strict=True)
    ),
    itertools.chain.from_iterable: lambda values: sum(
        v * w
        for v, w in zip(values, itertools.chain.from_iterable([values[1:], [2.0]]), strict=True)
    ),
    itertools.islice: lambda values: sum(v * v for v in itertools.islice(values, 1, None, 2)),
    itertools.compress: lambda values: sum(itertools.compress(values, [1, 0] * len(values))) ** 2,
    itertools.takewhile: lambda values: sum(itertools.takewhile(lambda v: v < 0.5, values)),
    itertools.dropwhile: lambda values: sum(itertools.dropwhile(lambda v: v < 0.5, values)),
    itertools.filterfalse: lambda values: sum(itertools.filterfalse(lambda v: v < 0.3, values)),
    itertools.pairwise: lambda values: sum(a * b for a, b in itertools.pairwise(values)),
    itertools.product: lambda values: sum(a * b for a, b in itertools.product(values, values[:2])),
    itertools.combinations: lambda values: sum(a * b for a, b in itertools.combinations(values, 2)),
    itertools.permutations: lambda values: sum(
        a * b * b for a, b in itertools.permutations(values, 2)
    ),
    itertools.zip_longest: lambda values: sum(
        a * b for a, b in itertools.zip_longest(values, values[:1], fillvalue=1.5)
    ),
    itertools.repeat: lambda values: sum(
        a * b for a, b in zip(values, itertools.repeat(values[0], 4), strict=False)
    ),
    heapq.nlargest: lambda values: math.prod(heapq.nlargest(2, values)),
    heapq.nsmallest: lambda values: math.prod(heapq.nsmallest(2, values, key=lambda v: -v)),
    heapq.merge: lambda values: sum(
        k * v for k, v in enumerate(heapq.merge(sorted(values), [0.5, 1.0]))
    ),
}


BY_PRIMITIVE: dict[Any, tuple[Objective, tuple[Any, ...]]] = {
    **{f: (standard_library(g), (VECTOR,)) for f, g in STANDARD_LIBRARY.items()},
    np.where: (where, (VECTOR,)),
    np.clip: (clip_array_bounds, (VECTOR,)),
    np.concatenate: (concatenate, (VECTOR,)),
    primitives.index_concatenate: (index_concatenate, (VECTOR,)),
    np.stack: (stack, (VECTOR,)),
    np.hstack: (hstack, (VECTOR,)),
    np.vstack: (vstack, (VECTOR,)),
    np.dstack: (dstack, (VECTOR,)),
    np.column_stack: (column_stack, (VECTOR,)),
    np.einsum: (einsum_matrices, (MATRIX,)),
    np.vdot: (vdot, (VECTOR,)),
    np.kron: (kron, (POSITIVE,)),
    np.cross: (cross, (POSITIVE,)),
    np.full: (full, (VECTOR,)),
    np.pad: (pad, (VECTOR,)),
    np.atleast_1d: (atleast_1d, (VECTOR,)),
    np.atleast_2d: (atleast_2d, (VECTOR,)),
    np.atleast_3d: (atleast_3d, (VECTOR,)),
    np.linalg.norm: (norm, (VECTOR,)),
    functools.partial: (partial_of_multiply, (VECTOR,)),
    sorted: (sorted_items, (POSITIVE,)),
    reversed: (reversed_items, (POSITIVE,)),
    np.angle: (angle, (POSITIVE,)),
    np.nan_to_num: (nan_to_num, (VECTOR,)),
    primitives.index_update: (item_writes, (POSITIVE,)),
    primitives.make_struct: (named_tuple, (VECTOR,)),
    primitives.with_attribute: (built_instance, (VECTOR,)),
    keyword_call: (keyword_only, (VECTOR,)),
    primitives.replace_fields: (replaced_field, (VECTOR,)),
    np.var: (var, (VECTOR,)),
    np.std: (std, (VECTOR,)),
    np.nansum: (nansum, (VECTOR,)),
    np.median: (median, (VECTOR,)),
    abs: (builtin_abs, (0.3,)),
    max: (builtin_max, (0.7, 0.3)),
    min: (builtin_min, (0.7, 0.3)),
    float: (builtin_float, (0.7,)),
    pow: (builtin_pow, (0.7, 1.3)),
    operator.matmul: (matmul, (MATRIX,)),
    np.matmul: (matmul, (MATRIX,)),
    np.select: (select, (MATRIX,)),
    np.linalg.slogdet: (slogdet, (MATRIX,)),
    np.linalg.lstsq: (lstsq, (MATRIX,)),
    np.linalg.eig: (eigenvalues, (MATRIX,)),
    np.linalg.eigvals: (eigenvalues, (MATRIX,)),
    np.interp: (interp, (VECTOR,)),
    np.linspace: (linspace, (VECTOR,)),
    np.arange: (arange, (VECTOR,)),
    dict: (dict_built, (VECTOR,)),
    operator.or_: (dict_merged, (VECTOR,)),
    **{f: (floors_and_masks, (VECTOR,)) for f in FLAT},
    **{
        f: (reduction(f), (MATRIX,))
        for f in (
            np.sum,
            np.mean,
            np.prod,
            np.max,
            np.amax,
            np.min,
            np.amin,
            np.cumsum,
            np.cumprod,
            np.average,
        )
    },
    **{f: (of_two(f), (MATRIX,)) for f in (np.dot, np.inner, np.outer, np.linalg.solve)},
    np.tensordot: (tensordot, (MATRIX,)),
    multilinear_sum: (multilinear_terms, (MATRIX,)),
    **{
        f: (of_array(f), (MATRIX,))
        for f in (
            np.real,
            np.imag,
            np.transpose,
            np.diag,
            np.squeeze,
            np.ravel,
            np.sort,
            np.tril,
            np.triu,
            np.fliplr,
            np.flipud,
            np.rot90,
            np.diagonal,
            np.diff,
            np.real_if_close,
            np.float64,
            np.fft.fft,
            np.fft.ifft,
            np.fft.fft2,
            np.fft.ifft2,
            np.fft.fftn,
            np.fft.ifftn,
            np.fft.rfft,
            np.fft.rfft2,
            np.fft.rfftn,
            np.fft.irfft,
            np.fft.irfft2,
            np.fft.irfftn,
            np.fft.hfft,
            np.fft.ihfft,
            np.fft.fftshift,
            np.fft.ifftshift,
            np.gradient,
            np.trapezoid,
            np.linalg.inv,
            np.linalg.pinv,
        )
    },
    np.trace: (of_array(np.trace), (MATRIX,)),
    np.expand_dims: (of_array(np.expand_dims, 0), (MATRIX,)),
    np.broadcast_to: (of_array(np.broadcast_to, (2, 3, 3)), (MATRIX,)),
    np.swapaxes: (of_array(np.swapaxes, 0, 1), (MATRIX,)),
    np.moveaxis: (of_array(np.moveaxis, 0, 1), (MATRIX,)),
    np.rollaxis: (of_array(np.rollaxis, 1), (MATRIX,)),
    np.flip: (of_array(np.flip, 0), (MATRIX,)),
    np.roll: (of_array(np.roll, 1), (MATRIX,)),
    np.tile: (of_array(np.tile, 2), (MATRIX,)),
    np.repeat: (of_array(np.repeat, 2), (MATRIX,)),
    np.reshape: (of_array(np.reshape, 9), (MATRIX,)),
    np.split: (of_pieces(np.split, 3), (MATRIX,)),
    np.array_split: (of_pieces(np.array_split, 3), (MATRIX,)),
    np.take: (of_array(np.take, [0, 2, 2]), (MATRIX,)),
    np.take_along_axis: (of_array(np.take_along_axis, np.array([[0], [2], [1]]), 1), (MATRIX,)),
    np.partition: (of_array(np.partition, 1), (MATRIX,)),
    np.append: (of_array(np.append, [1.0, 2.0]), (MATRIX,)),
    np.linalg.matrix_power: (matrix_power, (MATRIX,)),
    np.linalg.det: (determinant, (MATRIX,)),
    _inverse_differences: (inverse_differences, (VECTOR,)),
    np.linalg.cholesky: (decomposed(np.linalg.cholesky, 0), (MATRIX,)),
    np.linalg.eigh: (decomposed(np.linalg.eigh, 0), (MATRIX,)),
    np.linalg.qr: (decomposed(np.linalg.qr, 1), (MATRIX,)),
    np.linalg.svd: (decomposed(np.linalg.svd, 1), (MATRIX,)),
    np.sinc: (unary(np.sinc), (POSITIVE,)),
    logistic: (unary(logistic), (VECTOR,)),  # `np.logaddexp`'s inline slope
    quotient: (binary(quotient), (VECTOR,)),  # the partials' division, NumPy's at 0
    np.astype: (of_array(np.astype, np.float64), (MATRIX,)),
    logabsdet: (slogdet, (MATRIX,)),
    sum: (builtin_sum, (VECTOR,)),
    array_operand: (list_operands, (VECTOR,)),
    **{
        f: (complex_helpers, (VECTOR,))
        for f in (conj, real_part, direction, reciprocal_or_zero)  # (direction's partial)
    },
    operand_tangent: (list_operands, (VECTOR,)),
    numpy_operand: (numpy_powers_of_numbers, (POSITIVE,)),
    **{
        f: (operators, (VECTOR,))
        for f in (
            operator.add,
            operator.sub,
            operator.mul,
            operator.truediv,
            operator.neg,
            operator.pos,
            operator.pow,
            operator.mod,
            strong_product,
            power_slope,
            power,
            expand,
            elements_of,
            unthunk,
            reciprocal,
            log_base,
        )
    },
    **{f: (indexed_loop, (VECTOR,)) for f in (float_items, float64_number)},
    **{
        f: (containers, (VECTOR,))
        for f in (
            primitives.make_tuple,
            primitives.make_list,
            primitives.unpack,
            primitives.iterate,
            np.array,
            np.asarray,
            list,
            tuple,
            zip,
            enumerate,
            operator.getitem,
        )
    },
    **{
        f: (container_methods, (VECTOR,))
        for f in (dict.get, dict.values, dict.items, dict.copy, list.copy)
    },
    **{
        f: (calls, (VECTOR,))
        for f in (
            primitives.call,
            primitives.unpacked_call,
            getattr,
            map,
        )
    },
    primitives.method: (method_calls, (VECTOR,)),
    primitives.append: (appending, (VECTOR,)),
    primitives.make_dict: (dictionary, (VECTOR,)),
}


# -- the functions issue 20 names, on arguments of both signs ---------------------------------


def named_where(x):
    return np.sum(np.where(x > 0, x**2, np.sin(x)) * x)


def named_maximum(x):
    return np.sum(np.maximum(x, 0.1) ** 2 * x)


def named_minimum(x):
    return np.sum(np.minimum(x * x, x) ** 3)


def named_clip(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 3 * x)


def named_abs(x):
    return np.sum(np.abs(x) ** 3 + np.abs(x * x - 0.3) * x)


def named_max_axis(x):
    return np.sum(np.max(np.outer(x, x), axis=0) ** 2) + np.sum(np.min(np.outer(x, x), axis=1) ** 3)


def named_logaddexp(x):
    return np.sum(np.logaddexp(x, 2.0 * x) * x)


def named_einsum(x):
    return np.einsum("i,i,j->", x, np.sin(x), x) + np.einsum(x, [0], np.cos(x), [0], [])


def named_concatenate(x):
    return np.sum(np.concatenate([x, x**2]) ** 3)


def named_norm(x):
    return np.linalg.norm(x) ** 3 + np.linalg.norm(np.outer(x, x), "fro")


def named_var(x):
    return np.var(x) ** 2 + np.std(x * x)


SIGNED = np.array([0.3, -0.7, 1.2, -0.2, 0.45])
NAMED = [named_where, named_maximum, named_minimum, named_clip, named_abs, named_max_axis,
         named_logaddexp, named_einsum, named_concatenate, named_norm, named_var]  # fmt: skip
