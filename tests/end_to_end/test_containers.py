"""Tuples, lists, dicts, comprehensions and appends: gradients against finite differences."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import check_rrule

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "container_functions", HERE / "container_functions.py"
)
cf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cf)

rng = np.random.default_rng(3)

CASES = [
    ("squares", cf.squares, (rng.standard_normal(4),)),
    ("squares_list", cf.squares, ([0.5, -1.0, 2.0],)),
    ("generator_sum", cf.generator_sum, (rng.standard_normal(5), 1.5)),
    ("build_list", cf.build_list, (0.7,)),
    ("dict_use", cf.dict_use, (0.7, 1.2)),
    ("list_display", cf.list_display, (0.7, 1.2)),
    ("stack_rows", cf.stack_rows, (rng.standard_normal(4),)),
    ("nested_comprehension", cf.nested_comprehension, (rng.standard_normal((2, 3)),)),
    ("comprehension_variable_shadows", cf.comprehension_variable_shadows,
     (0.4, rng.standard_normal(3))),
    ("two_generators", cf.two_generators, (rng.standard_normal(3), rng.standard_normal(3))),
    ("returns_list", cf.returns_list, (0.7,)),
    ("tuple_of_results", cf.tuple_of_results, (0.7, 1.2)),
    ("sum_with_start", cf.sum_with_start, (rng.standard_normal(3), 0.5)),
    ("over_dict", cf.over_dict, (0.3, 0.7)),
]  # fmt: skip


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(function, args):
    check_rrule(function, *args, rtol=1e-6, atol=1e-9)


def test_append_to_a_shared_list_is_refused():
    def shared(xs):
        out = xs
        out.append(1.0)
        return out[0]

    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(shared)([1.0])
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.code == "E302"
    assert diagnostic.source_line.strip() == "out.append(1.0)"


def test_append_to_a_parameter_is_refused():
    def mutates_argument(xs, x):
        xs.append(x)
        return x

    with pytest.raises(srcad.MutationError):
        srcad.grad(mutates_argument, wrt=1)([], 1.0)
