"""`and`, `or`, conditional expressions and chained comparisons whose value is assigned to a
name they read themselves (found by the fuzzer: the target was bound before the operand
that reads it ran)."""

from __future__ import annotations

import numpy as np


def or_reads_target(x):
    x = 0 or x
    return x * x


def and_reads_target(x):
    x = 2.0 and x * 3
    return x * x


def or_reads_target_in_a_loop(x):
    s = 0.0
    for i in range(3):
        x = (i * 0.5) or x * x
        s = s + x
    return s


def conditional_or_reads_target(x):
    x = (x if x > 0 else 2.0) or x
    return x * x


def conditional_with_inner_or(x):
    x = 0.5 if x > 10 else (0.0 or x * 2)
    return x * x


def both_sides_read_target(x):
    y = x
    x = (y > 1.0 and x) or (x * 3)
    return x * y


def array_or_reads_target(x):
    n = 0
    x = n or np.sin(x)
    return np.sum(x * x)


def while_and_reads_target(x):
    k = 0
    while k < 3:
        x = (k < 2 and x * 1.5) or x
        k = k + 1
    return x
