"""Functions for `test_review_s30.py`: adversarial programs for the appends done in place
(`grown_*`: break, continue, while, early return, nested loops, slices, concatenation,
unpacking, closures, lists of mixed kinds) and for the known-zero cotangents folded out of
pullbacks (`zeros_*`: values overwritten after loops, with break, aliases, swaps, branches).
Compiled from this file's source."""

import numpy as np


def helper_arr(x):
    return np.array([x, 2 * x])


def grown_break(x):
    xs = []
    for i in range(6):
        xs.append(x * i + x * x)
        if i == 2:
            break
    return sum(xs)


def grown_continue(x):
    xs = []
    for i in range(6):
        if i % 2 == 0:
            continue
        xs.append(np.sin(x * i))
    return np.sum(np.array(xs) ** 2)


def grown_while(x):
    xs = []
    y = x
    while len(xs) < 4:
        y = y * 1.1 + 0.1 * y * y
        xs.append(y)
    return xs[-1] * xs[0]


def grown_slice_read(x):
    xs = [x]
    for i in range(4):
        xs.append(x * (i + 1))
    ys = xs[1:]
    return sum(ys) * xs[0]


def grown_reversed_slice(x):
    xs = []
    for i in range(4):
        xs.append(x ** (i + 1))
    return sum(v * w for v, w in zip(xs, xs[::-1]))


def grown_concat(x):
    xs = []
    ys = []
    for i in range(3):
        xs.append(x * i)
        ys.append(x + i)
    zs = xs + ys
    return sum(v * v for v in zs)


def grown_unpack(x):
    xs = []
    for i in range(3):
        xs.append(x * (i + 1))
    a, b, c = xs
    return a * b * c


def grown_max(x):
    xs = []
    for i in range(3):
        xs.append(np.cos(x * (i + 1)))
    return max(xs) + min(xs)


def grown_enumerate(x):
    xs = []
    for i in range(3):
        xs.append(x * (i + 1))
    t = 0.0
    for k, v in enumerate(xs):
        t = t + k * v * v
    return t


def grown_two_readers(x):
    xs = []
    for i in range(3):
        xs.append(x * (i + 1))
    return np.sum(np.array(xs)) * xs[1] + sum(xs)


def grown_early_return(x):
    xs = []
    for i in range(5):
        xs.append(x * (i + 1))
        if i == 3:
            return sum(xs) * x
    return 0.0


def grown_return_after(x):
    xs = []
    for i in range(5):
        xs.append(x * (i + 1))
    if x > 0:
        return sum(xs) * x
    return xs[0]


def grown_nested_loops(x):
    xs = []
    for i in range(3):
        for j in range(2):
            xs.append(x * i + j * x * x)
    return sum(v * v for v in xs)


def grown_nested_break(x):
    xs = []
    for i in range(3):
        for j in range(4):
            if j > i:
                break
            xs.append(x * (i + 1) + j)
    return sum(v * v for v in xs)


def grown_int_then_float(x):
    xs = []
    xs.append(1)
    xs.append(x)
    xs.append(3)
    return sum(v * v * x for v in xs)


def grown_complex(x):
    xs = []
    xs.append(x)
    xs.append(x * 1j)
    return abs(sum(v * v for v in xs))


def grown_array_elem(x):
    xs = []
    xs.append(x)
    xs.append(helper_arr(x))
    return np.sum(sum(v * v for v in xs))


def grown_bool_elem(x):
    xs = []
    xs.append(x > 0.5)
    xs.append(x)
    return sum(v * x for v in xs)


def grown_int_list_indexed(x):
    xs = [1, 2, 3]
    xs.append(x)
    return xs[3] * xs[0] + xs[3] * xs[3]


def grown_display_ints_then_float(x):
    xs = [0, 1]
    for i in range(3):
        xs.append(x * i)
    return sum(v * v for v in xs)


def grown_appended_to_other(x):
    a = []
    b = []
    for i in range(3):
        a.append(x * i)
    b.append(a)
    b.append(x)
    return sum(b[0]) * b[1]


def grown_tuple_of(x):
    xs = []
    for i in range(3):
        xs.append(x * (i + 1))
    t = tuple(xs)
    return t[0] * t[2]


def grown_copy(x):
    xs = []
    for i in range(3):
        xs.append(x * (i + 1))
    ys = list(xs)
    return ys[0] * ys[2] + xs[1]


def grown_comprehension_cond(x):
    xs = [x * i for i in range(6) if i % 2]
    return sum(v * v for v in xs)


def grown_comprehension_nested(x):
    xs = [x * i + j for i in range(3) for j in range(2)]
    return sum(v * v for v in xs)


def grown_np_mean(x):
    xs = []
    for i in range(4):
        xs.append(np.exp(x * i * 0.1))
    return np.mean(xs) * np.std(np.array(xs))


def grown_augassign(x):
    xs = []
    for i in range(4):
        xs.append(x * i)
    t = 0.0
    for v in xs:
        t += v * v
    return t


def grown_in_cond_branch(x):
    xs = []
    if x > 0:
        xs.append(x)
        xs.append(x * x)
    else:
        xs.append(-x)
    return sum(xs) * xs[0]


def grown_cond_append(x):
    xs = []
    for i in range(7):
        if i % 3 != 1:
            xs.append(x * i + x * x)
    return sum(v * w for v, w in zip(xs, range(len(xs))))


def grown_cond_append_data(x):
    xs = []
    y = x
    for _i in range(8):
        y = np.sin(y * 2.0)
        if y > 0:
            xs.append(y * x)
    return sum(xs) + len(xs)


def grown_closure_after(x):
    xs = []
    for i in range(3):
        xs.append(x * i)
    f = lambda k: xs[k] * x  # noqa: E731 (a closure on the list)
    return f(1) + f(2)


def grown_closure_before(x):
    xs = []
    f = lambda k: xs[k] * x  # noqa: E731 (a closure on the list)
    for i in range(3):
        xs.append(x * i)
    return f(1) + f(2)


def grown_default_display_in_branch(x):
    if x > 0:
        xs = [x]
    else:
        xs = [x * 2.0]
    xs.append(x * x)
    return sum(xs) * xs[0]


def grown_rebound_after(x):
    xs = []
    xs.append(x)
    t = sum(xs)
    xs = [t * 2.0]
    xs.append(x * t)
    return sum(xs)


def grown_appended_value_is_list_then_read(x):
    xs = []
    for i in range(3):
        row = [x * i, x]
        xs.append(row)
    return sum(r[0] * r[1] for r in xs)


def zeros_overwritten_after_loop(x):
    y = x
    z = x * 2.0
    for _i in range(3):
        y = y * y + 0.5
        z = z + y * x
    y = 0.3
    return y * x + z


def zeros_overwritten_with_break(x):
    y = x
    t = 0.0
    for i in range(5):
        y = y * 1.5 + x
        t = t + y
        if i == 2:
            break
    y = 1.0
    return t * y + y * x


def zeros_alias_overwrite(x):
    y = x * x
    a = y
    for _i in range(3):
        y = y * 0.5 + a
    y = 2.0
    return a * y + x


def zeros_overwritten_in_branch(x):
    y = x
    for _i in range(3):
        y = y * x + 0.1
    if x > 0:
        y = 0.5
    return y * x


def zeros_zero_then_read_in_loop(x):
    y = x
    out = 0.0
    for _i in range(4):
        out = out + y * x
        y = 0.0
    return out


def zeros_swap(x):
    a = x
    b = x * 2.0
    for _i in range(3):
        a, b = b, a * x
    a = 1.0
    return a + b


def zeros_loop_var_overwritten(x):
    t = x
    for _i in range(3):
        v = t * x
        t = v + t
    v = 0.0
    return t + v


def zeros_nested_loop_zero(x):
    y = x
    s = 0.0
    for _i in range(2):
        for _j in range(2):
            y = y * x + 0.1
        s = s + y
        y = 0.2
    return s


def zeros_while_zero(x):
    y = x
    k = 0
    s = 0.0
    while k < 3:
        y = y * x
        s = s + y
        k += 1
    y = 0.0
    return s + y * x


def zeros_list_overwritten(x):
    xs = []
    y = x
    for _i in range(3):
        y = y * x
        xs.append(y)
    t = sum(xs)
    y = 0.0
    return t + y


def appended_in_a_comprehension(x):
    xs = []
    [xs.append(x * i) for i in range(3)]
    return sum(xs)


def append_result_read(x):
    xs = []
    y = xs.append(x)
    return sum(xs) + (y is None)


def appends_in_a_boolean_operation(x):
    xs = []
    for i in range(2):
        xs.append(x) or xs.append(x * i)
    return sum(xs)


def appended_in_a_differentiated_nested_comprehension(x):
    def build(v):
        ys = []
        [ys.append(v * i) for i in range(3)]
        return sum(ys)

    return x * build(x)


def appended_in_a_constant_nested_comprehension(x):
    def build(n):
        ys = []
        [ys.append(float(i)) for i in range(n)]
        return ys

    return x * sum(build(3))


def appended_list_returned_twice(x):
    a = []
    for i in range(3):
        a.append(x * (i + 1))
    return a, a


def list_returned_twice(x):
    a = [x, 2 * x]
    return a, a


def tuple_returned_twice(x):
    t = (x, 2 * x)
    return t, t


def list_returned_and_read(x):
    a = [x, 2 * x]
    return a, a[0] * a[1]


def list_in_a_dict_twice(x):
    a = [x, 2 * x]
    return {"p": a, "q": a}


def list_returned_nested(x):
    a = [x, 2 * x]
    return a, (a, x)


def ufunc_of_a_list_parameter(a):
    return np.sum(np.add(a, a) ** 2) + np.dot(a, a) + np.sum(np.multiply(a, a))


def extrema_of_lists(x):
    return np.sum(np.maximum([x, -x], 0.1)) + np.sum(np.minimum(0.1, (x * x, -x)))


def ufunc_of_two_list_displays(x):
    return np.sum(np.add([x, x * x], [1.0, x]) ** 2)


def grown_interleaved_inactive(x):
    xs = []
    for i in range(5):
        if i % 2:
            xs.append(i)
        else:
            xs.append(x * (i + 1))
    return sum(v * v * (k + 1) for k, v in enumerate(xs))


def grown_inactive_loop_then_active(x):
    xs = []
    for i in range(3):
        xs.append(float(i))
    for i in range(3):
        xs.append(x * (i + 2))
    for _ in range(2):
        xs.append(2.0)
    return np.sum(np.array(xs) * np.arange(8.0)) * xs[4]


def grown_inactive_computed(x):
    xs = []
    n = 0
    for i in range(4):
        n = n + i
        xs.append(n)
        xs.append(x * n)
    return sum(v * w for v, w in zip(xs, reversed(xs)))


def grown_while_inactive(x):
    xs = []
    k = 0
    while k < 5:
        if k == 2:
            xs.append(0.5)
        xs.append(np.sin(x * k))
        k += 1
    return sum(v * (j + 1) for j, v in enumerate(xs))


def grown_len_driven(x):
    xs = [x]
    while len(xs) < 6:
        if len(xs) % 2:
            xs.append(1.0)
        else:
            xs.append(xs_last(x, len(xs)))
    return sum(v * v * (j + 1) for j, v in enumerate(xs))


def xs_last(x, n):
    return x * n


def grown_int_from_x(x):
    xs = []
    for i in range(4):
        xs.append(int(x * 10.3) + i)
        xs.append(x * i)
    return sum(v * (j + 1) * x for j, v in enumerate(xs))


def grown_append_param_alias(x):
    xs = []
    for _ in range(3):
        xs.append(x)
    xs.append(x * x)
    return xs[0] * xs[3] + xs[1] * 2.0
