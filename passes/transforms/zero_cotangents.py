"""Known zero cotangents, folded out of a pullback before anything is multiplied by them.

A pullback is linear in the cotangent it is called with. Where the compiler knows a
cotangent is zero (it has just been set to `0.0`, or to the symbolic zero, because the value
it belongs to is overwritten later: `x = c0` after a loop that changes `x`), the reverse
of the code before that point adds nothing to it. Computing that nothing is not free, and
not always zero in floating point: a loop that drove `x` to `inf` (`x = x * x + 0.5`,
repeated) pulls its zero back as `0.0 * inf`, NaN. The symbolic zero of the general path
multiplies to zero (`ZeroTangent() * inf` is `ZeroTangent()`); the float `0.0` a float's
cotangent starts from, where the kinds are known, did not. So, in each pullback:

- an assignment `a = e` of arithmetic (no call) goes when `a` is known zero there and every
  cotangent `e` reads is too: `a` stays zero (a copy `a = b` of a known zero is one);
- a `for` loop (a loop over a tape) goes when every cotangent it reads from before it is
  known zero, and so is every one it assigns that is read outside it: it would add zeros.

What the pullback reads that is no cotangent (the tape, the primal values it closes over,
names taken from those alone) is a coefficient, whatever its value. `docs/higher_order.md`
("Zero times infinity") says what srcad gives where a cotangent is not known zero at
compile time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import gast

from srcad import syntax

_ARITHMETIC = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.expr_context,
               gast.operator, gast.unaryop)  # fmt: skip
_STOPS = (gast.Break, gast.Continue, gast.Return, gast.Raise, gast.Assert, gast.Try)


def fold_zero_cotangents(pullback: gast.FunctionDef, zero: str | None,
                         readers: Iterable[str]) -> None:  # fmt: skip
    """Drop from `pullback` (in place) what adds known zeros (see the module). `zero`: the
    name emitted code calls for the symbolic zero; `readers`: names of the functions it
    calls that leave their arguments as they are."""
    _Folder(pullback, zero, set(readers)).block(pullback.body, frozenset(), drop=True)


class _Folder:
    def __init__(self, pullback: gast.FunctionDef, zero: str | None, readers: set[str]) -> None:
        self.pullback, self.zero, self.readers = pullback, zero, readers
        self.parameters = {a.id for a in pullback.args.args}
        self.locals = self.parameters | _stored(pullback.body)
        self.coefficients = self._coefficients()

    def _coefficients(self) -> set[str]:
        """The pullback's own names that no cotangent reaches: each assignment of one reads
        only names the pullback closes over (primal values, tapes) and other such names,
        and no call may change it in place (a buffer accumulated into is a cotangent)."""
        sources: dict[str, list[gast.AST]] = {}  # name -> what each assignment reads
        changed: set[str] = set(self.parameters)
        for node in syntax.walk(self.pullback):
            if node is self.pullback:
                continue
            if isinstance(node, gast.Assign):
                for name in _stored(node.targets):
                    sources.setdefault(name, []).append(node.value)
                changed |= _roots_changed(node.targets)
            elif isinstance(node, gast.AugAssign):
                changed |= _roots_changed([node.target])
            elif isinstance(node, gast.For):
                for name in _stored([node.target]):
                    sources.setdefault(name, []).append(node.iter)
            elif isinstance(node, gast.Call):
                if not (isinstance(node.func, gast.Name) and node.func.id in self.readers):
                    arguments = [*node.args, *(k.value for k in node.keywords)]
                    changed |= {n.id for a in arguments for n in _names(a)}
        found = set(sources) - changed
        while True:
            dropped = {
                name
                for name in found
                if any(_loaded(value) & (self.locals - found) for value in sources[name])
            }
            if not dropped:
                return found
            found -= dropped

    def block(self, block: list[gast.stmt], zeros: frozenset[str], drop: bool) -> frozenset[str]:
        """The names known zero after `block`, given those known zero before it; with
        `drop`, what adds known zeros goes."""
        index = 0
        while index < len(block):
            statement = block[index]
            if isinstance(statement, gast.Assign):
                targets = statement.targets
                single = len(targets) == 1 and isinstance(targets[0], gast.Name)
                name = targets[0].id if single else None  # type: ignore[attr-defined]
                value = statement.value
                copied = isinstance(value, gast.Name) and value.id in zeros
                if name is not None and (copied or self._is_zero(value)):
                    zeros = zeros | {name}  # a copy of a zero holds the same zero
                elif name is not None and name in zeros and self._adds_zero(statement, zeros):
                    if drop:
                        del block[index]
                        continue
                else:
                    zeros = zeros - _stored(targets)
            elif isinstance(statement, gast.For):
                if self._dead(statement, zeros):
                    if drop:
                        del block[index]
                        continue
                else:
                    zeros = self._loop(statement, zeros, drop)
            elif isinstance(statement, gast.If):
                then = self.block(statement.body, zeros, drop)
                zeros = then & self.block(statement.orelse, zeros, drop)
            elif type(statement) in (gast.While, gast.With):
                inner = zeros - _stored([statement])
                self.block(statement.body, inner, drop)
                zeros = inner
            elif not syntax.is_comment(statement):
                zeros = zeros - _stored([statement])
            index += 1
        if not block:
            block.append(gast.Pass())
        return zeros

    def _loop(self, loop: gast.For, zeros: frozenset[str], drop: bool) -> frozenset[str]:
        """The names known zero after a loop kept: those zero on entry that each iteration
        leaves zero (its body folded with them known zero at the start of each)."""
        if any(isinstance(n, _STOPS) for n in syntax.walk(loop)) or loop.orelse:
            inner = zeros - _stored([loop])
        else:
            inner = zeros - _stored([loop.target])
            while True:
                kept = inner & self.block(loop.body, inner, drop=False)
                if kept == inner:
                    break
                inner = kept
        self.block(loop.body, inner, drop)
        return inner

    def _is_zero(self, value: gast.expr) -> bool:
        if isinstance(value, gast.Constant):
            return type(value.value) is float and value.value == 0.0
        return (
            isinstance(value, gast.Call)
            and isinstance(value.func, gast.Name)
            and value.func.id == self.zero
            and not value.args
            and not value.keywords
        )

    def _adds_zero(self, statement: gast.Assign, zeros: frozenset[str]) -> bool:
        """Whether `a = e`, `a` known zero, is arithmetic on known zeros and coefficients."""
        value = statement.value
        if not all(isinstance(n, _ARITHMETIC) for n in syntax.walk(value)):
            return False
        return _loaded(value) & self.locals <= zeros | self.coefficients

    def _dead(self, loop: gast.For, zeros: frozenset[str]) -> bool:
        """Whether a loop only adds zeros: every cotangent it reads from before it, and every
        one it assigns that is read outside it, is known zero on entry (linearity)."""
        if any(isinstance(n, _STOPS) for n in syntax.walk(loop)):
            return False
        reads = _loads(loop)
        outside = _uses(self.pullback) - _uses(loop)
        outside_reads = _loads(self.pullback) - reads
        assigned = _stored([loop])
        for name in assigned - zeros:
            # Read after the loop, or (assigned outside it too) perhaps carried into it.
            if outside_reads[name] or (outside[name] and reads[name]):
                return False
        return all(
            name in zeros or name in self.coefficients or name not in self.locals
            for name in reads
            if name not in assigned
        )


def _names(node: gast.AST) -> Iterable[gast.Name]:
    return (n for n in syntax.walk(node) if isinstance(n, gast.Name))


def _loaded(node: gast.AST) -> set[str]:
    return {n.id for n in _names(node) if isinstance(n.ctx, gast.Load)}


def _stored(nodes: Iterable[gast.AST]) -> frozenset[str]:
    return frozenset(
        n.id for node in nodes for n in _names(node) if isinstance(n.ctx, gast.Store | gast.Del)
    )


def _loads(node: gast.AST) -> Counter[str]:
    return Counter(n.id for n in _names(node) if isinstance(n.ctx, gast.Load))


def _uses(node: gast.AST) -> Counter[str]:
    """How many times each name is read or assigned in `node` (a `def`'s name aside)."""
    return Counter(n.id for n in _names(node))


def _roots_changed(targets: list[gast.expr]) -> set[str]:
    """The names assigning to `targets` changes in place (`x` of `x[i] = v`)."""
    roots = set()
    for target in targets:
        for node in syntax.walk(target):
            if isinstance(node, gast.Subscript | gast.Attribute):
                root = node.value
                while isinstance(root, gast.Subscript | gast.Attribute):
                    root = root.value
                if isinstance(root, gast.Name):
                    roots.add(root.id)
    return roots
