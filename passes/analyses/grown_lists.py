"""GrownLists: the appends the reverse rule may do in place, on a list nothing has read yet.

The normal form writes `items.append(v)` as `items = append(items, v)`, a new list one
longer (`srcad.primitives.append`): a rule that read the list before the append may keep
it for its pullback, and must see the list it was given. Over a loop of n appends that
copies O(n²) elements, and each append's pullback is a closure on the tape. Where nothing
reads the list until its last append, nothing can keep it either, so the reverse rule
appends in place (`items.append(v)`, as the function does) and its pullback takes the
element cotangents back off the end of the list's cotangent (`tangents.pop_element`),
with nothing on the tape.

An append is found in place where its list variable is a local of the function (not a
parameter, read by no nested function) bound once, by a list display, and otherwise only
by appends after it; and every other read of the variable (but `len(items)`) comes after
the display and after every append, in no loop around both an append and the read but
one whose every iteration makes the list anew before either (the display in its body, in
no `if`). The appended value is such a read too (`items.append(items)` keeps the list).
"""

from __future__ import annotations

from typing import Any

import gast

from srcad import primitives, syntax
from srcad.passes.analyses.statement_index import StatementIndex, Statements
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import Callees
from srcad.passes.normal_form import COMPOUND

_NESTED = (gast.FunctionDef, gast.Lambda)


class GrownLists(Analysis[set[gast.stmt]]):
    """The `items = append(items, v)` statements that may append in place (see the module).

    >>> from srcad.passes.testing import context_for
    >>> from srcad.passes.transforms.to_anf import ToANF
    >>> tree, ctx = context_for('''
    ... def f(x):
    ...     xs = []
    ...     ys = []
    ...     for i in range(3):
    ...         xs.append(x * i)
    ...         ys.append(x + sum(ys))
    ...     return sum(xs) + sum(ys)
    ... ''')
    >>> _ = ToANF.apply(tree, ctx)
    >>> sorted(s.targets[0].id for s in ctx.analysis(GrownLists, tree))
    ['xs']
    """

    requires = (Statements, Callees)

    def run(self, tree: gast.Module, ctx: Context) -> set[gast.stmt]:
        function = function_of(tree)
        index = ctx.analysis(Statements, tree)
        callees = ctx.analysis(Callees, tree).callees
        appends: dict[str, list[gast.Assign]] = {}
        for statement in index.statements:
            value = getattr(statement, "value", None)
            if (
                isinstance(statement, gast.Assign)
                and isinstance(value, gast.Call)
                and callees.get(value) is primitives.append
                and isinstance(statement.targets[0], gast.Name)
                and isinstance(value.args[0], gast.Name)
                and value.args[0].id == statement.targets[0].id
            ):
                appends.setdefault(statement.targets[0].id, []).append(statement)
        if not appends:
            return set()
        reads = _reads(function, index, set(appends), callees)
        found: set[gast.stmt] = set()
        for name, changes in appends.items():
            if _grown(name, changes, reads.get(name), index):
                found.update(changes)
        return found


Reads = list[tuple[int, gast.Name]]


def _reads(function: gast.FunctionDef, index: StatementIndex, names: set[str],
           callees: dict[gast.Call, Any]) -> dict[str, Reads | None]:  # fmt: skip
    """Where each of `names` is read: the position of the statement (a compound statement's
    own header: a loop's iterable, a test) and the name node; None for a name a nested
    function reads, which may read it at any time. `len(items)` is no read: it keeps
    nothing of the list."""
    reads: dict[str, Reads | None] = {name: [] for name in names}
    for position, statement in enumerate(index.statements):
        if type(statement) in COMPOUND and not isinstance(statement, _NESTED):
            parts = [getattr(statement, f) for f in ("target", "iter", "test") if
                     hasattr(statement, f)]  # fmt: skip
        else:
            parts = [statement]
        for part in parts:
            lengths = {id(n.args[0]) for n in syntax.walk(part) if isinstance(n, gast.Call)
                       and callees.get(n) is len and len(n.args) == 1}  # fmt: skip
            nested = {id(n) for f in syntax.walk(part) if isinstance(f, _NESTED)
                      for n in syntax.walk(f)}  # fmt: skip
            for node in syntax.walk(part):
                if not (isinstance(node, gast.Name) and node.id in names):
                    continue
                if id(node) in nested:
                    reads[node.id] = None
                elif id(node) in lengths:
                    continue
                elif isinstance(node.ctx, gast.Load) and reads[node.id] is not None:
                    reads[node.id].append((position, node))  # type: ignore[union-attr]
    return reads


def _grown(name: str, changes: list[gast.Assign],
           reads: Reads | None, index: StatementIndex) -> bool:  # fmt: skip
    """Whether the list `name` is grown only by `changes` (its appends) before anything
    reads it (see the module)."""
    if reads is None:
        return False
    defining = index.defining.get(name, [])
    displays = [s for s in defining if s not in changes]
    if len(displays) != 1 or index.is_parameter(name) or (-1, None) in index.definitions[name]:
        return False
    display = displays[0]
    if not (
        isinstance(display, gast.Assign)
        and isinstance(display.value, gast.List)
        and not any(isinstance(e, gast.Starred) for e in display.value.elts)
    ):
        return False
    made = index.position(display)
    receivers = {id(change.value.args[0]) for change in changes}
    at = [index.position(change) for change in changes]
    anew = _made_anew(display, index)
    for position, node in reads:
        if id(node) in receivers:
            continue
        if position <= made:
            return False
        for change in at:
            if change <= made or position <= change:
                return False
            fresh = anew is not None and _within(anew, change) and _within(anew, position)
            for span in index.loop_spans.values():
                # A later iteration appends to the list this read saw, unless each
                # iteration of the loop that makes the list makes a new one first.
                around = _within(span, change) and _within(span, position)
                if around and not (_within(span, made) and fresh):
                    return False
    return all(change > made for change in at)


def _made_anew(display: gast.stmt, index: StatementIndex) -> tuple[int, int] | None:
    """The span of the loop whose every iteration runs `display` (in its body, in no `if`
    of it); None where there is none."""
    loop = index.loop_around[id(display)]
    if loop is None:
        return None
    position = index.position(loop)
    if index.branches[index.position(display)] != index.branches[position]:
        return None
    return index.loop_spans[position]


def _within(span: tuple[int, int], position: int) -> bool:
    """Whether a loop with this span holds the statement at `position` in its body."""
    return span[0] < position <= span[1]
