"""`with` statements whose context managers change no value and swallow no exception,
carried through the passes as marker calls and written back as `with` statements.

A `with` runs its manager's `__enter__` before its body and `__exit__` after it, even
where the body raises; `__exit__` may swallow the exception (a true result), and either
may change values the body reads. srcad takes the managers it knows do neither:

- `np.errstate(...)`: sets how NumPy's floating-point errors are reported (warn, raise,
  ignore) for the body, restored on exit; it changes no value (a `raise` setting turns a
  warning into a `FloatingPointError`, which the emitted code raises where the function does);
- `warnings.catch_warnings()`: saves the warning filters and restores them on exit, so
  that the body's `warnings.simplefilter(...)` holds for the body alone (`record=True`,
  whose `as` target is the list of warnings caught, is not taken);
- `contextlib.nullcontext(v)`: does nothing; `as t` binds `v`, so it is written `t = v`;
- a manager of the user's, a class or a `@contextlib.contextmanager` function, whose
  source `own_managers` proves swallows no exception and changes nothing but the manager's
  own attributes (a timer, a logging or profiling section, a flag on itself): `as t`
  binds the manager itself (which the body may not read: its `__exit__` changes it after
  the derivative code could have read it), or a constant the generator yields.

Each of the first three is called with constant arguments (the derivative code makes its
own manager, called alike); every manager is named through globals or closure cells, which
the rule's guards check.
`lower_contexts` rewrites such a statement, in place, into its body between two marker
calls, `enter_context(np.errstate, divide='ignore')` and `exit_context(...)` with the
same arguments, so that every pass sees straight-line code (the markers are calls of no
differentiated value, which run where they are). `ReverseAD` reverses a region into one
of the pullback (`reverse_regions`): the adjoints of its statements between markers of
its own, after a `catch_warnings` region's own filter calls again (`warnings.simplefilter`
and `warnings.filterwarnings` at the body's top level, of names and constants the function
does not bind), so the derivative code runs under the state the body ran under.
`WrapContexts`, the last pass of every pipeline, writes each pair of markers and what is
between them as the `with` statement it stands for: the emitted code enters and exits the
manager as Python does, on an exception too.

A user's manager is marked `t = enter_own_context(Timer, 'a')` ... `exit_own_context(...)`:
the primal code runs the body inside it, once per run, as the function does, and the
forward rule runs the body and its tangents inside it; the pullback runs outside any
manager. Its effects are proved not numerical, so where the derivative code runs does not
change a value; making a fresh manager around the pullback would run the user's side
effects (a print, a log line, a timer's record) a second time, which the user did not write.

Refused, with why (`context_refusal`, E101): `contextlib.suppress` (it swallows
exceptions: which statements ran depends on where one was raised), any other manager, and
a user's manager not proved (its `__enter__` and `__exit__` are code srcad does not
differentiate, and an `__exit__` that returns a true value swallows an exception),
arguments that are not constants (for a user's manager: nor f-strings), `as` bound to what
`catch_warnings(record=True)` gives, `as` a user's manager read in the body, and a body
that leaves the statement other than by its end or a `return` that ends it (`break`,
`continue`, a `return` inside a block of the body), which the markers could not follow."""

from __future__ import annotations

import contextlib
import types
import warnings
from collections.abc import Callable
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.errors import SrcadError
from srcad.passes.base import Context, Transform
from srcad.passes.transforms.own_managers import (
    entered_is_manager,
    is_own_manager,
    own_manager_refusal,
)
from srcad.source import FunctionSource
from srcad.syntax import load, make, store

ENTER, EXIT = "enter_context", "exit_context"  # the markers' names in the tree
# Those of a manager of the user's (`own_managers`): `t = enter_own_context(Timer, 'a')`.
ENTER_OWN, EXIT_OWN = "enter_own_context", "exit_own_context"
_ENTERS, _EXITS = (ENTER, ENTER_OWN), (EXIT, EXIT_OWN)
_RESULT = "with_result"  # the value of a `return` that ends a `with` body

# The managers taken, by the dotted name they are spelled with in messages.
_MANAGERS: dict[Any, str] = {
    np.errstate: "np.errstate",
    warnings.catch_warnings: "warnings.catch_warnings",
    contextlib.nullcontext: "contextlib.nullcontext",
}


def enter_context(manager: Any, *args: Any, **keywords: Any) -> None:
    """A marker of the tree: `WrapContexts` writes it as a `with`; it never runs."""
    raise SrcadError(f"srcad left the start of a `with {manager.__name__}(...)` unwritten")


def exit_context(manager: Any, *args: Any, **keywords: Any) -> None:
    """A marker of the tree: `WrapContexts` writes it as a `with`; it never runs."""
    raise SrcadError(f"srcad left the end of a `with {manager.__name__}(...)` unwritten")


def enter_own_context(manager: Any, *args: Any, **keywords: Any) -> None:
    """A marker of the tree: `WrapContexts` writes it as a `with`; it never runs."""
    raise SrcadError(f"srcad left the start of a `with {manager.__name__}(...)` unwritten")


def exit_own_context(manager: Any, *args: Any, **keywords: Any) -> None:
    """A marker of the tree: `WrapContexts` writes it as a `with`; it never runs."""
    raise SrcadError(f"srcad left the end of a `with {manager.__name__}(...)` unwritten")


def lower_contexts(function: gast.FunctionDef, source: FunctionSource) -> None:
    """Rewrite each `with` of `function` (nested functions' included) whose managers are
    taken into its body between markers, in place (see the module's docstring)."""
    withs = [n for n in syntax.walk(function) if isinstance(n, gast.With)]
    if not withs:
        return
    names = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    if {*_ENTERS, *_EXITS} & names:
        return  # the function's own names: every `with` stays, refused
    bound = names_bound(function)
    taken = {
        id(w): [_manager(i.context_expr, source, bound) for i in w.items]
        for w in withs
        if context_refusal(w, source, bound) is None
    }
    if not taken:
        return
    markers = (enter_context, exit_context, enter_own_context, exit_own_context)
    for name, marker in zip((*_ENTERS, *_EXITS), markers, strict=True):
        source.closure[name] = types.CellType(marker)
    source.made |= {*_ENTERS, *_EXITS}
    _rewrite_blocks(function, taken, names)


def context_refusal(
    statement: gast.With, source: FunctionSource, bound: set[str] | None = None
) -> str | None:
    """Why `statement` cannot be taken, or None where it can."""
    for item in statement.items:
        manager = _manager(item.context_expr, source, bound or set())
        if manager is contextlib.suppress:
            return (
                "a `with contextlib.suppress(...)` is not supported: it swallows an "
                "exception, so which statements ran depends on where one was raised"
            )
        if manager not in _MANAGERS and is_own_manager(manager):
            why = _own_refusal(statement, item, manager, source, bound or set())
            if why is not None:
                return why
            continue
        if manager not in _MANAGERS:
            return (
                "a `with` statement is supported only for `np.errstate`, "
                "`warnings.catch_warnings` and `contextlib.nullcontext`: another "
                "manager's `__enter__` and `__exit__` run code srcad does not "
                "differentiate, and an `__exit__` that returns a true value swallows an "
                "exception raised in the body"
            )
        call = item.context_expr
        assert isinstance(call, gast.Call)
        values = [*call.args, *(k.value for k in call.keywords)]
        if manager is not contextlib.nullcontext and not all(
            isinstance(v, gast.Constant) for v in values
        ):
            return (
                f"a `with {_MANAGERS[manager]}(...)` is supported with constant "
                "arguments only: its derivative code makes a manager of its own"
            )
        if any(k.arg is None for k in call.keywords) or any(
            isinstance(a, gast.Starred) for a in call.args
        ):
            return "a `with` manager called with `*` or `**` is not supported"
        if manager is warnings.catch_warnings and item.optional_vars is not None:
            return (
                "`as` after `warnings.catch_warnings(...)` is not supported: what it binds "
                "is the manager's own record of the warnings"
            )
        if manager is warnings.catch_warnings and not all(
            _replayable(s, bound or set()) for s in statement.body if _filter(s)
        ):
            return (
                "a `warnings` filter call in a `with warnings.catch_warnings()` body is "
                "supported with constants and module-level names as arguments only: its "
                "derivative code calls it again"
            )
    if _leaves(statement.body, in_loop=False, tail=True):
        return (
            "a `with` body left by `break`, `continue`, or a `return` other than its last "
            "statement, is not supported"
        )
    return None


def _own_refusal(
    statement: gast.With,
    item: gast.withitem,
    manager: Any,
    source: FunctionSource,
    bound: set[str],
) -> str | None:
    """Why a `with` item whose manager is the user's (`own_managers`) is not taken."""
    call = item.context_expr
    assert isinstance(call, gast.Call)
    path = _path(call.func, bound)
    assert path is not None
    spelled = ".".join(path)
    why = own_manager_refusal(manager, source, path)
    if why is not None:
        return (
            f"a `with {spelled}(...)` is supported where srcad proves, from the source of "
            "the manager, that it swallows no exception and changes no value the function "
            f"reads, which it does not here: {why}"
        )
    values = [*call.args, *_values(call.keywords)]
    if not all(isinstance(v, gast.Constant | gast.JoinedStr) for v in values):
        return (
            f"a `with {spelled}(...)` is supported with constants and f-strings as "
            "arguments only: the values its code sees are then its own"
        )
    target = item.optional_vars
    if target is None:
        return None
    if not isinstance(target, gast.Name):
        return f"`as` after `with {spelled}(...)` is supported with a name only"
    if entered_is_manager(manager) and any(
        isinstance(n, gast.Name) and n.id == target.id
        for s in statement.body
        for n in syntax.walk(s)
    ):
        return (
            f"the manager `{target.id}` that `with {spelled}(...)` binds is read in its "
            "body: its `__exit__` may change what was read, after the derivative code read it"
        )
    return None


def _values(keywords: list[gast.keyword]) -> list[gast.expr]:
    return [k.value for k in keywords]


def names_bound(function: gast.FunctionDef) -> set[str]:
    """The names `function` binds (its parameters included): none is a manager."""
    bound = {
        n.id
        for n in syntax.walk(function)
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store | gast.Param)
    }
    arguments = function.args
    for argument in (
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ):
        if isinstance(argument, gast.Name):
            bound.add(argument.id)
    return bound


def _manager(expression: gast.expr, source: FunctionSource, bound: set[str]) -> Any:
    """The object a `with` item's manager call names, or None."""
    if not isinstance(expression, gast.Call):
        return None
    path = _path(expression.func, bound)
    if path is None:
        return None
    where, value = source.resolve(path)  # guarded: still this object
    return value if where in ("global", "closure", "builtin") else None


def _path(node: gast.expr, bound: set[str]) -> list[str] | None:
    """The dotted name `node` is (`np.errstate`), of a name the function does not bind."""
    path: list[str] = []
    while isinstance(node, gast.Attribute):
        path.insert(0, node.attr)
        node = node.value
    if not isinstance(node, gast.Name) or node.id in bound:
        return None
    return [node.id, *path]


def _leaves(block: list[gast.stmt], in_loop: bool, tail: bool) -> bool:
    """Whether a statement of `block`, a block of a `with` body, leaves the body other
    than by its end: a `return` is taken only last in the body (`tail`), or last in a
    `with` that ends it."""
    for position, statement in enumerate(block):
        last = tail and position == len(block) - 1
        if isinstance(statement, gast.Return) and not last:
            return True
        if isinstance(statement, gast.Break | gast.Continue) and not in_loop:
            return True
        if isinstance(statement, gast.FunctionDef | gast.ClassDef):
            continue
        inner = in_loop or isinstance(statement, gast.For | gast.While)
        ends = last and isinstance(statement, gast.With)
        for field in ("body", "orelse"):
            nested = getattr(statement, field, None)
            if isinstance(nested, list) and _leaves(nested, inner, ends):
                return True
    return False


def _rewrite_blocks(node: gast.AST, taken: dict[int, list[Any]], names: set[str]) -> None:
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if not isinstance(block, list) or not block or not isinstance(block[0], gast.stmt):
            continue
        out: list[gast.stmt] = []
        for statement in block:
            _rewrite_blocks(statement, taken, names)
            if id(statement) in taken:
                assert isinstance(statement, gast.With)
                out += _lowered(statement, taken[id(statement)], names)
            else:
                out.append(statement)
        block[:] = out


def _lowered(statement: gast.With, managers: list[Any], names: set[str]) -> list[gast.stmt]:
    """The statement's body between the markers of each of its managers (a `return`
    that ends it after them, its value bound to a name none of `names` is, now taken)."""
    body = list(statement.body)
    ending: list[gast.stmt] = []
    if body and isinstance(body[-1], gast.Return) and body[-1].value is not None:
        result, count = _RESULT, 1
        while result in names:
            count += 1
            result = f"{_RESULT}_{count}"
        names.add(result)
        returned = body.pop()
        body.append(syntax.located(_assign(store(result), returned.value), returned))
        ending = [syntax.located(make(gast.Return, value=load(result)), returned)]
    elif body and isinstance(body[-1], gast.Return):
        ending = [body.pop()]
    for item, manager in reversed(list(zip(statement.items, managers, strict=True))):
        call = item.context_expr
        assert isinstance(call, gast.Call)
        if manager not in _MANAGERS:  # the user's: `t = enter_own_context(Timer, 'a')`
            enter: gast.stmt = _marker(ENTER_OWN, call, statement)
            if item.optional_vars is not None:
                assert isinstance(enter, gast.Expr)
                enter = syntax.located(_assign(item.optional_vars, enter.value), statement)
            bare = make(gast.Call, func=call.func, args=[], keywords=[])  # (its arguments once)
            body = [enter, *body, _marker(EXIT_OWN, bare, statement)]
            continue
        # What `__enter__` gives: `nullcontext`'s argument, None for the others.
        entered: gast.expr = make(gast.Constant, value=None, kind=None)
        if manager is contextlib.nullcontext and (call.args or call.keywords):
            entered = call.args[0] if call.args else call.keywords[0].value
        if item.optional_vars is not None:
            body.insert(0, syntax.located(_assign(item.optional_vars, entered), statement))
        elif not isinstance(entered, gast.Constant | gast.Name):
            body.insert(0, syntax.located(make(gast.Expr, value=entered), statement))
        if manager is contextlib.nullcontext:
            continue
        body = [_marker(ENTER, call, statement), *body, _marker(EXIT, call, statement)]
    return [*body, *ending]


def _marker(name: str, call: gast.Call, where: gast.AST) -> gast.Expr:
    marked = make(
        gast.Call,
        func=load(name),
        args=[syntax.copy_tree(call.func), *syntax.copy_tree(call.args)],
        keywords=syntax.copy_tree(call.keywords),
    )
    return syntax.located(make(gast.Expr, value=marked), where)


def _assign(target: gast.expr, value: gast.expr) -> gast.Assign:
    return make(gast.Assign, targets=[target], value=value, type_comment=None)


def _marked(statement: gast.stmt, names: tuple[str, ...]) -> gast.Call | None:
    """The marker call `statement` is (of one of `names`' markers), or None: a statement
    of the call, or an assignment of what it gives (`as t` after a user's manager)."""
    if isinstance(statement, gast.Expr | gast.Assign) and isinstance(statement.value, gast.Call):
        func = statement.value.func
        if isinstance(func, gast.Name) and func.id in names:
            if isinstance(statement, gast.Assign) and func.id != ENTER_OWN:
                return None
            return statement.value
    return None


def _own(marker: gast.Call) -> bool:
    """Whether `marker` marks a region of a user's manager (`own_managers`)."""
    return isinstance(marker.func, gast.Name) and marker.func.id == ENTER_OWN


def _regions(statements: list[gast.stmt]) -> list[tuple[int, int]]:
    """The outermost regions of `statements`: the places of each enter marker and of the
    exit marker that closes it."""
    found, depth, start = [], 0, 0
    for index, statement in enumerate(statements):
        if _marked(statement, _ENTERS) is not None:
            depth, start = depth + 1, index if depth == 0 else start
        elif _marked(statement, _EXITS) is not None:
            depth -= 1
            if depth < 0:
                raise SrcadError("srcad lost the start of a `with` statement's body")
            if depth == 0:
                found.append((start, index))
    if depth:
        raise SrcadError("srcad lost the end of a `with` statement's body")
    return found


def reverse_regions(
    statements: list[gast.stmt], reverse: Callable[[list[gast.stmt]], list[gast.stmt]]
) -> list[gast.stmt]:
    """The reverse of `statements` (`reverse` gives that of statements with no region):
    each region's reverse between markers of its own, after the region's own filter calls
    of a `catch_warnings`, where it reverses to any statement; a user's manager's region
    reverses to its statements' reverse alone (`own_managers`: the manager changes no
    value, and making one again would run the user's side effects a second time)."""
    regions = _regions(statements)
    if not regions:
        return reverse(statements)
    out: list[gast.stmt] = []
    end = len(statements)
    for start, stop in reversed(regions):
        out += reverse(statements[stop + 1 : end])
        inner = reverse_regions(statements[start + 1 : stop], reverse)
        marker = _marked(statements[start], _ENTERS)
        assert marker is not None
        if _own(marker):
            out += inner  # the user's manager: its derivative code runs outside it
        elif inner:
            enter, exit_ = statements[start], statements[stop]
            replayed = [syntax.copy_tree(s) for s in statements[start + 1 : stop] if _filter(s)]
            out += [syntax.copy_tree(enter), *replayed, *inner, syntax.copy_tree(exit_)]
        end = start
    return out + reverse(statements[:end])


def _filter(statement: gast.stmt) -> bool:
    """Whether `statement` is a call of `warnings.simplefilter` or `filterwarnings` with
    constant arguments, or attributes of names, as the normal form keeps them."""
    if not isinstance(statement, gast.Expr) or not isinstance(statement.value, gast.Call):
        return False
    call = statement.value
    func = call.func
    if not (
        isinstance(func, gast.Attribute)
        and isinstance(func.value, gast.Name)
        and func.value.id == "warnings"
        and func.attr in ("simplefilter", "filterwarnings")
    ):
        return False
    values = [*call.args, *(k.value for k in call.keywords)]
    return all(isinstance(v, gast.Constant) or _dotted(v) for v in values)


def _dotted(node: gast.expr) -> bool:
    """Whether `node` is a name or a dotted name (`np.exceptions.ComplexWarning`)."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)


def _replayable(statement: gast.stmt, bound: set[str]) -> bool:
    """Whether a filter call reads no name the function binds, so that calling it again
    in the derivative code passes the same arguments."""
    return not any(isinstance(n, gast.Name) and n.id in bound for n in syntax.walk(statement))


# The settings under which NumPy's floating-point errors, or warnings, are more than
# reported: raised, or passed to a function or an object of the user's.
_RAISING = frozenset(["raise", "call", "log", "error"])


def raising_statements(function: gast.FunctionDef) -> set[int]:
    """The ids of the statements inside a region whose manager, or a filter call at its
    top level, may make an error or a warning raise (`np.errstate(divide='raise')`,
    `warnings.simplefilter('error')`): there a statement that computes nothing needed
    still runs, as it may raise where the function does (`Prune` keeps them)."""
    found: set[int] = set()
    pending = [function.body]
    while pending:
        block = pending.pop()
        for start, stop in _regions(block):
            marker = _marked(block[start], _ENTERS)
            assert marker is not None
            region = block[start + 1 : stop]
            pending.append(region)  # the regions inside it
            if _own(marker):
                continue  # a user's manager: its arguments are no settings
            settings = [*marker.args[1:], *(k.value for k in marker.keywords)]
            for call in (s.value for s in region if _filter(s)):
                assert isinstance(call, gast.Call)
                settings += [*call.args, *(k.value for k in call.keywords)]
            if any(isinstance(v, gast.Constant) and v.value in _RAISING for v in settings):
                found.update(id(n) for s in region for n in syntax.walk(s))
        for statement in block:
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    pending.append(inner)
    return found


class WrapContexts(Transform):
    """Write each region between markers (`lower_contexts`, `reverse_regions`) as the
    `with` statement it stands for; a region with nothing in it but comments and the
    filter calls `reverse_regions` repeats (which change nothing once it exits) is dropped,
    but for a user's manager (`t = enter_own_context(Timer, 'a')`, `with Timer('a') as t`),
    whose side effects the user wrote.

    >>> from srcad.passes.testing import show
    >>> print(show(WrapContexts, '''
    ... def f(x):
    ...     enter_context(np.errstate, divide='ignore')
    ...     y = np.log(x)
    ...     exit_context(np.errstate, divide='ignore')
    ...     return y'''))
    def f(x):
        with np.errstate(divide='ignore'):
            y = np.log(x)
        return y
    """

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        del ctx
        if not any(
            _marked(n, _ENTERS) is not None
            for n in syntax.walk(tree)
            if isinstance(n, gast.Expr | gast.Assign)
        ):
            return False
        _wrap_blocks(tree)
        return True


def _wrap_blocks(node: gast.AST) -> None:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
            block[:] = _wrapped(block)
            for statement in block:
                _wrap_blocks(statement)


def _wrapped(statements: list[gast.stmt]) -> list[gast.stmt]:
    regions = _regions(statements)
    if not regions:
        return statements
    out: list[gast.stmt] = []
    end = 0
    for start, stop in regions:
        out += statements[end:start]
        body = _wrapped(statements[start + 1 : stop])
        marker = _marked(statements[start], _ENTERS)
        assert marker is not None
        own = _own(marker)
        if own and all(syntax.is_comment(s) for s in body):
            body.append(gast.Pass())  # the user's manager runs as the user wrote it
        if any(not syntax.is_comment(s) and not _filter(s) for s in body):
            call = make(
                gast.Call, func=marker.args[0], args=marker.args[1:], keywords=marker.keywords
            )
            entered = statements[start]
            target = entered.targets[0] if isinstance(entered, gast.Assign) else None
            item = make(gast.withitem, context_expr=call, optional_vars=target)
            out.append(
                syntax.located(
                    make(gast.With, items=[item], body=body, type_comment=None), statements[start]
                )
            )
        end = stop + 1
    return out + statements[end:]
