"""A lazy iterator read across statements, as the list of its items and a position: for

    it = iter(xs)
    first = next(it)
    for v in it:
        ...

srcad compiles

    it = list(xs)
    it_at = 0
    if it_at == len(it):
        raise StopIteration
    first = it[it_at]
    it_at += 1
    for v in it[it_at:]:
        it_at += 1
        ...

Python gives an iterator's items one at a time, when asked; srcad's normal form computes
the list of them where the iterator is made (`OneShotIterators`, E103, proves when that
is Python's value for a single read). Read several times, each read takes the items from
the position the reads before it left, and the position advances as Python's iterator
does: `next(it)` one item (StopIteration where none is left, as Python raises it;
`next(it, default)` the default), a `for` loop one per pass (so a `break` leaves it after
the item the pass read), a reader of the rest (`list`, `tuple`, `sum`, `sorted`, `max`,
`min`) and `zip(it, it)` (pairs of the rest, as the loop or the reader ends it) all of
it. The list gives Python's items where nothing they are computed from changes after the
iterator is made while it may still be read: the values its arguments hold are changed
in place nowhere after it (no item or attribute written, no `+=`, no in-place method, in
a loop around it either), and the names a generator expression (or a nested function it
maps) reads as it goes are not rebound either.

Taken where the iterator is made by a statement `name = ...` of the function's own scope
(a generator expression; `iter`, `zip`, `map`, `filter`, `enumerate` or `reversed`, the
builtins; a call of a module's generator function), which is the name's only binding,
and every read of the name is one of the forms above: `next(name)` or
`next(name, default)` in the value of an assignment, a `return` or an expression
statement (taken out before it, in their order, where it is not the whole value), outside
the parts of an expression that may not be evaluated (`a if c else b`, `and`, `or`, a
chain's later comparisons) and any comprehension's element; `for T in name:` whose body
and `else` do not read it; a reader of the rest (or a list, set or dict comprehension's
first iterable, or a generator expression's that a reader reads) in such a value, the
statement's only read of the name; and `zip(name, name)` as a `for` loop's iterable (no
`break` in it) or a reader's argument; and it is read other than once, at once, in the
statement right after. Anything else is left as it is, for `OneShotIterators` to refuse
(E103)."""

from __future__ import annotations

import builtins
import copy
import functools
import inspect

import gast

from srcad import syntax
from srcad.source import FunctionSource
from srcad.syntax import LOAD, load, make, store

_LAZY = frozenset({"iter", "zip", "map", "filter", "enumerate", "reversed"})
_READERS = frozenset({"list", "tuple", "sum", "sorted", "max", "min"})
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.ListComp,
           gast.SetComp, gast.DictComp, gast.GeneratorExp)  # fmt: skip
_LOOPS = (gast.For, gast.While)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# Methods that may change their receiver in place (`list.append` too).
_CHANGING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                       "update", "setdefault", "popitem", "add", "discard", "fill", "put",
                       "resize", "itemset", "partition", "setfield", "byteswap", "setflags",
                       "shuffle", "__setitem__", "__delitem__", "__iadd__"})  # fmt: skip


def lower_iterator_positions(function: gast.FunctionDef, source: FunctionSource) -> None:
    """Rewrite, in place, each lazy iterator of `function` read across statements as the
    list of its items and a position (see the module's docstring)."""
    lowering = _Lowering(function, source)
    made = [n for n in _own_nodes(function) if lowering.makes_iterator(n)]
    if not made:
        return
    for statement in made:
        lowering.lower(statement)


class _Lowering:
    def __init__(self, function: gast.FunctionDef, source: FunctionSource) -> None:
        self.function = function
        self.source = source
        self.parents: dict[gast.AST, gast.AST] = {}

    @functools.cached_property
    def bound(self) -> set[str]:
        """The names the function binds, in any scope of it (found when first asked)."""
        nodes = list(syntax.walk(self.function))
        stored = {
            n.id for n in nodes if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
        }
        return stored | {n.name for n in nodes if isinstance(n, gast.FunctionDef)}

    @functools.cached_property
    def taken(self) -> set[str]:
        return self.bound | {n.id for n in syntax.walk(self.function) if isinstance(n, gast.Name)}

    def builtin(self, node: gast.expr, names: frozenset[str]) -> str | None:
        """The builtin of `names` that `node` names, unshadowed, if it names one."""
        if not isinstance(node, gast.Name) or node.id not in names:
            return None
        if node.id in self.bound or node.id in self.source.globals:
            return None
        if node.id in self.source.closure:
            return None
        return node.id if hasattr(builtins, node.id) else None

    def makes_iterator(self, statement: gast.AST) -> bool:
        """Whether `statement` is `name = <a lazy iterator>`."""
        if not (
            isinstance(statement, gast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)
        ):
            return False
        value = statement.value
        if isinstance(value, gast.GeneratorExp):
            return True
        if not isinstance(value, gast.Call):
            return False
        func = value.func
        if not isinstance(func, gast.Name):
            return False
        if func.id in _LAZY and self.builtin(func, _LAZY) is not None:
            return func.id != "iter" or (len(value.args) == 1 and not value.keywords)
        generator = inspect.isgeneratorfunction(self.source.globals.get(func.id))
        return generator and func.id not in self.bound

    def lower(self, statement: gast.Assign) -> None:
        target = statement.targets[0]
        assert isinstance(target, gast.Name)
        name = target.id
        self.parents = {c: n for n in syntax.walk(self.function) for c in syntax.children(n)}
        uses = self._uses(name, target)
        if uses is None or not uses:
            return
        kind, first, _ = uses[0]
        if len(uses) == 1 and kind in ("for", "read") and self._right_after(statement, first):
            return  # read once, at once: `OneShotIterators` takes it as it is
        if not self._unchanged(statement):
            return
        at = _fresh(f"{name}_at", self.taken)
        value = statement.value
        if isinstance(value, gast.Call) and self.builtin(value.func, frozenset({"iter"})):
            value = value.args[0]
        statement.value = syntax.located(_call("list", [value]), value)
        _insert(self.parents, statement, [_assign(at, make(gast.Constant, value=0, kind=None))],
                after=True)  # fmt: skip
        for kind, use, call in uses:
            self._lower_use(kind, use, call, name, at)

    def _uses(
        self, name: str, binding: gast.Name
    ) -> list[tuple[str, gast.stmt, gast.AST | None]] | None:
        """Each read of `name`: its form, its statement and the call reading it; None where
        one is of no form taken (or the name is bound or declared elsewhere)."""
        uses: list[tuple[str, gast.stmt, gast.AST | None]] = []
        own = set(_own_nodes(self.function))
        for node in syntax.walk(self.function):
            if isinstance(node, gast.Global | gast.Nonlocal) and name in node.names:
                return None
            if not isinstance(node, gast.Name) or node.id != name or node is binding:
                continue
            if not isinstance(node.ctx, gast.Load) or node not in own:
                return None
            use = self._use(node, name)
            if use is None:
                return None
            if not any(u[2] is use[2] and u[2] is not None for u in uses):
                uses.append(use)
        for kind, statement, _ in uses:  # (a statement's next calls run in their order)
            alone = kind in ("read", "zip") and not isinstance(statement, gast.For)
            if alone and sum(u[1] is statement for u in uses) > 1:
                return None
        return uses

    def _right_after(self, statement: gast.stmt, use: gast.stmt) -> bool:
        block, index = _place(self.parents, statement)
        return index + 1 < len(block) and block[index + 1] is use

    def _statement_of(self, call: gast.expr, name: str) -> gast.stmt | None:
        """The statement whose value `call` is evaluated in, once, each time it runs, and
        after what comes before it in the source: an assignment's value, a `return`'s, or
        an expression statement; outside any conditional part of an expression and any
        other read of `name`."""
        node: gast.AST = call
        while True:
            parent = self.parents[node]
            if isinstance(parent, gast.comprehension):
                made = self.parents[parent]  # (its first iterable is evaluated at once)
                if parent.iter is not node or made.generators[0] is not parent:
                    return None
                node, parent = made, self.parents[made]
            if isinstance(parent, gast.Assign | gast.AugAssign | gast.Return | gast.Expr):
                return parent if parent.value is node else None
            if isinstance(parent, (gast.IfExp, gast.BoolOp, gast.Dict, gast.Set, *_SCOPES)):
                return None
            if isinstance(parent, gast.Compare) and node not in (
                parent.left,
                *parent.comparators[:1],
            ):
                return None
            if isinstance(parent, gast.Call) and any(
                isinstance(a, gast.Name) and a.id == name for a in parent.args
            ):
                return None
            if not isinstance(parent, gast.expr | gast.keyword):
                return None
            node = parent

    def _use(self, node: gast.Name, name: str) -> tuple[str, gast.stmt, gast.AST | None] | None:
        parent = self.parents[node]
        if isinstance(parent, gast.comprehension) and parent.iter is node:
            return self._comprehension(parent, name)
        if isinstance(parent, gast.For) and parent.iter is node:
            inner = [n for part in (*parent.body, *parent.orelse) for n in syntax.walk(part)]
            if any(isinstance(n, gast.Name) and n.id == name for n in inner):
                return None
            return "for", parent, None
        if not isinstance(parent, gast.Call) or parent.keywords:
            return None
        if any(isinstance(a, gast.Starred) for a in parent.args):
            return None
        holder = self.parents[parent]
        if self.builtin(parent.func, frozenset({"next"})) and parent.args[0] is node:
            if len(parent.args) > 2:
                return None
            if _whole_value(holder, parent):
                return "next", holder, parent
            statement = self._statement_of(parent, name)
            return ("next_inside", statement, parent) if statement is not None else None
        if self.builtin(parent.func, _READERS) and parent.args == [node]:
            statement = self._statement_of(parent, name)
            return ("read", statement, parent) if statement is not None else None
        zipped = self.builtin(parent.func, frozenset({"zip"})) and len(parent.args) >= 2
        if not zipped or not all(isinstance(a, gast.Name) and a.id == name for a in parent.args):
            return None
        if isinstance(holder, gast.For) and holder.iter is parent:
            inner = [n for part in holder.body for n in syntax.walk(part)]
            if any(isinstance(n, gast.Break) for n in inner):
                return None  # (the position where it stops: not the end)
            if any(isinstance(n, gast.Name) and n.id == name for n in inner):
                return None
            if any(isinstance(n, gast.Name) and n.id == name for s in holder.orelse
                   for n in syntax.walk(s)):  # fmt: skip
                return None
            return "zip", holder, parent
        read = isinstance(holder, gast.Call) and self.builtin(holder.func, _READERS) is not None
        if read and holder.args == [parent] and not holder.keywords:
            statement = self._statement_of(holder, name)
            return ("zip", statement, parent) if statement is not None else None
        return None

    def _comprehension(
        self, generator: gast.comprehension, name: str
    ) -> tuple[str, gast.stmt, gast.AST | None] | None:
        """A comprehension's first iterable, read through at once: a list, set or dict
        comprehension's, or a generator expression's that a reader of the rest reads."""
        made = self.parents[generator]
        if made.generators[0] is not generator:
            return None
        if any(isinstance(n, gast.Name) and n.id == name for n in syntax.walk(made)
               if n is not generator.iter):  # fmt: skip
            return None
        whole: gast.AST = made
        if isinstance(made, gast.GeneratorExp):
            reader = self.parents[made]
            if not (
                isinstance(reader, gast.Call)
                and self.builtin(reader.func, _READERS)
                and reader.args == [made]
                and not reader.keywords
            ):
                return None
            whole = reader
        assert isinstance(whole, gast.expr)
        statement = self._statement_of(whole, name)
        return ("comprehension", statement, generator) if statement is not None else None

    def _unchanged(self, statement: gast.Assign) -> bool:
        """Whether nothing the iterator `statement` makes is computed from changes after it
        while it may still be read (see the module's docstring)."""
        made, late = self._names_read(statement.value)
        before = self._before(statement)
        return not any(
            _changes(node, made | late, late)
            for node in syntax.walk(self.function)
            if node not in before
        )

    def _names_read(self, value: gast.expr) -> tuple[set[str], set[str]]:
        """The names whose values the iterator takes when it is made, and those it reads as
        it goes (a generator expression's after its first iterable; a nested function's
        or lambda's it names)."""
        if isinstance(value, gast.GeneratorExp):
            made = _names(value.generators[0].iter)
            rest = [value.elt, *value.generators[0].ifs, *value.generators[1:]]
            late = {n for part in rest for n in _names(part)}
            late -= {n for g in value.generators for n in _names(g.target)}
        else:
            made, late = _names(value), set()
        for node in syntax.walk(self.function):
            defines = None
            if isinstance(node, gast.FunctionDef) and node is not self.function:
                defines = node.name
            elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda):
                defines = getattr(node.targets[0], "id", None)
            if defines is not None and defines in made | late:
                late |= _names(node)
        return made, late

    def _before(self, statement: gast.stmt) -> set[gast.AST]:
        """The nodes of the statements that surely run before `statement` each time it runs
        and not after it: those before it in its block and the blocks around it, up to
        the first loop around it (whose later passes run them again)."""
        found: set[gast.AST] = set()
        node: gast.AST = statement
        inside_loop = False
        while node is not self.function:
            parent = self.parents[node]
            if isinstance(parent, _LOOPS):
                inside_loop = True
            elif not inside_loop:
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(parent, field, None)
                    if isinstance(block, list) and any(s is node for s in block):
                        index = next(i for i, s in enumerate(block) if s is node)
                        found.update(n for s in block[:index] for n in syntax.walk(s))
            node = parent
        return found

    def _lower_use(
        self, kind: str, statement: gast.stmt, call: gast.AST | None, name: str, at: str
    ) -> None:
        item = _subscript(name, load(at))
        advance = make(gast.AugAssign, target=store(at), op=gast.Add(),
                       value=make(gast.Constant, value=1, kind=None))  # fmt: skip
        rest = _subscript(name, make(gast.Slice, lower=load(at), upper=None, step=None))
        at_end = _assign(at, _call("len", [load(name)]))
        if kind == "for":
            assert isinstance(statement, gast.For)
            statement.iter = syntax.located(rest, statement.iter)
            statement.body.insert(0, syntax.located(advance, statement))
            return
        assert call is not None
        if kind == "comprehension":
            assert isinstance(call, gast.comprehension)
            call.iter = syntax.located(rest, call.iter)
            if not isinstance(statement, gast.Return):
                _insert(self.parents, statement, [at_end], after=True)
            return
        assert isinstance(call, gast.Call)
        if kind == "read":
            call.args = [syntax.located(rest, call)]
            if not isinstance(statement, gast.Return):
                _insert(self.parents, statement, [at_end], after=True)
            return
        if kind == "next_inside":
            item = _fresh(f"{name}_item", self.taken)
            lowered = self._next(call, name, at, [store(item)])
            self._locate(lowered, call)
            _insert(self.parents, statement, lowered, after=False)
            _replace_node(self.parents, call, syntax.located(load(item), call))
            return
        if kind == "zip":
            count = len(call.args)
            call.args = [
                syntax.located(_subscript(name, make(
                    gast.Slice, lower=_plus(at, i), upper=None,
                    step=make(gast.Constant, value=count, kind=None))), call)
                for i in range(count)
            ]  # fmt: skip
            if not isinstance(statement, gast.Return):
                _insert(self.parents, statement, [at_end], after=True)
            return
        targets = statement.targets if isinstance(statement, gast.Assign) else None
        lowered = self._next(call, name, at, targets)
        self._locate(lowered, statement)
        _replace(self.parents, statement, lowered)

    def _next(
        self, call: gast.Call, name: str, at: str, targets: list[gast.expr] | None
    ) -> list[gast.stmt]:
        """`targets = next(name)` (or `next(name, default)`), on the list and position."""
        item = _subscript(name, load(at))
        advance = make(gast.AugAssign, target=store(at), op=gast.Add(),
                       value=make(gast.Constant, value=1, kind=None))  # fmt: skip
        taken = [_assign_to(targets, item), advance] if targets is not None else [advance]
        if len(call.args) == 1:
            empty = make(gast.Compare, left=load(at), ops=[gast.Eq()],
                         comparators=[_call("len", [load(name)])])  # fmt: skip
            stop = make(gast.Raise, exc=load("StopIteration"), cause=None)
            lowered = [make(gast.If, test=empty, body=[stop], orelse=[]), *taken]
        else:
            default = call.args[1]
            before: list[gast.stmt] = []
            if not isinstance(default, gast.Constant | gast.Name):
                held = _fresh(f"{name}_default", self.taken)
                before = [_assign(held, default)]  # (evaluated before the call, as Python does)
                default = load(held)
            left = make(gast.Compare, left=load(at), ops=[gast.Lt()],
                        comparators=[_call("len", [load(name)])])  # fmt: skip
            otherwise = [_assign_to(targets, default)] if targets is not None else [gast.Pass()]
            lowered = [*before, make(gast.If, test=left, body=taken, orelse=otherwise)]
        return lowered

    @staticmethod
    def _locate(statements: list[gast.stmt], at: gast.AST) -> None:
        for new in statements:
            for node in syntax.walk(new):
                if isinstance(node, gast.expr | gast.stmt) and "lineno" not in node.__dict__:
                    syntax.located(node, at)


def _changes(node: gast.AST, held: set[str], late: set[str]) -> bool:
    """Whether `node` may change in place a value a name of `held` holds (writing an item or
    attribute, `+=`, an in-place method), or rebinds a name of `late`."""
    if isinstance(node, gast.Name):
        return node.id in late and not isinstance(node.ctx, gast.Load)
    if isinstance(node, gast.Subscript | gast.Attribute):
        return not isinstance(node.ctx, gast.Load) and _root(node) in held
    if isinstance(node, gast.AugAssign):
        return _root(node.target) in held
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
        return node.func.attr in _CHANGING and _root(node.func.value) in held
    return False


def _whole_value(holder: gast.AST | None, call: gast.Call, statement: bool = True) -> bool:
    """Whether `call` is the whole value of an assignment (or, where `statement`, a
    statement of its own)."""
    if isinstance(holder, gast.Assign) and holder.value is call:
        return True
    return statement and isinstance(holder, gast.Expr) and holder.value is call


def _assign(name: str, value: gast.expr) -> gast.Assign:
    return make(gast.Assign, targets=[store(name)], value=value, type_comment=None)


def _assign_to(targets: list[gast.expr], value: gast.expr) -> gast.Assign:
    copies = [copy.deepcopy(t) for t in targets]
    return make(gast.Assign, targets=copies, value=value, type_comment=None)


def _call(function: str, args: list[gast.expr]) -> gast.Call:
    return make(gast.Call, func=load(function), args=args, keywords=[])


def _subscript(name: str, index: gast.expr) -> gast.Subscript:
    return make(gast.Subscript, value=load(name), slice=index, ctx=LOAD)


def _plus(at: str, offset: int) -> gast.expr:
    if offset == 0:
        return load(at)
    return make(gast.BinOp, left=load(at), op=gast.Add(),
                right=make(gast.Constant, value=offset, kind=None))  # fmt: skip


def _insert(
    parents: dict[gast.AST, gast.AST], statement: gast.stmt, new: list[gast.stmt], after: bool
) -> None:
    block, index = _place(parents, statement)
    for node in new:
        for part in syntax.walk(node):
            if isinstance(part, gast.expr | gast.stmt) and "lineno" not in part.__dict__:
                syntax.located(part, statement)
    block[index + after : index + after] = new


def _replace_node(parents: dict[gast.AST, gast.AST], old: gast.expr, new: gast.expr) -> None:
    parent = parents[old]
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list) and any(v is old for v in value):
            value[next(i for i, v in enumerate(value) if v is old)] = new
            return


def _replace(parents: dict[gast.AST, gast.AST], statement: gast.stmt, new: list[gast.stmt]) -> None:
    block, index = _place(parents, statement)
    block[index : index + 1] = new


def _place(parents: dict[gast.AST, gast.AST], statement: gast.stmt) -> tuple[list[gast.stmt], int]:
    parent = parents[statement]
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is statement for s in block):
            return block, next(i for i, s in enumerate(block) if s is statement)
    raise AssertionError("a statement outside any block")


def _root(node: gast.expr) -> str | None:
    while isinstance(node, gast.Subscript | gast.Attribute):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _fresh(base: str, taken: set[str]) -> str:
    name, count = base, 2
    while name in taken:
        name, count = f"{base}_{count}", count + 1
    taken.add(name)
    return name


def _names(node: gast.AST) -> set[str]:
    return {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)}


def _own_nodes(function: gast.FunctionDef) -> list[gast.AST]:
    """The nodes of `function`'s own scope (not those inside the scopes it makes)."""
    found: list[gast.AST] = []
    pending = list(function.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, _SCOPES):
            pending += syntax.children(node)
        elif isinstance(node, _COMPREHENSIONS):  # (its first iterable is evaluated here)
            pending.append(node.generators[0].iter)
    return found
