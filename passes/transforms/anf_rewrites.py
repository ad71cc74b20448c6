"""The Python syntax the normal form (`to_anf.py`) turns into calls of primitives with rules,
or into plainer statements: item writes into values the function made (`index_update`),
NamedTuples and dataclasses built (`make_struct`), `dataclasses.replace` (`replace_fields`),
f-strings (their formatted values atoms), `assert` (its test an atom), a loop's `else`
(a flag each `break` of the loop clears), a class's `__init__` compiled as the function
that builds the instance (`srcad.constructors`: `new_instance`, `with_attribute`), calls
that unpack arguments (`unpacked_call`) or pass by keyword what a rule differentiates by
position, `np.r_[...]`/`np.c_[...]` (`index_concatenate`), dict displays that unpack
(`{**a, "k": v}`, merged with `|`) and set displays and comprehensions (`set_of`).
`SyntaxRewrites` is a part of `_Normaliser`."""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from typing import Any

import gast
import numpy as np

from srcad import primitives, syntax
from srcad.errors import MutationError
from srcad.keywords import keyword_call, takes_keywords
from srcad.passes.analyses.scopes import ScopeInfo
from srcad.passes.base import Context
from srcad.passes.checks.callees import (
    Callees,
    static_path,
    static_value,
    unpacks,
)
from srcad.passes.checks.in_place import TRUSTED_MODULES, is_ufunc_at
from srcad.passes.rule_calls import constant
from srcad.passes.transforms.change_rewrites import ChangeRewrites
from srcad.primitives import append, index_update
from srcad.syntax import LOAD, load, make, store


class SyntaxRewrites(ChangeRewrites, ABC):
    """The normaliser's rewrites of the syntax above, over its atoms and statements."""

    ctx: Context
    scopes: ScopeInfo
    fresh_items: frozenset[str]  # names whose items no one else holds (`FreshItems`)

    @abstractmethod
    def atom(self, node: gast.expr) -> gast.expr:
        """`node` as an atom (`_Normaliser.atom`)."""

    @abstractmethod
    def _is_static(self, node: gast.expr) -> bool:
        """Whether `node` is a constant or a dotted global name (`_Normaliser._is_static`)."""

    @abstractmethod
    def _emit(self, statement: gast.stmt) -> None:
        """Put `statement` next in the output (`_Normaliser._emit`)."""

    @abstractmethod
    def _assign(self, name: str, value: gast.expr) -> None:
        """Emit `name = value` (`_Normaliser._assign`)."""

    @abstractmethod
    def statement(self, node: gast.stmt) -> None:
        """Normalise one statement (`_Normaliser.statement`)."""

    @abstractmethod
    def _if(self, node: gast.If) -> None:
        """Normalise an `if` statement (`_Normaliser._if`)."""

    @abstractmethod
    def assign(self, target: gast.expr, value: gast.expr) -> None:
        """Normalise `target = value` (`_Normaliser.assign`)."""

    @abstractmethod
    def comprehension(self, node: gast.ListComp | gast.GeneratorExp | gast.DictComp) -> gast.Name:
        """The fresh list or dict a comprehension makes (`_Normaliser.comprehension`)."""

    @abstractmethod
    def _list(self, node: gast.List) -> gast.expr:
        """A list display's operation (`_Normaliser._list`)."""

    def _assert(self, node: gast.Assert) -> None:
        """`assert test, message`: the test runs in the forward sweep, as an atom; the
        message, read only where the test fails, is a `raise`'s expression."""
        self._emit(make(gast.Assert, test=self.atom(node.test), msg=node.msg))

    def _starred_unpacking(self, target: gast.Tuple | gast.List, value: gast.expr) -> None:
        """`first, *middle, last = value` as Python runs it, through what has rules: the
        items in a new list (an array's rows, a call's results), Python's own error where
        there are too few, then each target its item, or the starred one a slice (a list,
        as Python makes it). Nested targets and a `for` loop's come here too.

            items = list(value)
            if len(items) < 2:
                raise ValueError(f"not enough values to unpack (expected at least 2, got ...)")
            first = items[0]
            middle = items[1:-1]
            last = items[-1]
        """
        elements = target.elts
        star = next(i for i, e in enumerate(elements) if isinstance(e, gast.Starred))
        after = len(elements) - star - 1
        items = self.ctx.namer.fresh("items")
        self._assign(items, self._primitive_call(list, [self.atom(value)], target))
        count = self.atom(self._primitive_call(len, [load(items)], target))
        assert isinstance(count, gast.Name)
        least = make(gast.Constant, value=len(elements) - 1, kind=None)
        message = make(gast.JoinedStr, values=[
            make(gast.Constant, value="not enough values to unpack (expected at least "
                 f"{len(elements) - 1}, got ", kind=None),
            make(gast.FormattedValue, value=load(count.id), conversion=-1, format_spec=None),
            make(gast.Constant, value=")", kind=None),
        ])  # fmt: skip
        error = load(self.ctx.bind(ValueError, "ValueError"))
        raised = make(gast.Raise, exc=make(gast.Call, func=error, args=[message], keywords=[]),
                      cause=None)  # fmt: skip
        test = make(gast.Compare, left=count, ops=[gast.Lt()], comparators=[least])
        self._if(syntax.located(make(gast.If, test=test, body=[raised], orelse=[]), target))
        for position, element in enumerate(elements):
            if position < star:
                index: gast.expr = make(gast.Constant, value=position, kind=None)
            elif position > star:
                back = make(gast.Constant, value=len(elements) - position, kind=None)
                index = make(gast.UnaryOp, op=gast.USub(), operand=back)
            else:
                assert isinstance(element, gast.Starred)
                element = element.value
                lower = make(gast.Constant, value=star, kind=None) if star else None
                upper = None
                if after:
                    upper = make(gast.UnaryOp, op=gast.USub(),
                                 operand=make(gast.Constant, value=after, kind=None))  # fmt: skip
                index = make(gast.Slice, lower=lower, upper=upper, step=None)
            item = make(gast.Subscript, value=load(items), slice=index, ctx=LOAD)
            self.assign(element, item)

    def _write_item(self, target: gast.Subscript, value: gast.expr, op: Any = None) -> None:
        """`items[index] = value` (with `op`: `items[index] op= value`) as `items =
        index_update(items, index, new)`, through a primitive with rules that makes a new
        value (the checks made sure nothing else holds the old one). `op=` reads the item
        first, with the same index, as Python does: `out[[0, 0]] += v` adds once."""
        assert isinstance(target.value, gast.Name)
        name = target.value.id
        written = self.atom(value) if op is None else None
        index = self._index_value(target.slice)
        if op is not None:
            item = make(gast.Subscript, value=load(name), slice=index, ctx=LOAD)
            old = self.atom(item)
            if name not in self.fresh_items:  # (items just made and held by `name` alone)
                self._refuse_change_in_place(name, old, op, target, f"{name}[...]")
            written = self.atom(make(gast.BinOp, left=old, op=op, right=self.atom(value)))
        function = self.ctx.bind(index_update, "index_update")
        call = make(gast.Call, func=load(function), args=[load(name), index, written], keywords=[])
        self.ctx.analysis_result(Callees).callees[call] = index_update
        self._assign(name, call)

    def _append(self, name: str, value: gast.expr) -> None:
        """`items.append(value)` as `items = append(items, value)`, through a primitive with
        a rule. The primitive makes a new list (the checks made sure nothing else holds the
        old one), so what a rule kept of the list before the append stays as it was."""
        atom = self.atom(value)
        function = self.ctx.bind(append, "append")
        call = make(gast.Call, func=load(function), args=[load(name), atom], keywords=[])
        self.ctx.analysis_result(Callees).callees[call] = append
        self._assign(name, call)

    def _refuse_change_in_place(
        self, holder: str, old: gast.expr, op: Any, target: gast.AST, written: str
    ) -> None:
        """Where `holder[index] op= value` (or `holder.name op= value`) reads an item that
        Python changes in place (an array or a list in a list, a dict or an instance:
        `primitives.changes_item_in_place`), raise when the code runs: srcad rebinds the
        slot to a new value, and whatever else holds the item (a parameter put in a list,
        the same array twice) would see Python's change but not srcad's. A number item,
        and an array's own items, are rebound by Python too.

            if changes_item_in_place(holder, old, "add"):
                raise MutationError("`holder[...] += ...` changes in place ...")
        """
        symbol, dunder = _IN_PLACE[type(op)]
        test = self._primitive_call(
            primitives.changes_item_in_place,
            [load(holder), old, make(gast.Constant, value=dunder, kind=None)],
            target,
        )
        message = make(gast.Constant, kind=None, value=(
            f"`{written} {symbol}= ...` changes in place the array or list it holds (Python's "
            f"`{symbol}=` on one), which something else may hold too, so srcad cannot "
            f"differentiate it; write `{written} = {written} {symbol} ...` to make a new value"
        ))  # fmt: skip
        error = load(self.ctx.bind(MutationError, "MutationError"))
        raised = make(gast.Raise, exc=make(gast.Call, func=error, args=[message], keywords=[]),
                      cause=None)  # fmt: skip
        self._if(syntax.located(make(gast.If, test=test, body=[raised], orelse=[]), target))

    def _accumulates(self, node: gast.expr) -> bool:
        """Whether the statement `node` is `ufunc.at(name, indices, values)` (the checks
        let it through only where `name` holds a fresh array nothing else holds)."""
        if not isinstance(node, gast.Call) or not node.args:
            return False
        callee = self.ctx.analysis_result(Callees).callees.get(node)
        return is_ufunc_at(callee) and isinstance(node.args[0], gast.Name)

    def _accumulate(self, node: gast.Call) -> None:
        """`ufunc.at(name, indices, values)` as `name = ufunc_at(ufunc, name, indices,
        values)`, a new array with the ufunc applied at the indices (`primitives.ufunc_at`;
        `primitives.ufunc_at_in_turn` for a ufunc that is not linear), as `_write_item`
        writes an item."""
        callee = self.ctx.analysis_result(Callees).callees[node]
        name = node.args[0]
        assert isinstance(name, gast.Name)
        ufunc = load(self.ctx.bind(callee.__self__, callee.__self__.__name__))
        args = [ufunc, load(name.id), *(self.atom(a) for a in node.args[1:])]
        linear = callee.__self__ in primitives.LINEAR_AT
        primitive = primitives.ufunc_at if linear else primitives.ufunc_at_in_turn
        self._assign(name.id, self._primitive_call(primitive, args, node))

    def made_instance(self, function: gast.FunctionDef, kind: type) -> str:
        """A class's initialiser (`srcad.constructors`): its first parameter, `self`, is
        no parameter but the instance the call makes first, `self = new_instance(Kind)`.
        Its name, which the rewrites below write into and return."""
        parameters = function.args.posonlyargs or function.args.args
        instance = parameters.pop(0).id
        kind_name = load(self.ctx.bind(kind, kind.__name__))
        self._assign(instance, self._primitive_call(primitives.new_instance, [kind_name], function))
        return instance

    def _write_attribute(self, target: gast.Attribute, value: gast.expr, op: Any = None) -> None:
        """`self.name = value` (with `op`: `self.name op= value`) in a class's initialiser,
        the only attribute write the checks let through, as `self = with_attribute(self,
        "name", value)`: a new instance (nothing else holds the old one yet)."""
        assert isinstance(target.value, gast.Name)
        instance = target.value.id
        if op is not None:
            old = self.atom(make(gast.Attribute, value=load(instance), attr=target.attr, ctx=LOAD))
            self._refuse_change_in_place(instance, old, op, target, f"{instance}.{target.attr}")
            value = make(gast.BinOp, left=old, op=op, right=self.atom(value))
        name = make(gast.Constant, value=target.attr, kind=None)
        args = [load(instance), name, self.atom(value)]
        self._assign(instance, self._primitive_call(primitives.with_attribute, args, target))

    def _keyword_call(self, node: gast.Call, callee: Any) -> gast.expr | None:
        """`g(a, *rest, k=v, **options)` as `keyword_call(g, ".*", ("k", None), a, rest, v,
        options)` (`srcad.keywords`), where `g` is a Python function (no rule of its own,
        no `*args`) and a keyword it cannot take by position passes a value the function
        computes: one for a keyword-only parameter or its `**kwargs`, or a dict unpacked
        with `**`. The keyword values are then parts with cotangents of their own. None
        for any other call, which stays as it is: a library's function (NumPy's, SciPy's,
        the standard library's) keeps its rule or its refusal."""
        module = (getattr(callee, "__module__", None) or "").partition(".")[0]
        registry = self.ctx.services.registry
        if (
            not takes_keywords(callee)
            or module in TRUSTED_MODULES  # NumPy's, SciPy's, the standard library's, srcad's
            or registry.rrule_for(callee) is not None
            or registry.frule_for(callee) is not None
        ):
            return None
        code = callee.__code__
        positional = code.co_varnames[: code.co_argcount]
        if not any(
            (k.arg is None or k.arg not in positional) and not self._is_static(k.value)
            for k in node.keywords
        ):
            return None
        layout = "".join("*" if isinstance(a, gast.Starred) else "." for a in node.args)
        parts = [self.atom(a.value if isinstance(a, gast.Starred) else a) for a in node.args]
        names = make(gast.Tuple, elts=[make(gast.Constant, value=k.arg, kind=None)
                                       for k in node.keywords], ctx=LOAD)  # fmt: skip
        values = [self.atom(k.value) for k in node.keywords]
        head = [self.atom(node.func), make(gast.Constant, value=layout, kind=None), names]
        return self._primitive_call(keyword_call, [*head, *parts, *values], node)

    def _unpacked_call(self, node: gast.Call, callees: dict[gast.Call, Any]) -> gast.expr:
        """`f(a, *rest, k=v, **options)` as `unpacked_call(f, ".*", a, rest, k=v,
        **options)`: one primitive, whose rules give each part its cotangent (an unpacked
        tuple's holds its elements'), for whatever `f` is when it runs; a method of a
        value, `obj.name(*rest)`, as `unpacked_call(method, "..*", obj, "name", rest)`.
        (`Callees` refuses the callees it cannot take: nested functions.)"""
        head: list[gast.expr] = []  # the receiver and the name of a method
        if callees.get(node) is primitives.method:  # `method(obj, "name", *args)`
            assert isinstance(node.func, gast.Attribute)
            function: gast.expr = load(self.ctx.bind(primitives.method, "method"))
            head = [
                self.atom(node.func.value),
                make(gast.Constant, value=node.func.attr, kind=None),
            ]
        else:
            function = self.atom(node.func)
        layout = "." * len(head) + "".join(
            "*" if isinstance(a, gast.Starred) else "." for a in node.args
        )
        parts = [
            *head,
            *(self.atom(a.value if isinstance(a, gast.Starred) else a) for a in node.args),
        ]
        for keyword in node.keywords:
            keyword.value = self.atom(keyword.value)
        bound = self.ctx.bind(primitives.unpacked_call, "unpacked_call")
        where = {
            "lineno": getattr(node, "lineno", None),
            "col_offset": getattr(node, "col_offset", 0),
        }
        unpacked = make(
            gast.Call,
            func=make(gast.Name, id=bound, ctx=LOAD, annotation=None, type_comment=None),
            args=[function, make(gast.Constant, value=layout, kind=None), *parts],
            keywords=node.keywords,
            **where,
        )
        callees[unpacked] = primitives.unpacked_call
        return unpacked

    def _start_among_the_items(self, node: gast.Call, callee: Any) -> None:
        """`math.prod(xs, start=s)` as `math.prod([s, *xs])`: the same products in the same
        order (`1 * s` is `s`), with `s` among the items its rule differentiates, where the
        keyword-only `start=` is an option (E211). So `itertools.accumulate(xs, f,
        initial=v)` as `accumulate(with_initial(v, xs), f)`: `v` first, unless it is None
        (`primitives.with_initial`)."""
        if callee is itertools.accumulate and len(node.args) in (1, 2) and not unpacks(node):
            if [k.arg for k in node.keywords] == ["initial"]:
                items = [node.keywords[0].value, node.args[0]]
                node.args[0] = self._primitive_call(primitives.with_initial, items, node)
                node.keywords = []
            return
        if callee is not math.prod or len(node.args) != 1 or unpacks(node):
            return
        if [k.arg for k in node.keywords] != ["start"]:
            return
        (items,) = node.args
        starred = syntax.located(make(gast.Starred, value=items, ctx=LOAD), node)
        listed = make(gast.List, elts=[node.keywords[0].value, starred], ctx=LOAD)
        node.args = [syntax.located(listed, node)]
        node.keywords = []

    def _keywords_by_position(self, node: gast.Call, callee: Any) -> None:
        """`np.average(a, weights=w)` as `np.average(a, None, w)`: a keyword that the
        library's rules of `callee` differentiate by position (`registry.ByPosition`) is
        passed by position, each parameter before it that the call leaves out its default.
        Any other call is left as it is (a differentiated keyword is refused, E211). A
        method of an object a global names (`stats.norm.logpdf(x, loc=m)`), or such an
        object called (`stats.norm(loc=m)`), is looked up as what it is."""
        looked_up = callee is primitives.method or callee is primitives.call
        path = static_path(node.func) if looked_up and self._is_static(node.func) else None
        if path is not None:  # (a method or a callable object a global names)
            where, value = static_value(path, self.ctx)
            callee = value if where != "undefined" else callee
        found = self.ctx.services.registry.by_position(callee)
        if found is None or unpacks(node):
            return
        arranged = found.arrangement(len(node.args), [k.arg for k in node.keywords])
        if arranged is None:
            return
        passed = {k.arg: k for k in node.keywords}
        moved = [passed[name].value if name is not None else constant(default)
                 for name, default in arranged]  # fmt: skip
        taken = {name for name, _ in arranged}
        node.args = [*node.args, *moved]
        node.keywords = [k for k in node.keywords if k.arg not in taken]

    def _index_concatenation(self, node: gast.Subscript) -> gast.Call | None:
        """`np.r_[a, b, 1:3, "0,2"]` (or `np.c_[...]`, named by any path that leads to
        NumPy's object) as `index_concatenate(np.r_, a, b, slice(1, 3, None), "0,2")`: the
        pieces of the index are arguments, each array among them differentiated. None
        for any other subscript, and for the directives that make an `np.matrix`."""
        path = static_path(node.value)
        if path is None or not self._is_static(node.value):
            return None
        found, builder = static_value(path, self.ctx)
        if found == "undefined" or not any(builder is b for b in (np.r_, np.c_)):
            return None
        pieces = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if any(isinstance(p, gast.Constant) and p.value in ("r", "c") for p in pieces):
            return None  # an `np.matrix`: refused where the index is differentiated (E210)
        args = [node.value]
        for piece in pieces:
            if isinstance(piece, gast.Slice):
                bounds = [
                    make(gast.Constant, value=None, kind=None) if p is None else self.atom(p)
                    for p in (piece.lower, piece.upper, piece.step)
                ]
                args.append(self.atom(self._primitive_call(slice, bounds, node)))
            else:
                args.append(self.atom(piece))
        return self._primitive_call(primitives.index_concatenate, args, node)

    def _index_value(self, index: gast.expr) -> gast.expr:
        """An index as a value to pass on: an atom, or, where it holds slices (`:, j`),
        NumPy's index builder applied to it (`np.s_[:, j]`), whose items carry nothing."""
        if not any(isinstance(part, gast.Slice) for part in syntax.walk(index)):
            return self.atom(index)
        builder = load(self.ctx.bind(np.s_, "index_of"))
        return self.atom(make(gast.Subscript, value=builder, slice=index, ctx=LOAD))

    def _loop_else(self, node: gast.For | gast.While) -> None:
        """A loop's `else` clause, which runs where the loop ends without `break`: a flag,
        cleared before each `break` of this loop, tested after it."""
        completed = self.ctx.namer.fresh("completed")
        self._assign(completed, make(gast.Constant, value=True, kind=None))
        clear = make(gast.Constant, value=False, kind=None)
        node.body = _flag_breaks(node.body, completed, clear)
        orelse, node.orelse = node.orelse, []
        self.statement(node)
        self._if(make(gast.If, test=load(completed), body=orelse, orelse=[]))

    def _struct(self, node: gast.Call, fields: tuple[str, ...]) -> gast.expr | None:
        """`Kind(a, b=v)` of a NamedTuple or dataclass that only stores its fields, as
        `make_struct(Kind, a, v)`: the keywords in field order, so that each value gets its
        cotangent (a rule's keywords get none). None where the values given leave a gap
        (a default between them) or name no field: the call then stays as it is."""
        given = len(node.args)
        names = [k.arg for k in node.keywords]
        if any(isinstance(a, gast.Starred) for a in node.args) or set(names) != set(
            fields[given : given + len(names)]
        ):
            return None
        args = [self.atom(a) for a in node.args]
        passed = {k.arg: self.atom(k.value) for k in node.keywords}
        ordered = args + [passed[name] for name in fields[given : given + len(names)]]
        return self._primitive_call(primitives.make_struct, [node.func, *ordered], node)

    def _replace(self, node: gast.Call) -> gast.expr:
        """`dataclasses.replace(value, b=v)` as `replace_fields(value, ("b",), v)`."""
        value = self.atom(node.args[0])
        names = make(gast.Tuple, elts=[make(gast.Constant, value=k.arg, kind=None)
                                       for k in node.keywords], ctx=LOAD)  # fmt: skip
        values = [self.atom(k.value) for k in node.keywords]
        return self._primitive_call(primitives.replace_fields, [value, names, *values], node)

    def _primitive_call(self, function: Any, args: list[gast.expr], node: gast.AST) -> gast.Call:
        bound = self.ctx.bind(function, function.__name__)
        where = {"lineno": getattr(node, "lineno", None), "col_offset": node.col_offset}
        call = make(gast.Call, func=load(bound), args=args, keywords=[], **where)
        self.ctx.analysis_result(Callees).callees[call] = function
        return call

    def _dict(self, node: gast.Dict) -> gast.expr:
        """A display; one that unpacks (`{**params, "w": w}`) as the merge of its parts in
        order, `dict(params) | {"w": w}`, whose later keys win, as the display's do."""
        keys: list[gast.expr] = []
        if all(key is not None for key in node.keys):
            keys = [self.atom(k) for k in node.keys if k is not None]
            return make(gast.Dict, keys=keys, values=[self.atom(v) for v in node.values])
        parts: list[gast.expr] = []
        values: list[gast.expr] = []
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                keys.append(self.atom(key))
                values.append(self.atom(value))
                continue
            if keys:
                parts.append(self.atom(make(gast.Dict, keys=keys, values=values)))
                keys, values = [], []
            parts.append(self.atom(self._primitive_call(dict, [self.atom(value)], node)))
        if keys or not parts:
            display = make(gast.Dict, keys=keys, values=values)
            parts.append(self.atom(display) if parts else display)  # operands are atoms
        merged = parts[0]
        for part in parts[1:]:
            merged = make(gast.BinOp, left=self.atom(merged), op=gast.BitOr(), right=part)
        return merged

    def _set(self, node: gast.Set) -> gast.expr:
        """A set display `{a, *b}` as `set_of(<the list display>)`: a set takes no
        derivative, and one of differentiated values is refused (E215,
        `operation_rules._active_key`), as its members, and what they are of it, would
        lose theirs."""
        items = self.atom(self._list(make(gast.List, elts=node.elts, ctx=LOAD)))
        return self._primitive_call(primitives.set_of, [items], node)

    def _set_comprehension(self, node: gast.SetComp) -> gast.expr:
        """`{v for ...}` as `set_of(<the list comprehension>)`, its items in its order."""
        listed = make(gast.ListComp, elt=node.elt, generators=node.generators)
        items = self.comprehension(syntax.located(listed, node))
        return self._primitive_call(primitives.set_of, [items], node)

    def _joined_str(self, node: gast.JoinedStr) -> gast.expr:
        """An f-string, each formatted value an atom (a string carries no derivative)."""
        values: list[gast.expr] = []
        for part in node.values:
            if isinstance(part, gast.FormattedValue):
                spec = part.format_spec
                part = make(
                    gast.FormattedValue,
                    value=self.atom(part.value),
                    conversion=part.conversion,
                    format_spec=None if spec is None else self._joined_str(spec),
                )
            values.append(part)
        return make(gast.JoinedStr, values=values)


def _flag_breaks(block: list[gast.stmt], flag: str, value: gast.expr) -> list[gast.stmt]:
    """`block` with `flag = value` before each `break` that leaves the loop it is the body
    of (not those of loops inside it)."""
    out: list[gast.stmt] = []
    for statement in block:
        if isinstance(statement, gast.Break):
            out.append(syntax.located(
                make(gast.Assign, targets=[store(flag)], value=value, type_comment=None),
                statement,
            ))  # fmt: skip
        elif isinstance(statement, gast.If):
            statement.body = _flag_breaks(statement.body, flag, value)
            statement.orelse = _flag_breaks(statement.orelse, flag, value)
        elif isinstance(statement, gast.For | gast.While):
            statement.orelse = _flag_breaks(statement.orelse, flag, value)  # runs after it
        out.append(statement)
    return out


# The augmented operators, as written and as their in-place methods' names (`__iadd__`).
_IN_PLACE = {
    gast.Add: ("+", "add"),
    gast.Sub: ("-", "sub"),
    gast.Mult: ("*", "mul"),
    gast.Div: ("/", "truediv"),
    gast.FloorDiv: ("//", "floordiv"),
    gast.Mod: ("%", "mod"),
    gast.Pow: ("**", "pow"),
    gast.MatMult: ("@", "matmul"),
    gast.BitOr: ("|", "or"),
    gast.BitAnd: ("&", "and"),
    gast.BitXor: ("^", "xor"),
    gast.LShift: ("<<", "lshift"),
    gast.RShift: (">>", "rshift"),
}
