"""Functions with branches, loops and calls, for the control-flow end-to-end tests."""

import math

import numpy as np


def mse(y, yhat):
    N = len(y)
    s = 0.0
    for i in range(N):
        s += (y[i] - yhat[i]) ** 2.0
    return s / N


def sum3(array):
    x = array[0]
    y = array[1]
    z = array[2]
    return x + y + z


def sum_over(array):
    s = 0.0
    for a in array:
        s += a
    return s


def relu_like(x):
    if x > 0:
        y = x * x
    else:
        y = -x
    return y * 3.0


def piecewise(x):
    if x < -1.0:
        return -x
    elif x < 1.0:
        return x * x
    else:
        return 2.0 * x - 1.0


def conditional_expression(x, y):
    return x * y if x > y else y - x


def boolean_values(x, y):
    both = x > 0 and y > 0
    either = x > 2 or y > 2
    neither = not either
    return x * y * (2.0 if both else 1.0) + (x if neither else y)


def chained_comparison(x):
    if 0.0 < x < 1.0:
        return math.sin(x)
    return x


def range_loop(x):
    for i in range(4):
        x = x * (1.0 + 0.1 * i)
    return x


def range_with_bounds(xs):
    s = 0.0
    for i in range(1, len(xs), 2):
        s = s + xs[i] * xs[i - 1]
    return s


def rows_of_matrix(m):
    total = 0.0
    for row in m:
        total = total + np.sum(row * row)
    return total


def list_argument(values):
    s = 0.0
    for v in values:
        s = s + v * v
    return s


def tuple_iteration(x, y):
    s = 0.0
    for v in (x, y, x * y):
        s = s + math.exp(v)
    return s


def zip_loop(xs, ys):
    s = 0.0
    for x, y in zip(xs, ys):
        s = s + x * y
    return s


def enumerate_loop(xs):
    s = 0.0
    for i, x in enumerate(xs):
        s = s + (i + 1) * x * x
    return s


def while_newton(a):
    x = a
    n = 0
    while n < 8:
        x = 0.5 * (x + a / x)
        n += 1
    return x


def while_data_dependent(x):
    y = x
    while y < 10.0:
        y = y * 1.5 + x
    return y


def loop_with_break(xs):
    s = 0.0
    for x in xs:
        if x > 1.5:
            break
        s = s + x * s + x
    return s


def loop_with_continue(xs):
    s = 0.0
    for x in xs:
        if x < 0:
            continue
        s = s + np.sin(x)
    return s


def nested_loops(m):
    t = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            t = t + m[i, j] * (i + 1) * t * 0.1 + m[i, j]
    return t


def early_return(x):
    for _ in range(5):
        x = x * 1.1
        if x > 3.0:
            return x * 2.0
    return x


def several_returns(x, y):
    if x > y:
        return x * y
    if x < -y:
        return x - y
    return x + 2.0 * y


def branch_in_loop(xs):
    s = 0.0
    for x in xs:
        if x > 0.5:
            s = s + x * x
        else:
            s = s - x
    return s


def loop_in_branch(x, n):
    if n > 2:
        for _ in range(n):
            x = np.tanh(x) + x
    else:
        x = -x
    return x


def accumulate_array(xs, w):
    acc = np.zeros(3)
    for x in xs:
        acc = acc + x * w
    return np.sum(acc**2)


def rnn(w, u, xs):
    h = np.zeros(2)
    for x in xs:
        h = np.tanh(w @ h + u * x)
    return np.sum(h)


def square(x):
    return x * x


def scale(x, factor=2.0, *, shift=0.0):
    return x * factor + shift


def calls_with_defaults_and_keywords(x, y):
    a = square(x) + scale(y)
    b = scale(x, y) + scale(y, factor=x, shift=1.0)
    return a * b


def power_by_recursion(x, n):
    if n <= 1:
        return x
    return x * power_by_recursion(x, n - 1)


def calls_in_loop(x):
    for _ in range(3):
        x = square(x) * 0.5 + scale(x)
    return x


def swap_in_loop(a, b):
    for _ in range(3):
        a, b = b, a + b * 0.5
    return a * b


def augmented_forms(x, y):
    s = x * 1.0
    s += y
    s *= x
    s -= y / 2.0
    s /= 1.5
    s **= 2
    return s


def tuple_state_loop(x):
    state = (x, 1.0)
    for _ in range(3):
        a, b = state
        state = (a * b + 1.0, a)
    return state[0] + state[1]


def branch_on_integer(x, k):
    if k % 2 == 0:
        return x * k
    return x / k


def max_of_loop(xs):
    best = xs[0]
    for x in xs:
        best = x if x > best else best
    return best


def nested_calls(x):
    return square(square(x) + 1.0)


def break_in_nested_loop(m):
    s = 0.0
    for row in m:
        for v in row:
            if v > 0.9:
                break
            s = s + v * v
    return s


def return_inside_nested_loop(m):
    s = 0.0
    for row in m:
        for v in row:
            s = s + v
            if s > 1.5:
                return s * s
    return s


def while_with_continue_and_break(x):
    n = 0
    y = x
    while True:
        n += 1
        if n % 2 == 0:
            continue
        y = y * 1.2
        if n > 6:
            break
    return y


def seed_talk_loop(array):
    s = 0.0
    for a in array:
        s += a * a
    return s


def while_break_after_work(x):
    y = 1.0
    while True:
        y = y * x
        if y > 10.0:
            break
        y = y + x
    return y


def range_loop_skipping_some(xs):
    s = 0.0
    for i in range(len(xs)):
        if xs[i] < 0.0:
            continue
        s = s + xs[i] * s + xs[i]
    return s


def same_reverse_on_two_exits(x, n):
    y = x
    k = 0
    while k < n:
        k += 1
        if k % 3 == 0:
            y = y * x
            continue
        y = y * x
    return y


def conditional_redefinition(x, c):
    r = 2.0 * x
    if c > 0:
        r = 3.0 * x
    return r * r


def clip_to_constant(x):
    r = 2.0 * x
    if r > 1.0:
        r = 1.0
    return r * r


def clip_in_loop(xs):
    total = 0.0
    for i in range(len(xs)):
        r = xs[i] * xs[i]
        if r > 0.5:
            r = 0.5
        elif r < 0.1:
            r = 0.1
        total = total + r * xs[i]
    return total


def loop_target_overwrites(x, n):
    r = x * x
    for r in range(n):  # noqa: B007 (the loop's last value is the point)
        pass
    return r * x


def reset_inside_while(x):
    y = x
    k = 0
    while k < 3:
        if k == 1:
            y = 1.0
        y = y * x
        k += 1
    return y


def reset_each_iteration(xs):
    s = 0.0
    for i in range(len(xs)):
        t = xs[i]
        t = 2.0
        s = s + t * xs[i]
    return s


def last_item(xs):
    for item in xs:  # noqa: B007 (the last item is the point)
        pass
    return item * 1.0


def last_item_after_a_value(x, xs):
    item = 2.0 * x
    for item in xs:  # noqa: B007 (the last item is the point)
        pass
    return item * x


def return_parameter_from_loop(x, c):
    for _ in range(2):
        if c > 0.0:
            return x
    return 2.0 * x


def return_from_inner_loop(x, c):
    v = x
    for _ in range(2):
        for _ in range(2):
            if c > 2.0:
                return x
        v = v * x
    return v


def or_reassigns_its_operand(x, c):
    v = c
    v = v or x
    return v * x


def or_of_three(x, c, d):
    return (c or d or x) * x


def lambda_in_a_loop(x):
    s = 0.0
    for _ in range(2):
        g = lambda t: t * x  # noqa: E731 (the lambda is what is tested)
        s = s + g(x)
    return s


def function_defined_in_an_item_loop(x, a):
    s = 0.0
    for e in a:

        def g(t):
            return t * e  # noqa: B023 (called in the same iteration)

        s = s + g(x)
    return s


def and_of_values(x, y):
    return (x and y) * 1.0


def and_then_or(x, y, c):
    return ((c and x) or y) * 1.0


def item_loop_with_inner_return(a, c):
    v = 0.0
    for e in a:
        for _ in range(2):
            if c > 2.0:
                return c * 3.0
        v = v + e * e
    return v
