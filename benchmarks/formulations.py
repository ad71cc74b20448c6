"""Ways of writing the same small loops, timed: srcad's gradient over the primal, one line each.

The table in `README.md` times whole cases against peers; this is the quick check of the
question issue 19 asks of every change to kinds and inlining: does code written some other
natural way (a list where a tuple was, `np.float64(...)`, `math.pow`, `max`, a 0-d array,
a comprehension, `sum` or `max` of a generator, nested comprehensions) stay on the
specialised path? A ratio far above the others names the formulation that falls off it.

    python benchmarks/formulations.py [TEXT]   # TEXT: only the formulations it names

Each ratio is the best of five timings of each, taken one after the other (not in turns,
as `run.py` does), so take them as a screen, not as figures to report.
"""

from __future__ import annotations

import math
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

import srcad

RATE = 0.1
COEFFICIENTS = [0.5, -1.2, 0.3, 2.0]  # a list, where `as_written.py` has a tuple
PARAMETERS = {"a": 1.5, "b": -0.3}


def sum_of_a_comprehension(x):
    xs = [x * i for i in range(20)]
    return sum(v * v for v in xs)


def numpy_scalars(x):
    s = 0.0
    for i in range(30):
        s = s + np.sin(x * i) * np.float64(0.5)
    return s


def zero_dimensional(a):
    s = np.array(0.0)
    for _ in range(20):
        s = s + a * a * 0.5
    return float(s)


def horner_over_a_list(x):
    acc = 0.0
    for c in COEFFICIENTS:
        acc = acc * x + c
    return acc


def reading_a_dict(x):
    y = x
    for _ in range(20):
        y = y - RATE * (PARAMETERS["a"] * y + PARAMETERS["b"])
    return y


def elements_of_an_array(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] ** 2 - math.cos(x[i])
    return total


def while_with_a_tolerance(x):
    y = x
    k = 0
    while abs(y) > 1e-3 and k < 50:
        y = y * 0.8
        k += 1
    return y


def builtin_min_and_max(x):
    s = 0.0
    for i in range(20):
        s += max(x * i, 1.0) + min(x, 0.5 * i)
    return s


def array_of_a_comprehension(x):
    values = [np.exp(-x * k) for k in range(20)]
    return np.sum(np.array(values))


def tuple_state(x):
    position, velocity = x, 0.0
    for _ in range(50):
        position, velocity = position + 0.01 * velocity, velocity - 0.01 * position
    return position


def enumerated(x):
    t = 0.0
    for i, v in enumerate(x):
        t = t + v * (i + 1)
    return t


def math_pow_and_log(x):
    s = 0.0
    for i in range(1, 20):
        s += math.pow(x, 0.5) / i + math.log(x + i)
    return s


def float32_scalars(x):
    s = np.float32(0.0)
    for i in range(20):
        s = s + x * np.float32(i)
    return s


def integer_exponents(x):
    s = 0.0
    for i in range(5):
        s += x ** (i % 3) / (i + 1)
    return s


def sum_of_a_list_display(x):
    return sum([math.sin(x * i) for i in range(20)])


def max_of_a_generator(x):
    xs = [math.sin(x * i) for i in range(20)]
    return max(v * v for v in xs)


def nested_comprehensions(x):
    rows = [[x * i + j for j in range(4)] for i in range(5)]
    return sum(sum(r) for r in rows)


def loop_over_a_comprehension(x):
    xs = [x * i for i in range(20)]
    t = 0.0
    for v in xs:
        t = t + v * v
    return t


def appended(x):
    out = []
    y = x
    for _ in range(200):
        y = y * 0.999 + 0.001
        out.append(y)
    return np.sum(np.array(out))


def complex_scalar_loop(z):
    s = 0.0
    for k in range(20):
        s = s + abs(z * z + k) ** 2
    return s


def complex_array(z):
    return np.sum(np.abs(np.exp(1j * z) * z) ** 2)


FORMULATIONS: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (sum_of_a_comprehension, (0.7,)),
    (numpy_scalars, (0.7,)),
    (zero_dimensional, (0.7,)),
    (horner_over_a_list, (0.7,)),
    (reading_a_dict, (0.7,)),
    (elements_of_an_array, (np.linspace(0, 1, 30),)),
    (while_with_a_tolerance, (0.7,)),
    (builtin_min_and_max, (0.7,)),
    (array_of_a_comprehension, (0.7,)),
    (tuple_state, (0.7,)),
    (enumerated, (np.linspace(0, 1, 30),)),
    (math_pow_and_log, (0.7,)),
    (float32_scalars, (np.float32(0.7),)),
    (integer_exponents, (0.7,)),
    (appended, (0.7,)),
    (sum_of_a_list_display, (0.7,)),
    (max_of_a_generator, (0.7,)),
    (nested_comprehensions, (0.7,)),
    (loop_over_a_comprehension, (0.7,)),
    (complex_scalar_loop, (0.3 + 0.4j,)),
    (complex_array, (np.array([0.3 + 0.1j, 0.2 - 0.5j]),)),
]


def best(call: Callable[[], Any], number: int = 300) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number


def main(only: str = "") -> None:
    for f, args in FORMULATIONS:
        if only not in f.__name__:
            continue
        gradient = srcad.grad(f)
        gradient(*args)  # compiled before it is timed
        primal = best(lambda f=f, args=args: f(*args))
        derivative = best(lambda gradient=gradient, args=args: gradient(*args))
        print(f"{f.__name__:26s} primal {primal * 1e6:8.2f} µs   grad {derivative / primal:7.2f}x")


if __name__ == "__main__":
    import sys

    main(sys.argv[1] if len(sys.argv) > 1 else "")  # `python formulations.py complex`
