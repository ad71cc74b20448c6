"""Issue 17: a name a comprehension, lambda or nested function binds for itself is that
scope's variable, even where a module global has the same name: each function of
`shadowing_functions.py` is checked against central finite differences in every mode (its
value too). Before the fix, `sum(np.sum(fn(x)) for fn in (np.sin, np.cos))` beside a global
`fn = np.tan` called `np.tan` twice: a wrong value in forward mode and a wrong derivative in
both, with no error."""

import importlib.util
import pathlib

import numpy as np
import pytest

from tests.end_to_end.test_soundness_control import check_every_mode

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "shadowing_functions", HERE / "shadowing_functions.py"
)
sf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sf)

X = np.array([0.3, -0.7, 1.1])
NAMES = [
    "callee_in_generator",
    "callee_in_list_comprehension",
    "value_in_comprehension",
    "global_beside_comprehension",
    "nested_comprehensions",
    "condition_in_comprehension",
    "method_of_comprehension_variable",
    "iterable_reads_the_global",
    "iterable_is_the_parameter",
    "first_iterable_holds_the_global",
    "first_iterable_slices_the_parameter",
    "comprehension_in_loop",
    "lambda_parameter",
    "nested_function_parameter",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_scope_s_own_name_is_not_the_global(name):
    check_every_mode(getattr(sf, name), (X.copy(),))
