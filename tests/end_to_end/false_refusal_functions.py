"""Functions srcad refused though their derivative is sound (issue 20, "false refusals"), and
their neighbours that must stay refused. Read by `test_false_refusals.py`."""

import math

import numpy as np

# -- a nested function's own local shadows an outer list ---------------------------------------


def outer_list_inner_local(x, y):
    out = []

    def to_out(h):
        out = h * 2.0
        return out

    for i in range(3):
        out.append(to_out(x * (i + 1.0)) + y[0])
    return np.sum(np.array(out) ** 2)


def outer_list_lambda_parameter(x, y):
    out = []
    scale = lambda out: out * y[1]  # noqa: E731
    for i in range(2):
        out.append(scale(np.sin(x) + i))
    return np.sum(np.stack(out))


def outer_list_comprehension_variable(x, y):
    out = []
    weights = [out * 0.5 for out in range(3)]
    for w in weights:
        out.append(np.tanh(x) * w + y[0])
    return np.sum(np.array(out) * np.array(out))


def outer_list_nested_two_deep(x, y):
    out = []

    def middle(h):
        def inner(v):
            out = v * v
            return out

        out = inner(h) + 1.0
        return out

    for i in range(2):
        out.append(middle(x + i * y[1]))
    return np.sum(np.array(out))


def shadowing_helper(x, y):
    """The same pattern in a helper, called from the differentiated function in a loop."""
    out = []

    def to_out(h):
        out = np.exp(h)
        return out

    for v in y:
        out.append(to_out(x * v))
    return np.array(out)


def calls_shadowing_helper(x, y):
    total = 0.0
    for k in range(2):
        total = total + np.sum(shadowing_helper(x, y * (k + 1.0)))
    return total


# Stay refused: the nested function changes the enclosing list, or makes it its own.


def nested_function_appends_to_outer_list(x, y):
    out = []

    def own(h):
        out = h + 1.0
        return out

    def push(v):
        out.append(v)

    push(own(x))
    out.append(x * 2.0)
    return np.sum(np.array(out))


def nested_function_rebinds_outer_list(x, y):
    out = []
    shared = [x]

    def take():
        nonlocal out
        out = shared

    take()
    out.append(x * 2.0)
    return np.sum(np.array(shared[0]))


def nested_function_returns_outer_list(x, y):
    """`keep()` gives the list itself: the append that follows changes `alias` too."""
    out = []

    def keep():
        return out

    alias = keep()
    out.append(x * 2.0)
    return np.sum(np.array(alias)) + np.sum(x)


# -- an integer option passed through as `axis=` ------------------------------------------------


def lse(x, axis):
    return np.log(np.sum(np.exp(x), axis=axis))


def lse_keepdims(x, axis, keep):
    m = np.max(x, axis=axis, keepdims=keep)
    return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keep))


def uses_lse(x, y):
    return np.sum(lse(x, 1) * y) + np.sum(lse(x, axis=0))


def uses_lse_in_a_loop(x, y):
    total = 0.0
    for axis in range(2):
        total = total + np.sum(lse(x * y[0], axis))
    return total


def uses_lse_keepdims(x, y):
    return np.sum(lse_keepdims(x, 1, True) * y[:, None]) + np.sum(lse_keepdims(x, 0, False))


def axis_from_ndim(x, y):
    """An axis computed only from integers, passed by keyword."""
    last = x.ndim - 1
    return np.sum(lse(x, last) * y)


def lse_total(x, axis):
    return np.sum(lse(x, axis))


# Stays refused: a keyword the result depends on differentiably, with no cotangent.


def p_norm(x, p):
    return np.linalg.norm(x, ord=p)


def uses_p_norm(x, y):
    return p_norm(x.ravel(), 2.0 + y[0] ** 2)


# -- `+=` on a float --------------------------------------------------------------------------


def float_counter_kept(x, y):
    """`s += ...` on a float that a list keeps: a float has no `__iadd__`."""
    s = 1.0
    scales = []
    for i in range(3):
        s += 0.5 * i
        scales.append(s)
    return np.sum(np.array(scales)[:, None] * x[:3] ** 2) + y[0] * s


def float_alias_then_add(x, y):
    s = 2.0
    t = s
    s += 1.0
    s *= 3.0
    s -= t
    return np.sum(x) * s + y[1] * t


def math_and_len_counters(x, y):
    n = 0
    total = math.sqrt(2.0)
    kept = []
    for _ in y:
        n += 1
        total += math.log(n + 1.0)
        kept.append(total)
    return np.sum(x) * total / n + np.sum(y) * kept[0]


def float_counter_in_nested_function(x, y):
    def weigh(h):
        w = 0.0
        ws = []
        for i in range(2):
            w += 1.0 + i
            ws.append(w)
        return h * ws[0] + h * w

    return np.sum(weigh(x) * y[0])


def counter_helper(x):
    s = 0.5
    seen = [s]
    for i in range(2):
        s += float(i)
        seen.append(s)
    return x * s + seen[1] * x


def calls_counter_helper(x, y):
    total = 0.0
    for k in range(2):
        total += np.sum(counter_helper(x * (k + 1.0)))
    return total + y[0]


# Proved only where the argument kinds are known (reverse mode specialises on them).


def float_of_array_sum(x, y):
    s = np.sum(x)
    ys = []
    for i in range(3):
        s += np.sum(x * y[0]) * i
        ys.append(s)
    return s + sum(ys)


def float_element(x, y):
    s = x[0, 0]
    t = s
    s += y[1]
    return s * t


def float_parameter(x, c):
    c += 1.0
    c *= 2.0
    return np.sum(x) * c


# Stay refused: the variable may hold an array that something else holds.


def array_parameter_plus_one(x, y):
    s = x
    s += 1.0
    return np.sum(s) + np.sum(x)


def float_becomes_a_shared_array(x, y):
    s = 0.0
    s += x
    t = s
    s += 1.0
    return np.sum(t * s)


def array_element_row(x, y):
    s = x[0]
    s += y[0]
    return np.sum(s) + np.sum(x)
