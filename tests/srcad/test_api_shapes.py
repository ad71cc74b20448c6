"""The API shapes a JAX or autograd user expects (issue 21, items 1 and 2; issue 20's
structured arguments in forward mode), through the public API as a user writes it, and
checked against central finite differences.

- gradients come back shaped like the arguments (tuple, list, dict, NamedTuple,
  dataclass, object), with dense zeros, from `grad`, `value_and_grad`, `vjp` and
  `jacobian` in both modes; `jvp` takes structured arguments and tangents;
- `has_aux=True`; `wrt` as a list, NumPy integers;
- `scalar_rule` with partials of the inputs or of the inputs and the result, any arity,
  both modes and second order;
- `srcad.clear_cache()`.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

import srcad
from srcad.trees import leaves
from tests.conftest import sample

H = 1e-6


# -- finite differences over structures --------------------------------------------------


def _with_leaf_element(tree: Any, leaf: int, index: int, delta: float) -> Any:
    """A copy of `tree` with element `index` of its leaf numbered `leaf` moved by `delta`."""
    numbered = iter(range(len(leaves(tree))))

    def move(x: Any) -> Any:
        if next(numbered) != leaf:
            return x
        if isinstance(x, np.ndarray):
            moved = x.astype(float).copy()
            moved.reshape(-1)[index] += delta
            return moved
        return x + delta

    return srcad.tree_map(move, tree)


def fd_gradient(f: Any, args: tuple[Any, ...], position: int) -> Any:
    """The gradient of a real-scalar `f` with respect to argument `position`, in its
    structure, by central differences (None where a leaf is an int)."""
    x = args[position]
    blocks = []
    for leaf, value in enumerate(leaves(x)):
        if isinstance(value, bool | int | str):
            blocks.append(None)
            continue
        grad = np.zeros(np.shape(value))
        for index in range(int(np.size(value))):
            up = list(args)
            down = list(args)
            up[position] = _with_leaf_element(x, leaf, index, H)
            down[position] = _with_leaf_element(x, leaf, index, -H)
            grad.reshape(-1)[index] = (f(*up) - f(*down)) / (2 * H)
        blocks.append(grad if isinstance(value, np.ndarray) else float(grad))
    numbered = iter(blocks)
    return srcad.tree_map(lambda _: next(numbered), x)


def assert_same_structure(actual: Any, expected: Any) -> None:
    """`actual` has `expected`'s structure (types, keys, fields) and its values."""
    assert type(actual) is type(expected), (type(actual), type(expected))
    if isinstance(expected, dict):
        assert list(actual) == list(expected)
    for a, e in zip(leaves(actual), leaves(expected), strict=True):
        if e is None:
            assert isinstance(a, srcad.NoTangent)
            continue
        assert not isinstance(a, srcad.Tangent | srcad.ZeroTangent), a
        assert type(a) is type(e) or (isinstance(a, float) and isinstance(e, float)), (a, e)
        np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-7)


# -- structures --------------------------------------------------------------------------


class Layer(NamedTuple):
    w: np.ndarray
    b: float


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float
    unused: np.ndarray
    depth: int = 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: np.ndarray
    scale: float


class Model:
    def __init__(self, w: np.ndarray, b: float) -> None:
        self.w = w
        self.b = b
        self.name = "model"


def loss_tuple(p: tuple[Any, ...], x: np.ndarray) -> Any:
    return np.sum(np.tanh(x @ p[0]) * p[1]) + p[1] ** 2


def loss_list(p: list[Any], x: np.ndarray) -> Any:
    return np.sum((x @ p[0] + p[1]) ** 2)


def loss_dict(p: dict[str, Any], x: np.ndarray) -> Any:
    return np.sum(np.sin(x @ p["w"]) * p["b"])


def loss_layer(p: Layer, x: np.ndarray) -> Any:
    return np.sum(np.exp(x @ p.w) * p.b)


def loss_params(p: Params, x: np.ndarray) -> Any:
    return np.sum((x @ p.w) ** 2) * p.b


def loss_frozen(p: Frozen, x: np.ndarray) -> Any:
    return np.sum(np.cos(x @ p.w)) * p.scale


def loss_model(m: Model, x: np.ndarray) -> Any:
    return np.sum((x @ m.w - m.b) ** 2)


def loss_nested(p: dict[str, Any], x: np.ndarray) -> Any:
    first, second = p["layers"][0], p["layers"][1]
    h = np.tanh(x @ first[0] + first[1])
    return np.sum((h * second[0] + second[1]) ** 2)


X = sample((4, 3), 0)
W = sample((3,), 1)
STRUCTURES = [
    pytest.param(loss_tuple, (W, 0.7, np.ones(2)), id="tuple"),
    pytest.param(loss_list, [W, 0.3, np.ones(2)], id="list"),
    pytest.param(loss_dict, {"w": W, "b": 1.5, "unused": np.ones(2), "n": 3}, id="dict"),
    pytest.param(loss_layer, Layer(W, 0.4), id="NamedTuple"),
    pytest.param(loss_params, Params(W, 0.8, np.ones(2)), id="dataclass"),
    pytest.param(loss_frozen, Frozen(W, 1.1), id="frozen-dataclass"),
    pytest.param(loss_model, Model(W, 0.2), id="object"),
    pytest.param(
        loss_nested,
        {"layers": [(W, 0.1), (sample((4,), 2), 0.5)], "unused": (1.0, np.zeros(2))},
        id="nested",
    ),
]


@pytest.mark.parametrize(("loss", "params"), STRUCTURES)
def test_gradients_are_shaped_like_the_argument(loss: Any, params: Any) -> None:
    expected = fd_gradient(loss, (params, X), 0)
    assert_same_structure(srcad.grad(loss)(params, X), expected)
    value, gradient = srcad.value_and_grad(loss)(params, X)
    assert value == pytest.approx(loss(params, X))
    assert_same_structure(gradient, expected)
    assert_same_structure(srcad.grad(loss, wrt=[0])(params, X)[0], expected)
    _, vjp_fn = srcad.vjp(loss, params, X)
    assert_same_structure(vjp_fn(1.0)[0], expected)
    for mode in ("reverse", "forward"):
        jacobian = srcad.jacobian(loss, mode=mode)(params, X)
        as_floats = srcad.tree_map(
            lambda j: j if isinstance(j, srcad.NoTangent) else _float_or_array(j), jacobian
        )
        assert_same_structure(as_floats, expected)


def _float_or_array(j: np.ndarray) -> Any:
    return float(j) if np.ndim(j) == 0 else j


@pytest.mark.parametrize(("loss", "params"), STRUCTURES)
def test_rules_keep_chainrules_tangents(loss: Any, params: Any) -> None:
    """`rrule` and pullbacks are ChainRules' API: a structure's cotangent is a Tangent."""
    _, pullback = srcad.rrule(loss, params, X)
    cotangent = pullback(1.0)[1]
    assert isinstance(cotangent, srcad.Tangent)


def test_an_sgd_step_on_list_and_dict_parameters() -> None:
    """The loop users write: a step against the gradient lowers the loss, and what the
    step reads is the gradient (checked against finite differences)."""
    lr = 0.01
    params_list = [W.copy(), 0.3]
    grads = srcad.grad(loss_list)(params_list, X)
    assert_same_structure(grads, fd_gradient(loss_list, (params_list, X), 0))
    stepped = [p - lr * g for p, g in zip(params_list, grads, strict=True)]
    assert len(stepped) == 2
    assert loss_list(stepped, X) < loss_list(params_list, X)

    params_dict = {"w": W.copy(), "b": 1.5, "n": 3}
    grads_dict = srcad.grad(loss_dict)(params_dict, X)
    assert list(grads_dict) == ["w", "b", "n"]
    stepped_dict = srcad.tree_map(lambda p, g: p - lr * g, params_dict, grads_dict)
    assert stepped_dict["n"] == 3  # an int has no gradient: NoTangent() leaves it alone
    by_hand = {k: params_dict[k] - lr * grads_dict[k] for k in params_dict}
    np.testing.assert_allclose(stepped_dict["w"], by_hand["w"])
    assert loss_dict(stepped_dict, X) < loss_dict(params_dict, X)


def mlp_loss(params: dict[str, Any], x: np.ndarray, y: np.ndarray) -> Any:
    h = np.tanh(x @ params["w1"] + params["b1"])
    out = h @ params["w2"] + params["b2"]
    return np.mean((out - y) ** 2)


def test_an_mlp_with_dict_parameters_trains() -> None:
    params = {
        "w1": sample((3, 5), 3) * 0.5,
        "b1": np.zeros(5),
        "w2": sample((5,), 4) * 0.5,
        "b2": 0.0,
    }
    y = sample((4,), 5)
    gradient = srcad.grad(mlp_loss)(params, X, y)
    assert_same_structure(gradient, fd_gradient(mlp_loss, (params, X, y), 0))
    before = mlp_loss(params, X, y)
    for _ in range(20):
        gradient = srcad.grad(mlp_loss)(params, X, y)
        params = {k: params[k] - 0.1 * gradient[k] for k in params}
    assert mlp_loss(params, X, y) < before


def test_a_dict_tangent_reads_like_a_dict() -> None:
    tangent = srcad.Tangent.of_mapping(dict, {"w": 1.0, "b": 2.0})
    assert list(tangent) == ["w", "b"] and len(tangent) == 2
    assert list(tangent.keys()) == ["w", "b"]
    assert list(tangent.values()) == [1.0, 2.0]
    assert list(tangent.items()) == [("w", 1.0), ("b", 2.0)]
    assert dict(tangent.items()) == {"w": 1.0, "b": 2.0}

    @dataclasses.dataclass
    class Named:
        values: float
        keys: float

    fields = srcad.Tangent(Named, values=3.0)
    assert fields.values == 3.0 and fields.keys == srcad.ZeroTangent()  # fields, not methods
    with pytest.raises(TypeError, match="does not iterate"):
        list(fields)
    assert list(srcad.Tangent(Layer, b=2.0)) == [srcad.ZeroTangent(), 2.0]
    assert list(srcad.Tangent(tuple, 1.0, 2.0)) == [1.0, 2.0]


def test_tree_map() -> None:
    tree = {"a": [1.0, (2.0, np.ones(2))], "b": Layer(np.zeros(2), 3.0), "c": Frozen(W, 1.0)}
    doubled = srcad.tree_map(lambda v: v * 2, tree)
    assert doubled["a"][0] == 2.0 and isinstance(doubled["a"][1], tuple)
    assert isinstance(doubled["b"], Layer) and doubled["b"].b == 6.0
    assert isinstance(doubled["c"], Frozen)
    np.testing.assert_allclose(doubled["c"].w, 2 * W)
    summed = srcad.tree_map(lambda a, b: a + b, tree, doubled)
    assert summed["b"].b == 9.0
    # A (co)tangent as the second tree: a Tangent, or a zero whose every part is zero.
    tangent = srcad.Tangent(Layer, b=1.0)
    assert srcad.tree_map(lambda p, t: p + t, Layer(np.zeros(2), 3.0), tangent).b == 4.0
    zero = srcad.tree_map(lambda p, t: t, tree, srcad.ZeroTangent())
    assert all(isinstance(v, srcad.ZeroTangent) for v in leaves(zero))
    assert srcad.tree_map(lambda v: v + 1, 1.0) == 2.0  # a leaf alone
    with pytest.raises(srcad.SrcadError, match="has parts it has not"):
        srcad.tree_map(lambda p, t: t, Layer(np.zeros(2), 3.0), srcad.Tangent(Layer, c=1.0))
    with pytest.raises(srcad.SrcadError, match="has parts it has not"):
        srcad.tree_map(lambda p, t: t, [1.0, 2.0], srcad.Tangent(list, 1.0))
    model = Model(W, 0.5)
    moved = srcad.tree_map(lambda v: v if isinstance(v, str) else v * 0, model)
    assert isinstance(moved, Model) and moved.name == "model" and model.b == 0.5


# -- forward mode with structured arguments (issue 20) -----------------------------------


@pytest.mark.parametrize(("loss", "params"), STRUCTURES)
def test_jvp_takes_structured_arguments(loss: Any, params: Any) -> None:
    rng = np.random.default_rng(7)

    def random_tangent(p: Any) -> Any:
        if isinstance(p, bool | int | str):
            return srcad.NoTangent()
        return rng.standard_normal(np.shape(p)) if isinstance(p, np.ndarray) else rng.normal()

    tangent = srcad.tree_map(random_tangent, params)
    y, y_dot = srcad.jvp(loss, (params, X), (tangent, np.zeros_like(X)))
    assert y == pytest.approx(loss(params, X))

    def moved(h: float) -> Any:
        return srcad.tree_map(
            lambda p, t: p if isinstance(t, srcad.NoTangent) else p + h * t, params, tangent
        )

    expected = (loss(moved(H), X) - loss(moved(-H), X)) / (2 * H)
    assert y_dot == pytest.approx(expected, rel=1e-6, abs=1e-7)
    # A zero for a whole structured argument.
    assert srcad.jvp(loss, (params, X), (srcad.ZeroTangent(), X))[1] == pytest.approx(
        (loss(params, X + H * X) - loss(params, X - H * X)) / (2 * H), rel=1e-6
    )


def split(x: np.ndarray) -> dict[str, Any]:
    return {"head": x[0] * 2.0, "tail": (np.sin(x[1:]), x[0] * x[1])}


def test_jvp_gives_a_structured_result_its_structure() -> None:
    x = sample((3,), 8)
    dx = sample((3,), 9)
    y, y_dot = srcad.jvp(split, (x,), (dx,))
    assert list(y) == list(y_dot)
    assert list(y_dot) == ["head", "tail"] and isinstance(y_dot["tail"], tuple)
    up, down = split(x + H * dx), split(x - H * dx)
    expected = srcad.tree_map(lambda a, b: (a - b) / (2 * H), up, down)
    for a, e in zip(leaves(y_dot), leaves(expected), strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-6)


def test_a_structured_tangent_for_an_int_part_is_refused() -> None:
    params = {"w": W, "b": 1.5, "unused": np.ones(2), "n": 3}
    tangent = {"w": W, "b": 1.0, "unused": np.ones(2), "n": 1}
    with pytest.raises(srcad.SrcadError, match="cannot be perturbed"):
        srcad.jvp(loss_dict, (params, X), (tangent, np.zeros_like(X)))


# -- has_aux -------------------------------------------------------------------------------


def loss_and_aux(w: np.ndarray, x: np.ndarray) -> tuple[Any, Any]:
    r = x @ w
    return np.sum(r**2), {"residuals": r, "count": 4, "label": "fit", "list": [r * 2.0]}


def loss_and_int(w: np.ndarray, x: np.ndarray) -> tuple[Any, Any]:
    return np.sum(np.exp(x @ w)), 7


def loss_and_array(w: np.ndarray, x: np.ndarray) -> tuple[Any, Any]:
    h = np.tanh(x @ w)
    return np.mean(h), h


def loss_and_none(w: np.ndarray, x: np.ndarray) -> tuple[Any, Any]:
    return np.sum(w * w), None


@pytest.mark.parametrize("f", [loss_and_aux, loss_and_int, loss_and_array, loss_and_none])
def test_has_aux(f: Any) -> None:
    def loss(w: np.ndarray, x: np.ndarray) -> Any:
        return f(w, x)[0]

    expected = fd_gradient(loss, (W, X), 0)
    gradient, aux = srcad.grad(f, has_aux=True)(W, X)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6)
    _same_aux(aux, f(W, X)[1])
    (value, aux), gradient = srcad.value_and_grad(f, has_aux=True)(W, x=X)
    assert value == pytest.approx(loss(W, X))
    _same_aux(aux, f(W, X)[1])
    np.testing.assert_allclose(gradient, expected, rtol=1e-6)
    # Several arguments, `wrt` as a list of NumPy integers.
    (gw, gx), _ = srcad.grad(f, wrt=[np.int64(0), np.int32(1)], has_aux=True)(W, X)
    np.testing.assert_allclose(gw, expected, rtol=1e-6)
    np.testing.assert_allclose(gx, fd_gradient(loss, (W, X), 1), rtol=1e-5, atol=1e-7)


def _same_aux(actual: Any, expected: Any) -> None:
    assert type(actual) is type(expected)
    for a, e in zip(leaves(actual), leaves(expected), strict=True):
        np.testing.assert_array_equal(a, e)


def test_has_aux_with_structured_parameters() -> None:
    def f(p: dict[str, Any], x: np.ndarray) -> tuple[Any, Any]:
        return loss_dict(p, x), {"norm": np.sum(p["w"] ** 2)}

    params = {"w": W, "b": 1.5, "unused": np.ones(2), "n": 3}
    gradient, aux = srcad.grad(f, has_aux=True)(params, X)
    assert_same_structure(gradient, fd_gradient(loss_dict, (params, X), 0))
    assert aux["norm"] == pytest.approx(np.sum(W**2))


def not_a_pair(w: np.ndarray) -> Any:
    return np.sum(w)


def array_loss(w: np.ndarray) -> tuple[Any, Any]:
    return w * 2.0, 1


def test_has_aux_refuses_what_is_not_a_loss_and_aux() -> None:
    with pytest.raises(srcad.SrcadError, match=r"return a pair \(loss, aux\)"):
        srcad.grad(not_a_pair, has_aux=True)(W)
    with pytest.raises(srcad.SrcadError, match="a loss that is a real scalar"):
        srcad.value_and_grad(array_loss, has_aux=True)(W)


# -- wrt -----------------------------------------------------------------------------------


def three(a: float, b: np.ndarray, c: float) -> Any:
    return a * np.sum(b**2) * c + c**3


@pytest.mark.parametrize(
    "wrt",
    [[0, 2], [np.int64(0), np.int8(2)], (np.intp(0), "c"), ["a", np.int16(-1)]],
    ids=["list", "numpy-list", "numpy-tuple", "mixed"],
)
def test_wrt_takes_lists_and_numpy_integers(wrt: Any) -> None:
    args = (0.5, sample((3,), 10), 1.3)
    ga, gc = srcad.grad(three, wrt=wrt)(*args)
    assert ga == pytest.approx(fd_gradient(three, args, 0), rel=1e-6)
    assert gc == pytest.approx(fd_gradient(three, args, 2), rel=1e-6)
    single = srcad.grad(three, wrt=np.int64(1))(*args)
    np.testing.assert_allclose(single, fd_gradient(three, args, 1), rtol=1e-6)
    hvp = srcad.hessian_vector_product(three, wrt=np.int64(0))(*args, 1.0)
    assert hvp == pytest.approx(0.0, abs=1e-9)  # linear in a


def test_wrt_refuses_a_numpy_bool() -> None:
    with pytest.raises(srcad.SrcadError, match="wrt takes ints and parameter names"):
        srcad.grad(three, wrt=np.bool_(True))


# -- what changes srcad's process-wide state ------------------------------------------------


def test_scalar_rule_and_clear_cache_in_a_fresh_interpreter() -> None:
    """`scalar_rule` registers into, and `clear_cache` empties, what the whole process
    shares: run in an interpreter of their own (`process_wide_cases.py`), so that the rest
    of the suite, and the emitted texts recorded for it, see neither."""
    environment = {k: v for k, v in os.environ.items() if k != "SRCAD_RECORD_EMITTED"}
    cases = Path(__file__).with_name("process_wide_cases.py")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(cases)],
        cwd=Path(__file__).resolve().parents[2],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    # 0: every case collected passed (5 would be none collected, 1 a failure).
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_a_copy_of_a_structure_is_rebuilt_not_shared() -> None:
    params = Params(W.copy(), 0.8, np.ones(2))
    before = copy.deepcopy(params)
    gradient = srcad.grad(loss_params)(params, X)
    assert gradient is not params and gradient.w is not params.w
    np.testing.assert_array_equal(params.w, before.w)
    assert isinstance(gradient.depth, srcad.NoTangent)


def keyword_loss(x: np.ndarray, *, scale: float, shift: Any = 1.0, label: str = "a") -> Any:
    return np.sum(np.sin(x) * scale + shift * x**2)


@pytest.mark.parametrize(
    "wrt",
    ["scale", ("x", "shift", "scale"), ["shift"], [np.int64(0), "scale"]],
    ids=["one", "all", "list", "mixed"],
)
def test_wrt_names_keyword_only_parameters(wrt: Any) -> None:
    x = sample((3,), 12)
    shift = sample((3,), 13)
    names = [wrt] if isinstance(wrt, str) else ["x" if n == 0 else n for n in wrt]

    def by_name(name: str) -> Any:
        def moved(v: Any) -> Any:
            keywords = {"scale": 1.7, "shift": shift, name: v}
            return keyword_loss(keywords.pop("x", x), **keywords)

        start = {"x": x, "scale": 1.7, "shift": shift}[name]
        return fd_gradient(moved, (start,), 0)

    gradient = srcad.grad(keyword_loss, wrt=wrt)(x, scale=1.7, shift=shift)
    value, again = srcad.value_and_grad(keyword_loss, wrt=wrt)(x, shift=shift, scale=1.7)
    assert value == pytest.approx(keyword_loss(x, scale=1.7, shift=shift))
    for result in (gradient, again):
        found = [result] if isinstance(wrt, str) else list(result)
        for name, g in zip(names, found, strict=True):
            np.testing.assert_allclose(g, by_name(name), rtol=1e-6, atol=1e-8)
    # The default of a keyword-only parameter left out.
    default = srcad.grad(keyword_loss, wrt="shift")(x, scale=1.7)
    assert default == pytest.approx(np.sum(x**2), rel=1e-9)


def test_a_keyword_only_wrt_is_refused_where_not_supported() -> None:
    with pytest.raises(srcad.SrcadError, match="keyword-only parameter"):
        srcad.jacobian(keyword_loss, wrt="scale")
    with pytest.raises(srcad.SrcadError, match="cannot be perturbed"):
        srcad.grad(keyword_loss, wrt="scale")(np.ones(2), scale=2)
    message = r"names no positional parameter of keyword_loss \(nor a keyword-only one\)"
    with pytest.raises(srcad.SrcadError, match=message):
        srcad.grad(keyword_loss, wrt="scales")


def _ragged_sums(x, data):
    total = 0.0
    for d in data:
        total = total + np.sum(x[: len(d)] * d) ** 2
    return total


def test_a_list_of_arrays_of_different_shapes_as_data() -> None:
    """A list NumPy cannot read as one array (arrays of different shapes), passed as data
    with a zero tangent: `jvp` once asked NumPy whether it was complex and crashed
    ("inhomogeneous shape"), found on an HMM's sequences of different lengths. Every
    transform takes it, against central differences along `v`."""
    data = [np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])]
    x, v = np.array([0.5, -0.2, 0.3]), np.array([0.7, 1.1, -0.4])
    step = 1e-6
    want = (_ragged_sums(x + step * v, data) - _ragged_sums(x - step * v, data)) / (2 * step)
    for zero in (srcad.ZeroTangent(), srcad.NoTangent()):
        _, got = srcad.jvp(_ragged_sums, (x, data), (v, zero))
        np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(srcad.grad(_ragged_sums)(x, data) @ v, want, rtol=1e-6)
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.jacobian(_ragged_sums, mode=mode)(x, data) @ v, want,
                                   rtol=1e-6)  # fmt: skip
    gradient = srcad.grad(_ragged_sums)
    column = (gradient(x + step * v, data) - gradient(x - step * v, data)) / (2 * step)
    np.testing.assert_allclose(srcad.hessian(_ragged_sums)(x, data) @ v, column, rtol=1e-5)


def _positions_of_nonzeros(x):
    return np.sum(np.asarray(np.where(x), dtype=float) ** 2)


def test_a_result_flat_in_a_float_argument_has_a_zero_gradient() -> None:
    """`np.where(x)` gives positions, flat in `x`: the rule's `NoTangent` for the float
    array was refused as though `x` could not be perturbed ("it is a float64 array, which
    cannot be perturbed"); its gradient is zeros, as differences give."""
    x = np.array([0.31, 0.0, 0.73, 0.44])
    step = 1e-6
    want = [(_positions_of_nonzeros(x + step * e) - _positions_of_nonzeros(x - step * e))
            / (2 * step) for e in np.eye(4)]  # fmt: skip
    np.testing.assert_array_equal(srcad.grad(_positions_of_nonzeros)(x), want)
    value, gradient = srcad.value_and_grad(_positions_of_nonzeros)(x)
    assert value == _positions_of_nonzeros(x)
    np.testing.assert_array_equal(gradient, np.zeros(4))
