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
("Zero cotangents") says what srcad gives where a cotangent is zero only at run time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

import gast

from srcad import syntax
from srcad.passes.base import RuntimeNames
from srcad.passes.transforms.simplify import only_reads
from srcad.tangents import ZeroTangent

_ARITHMETIC = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.expr_context,
               gast.operator, gast.unaryop)  # fmt: skip
_ITERATION = (reversed, range, len)
_STOPS = (gast.Break, gast.Continue, gast.Return, gast.Raise, gast.Assert, gast.Try)


def fold_zero_cotangents(pullback: gast.FunctionDef, runtime: RuntimeNames) -> None:
    """Drop from `pullback` (in place) what adds known zeros (see the module). `runtime`:
    the names emitted code reaches srcad's objects and builtins by."""
    zero = runtime.name_of(ZeroTangent)
    # The functions it calls that leave their arguments as they are (a tape is iterated).
    readers = {k for k, v in runtime.items() if only_reads(v) or any(v is f for f in _ITERATION)}
    nothing = Zeros(frozenset(), frozenset())
    _Folder(pullback, zero, readers).block(pullback.body, nothing, drop=True)


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
            elif isinstance(node, gast.Call) and not self._reads_only(node):
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

    def block(self, block: list[gast.stmt], zeros: Zeros, drop: bool) -> Zeros:
        """The names known zero after `block`, given those known zero before it; with
        `drop`, what adds known zeros goes."""
        index, emptied = 0, bool(block)
        while index < len(block):
            statement = block[index]
            if isinstance(statement, gast.Assign) and self._adds_zero(statement, zeros):
                if drop:
                    del block[index]
                    continue
            elif isinstance(statement, gast.Assign):
                zeros = self._assign(statement, zeros)
            elif isinstance(statement, gast.For):
                if self._dead(statement, zeros):
                    if drop:
                        del block[index]
                        continue
                else:
                    zeros = self._loop(statement, zeros, drop)
            elif isinstance(statement, gast.If):
                then = self.block(statement.body, zeros, drop)
                orelse = self.block(statement.orelse, zeros, drop)
                zeros = Zeros(then.held & orelse.held, then.linear & orelse.linear)
            elif type(statement) in (gast.While, gast.With):
                inner = zeros.without(_stored([statement]) | self._changed(statement))
                self.block(statement.body, inner, drop)
                zeros = inner
            elif not syntax.is_comment(statement):  # (a `def` or `try` is not looked into)
                zeros = zeros.without(_stored([statement]) | self._changed(statement))
            index += 1
        if emptied and not block:
            block.append(gast.Pass())
        return zeros

    def _assign(self, statement: gast.Assign, zeros: Zeros) -> Zeros:
        """The names known zero after an assignment that stays."""
        targets, value = statement.targets, statement.value
        stored = _stored(targets)
        after = zeros.without(stored | self._changed(statement))
        if len(targets) == 1 and isinstance(targets[0], gast.Name):
            name = targets[0].id
            if self._is_zero(value) or (isinstance(value, gast.Name) and value.id in zeros.held):
                return Zeros(after.held | {name}, after.linear | {name})  # the same zero
        reads = _loaded(value) & self.locals
        if reads & zeros.linear and reads <= zeros.linear | self.coefficients:
            # Linear in cotangents all zero (a pullback's call on them, say): zero, though
            # perhaps not a float or symbolic zero (an array of them, or NaN).
            return Zeros(after.held, after.linear | (stored - {"_"}))
        return after

    def _changed(self, statement: gast.stmt) -> frozenset[str]:
        """The names of the pullback's that `statement` may change in place: the root of
        an item it assigns, and what it passes to a call that may change its arguments."""
        changed: set[str] = set()
        for node in syntax.walk(statement):
            if isinstance(node, gast.Assign):
                changed |= _roots_changed(node.targets)
            elif isinstance(node, gast.AugAssign):
                changed |= _roots_changed([node.target]) | _stored([node.target])
            elif isinstance(node, gast.Call) and not self._reads_only(node):
                changed |= {n.id for a in (*node.args, *node.keywords) for n in _names(a)}
        return frozenset(changed & self.locals)

    def _loop(self, loop: gast.For, zeros: Zeros, drop: bool) -> Zeros:
        """The names known zero after a loop kept: those zero on entry that each iteration
        leaves zero (its body folded with them known zero at the start of each)."""
        if any(isinstance(n, _STOPS) for n in syntax.walk(loop)) or loop.orelse:
            inner = zeros.without(_stored([loop]) | self._changed(loop))
        else:
            inner = zeros.without(_stored([loop.target]))
            while True:
                end = self.block(loop.body, inner, drop=False)
                kept = Zeros(inner.held & end.held, inner.linear & end.linear)
                if kept == inner:
                    break
                inner = kept
        self.block(loop.body, inner, drop)
        return inner

    def _reads_only(self, call: gast.Call) -> bool:
        return isinstance(call.func, gast.Name) and call.func.id in self.readers

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

    def _adds_zero(self, statement: gast.Assign, zeros: Zeros) -> bool:
        """Whether `a = e`, `a` holding a zero, is arithmetic on known zeros and
        coefficients: `a` may keep its zero."""
        targets, value = statement.targets, statement.value
        if not (len(targets) == 1 and isinstance(targets[0], gast.Name)):
            return False
        if targets[0].id not in zeros.held or self._is_zero(value):
            return False
        if not all(isinstance(n, _ARITHMETIC) for n in syntax.walk(value)):
            return False
        return _loaded(value) & self.locals <= zeros.linear | self.coefficients

    def _dead(self, loop: gast.For, zeros: Zeros) -> bool:
        """Whether a loop only adds zeros: every cotangent it reads from before it is known
        zero on entry, and every one it assigns that is read outside it holds a zero."""
        if any(isinstance(n, _STOPS) for n in syntax.walk(loop)):
            return False
        reads = _loads(loop)
        outside = _uses(self.pullback) - _uses(loop)
        outside_reads = _loads(self.pullback) - reads
        assigned = _stored([loop])
        for name in assigned - zeros.held:
            # Read after the loop (it keeps what it holds), or perhaps carried into it.
            if outside_reads[name] or (outside[name] and reads[name] and name not in zeros.linear):
                return False
        return all(
            name in zeros.linear or name in self.coefficients or name not in self.locals
            for name in reads
            if name not in assigned
        )


class Zeros(NamedTuple):
    """What is known of the names at a point of a pullback: `held`, those holding a float
    or symbolic zero (an immutable one, which stays the right cotangent where the code
    that would add zeros to it goes); `linear`, those that are zero as linear functions of
    zeros (the held ones, and what is computed from them alone with coefficients)."""

    held: frozenset[str]
    linear: frozenset[str]

    def without(self, names: frozenset[str]) -> Zeros:
        return Zeros(self.held - names, self.linear - names)


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
