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
from srcad.passes.normal_form import walk_statements
from srcad.passes.transforms.simplify import only_reads
from srcad.tangents import ZeroTangent

_ARITHMETIC = frozenset([gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp])
_ITERATION = (reversed, range, len)
_STOPS = frozenset([gast.Break, gast.Continue, gast.Return, gast.Raise, gast.Assert, gast.Try])


def fold_zero_cotangents(pullback: gast.FunctionDef, runtime: RuntimeNames) -> None:
    """Drop from `pullback` (in place) what adds known zeros (see the module). `runtime`:
    the names emitted code reaches srcad's objects and builtins by."""
    # Zeros are bound at run time in loops (and branches) alone (`Cotangents.region`): with
    # no loop, or no zero bound, there is nothing to fold.
    zero = runtime.name_of(ZeroTangent)
    loops = bound = False
    for statement in walk_statements(pullback.body):
        loops = loops or isinstance(statement, gast.For)
        bound = bound or (isinstance(statement, gast.Assign) and _is_zero(statement.value, zero))
    if loops and bound:
        nothing = Zeros(frozenset(), frozenset())
        _Folder(pullback, zero, runtime).block(pullback.body, nothing, drop=True)


class _Folder:
    def __init__(self, pullback: gast.FunctionDef, zero: str | None, runtime: RuntimeNames
                 ) -> None:  # fmt: skip
        self.pullback, self.zero, self.runtime = pullback, zero, runtime
        self.readers: dict[str, bool] = {}  # name -> whether it leaves its arguments as they are
        self.parameters = {a.id for a in pullback.args.args}
        # What each node reads and assigns, each node walked once: a loop's, as it was
        # before any code in it went (what it still does is less), beside the whole
        # pullback's then.
        self.known: dict[int, _Facts] = {}
        self.whole = self._facts(pullback)
        self.locals = self.parameters | self.whole.stored
        self.coefficients = self._coefficients()

    def _coefficients(self) -> set[str]:
        """The pullback's own names that no cotangent reaches: each assignment of one reads
        only names the pullback closes over (primal values, tapes) and other such names,
        and no call may change it in place (a buffer accumulated into is a cotangent)."""
        sources: dict[str, list[set[str]]] = {}  # name -> what each assignment reads
        for statement in walk_statements(self.pullback.body):
            if isinstance(statement, gast.Assign):
                read, bound = self._facts(statement.value), self._facts(statement).stored
            elif isinstance(statement, gast.For):
                read, bound = self._facts(statement.iter), self._facts(statement.target).stored
            else:
                continue
            for name in bound:
                sources.setdefault(name, []).append(read.loads.keys() & self.locals)
        found = set(sources) - self.parameters - self.whole.mutated
        while True:
            dropped = {name for name in found if any(r - found for r in sources[name])}
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
                inner = zeros.without(self._touched(statement))
                self.block(statement.body, inner, drop)
                zeros = inner
            elif not syntax.is_comment(statement):  # (a `def` or `try` is not looked into)
                zeros = zeros.without(self._touched(statement))
            index += 1
        if emptied and not block:
            block.append(gast.Pass())
        return zeros

    def _assign(self, statement: gast.Assign, zeros: Zeros) -> Zeros:
        """The names known zero after an assignment that stays."""
        targets, value = statement.targets, statement.value
        facts = self._facts(statement)
        after = zeros.without(self._touched(statement))
        if len(targets) == 1 and isinstance(targets[0], gast.Name):
            name = targets[0].id
            if self._is_zero(value) or (isinstance(value, gast.Name) and value.id in zeros.held):
                return Zeros(after.held | {name}, after.linear | {name})  # the same zero
        reads = self._facts(value).loads.keys() & self.locals
        if reads & zeros.linear and reads <= zeros.linear | self.coefficients:
            # Linear in cotangents all zero (a pullback's call on them, say): zero, though
            # perhaps not a float or symbolic zero (an array of them, or NaN).
            return Zeros(after.held, after.linear | (facts.stored - {"_"}))
        return after

    def _facts(self, node: gast.AST) -> _Facts:
        """What `node` reads and assigns (kept): see `_Facts`."""
        facts = self.known.get(id(node))
        if facts is not None:
            return facts
        loads: Counter[str] = Counter()
        uses: Counter[str] = Counter()
        stored: set[str] = set()
        mutated: set[str] = set()
        stops = False
        arithmetic = True
        for part in syntax.walk(node):
            kind = part.__class__
            if kind is gast.Name:
                name = part.id
                uses[name] += 1
                context = part.ctx.__class__
                if context is gast.Load:
                    loads[name] += 1
                elif context is gast.Store or context is gast.Del:
                    stored.add(name)
                continue
            if kind is gast.Assign:
                mutated |= _roots_changed(part.targets)
            elif kind is gast.AugAssign:
                mutated |= _roots_changed([part.target])
            elif kind is gast.Call and not self._reads_only(part):
                arguments = (*part.args, *part.keywords)
                mutated |= {n.id for a in arguments for n in _names(a)}
            stops = stops or kind in _STOPS
            arithmetic = arithmetic and kind in _ARITHMETIC
        facts = _Facts(frozenset(stored), loads, uses, frozenset(mutated), stops, arithmetic)
        self.known[id(node)] = facts
        return facts

    def _touched(self, node: gast.AST) -> frozenset[str]:
        """The pullback's names `node` binds or may change in place."""
        facts = self._facts(node)
        return (facts.stored | facts.mutated) & self.locals

    def _loop(self, loop: gast.For, zeros: Zeros, drop: bool) -> Zeros:
        """The names known zero after a loop kept: those zero on entry that each iteration
        leaves zero (its body folded with them known zero at the start of each)."""
        if self._facts(loop).stops or loop.orelse:
            inner = zeros.without(self._touched(loop))
        else:
            inner = zeros.without(self._facts(loop.target).stored)
            while inner.linear & self._touched(loop):  # else each iteration keeps them
                end = self.block(loop.body, inner, drop=False)
                kept = Zeros(inner.held & end.held, inner.linear & end.linear)
                if kept == inner:
                    break
                inner = kept
        self.block(loop.body, inner, drop)
        return inner

    def _reads_only(self, call: gast.Call) -> bool:
        """Whether `call` leaves its arguments as they are: a call of one of srcad's
        functions that only read theirs, or of a builtin that iterates (a tape)."""
        if not isinstance(call.func, gast.Name):
            return False
        name = call.func.id
        known = self.readers.get(name)
        if known is None:
            value = self.runtime.get(name)
            known = self.readers[name] = value is not None and (
                only_reads(value) or any(value is f for f in _ITERATION)
            )
        return known

    def _is_zero(self, value: gast.expr) -> bool:
        return _is_zero(value, self.zero)

    def _adds_zero(self, statement: gast.Assign, zeros: Zeros) -> bool:
        """Whether `a = e`, `a` holding a zero, is arithmetic on known zeros and
        coefficients: `a` may keep its zero."""
        targets, value = statement.targets, statement.value
        if not (len(targets) == 1 and isinstance(targets[0], gast.Name)):
            return False
        if targets[0].id not in zeros.held or self._is_zero(value):
            return False
        facts = self._facts(value)
        return facts.arithmetic and facts.loads.keys() & self.locals <= zeros.linear | (
            self.coefficients
        )

    def _dead(self, loop: gast.For, zeros: Zeros) -> bool:
        """Whether a loop only adds zeros: every cotangent it reads from before it is known
        zero on entry, and every one it assigns that is read outside it holds a zero."""
        facts = self._facts(loop)
        if facts.stops:
            return False
        reads = facts.loads
        outside = self.whole.uses - facts.uses
        outside_reads = self.whole.loads - reads
        assigned = facts.stored
        for name in assigned - zeros.held:
            # Read after the loop (it keeps what it holds), or perhaps carried into it.
            if outside_reads[name] or (outside[name] and reads[name] and name not in zeros.linear):
                return False
        return all(
            name in zeros.linear or name in self.coefficients or name not in self.locals
            for name in reads
            if name not in assigned
        )


def _is_zero(value: gast.expr, zero: str | None) -> bool:
    """Whether `value` is the float zero or a call of `zero` (the symbolic zero's name)."""
    if isinstance(value, gast.Constant):
        return type(value.value) is float and value.value == 0.0
    return (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Name)
        and value.func.id == zero
        and not value.args
        and not value.keywords
    )


class _Facts(NamedTuple):
    """What a node of a pullback reads and assigns: `stored`, the names it binds; `loads`
    and `uses`, how many times it reads each name, and reads or binds it; `mutated`, the
    names it may change in place (the root of an item it assigns, what it passes to a call
    that may change its arguments); `stops`, whether it may leave a loop early (or raise);
    `arithmetic`, whether it is names and constants under operators alone."""

    stored: frozenset[str]
    loads: Counter[str]
    uses: Counter[str]
    mutated: frozenset[str]
    stops: bool
    arithmetic: bool


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


def _roots_changed(targets: list[gast.expr]) -> set[str]:
    """The names assigning to `targets` changes in place (`x` of `x[i] = v`)."""
    roots = set()
    for target in targets:
        if target.__class__ is gast.Name:
            continue
        for node in syntax.walk(target):
            if isinstance(node, gast.Subscript | gast.Attribute):
                root = node.value
                while isinstance(root, gast.Subscript | gast.Attribute):
                    root = root.value
                if isinstance(root, gast.Name):
                    roots.add(root.id)
    return roots
