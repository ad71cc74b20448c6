"""Rules for `itertools`' rearranging and filtering iterators, `heapq.nlargest`, `nsmallest` and
`merge`, and `bisect`'s searches (`rules/iterator_tools.py`): gradients, tangents and
Hessians against central differences, over floats, lists and arrays, in loops and after
branches; the values, the choices at ties and the exceptions Python's own."""

from __future__ import annotations

import bisect
import heapq
import itertools

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.conftest import difference
from tests.rules.test_higher_order import check_second_order

X = np.array([0.3, 0.7, 1.6])


def _in_a_loop(x):
    total = 0.0
    for a, b in itertools.pairwise(itertools.chain([x[2]], x * x)):
        total = total + a * b
    return total


def _after_a_branch(x):
    items = [x[0]]
    if x[0] > 0.0:
        items = list(itertools.islice(x, 1, None))
        items[0] = items[0] * x[2]
    else:
        items = list(itertools.repeat(x[0], 2))
    return sum(a * b * b for a, b in itertools.product(items, x[:2]))


def _of_floats(x):
    a, b = float(x[0]), float(x[1])
    return sum(p * q + q for p, q, _ in itertools.permutations([a, b, a * b]))


def _heap_choices(x):
    top = heapq.nlargest(2, [x[0] * x[1], x[2], x[1] ** 2])
    low = heapq.nsmallest(2, x, key=lambda v: (v - 0.6) ** 2)
    near = heapq.nsmallest(1, x, key=lambda v: abs(v - x[0] * 2.0))  # (a key reading x)
    return top[0] * top[1] + low[0] * low[1] ** 2 + near[0] ** 3


def _search(x):
    i = bisect.bisect_left([0.0, 0.5, 1.0], x[0])
    j = bisect.bisect_right(x, x[1])
    return x[i] * x[j % 3] ** 2


CASES = {
    "chain": lambda x: sum(v * v for v in itertools.chain([x[0]], x[1:], (x[0] * x[2],))),
    "chain generators": lambda x: sum(itertools.chain((v**3 for v in x), [x[1]])),
    "chain.from_iterable": lambda x: sum(
        a * b for a, b in itertools.pairwise(itertools.chain.from_iterable([[x[0]], x]))
    ),
    "islice stop": lambda x: sum(v**2 for v in itertools.islice(x, 2)),
    "islice step": lambda x: sum(v**3 for v in itertools.islice(x, 0, None, 2)),
    "compress": lambda x: sum(v * x[1] for v in itertools.compress(x, [True, False, 1])),
    "takewhile": lambda x: sum(itertools.takewhile(lambda v: v < x[1] * 1.5, x * x)) ** 2,
    "dropwhile": lambda x: np.prod(list(itertools.dropwhile(lambda v: v < 0.5, x * x))),
    "filterfalse": lambda x: (
        sum(itertools.filterfalse(lambda v: v > 1.0, x**3))
        + sum(itertools.filterfalse(None, [x[0], 0.0, x[2]])) ** 2
    ),
    "pairwise": lambda x: sum((b - a) ** 2 for a, b in itertools.pairwise(x)),
    "product": lambda x: sum(a * b**2 for a, b in itertools.product(x, [x[0], 2.0])),
    "product repeat": lambda x: sum(a * b for a, b in itertools.product(x[:2], repeat=2)),
    "combinations": lambda x: (
        sum(a * b * c for a, b, c in itertools.combinations(x, 3))
        + sum(a / b for a, b in itertools.combinations(x, 2))
    ),
    "permutations": lambda x: sum(a / b for a, b in itertools.permutations(x, 2)),
    "zip_longest": lambda x: sum(
        a * b for a, b in itertools.zip_longest(x, x[:1] * 3.0, fillvalue=0.5)
    ),
    "repeat": lambda x: sum(a * b for a, b in zip(x, itertools.repeat(x[1] ** 2, 3), strict=True)),
    "nlargest nsmallest": _heap_choices,
    "merge": lambda x: sum(
        k * v for k, v in enumerate(heapq.merge([x[0], x[2]], [x[1] * x[1]], [0.5]))
    ),
    "merge key reverse": lambda x: (
        list(heapq.merge(sorted(x, reverse=True), [1.0, -0.2], key=abs, reverse=True))[1] * x[0]
    ),
    "bisect": _search,
    "in a loop": _in_a_loop,
    "after a branch": _after_a_branch,
    "of floats": _of_floats,
}


@pytest.mark.parametrize("name", CASES)
def test_gradient_and_tangent_against_differences(name):
    f = CASES[name]
    expected = difference(f, (X,))
    value, gradient = srcad.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
    v = np.array([1.0, -0.5, 0.25])
    value, y_dot = srcad.jvp(f, (X,), (v,))
    assert value == f(X)
    np.testing.assert_allclose(y_dot, expected @ v, rtol=1e-6, atol=1e-8)


SECOND_ORDER = ["chain", "islice step", "takewhile", "filterfalse", "product", "combinations",
                "zip_longest", "nlargest nsmallest", "merge", "in a loop",
                "after a branch"]  # fmt: skip


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_against_differences_of_the_gradient(name):
    check_second_order(CASES[name], (X,))


def test_at_ties_the_derivative_is_the_chosen_items():
    """`heapq` chooses among equal items by their order (the first), as `max` does; the
    derivative is that item's, and the value Python's."""

    def f(x):
        return heapq.nlargest(1, [x[0], x[1] * 1.0, x[2] - 1.0])[0] * 3.0

    tied = np.array([0.5, 0.5, 1.5])
    assert srcad.grad(f)(tied).tolist() == [3.0, 0.0, 0.0]
    by_max = srcad.grad(lambda v: max(v))([0.5, 0.5])
    assert by_max == srcad.grad(lambda v: heapq.nlargest(1, v)[0])([0.5, 0.5])

    def g(x):
        merged = list(heapq.merge([x[0]], [x[1]]))
        return merged[0]

    assert srcad.grad(g)(np.array([0.5, 0.5])).tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    ("f", "error"),
    [
        (lambda x: sum(itertools.islice([x, 1.0], -1)), ValueError),
        (lambda x: sum(a * b for a, b in itertools.combinations([x, 1.0], -1)), ValueError),
        (lambda x: sum(itertools.repeat(x, "2")), TypeError),
        (lambda x: sum(heapq.nlargest(1, [x, "a"])), TypeError),
    ],
)
def test_pythons_exceptions(f, error):
    with pytest.raises(error):
        f(0.5)
    with pytest.raises(error):
        srcad.grad(f)(0.5)
    with pytest.raises(error):
        srcad.jvp(f, (0.5,), (1.0,))


def test_an_endless_repeat_is_refused():
    with pytest.raises(SrcadError, match="never ends"):
        srcad.grad(lambda x: sum(a * b for a, b in zip([x, 1.0], itertools.repeat(x))))(0.5)


def _counted(x):
    total = 0.0
    for k, a, c in zip(itertools.count(1), x, itertools.cycle([1.0, -2.0])):
        total = total + k * c * a * a
    return total


@pytest.mark.parametrize(
    "f",
    [
        _counted,
        lambda x: sum(a * b**2 for a, b in zip(x, itertools.repeat(2.0), strict=False)),
        lambda x: sum(
            a * b for a, b in zip(itertools.chain([1.0], [2.0, 3.0, 4.0]), x * x, strict=False)
        ),
    ],
)
def test_zip_with_an_iterator_of_constants_even_an_endless_one(f):
    """An `itertools` iterator of constants (called directly, with no rule) reaches `zip`
    as an iterator: `zip` stops at the shortest, and it takes no derivative. Second
    derivatives are refused: the iterator reaches `zip`'s forward rule in the code srcad
    compiles again, which the one-shot check cannot see read it once (E103, a gap)."""
    expected = difference(f, (X,))
    np.testing.assert_allclose(srcad.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jvp(f, (X,), (X,))[1], expected @ X, rtol=1e-6)
    with pytest.raises(SrcadError, match="E103"):
        srcad.hessian(f)(X)


def test_the_iterator_read_twice_is_refused():
    def f(x):
        items = itertools.chain.from_iterable([[x, 1.0]])
        return sum(items) + sum(items)

    with pytest.raises(SrcadError, match="E103"):
        srcad.grad(f)(0.5)
