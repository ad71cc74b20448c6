"""A cached function (`functools.lru_cache`, `functools.cache`) is differentiated through
the function behind it, which neither reads nor fills the cache. Where that function reads
a value that can change between calls (a module's number or array, a closure cell, a
mutable default, directly or through the user functions it names), Python returns a result
cached before the change, and srcad's value was another with no error: refused, at the call
and at `grad` of the cached function itself (`srcad/cached_functions.py`). A cached function
of its arguments alone (modules, functions, classes, `np.pi`) is differentiated as before."""

import functools

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference

SCALE = 2.0
WEIGHTS = np.array([1.0, 2.0])


@functools.lru_cache(maxsize=128)
def scaled(t):
    return t * SCALE


def reads_scale(t):
    return t * t * SCALE


@functools.cache
def through_a_helper(t):
    return reads_scale(t) + 1.0


@functools.lru_cache
def reads_an_array(t):
    return t * WEIGHTS[1]


def with_default(t, table=[1.0, 2.0]):  # noqa: B006 - the mutable default is the case
    return t * table[1]


cached_with_default = functools.lru_cache(with_default)


def made_in_a_closure():
    factor = 3.0

    @functools.lru_cache
    def times_factor(t):
        return t * factor

    return times_factor


times_factor = made_in_a_closure()


def calls(cached):
    def f(s):
        return cached(s) * s

    return f


STALE = [scaled, through_a_helper, reads_an_array, cached_with_default, times_factor]


@pytest.mark.parametrize("cached", STALE, ids=lambda c: c.__wrapped__.__name__)
def test_a_cached_function_reading_what_may_change_is_refused(cached):
    with pytest.raises(srcad.SrcadError, match="cached function"):
        srcad.grad(calls(cached))(0.7)
    with pytest.raises(srcad.SrcadError, match="cached function"):
        srcad.jvp(calls(cached), (0.7,), (1.0,))
    with pytest.raises(srcad.SrcadError, match="cached function"):
        srcad.grad(cached)(0.7)


def test_the_refused_case_is_one_python_answers_from_its_cache():
    global SCALE
    f = calls(scaled)
    before = f(0.7)
    SCALE = 3.0
    try:
        assert f(0.7) == before  # the cached result, computed with SCALE = 2.0
        assert scaled.__wrapped__(0.7) * 0.7 != before  # what the source computes now
    finally:
        SCALE = 2.0


@functools.lru_cache
def pure(t):
    return np.sin(t) * t * np.pi + reads_only_arguments(t)


def reads_only_arguments(t):
    return np.cos(t) * t


PURE_CALLERS = [calls(pure), pure]


@pytest.mark.parametrize("f", PURE_CALLERS, ids=["called", "itself"])
def test_a_cached_function_of_its_arguments_alone_is_differentiated(f):
    value, gradient = srcad.value_and_grad(f)(0.7)
    close(value, f(0.7))
    close(gradient, difference(f, (0.7,)))
    _, tangent = srcad.jvp(f, (0.7,), (1.0,))
    close(tangent, difference(f, (0.7,)))
    close(srcad.hessian(f)(0.7), difference(srcad.grad(f), (0.7,)))
