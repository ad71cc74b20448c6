"""Writes into values the function made (issue 20): `out = np.zeros(n)` then `out[i] = v`
or `out[:, j] += v`, in loops or not; `d = {}` then `d["k"] = v`; `xs = [0.0] * n` then
`xs[i] = v`; `traj.append(v)` then `traj = np.array(traj)`. Proved fresh and unshared
(`passes/checks/fresh_values.py`), each write is rewritten as a new value
(`primitives.index_update`, with the rules of `rules/item_writes.py`). Each is checked
against central finite differences in every entry point, reverse and forward, and to second
order; a write into anything shared stays refused, at its line, and an index that writes an
element twice is refused when it runs.
"""

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
    "fresh_write_functions", HERE / "fresh_write_functions.py"
)
fw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fw)
FILE = str(HERE / "fresh_write_functions.py")

X = np.arange(1.0, 7.0).reshape(2, 3) / 7 + 0.1
Y = np.array([0.4, -0.3])
ARGS = (X, Y)


def close(got, want, rtol=1e-6, atol=1e-8):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def copies():
    """Fresh arguments for each call: a function that wrote into them would show."""
    return X.copy(), Y.copy()


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", fw.WRITTEN, ids=lambda f: f.__name__)
def test_reverse_mode(function, position):
    want = finite_difference_vjp(function, copies(), 1.0, position)
    gradient = srcad.grad(function, wrt=position)
    close(gradient(*copies()), want)
    close(gradient(*copies()), want)  # the entry's fast path
    value, got = srcad.value_and_grad(function, wrt=position)(*copies())
    close(value, function(*copies()))
    close(got, want)
    _, vjp_fn = srcad.vjp(function, *copies())
    close(materialize(vjp_fn(1.0)[position], ARGS[position]), want)
    args = copies()
    srcad.grad(function, wrt=position)(*args)
    close(args[0], X)  # the caller's arrays are left as they were
    close(args[1], Y)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", fw.WRITTEN, ids=lambda f: f.__name__)
def test_forward_mode(function, position):
    want = finite_difference_vjp(function, copies(), 1.0, position)
    close(srcad.jacobian(function, wrt=position, mode="forward")(*copies()), want)
    tangent = np.full(ARGS[position].shape, 0.7)
    tangents = tuple(tangent if i == position else srcad.ZeroTangent() for i in range(2))
    y, y_dot = srcad.jvp(function, copies(), tangents)
    close(y, function(*copies()))
    close(y_dot, finite_difference_jvp(function, copies(), tangents))


# Twice differentiable (a mask or an int array's rounding is flat where it is tested). Not
# here, for a reason outside the item writes themselves: the second derivative of indexing a
# dict's tangent, of `list.append`'s forward rule and of a method's (`x.copy()`).
NOT_TWICE = (
    fw.dict_filled,
    fw.trajectory_then_array,
    fw.trajectory_read_whole_once_complete,
    fw.copy_of_a_parameter,
)
SECOND_ORDER = [f for f in fw.WRITTEN if f not in NOT_TWICE]


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", SECOND_ORDER, ids=lambda f: f.__name__)
def test_second_order(function, position):
    """The Hessian (reverse over the generated frule) against finite differences of the
    gradient; and a Hessian-vector product."""
    size = ARGS[position].size

    def gradient_element(k):
        return lambda *args: np.ravel(srcad.grad(function, wrt=position)(*args))[k]

    want = np.stack(
        [finite_difference_vjp(gradient_element(k), copies(), 1.0, position).ravel()
         for k in range(size)]
    )  # fmt: skip
    got = srcad.hessian(function, wrt=position)(*copies())
    close(np.reshape(got, (size, size)), want, rtol=1e-5, atol=1e-6)
    v = np.linspace(-0.5, 0.5, size).reshape(ARGS[position].shape)
    hv = srcad.hessian_vector_product(function, wrt=position)(*copies(), v)
    close(np.ravel(hv), want @ v.ravel(), rtol=1e-5, atol=1e-6)


def test_addone_of_the_seeds_needs_no_rule():
    """ChainRules' `addone!` example writes into `similar(a)`: here, `np.empty_like(a)`."""
    v = np.array([0.2, 0.7])
    want = np.diag([np.exp(0.2), 1.4])
    close(srcad.jacobian(fw.fill_from)(v), want)
    close(srcad.jacobian(fw.fill_from, mode="forward")(v), want)


def line_of(function, text):
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


REFUSED = [
    (fw.into_a_parameter, "x[0, 0] = y[0]", "E301", "is a parameter"),
    (fw.into_an_alias, "out[0] = x[0, 0]", "E301", "also used at line"),
    (fw.into_a_row_kept_as_a_view, "out[0, 1] = x[0, 0]", "E301", "also used at line"),
    (fw.into_a_value_a_list_holds, "out[0] = x[0, 0]", "E301", "also used at line"),
    (fw.a_list_into_itself, "xs[0] = xs", "E301", "also used at line"),
    (fw.read_by_a_nested_function, "out[0] = x[0, 0]", "E301", "nested function"),
    (fw.into_an_item_of_an_item, "rows[0][1] = x[0, 0]", "E301", "only an item of a variable"),
    (fw.after_a_view_of_an_element, "z *= y[0]", "E306", "also used at line"),
    (fw.returned_by_a_helper_then_written, "out[0, 0] = y[0]", "E301", "may be shared"),
    (fw.into_a_global, "BUFFER[0] = x[0, 0]", "E301", "not made in this function"),
    (fw.kept_through_or, "ys += [y[0] * 2.0]", "E306", "also used at line"),
    (fw.its_own_view_kept_after_the_write, "z[:, 1:] = shifted", "E301", "also used at line"),
    (fw.an_item_of_a_list_into_another, "rows[1] = rows[0]", "E301", "also used at line"),
    (fw.rebound_in_the_loop_around_the_write, "out[i] = x[0, i] * y[0]", "E301", "may be shared"),
]


@pytest.mark.parametrize(
    "function, text, code, reason", REFUSED, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_write_into_a_shared_value_stays_refused(function, text, code, reason):
    for call in (
        lambda: srcad.grad(function)(*copies()),
        lambda: srcad.jvp(function, copies(), copies()),
    ):
        with pytest.raises(srcad.SrcadError) as caught:
            call()
        found = [(d.file, d.line, d.code) for d in caught.value.diagnostics]
        assert (FILE, line_of(function, text), code) in found, found
        assert any(reason in d.message for d in caught.value.diagnostics)


def test_an_element_written_twice_is_refused_when_it_runs():
    """`out[[0, 0]] = v` keeps the last write: no pullback can tell which, so the rules
    refuse it, in both modes (a pure index, `out[[0, 1]]`, passes: see WRITTEN)."""
    for call in (
        lambda: srcad.grad(fw.element_written_twice)(*copies()),
        lambda: srcad.jvp(fw.element_written_twice, copies(), copies()),
    ):
        with pytest.raises(srcad.MutationError, match="more than once"):
            call()


def test_a_binding_that_may_reach_the_write_in_a_callee_stays_refused():
    """A helper runs as it is: a write into its own new array is taken, but not where a
    binding to what another helper returned comes round to it, in a loop."""
    line = line_of(fw._rebinding_around_its_write, "out[i] = x[0, i] * y[0]")
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(fw.rebound_in_the_loop_around_the_write_in_a_callee)(*copies())
    found = [(d.file, d.line, d.code) for d in caught.value.diagnostics]
    assert (FILE, line, "E301") in found, found
