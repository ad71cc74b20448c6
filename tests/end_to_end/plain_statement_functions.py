"""Functions with statements that do not touch the derivative (issue 20): `assert`,
`print`, f-strings, logging calls, and `for`/`while ... else`. Read by
`test_plain_statements.py`."""

import logging

import numpy as np

log = logging.getLogger("srcad.tests.plain_statements")


def prints(x, y):
    z = np.sin(x) * y[0]
    print("z is", z, np.sum(z))
    print(f"total {np.sum(z):.3f}, first {z[0, 0]!r}, y {y}")
    return np.sum(z * x) + y[1]


def formats(x, y):
    width = 8
    label = f"{np.sum(x):{width}.3f}|{y[0]:>6}|{'x'}"
    z = x * y[0]
    text = f"{label} {len(label)}"
    if len(text) > 0:
        z = z + y[1]
    return np.sum(z**2)


def logs(x, y):
    z = np.tanh(x + y[0])
    logging.debug("z is %s", z)
    log.info("sum %s, y %s", np.sum(z), y)
    log.debug(f"mean {np.mean(z)}")
    return np.sum(z * y[1])


def asserts(x, y):
    z = np.exp(x) * y[0]
    assert np.all(np.isfinite(z))
    assert np.sum(z) < 1e6, f"too large: {np.sum(z)}"
    for i in range(2):
        assert i < 2 and z[i, 0] > -1e6, "in a loop"
        z = z * y[1] + x
    return np.sum(z)


def asserts_false(x, y):
    z = x * y[0]
    assert np.sum(z) > 1e9, f"sum {np.sum(z):.2f} is small"
    return np.sum(z)


def for_else_completed(x, y):
    total = y[0]
    for i in range(3):
        if x[0, i] > 5.0:
            break
        total = total + x[0, i] ** 2 * y[1]
    else:
        total = total * 2.0 + np.sum(x)
    return total


def for_else_broken(x, y):
    total = y[0]
    for i in range(3):
        total = total + x[1, i] * y[1]
        if i == 1:
            total = total * x[0, 0]
            break
    else:
        total = total * 100.0
    return total


def nested_loops_else(x, y):
    total = 0.0
    for i in range(2):
        for j in range(3):
            if j == 2:
                break  # the inner loop's: the outer loop's `else` still runs
            total = total + x[i, j] * y[j % 2]
        else:
            total = total * 10.0
        if total > 1e6:
            break
    else:
        total = total + np.sum(x * x)
    return total


def while_else(x, y):
    total = y[0]
    k = 0
    while k < 3:
        total = total + np.sin(x[0, k]) * y[1]
        k += 1
        if total > 1e6:
            break
    else:
        total = total * x[1, 1]
    return total


PLAIN = [
    prints,
    formats,
    logs,
    asserts,
    for_else_completed,
    for_else_broken,
    nested_loops_else,
    while_else,
]
