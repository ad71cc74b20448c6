"""NumPy functions given differentiated values by keyword, where their rules differentiate
them by position (`registry.ByPosition`), for `test_numpy_keywords.py`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

XP = np.array([-1.0, 0.0, 2.0])


def average_weights(x: Any) -> Any:
    return np.average(np.sin(x), weights=x**2)


def average_weights_axis(x: Any) -> Any:
    table = np.outer(x, x)
    return np.sum(np.average(table, weights=x**2 + 1.0, axis=0, returned=True)[0])


def select_default(x: Any) -> Any:
    return np.sum(np.select([x > 0], [x**2], default=x**3))


def select_by_name(x: Any) -> Any:
    return np.sum(np.select([x > 0.5, x < 0], choicelist=[x**2, np.sin(x)], default=x**3))


def trapezoid_x(x: Any) -> Any:
    return np.trapezoid(x**2, x=np.cumsum(np.exp(x)))


def trapezoid_dx(x: Any) -> Any:
    return np.trapezoid(x**2, dx=x[0] ** 2 + 0.5)


def interp_keywords(x: Any) -> Any:
    return np.sum(np.interp(x, xp=XP, fp=np.sin(x)))


def interp_ends(x: Any) -> Any:
    return np.sum(np.interp(3.0 * x, XP, np.sin(x), left=x[0] ** 2, right=x[1] ** 3))


def clip_a_min_a_max(x: Any) -> Any:
    return np.sum(np.clip(x**3, a_min=x[0] * 0.5, a_max=x[1]) ** 2)


def clip_min(x: Any) -> Any:
    return np.sum(np.clip(x**3, min=np.sin(x[0])) ** 2)


def clip_max(x: Any) -> Any:
    return np.sum(np.clip(a=x**3, max=x[1] * 0.9) ** 2)


def solve_keywords(x: Any) -> Any:
    return np.sum(np.linalg.solve(a=np.outer(x, x) + 2.0 * np.eye(3), b=np.sin(x)))


def lstsq_keyword(x: Any) -> Any:
    a = np.stack([x, x**2, np.ones(3)])
    return np.sum(np.linalg.lstsq(a, b=np.cos(x))[0] ** 2)


def full_fill_value(x: Any) -> Any:
    return np.sum(np.full((2, 3), fill_value=x[0] ** 2) * x)


def nan_to_num_values(x: Any) -> Any:
    y = np.where(x > 1.0, np.inf, np.where(x < 0, np.nan, np.sin(x)))
    return np.sum(np.nan_to_num(y, nan=x[1] ** 2, posinf=x[0] ** 3) * x)


def append_values(x: Any) -> Any:
    return np.sum(np.append(x, values=x**2) ** 2)


def linspace_stop(x: Any) -> Any:
    return np.sum(np.linspace(x[0], stop=x[1] ** 2, num=5) ** 2)


def dot_b(x: Any) -> Any:
    return np.dot(np.sin(x), b=x**2)


def outer_b(x: Any) -> Any:
    return np.sum(np.outer(a=x, b=np.sin(x)) ** 2)


def kron_b(x: Any) -> Any:
    return np.sum(np.kron(x, b=x**2) ** 2)


def cross_b(x: Any) -> Any:
    return np.sum(np.cross(x, b=np.sin(x)) ** 2)


def tensordot_b(x: Any) -> Any:
    return np.sum(np.tensordot(np.outer(x, x), b=x**2, axes=1) ** 2)


def sum_initial(x: Any) -> Any:
    return np.sum(x[:2] * x[2], initial=x[0] ** 2) ** 2


def sum_initial_over_an_axis(x: Any) -> Any:
    return np.sum(np.sum(np.outer(x, x[::-1]), axis=0, initial=x[1]) ** 2)


def sum_constant_initial(x: Any) -> Any:
    return np.sum(x * x[0], initial=2.0) ** 2  # (its Hessian counted the 2.0 in the tangent)


def nansum_initial(x: Any) -> Any:
    return np.nansum(x * x[1], initial=np.sin(x[2])) ** 2


def prod_initial(x: Any) -> Any:
    return np.prod(x[:2] + 1.5, initial=x[2]) ** 2


def prod_initial_keepdims(x: Any) -> Any:
    return np.sum(np.prod(np.outer(x, x), axis=1, keepdims=True, initial=x[0] + 2.0) ** 2)


def max_initial_in_some_rows(x: Any) -> Any:
    rows = np.outer(x, [1.0, -1.0])
    return np.sum(np.max(rows, axis=1, initial=x[1] * 0.5) ** 2)


def min_initial_winning(x: Any) -> Any:
    return np.min(x * x, initial=x[2] - 5.0) * x[0]


def builtin_sum_start(x: Any) -> Any:
    return sum([x[0] * x[1], x[2]], start=x[1] ** 2) ** 2


def math_prod_start(x: Any) -> Any:
    return math.prod([x[0], x[1] * 2.0], start=x[2] + 1.0)


def math_prod_start_of_a_generator(x: Any) -> Any:
    return math.prod((v + 1.5 for v in x), start=np.cos(x[0]))


def pad_constant_values(x: Any) -> Any:
    """`constant_values=` is an option of `np.pad`'s rule, by keyword only."""
    return np.sum(np.pad(x, 1, constant_values=x[0]))


def average_weights_and_axis_twice(x: Any) -> Any:
    """A keyword naming a parameter passed by position too: Python's own TypeError."""
    return np.average(x, None, weights=x, axis=0)
