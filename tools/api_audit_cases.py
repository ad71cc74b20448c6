"""The cases `tools/api_audit.py` checks: a user function `f` (its source, written to a
module of its own after `PRELUDE`), its arguments (made from that module, whose classes
they may use), the `wrt` spellings to check, and whether `f` returns a real scalar loss
(`scalar`) or a pair `(loss, aux)` (`aux`). Add one to check a call the way a user might
write it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

PRELUDE = """
import dataclasses
from typing import NamedTuple

import numpy as np
import scipy.special
import scipy.stats


class Pair(NamedTuple):
    w: np.ndarray
    b: float


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: np.ndarray
    scale: float


@dataclasses.dataclass
class Tagged:
    w: np.ndarray
    count: int
    label: str


"""


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    args: Callable[[Any], tuple[Any, ...]]
    wrt: tuple[Any, ...] = (0,)
    scalar: bool = False
    aux: bool = False


def _r(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


W, V, B = _r(1, 3), _r(2, 2, 3), _r(3, 2)

CASES: list[Case] = [
    # scalar losses of structures: grad, value_and_grad, wrt by position, name and tuple
    Case(
        "dict loss",
        "def f(p, x):\n    return np.sum(np.tanh(x @ p['w'] + p['b']) ** 2) + p['c'] * p['c']\n",
        lambda m: ({"w": W, "b": B, "c": 0.7}, V),
        wrt=(0, "p", (0, 1), ("p", "x")),
        scalar=True,
    ),
    Case(
        "namedtuple loss",
        "def f(p, x):\n    return np.sum(np.sin(x @ p.w) * p.b)\n",
        lambda m: (m.Pair(W, 0.3), V),
        wrt=(0, (0, 1)),
        scalar=True,
    ),
    Case(
        "dataclass loss",
        "def f(p, x):\n    return np.sum((x @ p.w + p.b) ** 2) * p.scale\n",
        lambda m: (m.Params(W, B, 1.5), V),
        wrt=(0, "p", (1, 0)),
        scalar=True,
    ),
    Case(
        "dataclass with int and str",
        "def f(p, x):\n    return np.sum(x @ p.w) ** 2 * p.count + len(p.label)\n",
        lambda m: (m.Tagged(W, 3, "abc"), V),
        wrt=(0,),
        scalar=True,
    ),
    Case(
        "tuple and list loss",
        "def f(t, xs):\n    return np.sum(t[0] * t[1]) + sum(np.sum(x ** 3) for x in xs)\n",
        lambda m: ((W, W[::-1].copy()), [B, B * 2.0]),
        wrt=(0, 1, (0, 1)),
        scalar=True,
    ),
    Case(
        "nested dict of tuples",
        "def f(p):\n    a, b = p['layer']\n    return np.sum(np.exp(a) * b) + p['bias'] ** 3\n",
        lambda m: ({"layer": (W, W * 0.5), "bias": 0.4},),
        scalar=True,
    ),
    Case(
        "int and bool arguments beside",
        "def f(x, n, flag):\n    y = x ** n\n    return np.sum(y) if flag else -np.sum(y)\n",
        lambda m: (W, 3, False),
        scalar=True,
    ),
    Case(
        "float argument",
        "def f(x, y):\n    return x * np.sum(np.cos(y * x))\n",
        lambda m: (0.8, W),
        wrt=(0, 1, (0, 1)),
        scalar=True,
    ),
    Case(
        "float32 argument",
        "def f(x):\n    return np.sum(x * x * 2.0)\n",
        lambda m: (np.asarray(W, np.float32),),
        scalar=True,
    ),
    Case(
        "float32 scalar loss",
        "def f(x):\n    return np.float32(2.0) * np.sum(np.sin(x))\n",
        lambda m: (np.asarray(W, np.float32),),
        scalar=True,
    ),
    Case(
        "0-d array loss",
        "def f(x):\n    return np.asarray(np.sum(x ** 3))\n",
        lambda m: (W,),
        scalar=True,
    ),
    Case(
        "loss of a dict of floats",
        "def f(p):\n    return p['a'] ** 2 * p['b'] + np.sin(p['a'] * p['b'])\n",
        lambda m: ({"a": 0.7, "b": -1.2},),
        scalar=True,
    ),
    Case(
        "loss of a list of arrays",
        "def f(xs):\n    return np.sum(xs[0] * xs[1]) ** 2 + np.sum(np.exp(xs[2]))\n",
        lambda m: ([W, W * 0.5, B],),
        wrt=(0, "xs"),
        scalar=True,
    ),
    Case(
        "keyword-only and default parameters",
        "def f(x, y=2.0, *, z=3.0):\n    return np.sum(x ** 2) * y + z\n",
        lambda m: (W, 1.5),
        wrt=(0, 1, (0, "y")),
        scalar=True,
    ),
    # has_aux: aux of every kind
    Case(
        "aux dict with ints and arrays",
        "def f(x, y):\n    z = np.tanh(x * y)\n"
        "    return np.sum(z), {'z': z, 'n': 3, 'ok': bool(z[0] > 0), 'none': None}\n",
        lambda m: (W, W + 1.0),
        wrt=(0, (0, 1)),
        aux=True,
    ),
    Case(
        "aux tuple",
        "def f(p):\n    loss = np.sum(p['w'] ** 2)\n    return loss, (p['w'] * 2.0, loss)\n",
        lambda m: ({"w": W},),
        aux=True,
    ),
    # jacobians and vjp/jvp of non-scalar and structured results
    Case(
        "non-square jacobian",
        "def f(x):\n    return np.outer(x[:2], x) + np.sin(x)\n",
        lambda m: (W,),
    ),
    Case(
        "scalar result of a matrix",
        "def f(x):\n    return np.linalg.det(x)\n",
        lambda m: (_r(4, 3, 3),),
    ),
    Case(
        "tuple result with int, bool and None",
        "def f(x, y):\n    return np.sum(x * y), x * 2.0, 3, x[0] > 0, None\n",
        lambda m: (W, W + 0.5),
        wrt=(0, 1, (0, 1)),
    ),
    Case(
        "dict result",
        "def f(x):\n    return {'a': x * x, 'b': np.sum(x), 'n': len(x)}\n",
        lambda m: (W,),
    ),
    Case(
        "namedtuple result",
        "def f(x):\n    return Pair(x * 3.0, float(np.sum(x ** 2)))\n",
        lambda m: (W,),
    ),
    Case(
        "dataclass result",
        "def f(x):\n    return Params(np.exp(x), x[:2] * x[1:], float(x[0]))\n",
        lambda m: (W,),
    ),
    Case(
        "structure in, structure out",
        "def f(p, x):\n    return {'y': x @ p['w'], 'z': (p['b'] * 2.0, np.sum(p['w']))}\n",
        lambda m: ({"w": W, "b": B}, V),
        wrt=(0, 1, (0, 1)),
    ),
    Case(
        "list result",
        "def f(x):\n    return [x * 2.0, np.cumsum(x)]\n",
        lambda m: (W,),
    ),
    Case(
        "integer result part only",
        "def f(x):\n    return x.shape[0], np.argmax(x), x * 1.0\n",
        lambda m: (W,),
    ),
    Case(
        "float input, array output",
        "def f(t):\n    return np.array([np.cos(t), np.sin(t), t * t])\n",
        lambda m: (0.3,),
    ),
    Case(
        "0-d array input",
        "def f(t):\n    return t * np.array([1.0, 2.0]) + np.exp(t)\n",
        lambda m: (np.array(0.3),),
    ),
    Case(
        "scipy in a structure",
        "def f(p, x):\n    return np.sum(scipy.stats.norm.logpdf(x, p['mu'], p['sigma'])) "
        "+ np.sum(scipy.special.logsumexp(x, axis=1))\n",
        lambda m: ({"mu": B, "sigma": np.array([1.5, 0.7])}, V.T.copy()),
        wrt=(0, (0, 1)),
        scalar=True,
    ),
    # session 36: a dict merged by `|`, lists joined by `sum` from a list start
    Case(
        "dict merged by |",
        "def f(p, x):\n    q = p | {'b': x[0] * 2.0}\n"
        "    return np.sum(q['w'] * q['b']) + q['c'] ** 2\n",
        lambda m: ({"w": W, "b": 0.4, "c": 0.7}, B),
        wrt=(0, 1, (0, 1)),
        scalar=True,
    ),
    Case(
        "lists joined by sum",
        "def f(xs, ys):\n    zs = sum([xs, ys], [])\n"
        "    return zs[0] * zs[2] + zs[1] * zs[3] ** 2\n",
        lambda m: ([0.3, -0.5], [1.2, 0.8]),
        wrt=(0, 1, (0, 1)),
        scalar=True,
    ),
    # session 37: a parameter the call leaves to its default (`axis=-1`, passed on by
    # keyword) was taken as differentiated and refused; Black-Scholes through ndtr
    Case(
        "softmax left to its default axis",
        "def softmax(z, axis=-1):\n    z = z - z.max(axis=axis, keepdims=True)\n"
        "    e = np.exp(z)\n    return e / e.sum(axis=axis, keepdims=True)\n\n\n"
        "def f(q, k):\n    p = softmax(q @ k.T / np.sqrt(q.shape[-1]))\n"
        "    return np.sum(p * np.arange(4.0).reshape(2, 2))\n",
        lambda m: (V, V[::-1].copy()),
        wrt=(0, 1, (0, 1)),
        scalar=True,
    ),
    Case(
        "Black-Scholes call through ndtr",
        "def f(spot, sigma, rate):\n    strike = np.array([90.0, 100.0, 110.0])\n"
        "    d1 = (np.log(spot / strike) + (rate + 0.5 * sigma**2) * 0.5)"
        " / (sigma * np.sqrt(0.5))\n"
        "    d2 = d1 - sigma * np.sqrt(0.5)\n"
        "    call = spot * scipy.special.ndtr(d1)"
        " - strike * np.exp(-rate * 0.5) * scipy.special.ndtr(d2)\n"
        "    return np.sum(call)\n",
        lambda m: (100.0, 0.2, 0.03),
        wrt=(0, 1, (0, 1, 2)),
        scalar=True,
    ),
]
