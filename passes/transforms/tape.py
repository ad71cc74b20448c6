"""The tape of a loop: what each iteration records for the pullback, and how the pullback
reads the records back, last first.

ReverseAD decides what an iteration keeps (`Loop.names`) and writes the reverse of each
way out of it; this module is the tape's own vocabulary: the records appended where an
iteration ends (`record_exit`), the trimming of records the pullback does not need
(`trim_records`), and the loop of the pullback that walks the tape backwards
(`read_back`).

A record is the values the iteration kept, as they are when one value and one exit, or a
tuple; with several exits its first element is the exit's id, which the pullback tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gast

from srcad import syntax
from srcad.passes.analyses.statement_index import StatementIndex
from srcad.passes.rule_calls import assign, call, constant, names_tuple
from srcad.syntax import LOAD, STORE, load, make, store

Path = list[tuple[list[gast.stmt], int]]  # (block, index) pairs, outermost first
# How a pullback computes a value of a loop's iteration again: an expression, and the
# values of the iteration it reads (the others are the same in every pass through the loop).
Recipe = tuple[gast.expr, list[str]]


@dataclass(slots=True)
class Exit:
    """One way out of a loop iteration: the end of the body, a `continue`, a `break` or a
    `return`; the record appended there names what the iteration kept."""

    path: Path  # from the loop body to the jump (empty for the end of the body)
    names: list[str]
    append: gast.Expr | None = None  # the statement appending the record to the tape


@dataclass(slots=True)
class Loop:
    """A loop whose iterations keep records on a tape for the pullback."""

    statement: gast.For | gast.While
    tape: str
    exits: list[Exit] = field(default_factory=list)
    exit_count: int = 0  # how many exits the body has; records carry an id when more than one
    names: list[str] = field(default_factory=list)  # what the current iteration has kept
    items: str | None = None  # the list an active iterable was turned into
    items_pullback: str | None = None
    outermost: bool = True  # in no other loop (so its pullback is written once)
    trimmed: bool = False  # whether `trim_records` left records off its tape
    unread: list[str] = field(default_factory=list)  # values `trim_records` left off every record


def exit_count(
    statement: gast.For | gast.While, index: StatementIndex, falls: Callable[[Any], bool]
) -> int:
    """Exits of an iteration: the end of the body (where it `falls` through), each `break`
    and `continue` of this loop (none in a loop inside it), and each `return` anywhere
    inside it (but in a nested function)."""
    count = 1 if falls(statement.body) else 0
    for inner in index.nested(statement.body):
        if isinstance(inner, gast.Return) or (
            isinstance(inner, gast.Break | gast.Continue)
            and index.loop_around[id(inner)] is statement
        ):
            count += 1
    return count


def items_taken(loop: Loop, function: str, iterable: gast.expr) -> gast.stmt:
    """The statement before a loop over an active iterable taking its items (`loop.items`):
    the items and the pullback (`loop.items_pullback`) of the rule `function` names; or,
    for a list the function made (no pullback: see `items_cotangent`), the items alone."""
    assert loop.items is not None
    if loop.items_pullback is None:
        return assign(store(loop.items), call(function, [iterable]))
    pair = names_tuple([loop.items, loop.items_pullback], STORE)
    return assign(pair, call(function, [iterable]))


def items_cotangent(loop: Loop, items_bar: str, target: gast.expr, function: str) -> gast.stmt:
    """The statement after the pullback's walk assigning to `target` the iterable's
    cotangent from its items' (`items_bar`), by the function named `function`: the items'
    pullback (`loop.items_pullback`), whose result pairs it with the iterable's own; for a
    list the function made, `list_cotangent` (`Tangent(list, *items_bar)`: what
    `iterate_rrule`'s pullback gives a list, without the calls of the rule and of its
    pullback)."""
    if loop.items_pullback is None:
        return assign(target, call(function, [load(items_bar)]))
    pair = make(gast.Tuple, elts=[store("_"), target], ctx=STORE)
    return assign(pair, call(function, [load(items_bar)]))


def record_target(names: list[str], restored: set[gast.expr]) -> gast.expr:
    """Where the pullback unpacks a tape record of `names` (no exit id); it goes into
    `restored` (see `read_back`)."""
    target = store(names[0]) if len(names) == 1 else names_tuple(names, STORE)
    restored.add(target)
    return target


def record_exit(loop: Loop, path: Path) -> gast.Expr:
    """The statement appending the current iteration's record to the loop's tape, where
    the iteration leaves by `path` (empty: the end of its body)."""
    exit_ = Exit(list(path), list(loop.names))
    loop.exits.append(exit_)
    record = _record(loop, len(loop.exits) - 1)
    append = make(gast.Attribute, value=load(loop.tape), attr="append", ctx=LOAD)
    exit_.append = make(gast.Expr, value=make(gast.Call, func=append, args=[record], keywords=[]))
    return exit_.append


def _record(loop: Loop, number: int) -> gast.expr:
    """What exit `number` appends: the values it keeps, after its id where the loop has
    several exits. One value is recorded as it is; several, or an id and values, as a
    tuple."""
    elements: list[gast.expr] = [load(n) for n in loop.exits[number].names]
    if loop.exit_count > 1:
        elements.insert(0, constant(number))
    single = len(elements) == 1 and loop.exit_count == 1
    return elements[0] if single else make(gast.Tuple, elts=elements, ctx=LOAD)


def trim_records(
    loop: Loop, codes: dict[int, list[gast.stmt]], recipes: dict[str, Recipe]
) -> list[gast.Expr]:
    """Keep on the tape only what the pullback needs to tell iterations apart; the
    appends the forward sweep no longer makes:

    - a value the exit's reverse (`codes`, by exit) does not read is not kept (the
      derivatives that read it were written otherwise, `cos(E)` read from the primal's
      `cos_E`; or the exit's reverse is that of statements that do not read it);
    - exits that keep nothing and whose reverse does nothing (a `while` loop's last
      test, say) record nothing: they go from `codes`, and their appends are returned;
    - exits keeping the same names with the same reverse share one exit id;
    - where one id is left, records lose it: they are the values kept; and where the
      values computed again by their `recipes` (arithmetic on the others and on values
      no pass through the loop changes: `a_over_x = a / x_2`) leave one value at most,
      the pullback computes those again first thing in each iteration, and records hold
      the one value as it is (a tuple made and unpacked per iteration costs more than
      one operation on floats).

    Only for a loop whose records one pullback reads, once, and by position in none."""
    assert not loop.trimmed, "a trimmed tape read twice"
    loop.trimmed = True
    dropped: list[str] = []
    for number, exit_ in enumerate(loop.exits):
        read = {
            node.id
            for statement in codes[number]
            for node in syntax.walk(statement)
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load)
        }
        if all(name in read for name in exit_.names):
            continue
        dropped += [name for name in exit_.names if name not in read]
        exit_.names = [name for name in exit_.names if name in read]
        assert exit_.append is not None and isinstance(exit_.append.value, gast.Call)
        exit_.append.value.args = [_record(loop, number)]
    kept = {name for exit_ in loop.exits for name in exit_.names}
    loop.unread = list(dict.fromkeys(name for name in dropped if name not in kept))
    unrecorded: list[gast.Expr] = []
    members: dict[int, list[Exit]] = {}  # by the exit whose id their records carry
    for number, exit_ in enumerate(loop.exits):
        assert exit_.append is not None
        if not (exit_.names or codes[number]):
            unrecorded.append(exit_.append)
            del codes[number]
            continue
        alike = (
            other
            for other in members
            if loop.exits[other].names == exit_.names and _same_code(codes[other], codes[number])
        )
        same = next(alike, number)
        members.setdefault(same, []).append(exit_)
        if same != number:
            del codes[number]
            record = exit_.append.value.args[0]
            assert isinstance(record, gast.Tuple)
            record.elts[0] = constant(same)
    if len(members) == 1:
        ((number, group),) = members.items()
        names = _recomputed(group[0].names, recipes, codes[number])
        for exit_ in group:
            exit_.names = names
            assert exit_.append is not None and isinstance(exit_.append.value, gast.Call)
            if len(names) == 1:
                record = load(names[0])
            else:
                record = names_tuple(names, LOAD) if names else constant(None)
            exit_.append.value.args = [record]
    return unrecorded


def read_back(
    loop: Loop,
    codes: dict[int, list[gast.stmt]],
    record: str,
    index: str | None,
    builtin: Callable[[Any], str],
    restored: set[gast.expr],
) -> gast.For:
    """The pullback's loop over the tape, last record first, running the reverse of the
    exit each record names (`codes`, by exit; changed in place). `index`: the name of
    each record's position, where the reverse needs it; else the records are iterated.
    `builtin` names a builtin the way emitted code reaches it. Each target that gives
    names back the values the tape kept of them goes into `restored` (`Context.restored`):
    an analysis of the emitted code learns nothing new from it (`ValueKinds`)."""
    several = len(codes) > 1
    iteration: list[gast.stmt] = []
    for number, code in codes.items():
        names = loop.exits[number].names
        if names and several:  # the record is the exit's id, then its values
            fields = [store("_"), *(store(n) for n in names)]
            unpack = make(gast.Tuple, elts=fields, ctx=STORE)
            restored.add(unpack)
            code.insert(0, assign(unpack, load(record)))
        if several:
            test = make(
                gast.Compare,
                left=make(gast.Subscript, value=load(record), slice=constant(0), ctx=LOAD),
                ops=[make(gast.Eq)],
                comparators=[constant(number)],
            )
            iteration = [make(gast.If, test=test, body=code or [make(gast.Pass)], orelse=iteration)]
        else:
            iteration = code
    if index is not None:
        read = make(gast.Subscript, value=load(loop.tape), slice=load(index), ctx=LOAD)
        first: list[gast.stmt] = []
        if several:
            first = [assign(store(record), read)]
        elif loop.exits[0].names:
            first = [assign(record_target(loop.exits[0].names, restored), read)]
        last = make(
            gast.BinOp,
            left=call(builtin(len), [load(loop.tape)]),
            op=make(gast.Sub),
            right=constant(1),
        )
        down = call(builtin(range), [last, constant(-1), constant(-1)])
        return make(
            gast.For,
            target=store(index),
            iter=down,
            body=[*first, *iteration] or [make(gast.Pass)],
            orelse=[],
            type_comment=None,
        )
    names = [] if several else loop.exits[next(iter(codes))].names
    each = record_target(names, restored) if names else store(record)
    return make(
        gast.For,
        target=each,
        iter=call(builtin(reversed), [load(loop.tape)]),
        body=iteration or [make(gast.Pass)],
        orelse=[],
        type_comment=None,
    )


def _recomputed(names: list[str], recipes: dict[str, Recipe], code: list[gast.stmt]) -> list[str]:
    """The values a record keeps where those that `recipes` compute again from the others
    are left out, if that leaves one at most (else `names`); the statements computing
    them go first in the reverse `code`."""
    again = [n for n in names if n in recipes and set(recipes[n][1]) <= set(names)]
    again = [n for n in again if not set(recipes[n][1]) & set(again)]  # from kept values
    kept = [n for n in names if n not in again]
    if not again or len(kept) > 1:
        return names
    code[:0] = [assign(store(n), syntax.copy_tree(recipes[n][0])) for n in again]
    return kept


def remove(body: list[gast.stmt], statements: set[int]) -> None:
    """Take the statements whose ids are in `statements` out of `body`, at any depth (a
    block left empty gets `pass`)."""
    body[:] = [s for s in body if id(s) not in statements]
    for statement in body:
        for block in ("body", "orelse"):
            inner = getattr(statement, block, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                remove(inner, statements)
                if not inner:
                    inner.append(make(gast.Pass))


def _same_code(one: list[gast.stmt], other: list[gast.stmt]) -> bool:
    return len(one) == len(other) and all(
        gast.dump(a) == gast.dump(b) for a, b in zip(one, other, strict=True)
    )
