"""Functions written with the expressions issue 20 found refused as gaps: dict
comprehensions, `**` in dict displays and `|` of dicts, assignment expressions (`:=`),
the shifts and `^` (`test_expressions.py`)."""

import numpy as np


def doubled_params(params):
    d = {k: v * 2.0 for k, v in params.items()}
    return d["a"] * d["b"] + np.sum(d["w"] ** 2)


def squares_but_one(x):
    d = {i: x[i] ** 2 for i in range(3) if i != 1}
    return d[0] + 3.0 * d[2]


def nested_in_a_dict(x):
    rows = {i: [x[i] * x[j] for j in range(len(x)) if j != i] for i in range(len(x))}
    return sum(sum(row) * (i + 1) for i, row in rows.items())


def dicts_in_a_loop(x, n):
    total = 0.0
    for step in range(n):
        scaled = {name: np.sin(value * (step + 1)) for name, value in zip(("u", "v"), x)}
        total = total + scaled["u"] * scaled["v"]
    return total


def tanh_layer(params, x):
    layer = {name: np.tanh(value * x) for name, value in params.items() if name != "skip"}
    return sum(np.sum(v) for v in layer.values()) + params["skip"] * x


def float_keys(x):
    d = {x[i]: i for i in range(3)}
    return sum(d)


def with_a_new_weight(params, w2):
    q = {**params, "w": w2 * params["w"], **{"c": 2.0 * w2}}
    return q["w"] * q["b"] + q["c"] ** 2


def defaults_overridden(params, x):
    q = {"a": 1.0, "b": x, **params}
    return q["a"] * q["b"] + x * q["c"]


def merged(params, x):
    q = params | {"b": x * params["a"]}
    q |= {"c": q["b"] ** 2}
    return q["a"] + q["b"] * q["c"]


def merged_sets(x, n):
    seen = set(range(n)) | {1, 7}
    return x * len(seen)


def threshold_squared(x):
    if (r := x @ x) > 1.0:
        return r * 2.0
    return r


def kept_squares(xs):
    ys = [y for v in xs if (y := v * v) > 0.1]
    return sum(ys) + y


def counted_powers(x):
    n = 0
    s = 0.0
    while (n := n + 1) < 4:
        s = s + x**n
    else:
        s = s * 2.0
    return s


def read_then_rebound(x):
    y = x + (x := x * 3.0) + x
    return y * x


def guarded_sine(x):
    if x > 0 and (r := np.sin(x)) > 0.1:
        return r * x
    return x


def either_branch(x):
    z = (a := x * 2.0) if x > 0 else (a := x * 3.0)
    return z * a


def in_a_call(x):
    return np.sum(np.exp(x) * (m := np.max(x))) + m


def walrus_in_a_generator(x):
    return sum((y := v) for v in x) + y


def shifted(x, n):
    k = (n << 2) ^ 3
    k >>= 1
    k ^= 1
    k <<= 1
    s = 0.0
    for i in range(k % 7 + 2):
        if (i ^ 1) & 1:
            s = s + x * i
        else:
            s = s + np.sin(x) * (i >> 1)
    return s


def xor_indices(x):
    m = np.arange(6) ^ 5
    return np.sum(x[m % 3] ** 2) + x[1 << 1]


class _Odd:
    def __init__(self, v):
        self.v = v

    def __or__(self, other):
        return self.v * other


def odd_or(x):
    return _Odd(x) | x


def counted_in_sets(x, n):
    seen = {0, 2}
    picked = {i % 3 for i in range(n) if i != 4}
    names = frozenset(["a", "b"]) | {"c", *("d", "e")}
    s = 0.0
    for i in range(len(x)):
        if i in seen and i in picked:
            s = s + x[i] ** 2
        elif "a" in names:
            s = s + np.sin(x[i]) * len(picked ^ {1})
    return s


def set_of_floats(x):
    return sum({x * 2.0, 1.0})


def set_of_an_array(x):
    return sum(set(x))


def from_keys(x):
    d = dict.fromkeys(["a", "b"], x)
    d["a"] = d["a"] * 3.0
    return d["a"] * d["b"]


def from_keys_then_set(x):
    d = dict.fromkeys(("a", "b", "c"), np.array([1.0, 2.0]) * x)
    d["b"] = np.sin(x) * d["b"]
    return np.sum(d["a"] * d["b"]) + np.sum(d["c"])


def new_value_last(params, x):
    q = {**params, "a": params["a"] ** 2 * x, "c": np.cos(x)}
    return q["a"] * q["b"] + q["c"]


def walrus_elsewhere(x):
    def inner(t):
        return (u := np.tanh(t)) * u

    total = 0.0
    for v in (vs := [x, x * 2.0]):
        if v > 10.0:
            total = total + v
        elif (w := inner(v)) > 0.5 or (w := w * 3.0) > 0.0:
            total = total + w * len(vs)
    return total
