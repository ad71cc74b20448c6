"""Rules for NumPy's products and axis permutations: `np.dot`, `np.einsum` and kin,
`np.trace`, `np.diag` and `np.transpose`."""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from srcad.projection import ProjectTo, array_operand, conj
from srcad.registry import CONFIG, Linearity, RuleSet
from srcad.rules._support import argument_tangents, integer_valued, options_by_name
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_linalg")

Pullback = Any


# --- np.dot -------------------------------------------------------------------------------


def _dot_cotangents(y_bar: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[Any, Any]:
    """The cotangents of `a` and `b` in `y = np.dot(a, b)`, before projection.

    np.dot contracts the last axis of `a` with the only axis of a 1-d `b`, or else with
    the second-to-last axis of `b`, giving `a.shape[:-1] + b.shape[:-2] + b.shape[-1:]`;
    each cotangent contracts `y_bar` with the conjugate of the other factor over the
    axes that factor brought into `y`. A 0-d factor makes it a plain product.
    """
    if a.ndim == 0 or b.ndim == 0:
        return y_bar * conj(b), conj(a) * y_bar
    kept_a = a.ndim - 1  # the axes of `a` that survive into `y`, which come first
    if b.ndim == 1:
        a_bar = np.multiply.outer(y_bar, conj(b))
        b_bar = np.tensordot(y_bar, conj(a), axes=kept_a)
        return a_bar, b_bar
    kept_b = b.ndim - 2  # `b`'s leading axes, which follow `a`'s in `y`, then its last one
    y_axes_from_b = [*range(kept_a, kept_a + kept_b + 1)]
    b_axes_in_y = [*range(kept_b), kept_b + 1]
    a_bar = np.tensordot(y_bar, conj(b), axes=(y_axes_from_b, b_axes_in_y))
    # Contracting `a`'s kept axes leaves (n, *b.shape[:-2], m); move n to its place in b.
    b_bar = np.tensordot(conj(a), y_bar, axes=(list(range(kept_a)), list(range(kept_a))))
    return a_bar, np.moveaxis(b_bar, 0, kept_b)


rules.keywords_by_position(np.dot, "a", "b")


@rules.rrule(np.dot)
def dot_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.dot` in all its cases: a scalar factor, vectors, matrices,
    and N-d arrays (contracting `a`'s last axis with `b`'s second-to-last)."""
    y = np.dot(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_array, b_array = np.asarray(a), np.asarray(b)

    def dot_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, y_bar
        a_bar, b_bar = _dot_cotangents(np.asarray(y_bar), a_array, b_array)
        return NoTangent(), project_a(a_bar), project_b(b_bar)

    return y, dot_pullback


@rules.rrule(np.transpose)
def transpose_rrule(x: Any, *positional_axes: Any, axes: Any = None) -> tuple[Any, Pullback]:
    """Reverse rule for `np.transpose(x)` and `np.transpose(x, axes)`.

    The pullback permutes the cotangent back by the inverse permutation; `axes`, when
    passed by position, gets a `NoTangent()`.
    """
    if len(positional_axes) > 1:
        raise TypeError(f"np.transpose takes x and axes, not {1 + len(positional_axes)} arguments")
    if positional_axes:
        axes = positional_axes[0]
    y = np.transpose(x, axes)
    project_x = ProjectTo(x)
    ndim = np.ndim(x)
    inverse = None if axes is None else np.argsort([int(a) % ndim for a in axes])
    axes_bars = (NoTangent(),) * len(positional_axes)

    def transpose_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *axes_bars)
        return (NoTangent(), project_x(np.transpose(y_bar, inverse)), *axes_bars)

    return y, transpose_pullback


# --- Einstein sums, and the products written as one --------------------------------------


def einsum_terms(subscripts: str, ndims: list[int]) -> tuple[list[str], str]:
    """The explicit form of an einsum: one label per axis of each operand, and the output.

    An ellipsis becomes fresh labels (right-aligned, as NumPy broadcasts them), and an
    implicit output becomes NumPy's: the ellipsis axes, then the labels used once, sorted.

    >>> einsum_terms("ij,jk", [2, 2])
    (['ij', 'jk'], 'ik')
    >>> einsum_terms("...i,i->...", [3, 1])
    (['abi', 'i'], 'ab')
    """
    subscripts = subscripts.replace(" ", "")
    inputs_text, arrow, output_text = subscripts.partition("->")
    inputs = inputs_text.split(",")
    if len(inputs) != len(ndims):
        raise ValueError(f"einsum subscripts {subscripts!r} name {len(inputs)} operands")
    labels = [term.replace("...", "") for term in inputs]
    ellipsis_ndim = max(
        (n - len(t) for n, t, term in zip(ndims, labels, inputs, strict=True) if "..." in term),
        default=0,
    )
    fresh = [c for c in string.ascii_letters if c not in subscripts][:ellipsis_ndim]
    if len(fresh) < ellipsis_ndim:
        raise ValueError(f"einsum subscripts {subscripts!r} leave too few labels for '...'")
    broadcast = "".join(fresh)
    if not arrow:
        once = sorted(c for c in set("".join(labels)) if "".join(labels).count(c) == 1)
        output_text = ("..." if "..." in inputs_text else "") + "".join(once)

    def expand(term: str, ndim: int) -> str:
        if "..." not in term:
            return term
        own = ndim - (len(term) - 3)
        return term.replace("...", broadcast[len(broadcast) - own :] if own else "")

    expanded = [expand(term, n) for term, n in zip(inputs, ndims, strict=True)]
    return expanded, output_text.replace("...", broadcast)


def _einsum_cotangent(
    inputs: list[str], output: str, operands: list[np.ndarray], y_bar: np.ndarray, k: int
) -> np.ndarray:
    """The cotangent of operand `k` of `einsum(inputs -> output)`, before projection.

    The sum is linear in each operand, so the cotangent is the einsum of `y_bar` with the
    conjugates of the other operands, onto the labels of operand `k`. Labels that operand
    alone carries (summed only over it) get the cotangent repeated along them; an axis of
    length 1 that the others broadcast gets it summed; a label repeated within the operand
    (a trace, a diagonal) puts the cotangent on that diagonal and zeros elsewhere.
    """
    term, x = inputs[k], operands[k]
    others = [output, *(t for j, t in enumerate(inputs) if j != k)]
    other_operands = [y_bar, *(conj(o) for j, o in enumerate(operands) if j != k)]
    unique = "".join(dict.fromkeys(term))
    present = "".join(c for c in unique if any(c in t for t in others))
    bar = np.einsum(
        f"{','.join(others)}->{present}", *other_operands, optimize=len(other_operands) > 1
    )
    sizes = [x.shape[term.index(c)] for c in unique]
    stretched = tuple(
        i for i, c in enumerate(present) if sizes[unique.index(c)] == 1 and bar.shape[i] != 1
    )
    if stretched:
        bar = bar.sum(axis=stretched, keepdims=True)
    if present != unique:  # put back the labels only `x` carries, repeating along them
        bar = bar.reshape([bar.shape[present.index(c)] if c in present else 1 for c in unique])
        bar = np.broadcast_to(bar, sizes)
    if unique != term:
        x_bar = np.zeros(x.shape, dtype=bar.dtype)
        np.einsum(f"{term}->{unique}", x_bar)[...] = bar  # a writable view of the diagonal
        return x_bar
    return bar.copy() if present != unique else bar  # broadcast_to gave a read-only view


class _Operands:
    """The operands of an einsum-like call, as arrays, and their projections (built in the
    rule, outside its pullback)."""

    __slots__ = ("arrays", "projections")

    def __init__(self, operands: tuple[Any, ...]) -> None:
        self.arrays = [np.asarray(o) for o in operands]
        self.projections = [ProjectTo(o) for o in operands]

    def cotangents(self, inputs: list[str], output: str, y_bar: Any) -> tuple[Any, ...]:
        """One projected cotangent per operand of `einsum(inputs -> output)`."""
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return tuple(y_bar for _ in self.arrays)
        y_bar = np.asarray(y_bar)
        return tuple(
            project(_einsum_cotangent(inputs, output, self.arrays, y_bar, k))
            for k, project in enumerate(self.projections)
        )


@rules.rrule(np.einsum)
def einsum_rrule(subscripts: Any, *operands: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.einsum(subscripts, *operands)`, with an explicit `->` output
    or NumPy's implicit one, ellipses, broadcasting, and repeated labels (traces and
    diagonals). `subscripts` gets a `NoTangent()`; `optimize` and `dtype` pass through.
    """
    if not isinstance(subscripts, str):  # the interleaved form, as the string form
        arguments = (subscripts, *operands)
        subscripts, operands = sublist_subscripts(arguments)
        y, pullback = einsum_rrule(subscripts, *operands, **keywords)

        def einsum_sublist_pullback(y_bar: Any) -> tuple[Any, ...]:
            # Each operand's cotangent in its place; the sublists (the output's too) get none.
            bars: list[Any] = [NoTangent()] * len(arguments)
            bars[0 : 2 * len(operands) : 2] = pullback(y_bar)[2:]
            return (NoTangent(), *bars)

        return y, einsum_sublist_pullback
    y = np.einsum(subscripts, *operands, **options_by_name((), (), keywords))
    inputs, output = einsum_terms(subscripts, [np.ndim(o) for o in operands])
    arrays = _Operands(operands)

    def einsum_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), NoTangent(), *arrays.cotangents(inputs, output, y_bar))

    return y, einsum_pullback


def sublist_subscripts(arguments: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """`np.einsum(a, [0, 1], b, [1, 2], [0, 2])`, the interleaved form, as the subscripts
    string and operands of the string form (`"ab,bc->ac"`, `(a, b)`): NumPy's labels are
    ints below 52, given letters in order, and `...`.

    >>> sublist_subscripts((1.0, [0, Ellipsis], 2.0, [0]))
    ('a...,a', (1.0, 2.0))
    """
    operands = arguments[0::2]
    if len(arguments) % 2 == 1:  # an explicit output
        operands = operands[:-1]
    return sublist_string(arguments), operands


def sublist_string(arguments: tuple[Any, ...]) -> str:
    """The subscripts string of the interleaved form's `arguments` (`sublist_subscripts`)."""
    sublists = list(arguments[1::2])
    explicit = len(arguments) % 2 == 1
    output = arguments[-1] if explicit else None

    def term(sublist: Any) -> str:
        return "".join(
            "..." if label is Ellipsis else string.ascii_letters[int(label)] for label in sublist
        )

    subscripts = ",".join(term(sublist) for sublist in sublists)
    if output is not None:
        subscripts += "->" + term(output)
    return subscripts


def _tensordot_terms(a_ndim: int, b_ndim: int, axes: Any) -> tuple[list[str], str]:
    """`np.tensordot(a, b, axes)` as einsum labels: `axes` is a count N (the last N axes
    of `a` with the first N of `b`) or a pair of axis lists."""
    if isinstance(axes, int | np.integer):
        pairs: tuple[Any, Any] = (range(a_ndim - int(axes), a_ndim), range(int(axes)))
    else:
        pairs = tuple(axes)
    a_given, b_given = ([ax] if isinstance(ax, int | np.integer) else ax for ax in pairs)
    a_axes = [int(ax) % a_ndim for ax in a_given]
    b_axes = [int(ax) % b_ndim for ax in b_given]
    letters = iter(string.ascii_letters)
    a_term = [next(letters) for _ in range(a_ndim)]
    b_term = [next(letters) for _ in range(b_ndim)]
    for a_axis, b_axis in zip(a_axes, b_axes, strict=True):
        b_term[b_axis] = a_term[a_axis]
    a_free = "".join(c for i, c in enumerate(a_term) if i not in a_axes)
    b_free = "".join(c for i, c in enumerate(b_term) if i not in b_axes)
    return ["".join(a_term), "".join(b_term)], a_free + b_free


rules.keywords_by_position(np.tensordot, "a", "b")


@rules.rrule(np.tensordot)
def tensordot_rrule(a: Any, b: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.tensordot(a, b, axes=2)`, `axes` a count or a pair of axis
    lists (not differentiated; a `NoTangent()` when passed by position)."""
    y = np.tensordot(a, b, *options, **keywords)
    axes = options_by_name(("axes",), options, keywords).get("axes", 2)
    inputs, output = _tensordot_terms(np.ndim(a), np.ndim(b), axes)
    factors = _Operands((a, b))
    option_bars = (NoTangent(),) * len(options)

    def tensordot_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *factors.cotangents(inputs, output, y_bar), *option_bars)

    return y, tensordot_pullback


@rules.rrule(np.inner)
def inner_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.inner`: the last axes contracted, no conjugation; a 0-d
    factor makes it a plain product."""
    y = np.inner(a, b)
    a_ndim, b_ndim = np.ndim(a), np.ndim(b)
    if a_ndim and b_ndim:
        inputs, output = _tensordot_terms(a_ndim, b_ndim, ([-1], [-1]))
    else:  # one factor is 0-d, and its labels are empty
        inputs = [string.ascii_letters[:a_ndim], string.ascii_letters[:b_ndim]]
        output = inputs[0] + inputs[1]
    factors = _Operands((a, b))

    def inner_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *factors.cotangents(inputs, output, y_bar))

    return y, inner_pullback


@rules.rrule(np.vdot)
def vdot_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.vdot(a, b) = sum(conj(a) * b)` over the flattened arrays.

    The conjugation makes it antilinear in `a`: `a_bar = b * conj(y_bar)`.
    """
    y = np.vdot(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_array, b_array = np.asarray(a), np.asarray(b)

    def vdot_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, y_bar
        a_bar = (b_array * np.conj(y_bar)).reshape(a_array.shape)
        b_bar = (a_array * y_bar).reshape(b_array.shape)
        return NoTangent(), project_a(a_bar), project_b(b_bar)

    return y, vdot_pullback


rules.keywords_by_position(np.outer, "a", "b")


@rules.rrule(np.outer)
def outer_rrule(a: Any, b: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.outer(a, b)` of the flattened arrays."""
    y = np.outer(a, b, **options_by_name((), (), keywords))
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_array, b_array = np.asarray(a), np.asarray(b)

    def outer_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, y_bar
        a_bar = (y_bar @ conj(b_array.reshape(-1))).reshape(a_array.shape)
        b_bar = (conj(a_array.reshape(-1)) @ y_bar).reshape(b_array.shape)
        return NoTangent(), project_a(a_bar), project_b(b_bar)

    return y, outer_pullback


@rules.rrule(np.trace)
def trace_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.trace(a, offset=0, axis1=0, axis2=1, dtype=None)`."""
    y = np.trace(a, *options, **keywords)
    given = options_by_name(("offset", "axis1", "axis2", "dtype", "out"), options, keywords)
    offset, axis1, axis2 = given.get("offset", 0), given.get("axis1", 0), given.get("axis2", 1)
    shape = np.shape(a)
    rows, columns = shape[axis1], shape[axis2]
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def trace_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        # The cotangent on the offset diagonal of each matrix, built with the matrix axes
        # last and then moved back to `axis1` and `axis2`.
        diagonal = np.eye(rows, columns, k=offset)
        a_bar = np.asarray(y_bar)[..., np.newaxis, np.newaxis] * diagonal
        return (NoTangent(), project_a(np.moveaxis(a_bar, (-2, -1), (axis1, axis2))), *option_bars)

    return y, trace_pullback


@rules.rrule(np.diag)
def diag_rrule(v: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.diag(v, k=0)`: a vector onto the k-th diagonal of a square
    matrix, or the k-th diagonal of a matrix out as a vector."""
    y = np.diag(v, *options, **keywords)
    k = int(options_by_name(("k",), options, keywords).get("k", 0))
    shape = np.shape(v)
    project_v = ProjectTo(v)
    option_bars = (NoTangent(),) * len(options)

    def diag_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        if len(shape) == 1:
            return (NoTangent(), project_v(np.diagonal(y_bar, k).copy()), *option_bars)
        y_bar = np.asarray(y_bar)
        v_bar = np.zeros(shape, dtype=y_bar.dtype)
        positions = np.arange(y_bar.shape[0])
        v_bar[positions + max(-k, 0), positions + max(k, 0)] = y_bar
        return (NoTangent(), project_v(v_bar), *option_bars)

    return y, diag_pullback


# --- forward rules: `frule((f_dot, *arg_dots), *args) -> (y, y_dot)` ------------------------


def multilinear_tangent(product: Any, operands: tuple[Any, ...], dots: list[Any],
                        leading: tuple[Any, ...] = (),
                        keywords: dict[str, Any] | None = None) -> Any:  # fmt: skip
    """The tangent of `product(*leading, *operands, **keywords)`, linear in each operand:
    the sum over operands of the product with that operand replaced by its tangent,
    `ZeroTangent()` if all are zero (a `multilinear_sum`, whose forward rule srcad
    differentiates in turn). A list or tuple operand is read as its array (its tangent as
    the array of its elements': `argument_tangents`), so that no term holds a list of
    tangents, whose symbolic zeros NumPy would multiply as objects."""
    operands = tuple([array_operand(operand) for operand in operands])
    terms = []
    for k, dot in enumerate(dots):
        if not isinstance(dot, AbstractZero):
            terms.append(leading + operands[:k] + (dot,) + operands[k + 1 :])
    return multilinear_sum(product, tuple(terms), {} if keywords is None else keywords)


def multilinear_sum(product: Any, terms: tuple[tuple[Any, ...], ...],
                    keywords: dict[str, Any]) -> Any:  # fmt: skip
    """`sum(product(*term, **keywords) for term in terms)`, `ZeroTangent()` for no terms:
    the tangents of a multilinear function (`np.dot`, `np.einsum`, ...) and of its forward
    rules, each term a product of operands and tangents. A primitive: its reverse rule
    pulls back through each term's product, and its forward rule (plain code, compiled in
    turn for the derivatives beyond) is a sum of the same kind, each operand of a term
    replaced by its tangent in turn."""
    total: Any = ZeroTangent()
    for term in terms:
        total = total + product(*term, **keywords)
    return total


@rules.rrule(multilinear_sum)
def multilinear_sum_rrule(product: Any, terms: tuple[tuple[Any, ...], ...],
                          keywords: dict[str, Any]) -> tuple[Any, Any]:  # fmt: skip
    calls = [CONFIG.rrule_via_ad(product, *term, **keywords) for term in terms]
    total: Any = ZeroTangent()
    for value, _ in calls:
        total = total + value

    def multilinear_sum_pullback(total_bar: Any) -> tuple[Any, ...]:
        total_bar = unthunk(total_bar)
        if isinstance(total_bar, AbstractZero) or not calls:
            return (NoTangent(), NoTangent(), ZeroTangent(), NoTangent())
        term_bars = [Tangent(tuple, *pullback(total_bar)[1:]) for _, pullback in calls]
        return (NoTangent(), NoTangent(), Tangent(tuple, *term_bars), NoTangent())

    return total, multilinear_sum_pullback


@rules.frule(multilinear_sum)
def multilinear_sum_frule(dargs: tuple[Any, ...], product: Any,
                          terms: tuple[tuple[Any, ...], ...],
                          keywords: dict[str, Any]) -> tuple[Any, Any]:  # fmt: skip
    """Each term's tangent: the term with each operand that has a tangent replaced by it.
    Plain code, which srcad differentiates (the forward rules of forward rules)."""
    terms_dot = unthunk(dargs[2])
    moved = []
    if not isinstance(terms_dot, AbstractZero):
        for term, term_dot in zip(terms, elements_of(terms_dot, len(terms)), strict=True):
            if isinstance(term_dot, AbstractZero):
                continue
            for k, dot in enumerate(elements_of(term_dot, len(term))):
                if not isinstance(dot, AbstractZero):
                    moved.append((*term[:k], dot, *term[k + 1 :]))
    return multilinear_sum(product, terms, keywords), multilinear_sum(
        product, tuple(moved), keywords
    )


def _options(parameters: tuple[str, ...], options: tuple[Any, ...],
             keywords: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """`options_by_name` for the forward rules below, whose options are flags and axes
    (never values): marked non-differentiable, so that srcad compiles the forward rules
    that read them in turn (third derivatives and beyond)."""
    return options_by_name(parameters, options, keywords)


def _linear_tangent(linear: Any, dot: Any) -> Any:
    """The tangent of a function linear in its argument: itself applied to the tangent."""
    return ZeroTangent() if isinstance(dot, AbstractZero) else linear(dot)


@rules.frule(np.dot)
def dot_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    """Forward rule for `np.dot`: `a_dot . b + a . b_dot`."""
    return np.dot(a, b), multilinear_tangent(np.dot, (a, b), argument_tangents(dargs, 2, (a, b)))


@rules.frule(np.vdot)
def vdot_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    """Forward rule for `np.vdot`, antilinear in `a`: `vdot(a_dot, b)` conjugates `a_dot`."""
    return np.vdot(a, b), multilinear_tangent(np.vdot, (a, b), argument_tangents(dargs, 2, (a, b)))


@rules.frule(np.inner)
def inner_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    """Forward rule for `np.inner`."""
    return np.inner(a, b), multilinear_tangent(
        np.inner, (a, b), argument_tangents(dargs, 2, (a, b))
    )


@rules.frule(np.outer)
def outer_frule(dargs: tuple[Any, ...], a: Any, b: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.outer` (not into `out=`, its only option)."""
    _options((), (), keywords)
    y = np.outer(a, b)
    return y, multilinear_tangent(np.outer, (a, b), argument_tangents(dargs, 2, (a, b)))


@rules.frule(np.tensordot)
def tensordot_frule(
    dargs: tuple[Any, ...], a: Any, b: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.tensordot(a, b, axes=2)`; `axes` is not differentiated."""
    keywords = _options(("axes",), options, keywords)
    y = multilinear_sum(np.tensordot, ((array_operand(a), array_operand(b)),), keywords)
    return y, multilinear_tangent(
        np.tensordot, (a, b), argument_tangents(dargs, 2, (a, b)), (), keywords
    )


@rules.frule(np.einsum)
def einsum_frule(
    dargs: tuple[Any, ...], subscripts: Any, *operands: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.einsum(subscripts, *operands)`: one einsum per operand with a
    tangent, that operand replaced by it. `subscripts` is not differentiated."""
    if isinstance(subscripts, str):
        text, factors = subscripts, operands
        dots = argument_tangents(dargs, 1 + len(operands), (subscripts, *operands))[1:]
    else:  # the interleaved form, as the string form (new names: srcad differentiates
        # this rule in turn, third derivatives)
        arguments = (subscripts, *operands)
        count = (len(arguments) + 1) // 2 - len(arguments) % 2  # the operands
        text = sublist_string(arguments)
        factors = tuple(arguments[2 * i] for i in range(count))
        dots = [unthunk(dargs[1 + 2 * i]) if 1 + 2 * i < len(dargs) else ZeroTangent()
                for i in range(count)]  # fmt: skip
    keywords = _options((), (), keywords)
    # (the value a sum of one term: no call with `*` or `**`, which srcad differentiates
    # in turn only to second order)
    y = multilinear_sum(np.einsum, ((text, *[array_operand(f) for f in factors]),), keywords)
    if integer_valued(y):  # `dtype=int`: piecewise constant
        return y, ZeroTangent()
    return y, multilinear_tangent(np.einsum, factors, dots, (text,), keywords)


@rules.frule(np.transpose)
def transpose_frule(
    dargs: tuple[Any, ...], x: Any, *positional_axes: Any, axes: Any = None
) -> tuple[Any, Any]:
    """Forward rule for `np.transpose(x, axes=None)`: the tangent permuted the same way."""
    if len(positional_axes) > 1:
        raise TypeError(f"np.transpose takes x and axes, not {1 + len(positional_axes)} arguments")
    if positional_axes:
        axes = positional_axes[0]
    (x_dot,) = argument_tangents(dargs, 1, (x,))
    return np.transpose(x, axes), _linear_tangent(lambda t: np.transpose(t, axes), x_dot)


@rules.frule(np.trace)
def trace_frule(dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.trace(a, offset=0, axis1=0, axis2=1, dtype=None)`: the trace of
    the tangent."""
    options_by_name(("offset", "axis1", "axis2", "dtype", "out"), options, keywords)
    (a_dot,) = argument_tangents(dargs, 1, (a,))
    y = np.trace(a, *options, **keywords)
    if integer_valued(y):  # `dtype=int`: piecewise constant
        return y, ZeroTangent()
    return y, _linear_tangent(lambda t: np.trace(t, *options, **keywords), a_dot)


@rules.frule(np.diag)
def diag_frule(dargs: tuple[Any, ...], v: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.diag(v, k=0)`: the same diagonal of (or onto) the tangent."""
    (v_dot,) = argument_tangents(dargs, 1, (v,))
    y = np.diag(v, *options, **keywords)
    return y, _linear_tangent(lambda t: np.diag(t, *options, **keywords), v_dot)


# Linear and bilinear functions (their rules are above): their forward rules get reverse
# rules, for second derivatives (`rules/second_order.py`).
rules.primitive(np.transpose, linearity=Linearity.LINEAR)
rules.primitive(np.diag, linearity=Linearity.LINEAR)
rules.primitive(np.trace, linearity=Linearity.LINEAR)
rules.primitive(np.dot, linearity=Linearity.BILINEAR)
rules.primitive(np.inner, linearity=Linearity.BILINEAR)
rules.primitive(np.outer, linearity=Linearity.BILINEAR)
rules.primitive(np.tensordot, linearity=Linearity.BILINEAR)
rules.primitive(np.vdot, linearity=Linearity.BILINEAR)
rules.primitive(np.einsum, linearity=Linearity.MULTILINEAR)
# Read options, never values: their results are not differentiated (the forward rules
# above are compiled in turn, for the derivatives beyond the second).
rules.non_differentiable(_options, sublist_string)
