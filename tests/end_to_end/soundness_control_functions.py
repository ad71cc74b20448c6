"""Functions for the soundness tests of branch decisions in loops and of nested functions
defined more than once (tests/end_to_end/test_soundness_control.py)."""

import numpy as np

# -- `and` / `or` / conditional expressions in loops: each iteration's branch decision ----


def or_in_for(x):
    s = 0.0
    for j in range(3):
        s = s + ((j * 0.5) or x * x)
    return s


def and_in_for(x):
    s = 0.0
    for j in range(4):
        s = s + ((j * 0.5) and x * j)
    return s


def nested_or_and(x):
    s = 0.0
    for j in range(5):
        s = s + (((j % 2) and x * j) or (j * 0.25 and x * x) or x)
    return s


def conditional_in_for(x):
    s = 0.0
    for j in range(4):
        s = s + (x * j if j % 2 else x * x)
    return s


def data_dependent_conditional(x):
    s = 0.0
    for j in range(5):
        s = s + (x * j if x * j > 1.0 else x * x)
    return s


def chained_comparison_in_for(x):
    s = 0.0
    for j in range(5):
        s = s + (x * x if 0 < j <= 2 else x)
    return s


def or_in_while(x):
    s = 0.0
    j = 0
    while j < 4:
        s = s + ((j % 2) or x * x * x)
        j = j + 1
    return s


def or_in_nested_loops(x):
    s = 0.0
    for i in range(3):
        for j in range(3):
            s = s + ((i * j) or x * x)
        s = s * 0.5 + (i and x)
    return s


def or_with_break(x):
    s = 0.0
    for j in range(6):
        if j == 4:
            break
        s = s + ((j % 2) or x * x)
    return s


def or_with_continue(x):
    s = 0.0
    for j in range(5):
        t = (j % 3) and x * j
        if j == 2:
            continue
        s = s + (t or x * x)
    return s


def or_with_early_return(x):
    s = 0.0
    for j in range(6):
        s = s + ((j % 2) or x * x)
        if j == 3:
            return s * x
    return s


def conditional_with_early_return(x, n):
    s = 0.0
    for j in range(n):
        s = s + (x * x if j % 2 else x * j)
        if s > 10.0:
            return s
    return s


def or_over_loop_count(x, n):
    s = 0.0
    for j in range(n):
        s = s + ((j % 2) or x * x)
    return s


def or_of_arrays(x):
    s = 0.0
    for j in range(4):
        s = s + (((j % 2) and np.sum(x * j)) or np.sum(x * x))
    return s


def conditional_of_arrays(x):
    s = 0.0 * x
    for j in range(4):
        s = s + (x * j if j % 2 else np.sin(x))
    return s


def or_operand_reassigned(x):
    a = x - 2.0
    s = a or x * x
    a = 0.0
    return s + a


def or_in_item_loop(xs):
    s = 0.0
    for v in xs:
        s = s + (((v > 0.5) and v * v) or 2.0 * v)
    return s


# -- nested functions defined more than once under one name -------------------------------


def twice_if(x, flag=True):
    if flag:

        def inner(t):
            return t * x

    else:

        def inner(t):
            return t * 2.0

    return inner(1.5)


def twice_in_sequence(x):
    def inner(t):
        return t * x

    def inner(t):  # noqa: F811 (the point of the test)
        return t * 2.0

    return inner(1.5) + x


def twice_in_sequence_both_called(x):
    def inner(t):
        return t * 2.0

    a = inner(x)

    def inner(t):
        return t * x * x

    return a + inner(1.5)


def lambdas_twice(x):
    g = lambda t: t * 2.0  # noqa: E731
    a = g(x)
    g = lambda t: t * x  # noqa: E731
    return a + g(3.0)


def lambdas_in_branches(x, flag):
    if flag:
        g = lambda t: t * x * x  # noqa: E731
    else:
        g = lambda t: t + 1.0  # noqa: E731
    return g(x)


def def_rebound_in_loop(x):
    s = 0.0
    for j in range(3):

        def step(t):
            return t * x * j  # noqa: B023 (called in the same iteration)

        s = s + step(x)
    return s


def def_in_loop_alternating(x):
    s = 0.0
    for j in range(4):
        if j % 2:

            def step(t):
                return t * x

        else:

            def step(t):
                return t + 1.0

        s = s + step(x)
    return s


def def_then_value(x):
    def g(t):
        return t * t

    y = g(x)
    g = x * 5.0
    return y + g


def value_then_def(x):
    g = x * 5.0
    y = g * x

    def g(t):
        return t * t * t

    return y + g(x)


def defaults(a, scale=2.0):
    return a * scale


def keyword_only_defaults(a, b=3.0, *, power=2.0, shift=0.5):
    return a**power * b + shift * a


def tuple_result(x):
    return (x, x)


def list_result(x):
    return [x * 2.0]


def dict_result(x):
    return {"a": x}


def none_result(x):
    y = x * 2.0  # noqa: F841
    return None


def string_result(x):
    return "x"


def array_result(x):
    return x * 2.0


def arms_read_different_names(x, y, flag):
    if flag:

        def inner(t):
            return t * y

    else:

        def inner(t):
            y = t * t  # its own `y`: the other definition's capture is not this one's
            return y * x

    return inner(x) + y


def def_called_before_its_redefinition(x):
    s = 0.0

    def step(t):
        return t * x

    for j in range(3):
        s = s + step(x)

        def step(t):
            return t * t * j  # noqa: B023 (called in the next iteration)

    return s


def def_and_call_in_one_arm(x, flag):
    s = x
    if flag:

        def g(t):
            return t * x

        s = g(s)
    else:

        def g(t):
            return t + x

        s = g(s) * 2.0
    return s


def nested_in_nested(x):
    def outer(t):
        def inner(u):
            return u * x

        def inner(u):  # noqa: F811
            return u * t

        return inner(x)

    return outer(x * 2.0)


def defined_in_while(x):
    s = 0.0
    k = 0
    while k < 4:
        if k % 2:
            g = lambda t: t * x  # noqa: E731
        else:
            g = lambda t: t * t  # noqa: E731
        s = s + g(x)
        k = k + 1
    return s


def parameter_then_def(x, g):
    a = g(x)

    def g(t):
        return t * x

    return a + g(x)


def redefined_in_a_loop_that_differentiates_nothing(x, n):
    def g(t):
        return t * x

    for _ in range(n):

        def g(t):  # noqa: F811 (the point of the test)
            return t * 2.0

    return g(x)


def redefined_in_one_arm(x, flag):
    def g(t):
        return t * x

    if flag:

        def g(t):
            return t * 2.0

    return g(x)


def arms_name_their_parameter_differently(x, flag):
    if flag:

        def g(t):
            return t * x

    else:

        def g(s):
            return s * s

    return g(x)


# -- refused --


def recursive_nested(x):
    def power(n):
        if n == 0:
            return 1.0
        return x * power(n - 1)

    return power(3)


def def_or_value(x, flag):
    if flag:

        def g(t):
            return t * x

    else:
        g = abs
    return g(2.0)


def arms_with_different_parameters(x, flag):
    if flag:

        def g(t):
            return t * x

    else:

        def g(t, u=1.0):
            return t * u

    return g(2.0)


def nested_called_from_nested(x):
    def a(t):
        return t * x

    def b(t):
        return a(t) + t

    return b(1.5)


def def_value_and_differentiated_value(x, flag):
    if flag:

        def g(t):
            return t

    else:
        g = x * 2.0
    return g


def keyword_call_of_differently_named_parameters(x, flag):
    if flag:

        def g(t):
            return t * x

    else:

        def g(s):
            return s * s

    return g(t=x)
