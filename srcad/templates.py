"""Inline derivatives as the rule library states them: per operand of a primitive, a
template of its cotangent, chosen from the operands' kinds (`passes/inlining.py` writes
them into emitted pullbacks)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from srcad.kinds import Kind

# An inline derivative's cotangent templates, chosen from the operands' kinds and their
# values where they are literal numbers (else None); None: none for these operands.
Choose = Callable[[Sequence[Kind], Sequence[Any]], Sequence[str | None] | None]
# The same for a call with constant keyword options (`np.sum(x, axis=1, keepdims=True)`),
# by name: the templates may write the options' values in as literals.
ChooseWithOptions = Callable[
    [Sequence[Kind], Sequence[Any], Mapping[str, Any]], Sequence[str | None] | None
]


@dataclass(frozen=True, init=False)
class Inline:
    """A primitive's derivative as arithmetic that the emitted pullback holds in place of a
    call of its rule's pullback (`passes/inlining.py`), for operands of known kinds (real
    floats and float arrays: no `conj`).

    Per operand, the template of its cotangent (None: it gets none), written with the
    operands `a` and `b` (by position), the result `y` and its cotangent `y_bar`; every
    other name is one of `functions`, which emitted code binds under that name. Where the
    templates depend on the operands, `cotangents` is a function of their kinds and
    constant values (`Choose`). A reduction of an array to a float says by `uniform` what the
    cotangent of `a` is when `y_bar` stands for an array filled with it. `options`, where
    given, chooses the templates of a call with constant keyword options (`axis=1`); a
    call with keywords and no `options` is not inlined. `moving`: the templates only
    hand cotangents between a container and its elements, with no arithmetic on the
    values, so they hold whatever the result's kind (`sum([])` is the int 0, where
    `sum` of floats is a float); the operands' kinds the template is chosen for say what
    the elements are.

    A division in a template by operands that may be Python numbers is made NumPy's
    where its divisor is zero (`passes/inlining.py`, `nonraising_divisions`), as NumPy's
    function of a Python float gives inf or NaN there, unless `primal_divisions` says that
    the templates divide as the primal does, raising where it raises: `a / b`'s `y_bar / b`
    (which `Prune` counts on: a dropped division needs no check where the pullback divides
    by the same divisor).

    `complex`, where given, holds for operands or a result that are complex numbers or
    arrays (`srcad.kinds.is_complex`): each operand's cotangent template in ChainRules'
    convention, `y_bar * conj(f'(a))` for a holomorphic `f` (`conj` and `real_part` are
    bound for it: `passes/inlining.py` takes the real part of a real operand's). Giving it
    states that the primitive is holomorphic in each operand that has a template, so that
    the real templates with a tangent for `y_bar` are its forward derivative, `f'(a) *
    a_dot`, for complex operands too, unless `complex_tangents` gives those templates: a
    primitive that is not holomorphic (`abs`: `y_bar * direction(a, y)` its cotangent,
    `real_part(conj(direction(a, y)) * y_bar)` its tangent) states both.

    >>> import numpy as np
    >>> Inline("y_bar * cos(a)", cos=np.cos).texts([("f", 1)], [None])
    ['y_bar * cos(a)']
    """

    cotangents: tuple[str | None, ...] | Choose
    functions: Mapping[str, Any]
    uniform: str | None
    options: ChooseWithOptions | None
    complex: tuple[str | None, ...] | Choose | None
    complex_tangents: tuple[str | None, ...] | None
    moving: bool
    primal_divisions: bool

    def __init__(self, *cotangents: str | Choose | None, uniform: str | None = None,
                 options: ChooseWithOptions | None = None,
                 complex: tuple[str | None, ...] | Choose | None = None,
                 complex_tangents: tuple[str | None, ...] | None = None,
                 moving: bool = False,
                 primal_divisions: bool = False,
                 **functions: Any) -> None:  # fmt: skip
        chosen = cotangents[0] if len(cotangents) == 1 and callable(cotangents[0]) else None
        texts = tuple(c for c in cotangents if c is None or isinstance(c, str))
        object.__setattr__(self, "cotangents", chosen if chosen is not None else texts)
        object.__setattr__(self, "functions", functions)
        object.__setattr__(self, "uniform", uniform)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "complex", complex)
        object.__setattr__(self, "complex_tangents", complex_tangents)
        object.__setattr__(self, "moving", moving)
        object.__setattr__(self, "primal_divisions", primal_divisions)

    def texts(self, kinds: Sequence[Kind], constants: Sequence[Any],
              options: Mapping[str, Any] | None = None) -> list[str | None] | None:  # fmt: skip
        """Each operand's cotangent template, for operands of these kinds and (where they
        are literal numbers) values, and the call's constant keyword `options`; or None."""
        if options:
            found = None if self.options is None else self.options(kinds, constants, options)
        elif callable(self.cotangents):
            found = self.cotangents(kinds, constants)
        else:
            found = self.cotangents
        return None if found is None else list(found)

    def holomorphic(self) -> Inline:
        """This entry for a primitive holomorphic in each operand whose real templates
        (fixed texts, linear in `y_bar`) are its derivative for complex operands too: its
        `complex` cotangents are theirs conjugated, `y_bar * conj(cos(a))` of
        `y_bar * cos(a)` (`conjugated`)."""
        assert not callable(self.cotangents), "holomorphic: fixed templates only"
        texts = tuple(None if t is None else conjugated(t) for t in self.cotangents)
        found = object.__new__(Inline)  # (`__init__` takes its functions by keyword)
        found.__dict__.update(self.__dict__, complex=texts)
        return found

    def complex_texts(
        self, kinds: Sequence[Kind], constants: Sequence[Any]
    ) -> list[str | None] | None:
        """Each operand's cotangent template for operands or a result that are complex
        (`complex`), without keyword options; or None: none stated."""
        found = self.complex(kinds, constants) if callable(self.complex) else self.complex
        return None if found is None else list(found)

    def tangent_texts(
        self, kinds: Sequence[Kind], constants: Sequence[Any]
    ) -> list[str | None] | None:
        """Each operand's tangent template (`y_bar` its tangent) for complex operands or
        result: `complex_tangents`, else (holomorphic) the real templates; None where the
        complex cotangents are not stated."""
        if self.complex_texts(kinds, constants) is None:
            return None
        if self.complex_tangents is not None:
            return list(self.complex_tangents)
        return self.texts(kinds, constants)


def conjugated(text: str) -> str:
    """The cotangent template `conj(T)` for a real template `T` linear in `y_bar`, with
    `conj(y_bar)` for `y_bar`: ChainRules' `y_bar * conj(f'(a))` for `T = y_bar * f'(a)`,
    `conj` taken through the products, quotients and negations above `y_bar` (a template
    that is not so, affine or nonlinear in it, is refused), a real constant left as it is.

    >>> conjugated("-y_bar * y / b"), conjugated("y_bar * (1.0 - y * y)")
    ('-y_bar * conj(y) / conj(b)', 'y_bar * conj(1.0 - y * y)')
    """
    tree = ast.parse(text, mode="eval")
    return ast.unparse(_conjugate(tree.body))


def _conjugate(node: ast.expr) -> ast.expr:
    names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    if "y_bar" not in names:  # one `conj` of a whole expression (of a real constant, none)
        if isinstance(node, ast.Constant):
            assert type(node.value) in (int, float), f"a complex constant in {ast.unparse(node)}"
            return node
        return ast.Call(func=ast.Name(id="conj", ctx=ast.Load()), args=[node], keywords=[])
    assert names.count("y_bar") == 1, f"y_bar twice in {ast.unparse(node)}: not linear"
    if isinstance(node, ast.Name):
        return node  # conj(conj(y_bar))
    # A product with `y_bar` in either factor, a quotient with it above (linear, not affine).
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div):
        below = [n.id for n in ast.walk(node.right) if isinstance(n, ast.Name)]
        if isinstance(node.op, ast.Mult) or "y_bar" not in below:
            return ast.BinOp(left=_conjugate(node.left), op=node.op, right=_conjugate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return ast.UnaryOp(op=node.op, operand=_conjugate(node.operand))
    raise AssertionError(f"y_bar inside {ast.unparse(node)}: not linear as written")
