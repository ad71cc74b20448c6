"""Issue 17 (fuzzer seeds 3119 and 4650): a list read whole (by `sum`, `len`, `np.array`,
`list`, `tuple`, `max`, a `for` loop, indexing) before an append to it, in straight-line
code and in loops, differentiates right in every mode. `append` in the normal form makes a
new list, so a rule that kept the list it read (for its pullback or its tangent) sees that
list, not one that grew after it. Checked against central finite differences."""

import importlib.util
import inspect
import pathlib

import numpy as np
import pytest

import srcad
from srcad.tangents import materialize
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "soundness_list_append_functions", HERE / "soundness_list_append_functions.py"
)
la = importlib.util.module_from_spec(spec)
spec.loader.exec_module(la)


def close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def tangent_like(x):
    return np.full(np.shape(x), 0.7) if isinstance(x, np.ndarray) else 0.7


def output_cotangent(y):
    return np.linspace(0.5, 1.5, np.size(y)).reshape(np.shape(y)) if np.ndim(y) else 1.0


def check_every_mode(f, x):
    """`grad` (scalar results), `value_and_grad`, `rrule`, `vjp`, `jacobian` in both modes,
    `jvp` and `frule` of `f` at `x`, against finite differences."""
    y = f(x)
    y_bar = output_cotangent(y)
    want = finite_difference_vjp(f, (x,), y_bar, 0)
    if np.ndim(y) == 0:
        close(srcad.grad(f)(x), want)
        value, got = srcad.value_and_grad(f)(x)
        close(value, y)
        close(got, want)
    _, pullback = srcad.rrule(f, x)
    close(materialize(pullback(y_bar)[1], x), want)
    value, vjp_fn = srcad.vjp(f, x)
    close(value, y)
    close(materialize(vjp_fn(y_bar)[0], x), want)
    if np.ndim(x) == 0:
        want_jacobian = finite_difference_jvp(f, (x,), (1.0,))
        close(srcad.jacobian(f)(x), want_jacobian)
        close(srcad.jacobian(f, mode="forward")(x), want_jacobian)
    dx = tangent_like(x)
    want_dot = finite_difference_jvp(f, (x,), (dx,))
    y_jvp, y_dot = srcad.jvp(f, (x,), (dx,))
    close(y_jvp, y)
    close(y_dot, want_dot)
    _, y_dot = srcad.frule((srcad.NoTangent(), dx), f, x)
    close(materialize(y_dot, y), want_dot)


X23 = np.array([[0.9, 1.1, 0.8], [1.2, 0.95, 1.05]])

CASES = [
    ("sum_then_append", la.sum_then_append, 1.5),
    ("fuzz_4650", la.fuzz_4650, X23),
    ("sum_then_append_array", la.sum_then_append_array, np.array([0.3, -0.4, 0.8])),
    ("len_then_append", la.len_then_append, 0.7),
    ("array_then_append", la.array_then_append, 0.6),
    ("copy_then_append", la.copy_then_append, 0.8),
    ("tuple_then_append", la.tuple_then_append, 1.3),
    ("iterate_then_append", la.iterate_then_append, 0.9),
    ("index_then_append_in_loop", la.index_then_append_in_loop, 1.2),
    ("sum_then_append_in_loop", la.sum_then_append_in_loop, 0.7),
    ("mixed_reads_in_loop", la.mixed_reads_in_loop, 0.8),
    ("append_in_while", la.append_in_while, 1.1),
    ("max_then_append", la.max_then_append, 0.6),
    ("return_list_after_reads", la.return_list_after_reads, 0.9),
]


@pytest.mark.parametrize("name, f, x", CASES, ids=[c[0] for c in CASES])
def test_list_read_whole_then_appended(name, f, x):
    check_every_mode(f, x)


def test_primal_list_is_not_changed_behind_a_rule():
    """The primal values through the rule match Python's, and the list a pullback kept is
    the one it was given (the first `sum` saw two elements)."""
    value, pullback = srcad.rrule(la.sum_then_append, 1.5)
    assert value == la.sum_then_append(1.5) == 2.5
    assert pullback(1.0)[1] == pytest.approx(1.0)


ITERATED_WHILE_GROWN = [
    la.append_while_iterating,
    la.append_while_enumerating,
    la.append_while_zipping,
    la.append_in_nested_loop_over_list,
]


@pytest.mark.parametrize("f", ITERATED_WHILE_GROWN, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_append_to_the_list_a_loop_walks_is_refused(f, mode):
    """Python's loop sees the items appended in its body; the normal form iterates over
    the items on entry. Refused, at the append, in both modes."""
    lines, start = inspect.getsourcelines(f)
    line = start + next(i for i, text in enumerate(lines) if "grows the list" in text)
    with pytest.raises(srcad.MutationError) as raised:
        if mode == "grad":
            srcad.grad(f)(0.9)
        else:
            srcad.jvp(f, (0.9,), (1.0,))
    found = [(d.file, d.line, d.code) for d in raised.value.diagnostics]
    assert found == [(la.__file__, line, "E302")]
    assert "the `for` loop on line" in raised.value.diagnostics[0].message
    assert "list(lst)" in raised.value.diagnostics[0].hint


ITERATED_NOT_GROWN = [
    ("append_while_iterating_a_copy", la.append_while_iterating_a_copy, 1.1),
    ("append_while_iterating_a_range_of_len", la.append_while_iterating_a_range_of_len, 0.8),
    ("append_after_iterating", la.append_after_iterating, 0.7),
]


@pytest.mark.parametrize("name, f, x", ITERATED_NOT_GROWN, ids=[c[0] for c in ITERATED_NOT_GROWN])
def test_append_while_a_loop_walks_a_copy(name, f, x):
    check_every_mode(f, x)
