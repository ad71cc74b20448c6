"""The user's own context managers that srcad proves, from their source, change no value
the function or its derivative reads and swallow no exception (`contexts` takes them).

Two kinds are read:

- a class, whose `__init__`, `__enter__` and `__exit__` are the user's Python functions;
- a `@contextlib.contextmanager` generator function, whose `yield` runs the body.

Each is proved to:

- swallow no exception: every `return` of `__exit__` returns None or False (a true
  value swallows the body's exception); the generator has no `return`, yields once, at its
  top level or in the body of a `try` each of whose `except` clauses ends by re-raising;
- change nothing the caller sees: its code assigns local names and attributes of the
  manager itself (`self.start = time.perf_counter()`), never a global, an argument, an
  item, or an attribute its class defines other than as a constant (a property's setter
  would run); no method is a generator or a coroutine (whose call gives a true value);
  it calls
  only `print`, built-in functions that make new values (`len`, `str`, `round`...), the
  functions of the `time`, `math` and `logging` modules and a module-level `logging.Logger`'s
  logging methods, `warnings.warn`, built-in exception classes, string methods, and the
  methods of a list, dict or set that every one of its methods assigns to `self.NAME` made
  afresh (`self.laps = []`, then `self.laps.append(t)`); it reads local names, its
  arguments, constants and such modules, functions and loggers of its module; it uses the
  manager only for its attributes, or returns it (`print(self)` would run its class's
  `__repr__`, which srcad does not read); it has no
  `global`, `import`, nested function, `with` or hooks of the class (`__new__`,
  `__setattr__`, `__getattr__`...), and every default of its arguments is a constant.

The manager is made with constants and f-strings as arguments (`contexts.context_refusal`),
so every value its code sees is a constant, a string, a number or a string it made, one
of its fresh containers, or, in `__exit__`, the exception raised in the body (when the
function raises anyway).
The functions read are guarded as the function's own callees are (`guards.function_facts`).
"""

from __future__ import annotations

import builtins
import contextlib
import inspect
import logging
import types
import warnings
from collections.abc import Iterator
from typing import Any

import gast

from srcad import syntax
from srcad.errors import SrcadError
from srcad.guards import Fact, function_facts, name_facts
from srcad.source import FunctionSource, function_source


@contextlib.contextmanager
def _generator() -> Iterator[None]:
    yield


# The code every `@contextlib.contextmanager` function runs: contextlib's own helper.
_HELPER_CODE = _generator.__code__

# What a manager's code may call: built-in functions that only make new values, and print.
_BUILTINS = frozenset(
    id(f)
    for f in (print, abs, all, any, bool, dict, divmod, enumerate, float, format, int, isinstance,
              len, list, max, min, range, repr, reversed, round, set, sorted, str, sum, tuple, zip)
)  # fmt: skip
_MODULES = frozenset(["time", "math", "logging"])  # every function of theirs
_LOGGER_METHODS = frozenset(["debug", "info", "warning", "error", "critical", "log", "exception"])
_CONTAINER_METHODS = frozenset(
    ["append", "extend", "insert", "pop", "clear", "update", "add", "discard", "setdefault",
     "get", "copy", "items", "keys", "values", "index", "count"]
)  # fmt: skip
_HOOKS = ("__new__", "__setattr__", "__delattr__", "__getattr__", "__getattribute__", "__del__")
_CONSTANTS = (int, float, complex, str, bytes, bool, type(None))
_SUSPENDING = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def is_own_manager(value: Any) -> bool:
    """Whether `value` is a manager of the user's that `own_manager_refusal` reads."""
    return (isinstance(value, type) and value.__module__ != "builtins") or getattr(
        value, "__code__", None
    ) is _HELPER_CODE


def entered_is_manager(value: Any) -> bool:
    """Whether a `with value(...) as t` binds `t` to the manager object itself (a class's
    `__enter__` that returns `self`), rather than a constant."""
    return isinstance(value, type)


def own_manager_refusal(value: Any, source: FunctionSource, path: list[str]) -> str | None:
    """Why the user's manager `value` (named `path` in the function `source` is of) is not
    proved, or None where it is (see the module's docstring)."""
    name = ".".join(path)
    if isinstance(value, type):
        return _class_refusal(value, name, source, path)
    wrapped = getattr(value, "__wrapped__", None)
    cells = [c.cell_contents for c in getattr(value, "__closure__", None) or ()]
    if not isinstance(wrapped, types.FunctionType) or wrapped not in cells:
        return f"`{name}` is not the `@contextlib.contextmanager` function it looks like"
    source.resolve([*path, "__wrapped__"])  # how an exported module finds it again
    source.facts += function_facts(wrapped)
    return _function_refusal(wrapped, f"`{name}`", "yield", None, frozenset(), source.facts)


def _class_refusal(kind: type, name: str, source: FunctionSource, path: list[str]) -> str | None:
    if type(kind) is not type:
        return f"`{name}` has a metaclass of its own"
    for base in kind.__mro__[:-1]:
        if base.__module__ == "builtins":
            return f"`{name}` derives from the built-in `{base.__name__}`"
        hook = next((h for h in _HOOKS if h in vars(base)), None)
        if hook is not None:
            return f"`{name}` defines `{hook}`"
    methods: dict[str, types.FunctionType] = {}
    for method in ("__init__", "__enter__", "__exit__"):
        _, function = source.resolve([*path, method])
        if method == "__init__" and function is object.__init__:
            continue
        if not isinstance(function, types.FunctionType):
            return f"`{name}.{method}` is not a Python function of the class"
        source.facts += function_facts(function)
        methods[method] = function
    trees = {}
    for method, function in methods.items():
        tree = _tree(function)
        if isinstance(tree, str):
            return tree
        trees[method] = tree
    fresh = _fresh_attributes(kind, trees.values())
    for method, function in methods.items():
        why = _function_refusal(
            function, f"`{name}.{method}`", method, kind, fresh, source.facts, trees[method]
        )
        if why is not None:
            return why
    return None


def _tree(function: types.FunctionType) -> tuple[FunctionSource, gast.FunctionDef] | str:
    try:
        read = function_source(function)
    except SrcadError as error:
        return f"the source of `{function.__qualname__}` cannot be read ({error})"
    return read, read.node


def _fresh_attributes(kind: type, trees: Any) -> frozenset[str]:
    """The attributes of the manager that every assignment in its methods makes a new
    list, dict or set: only their own methods change them."""
    fresh: set[str] = set()
    other: set[str] = set()
    for _, tree in trees:
        owner = _owner(tree)
        for node in syntax.walk(tree):
            if isinstance(node, gast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            elif isinstance(node, gast.AugAssign | gast.AnnAssign | gast.For):
                pairs = [(node.target, None)]
            else:
                continue
            for target, value in pairs:
                attribute = _own_attribute(target, owner)
                if attribute is not None:
                    (fresh if _new_container(value) else other).add(attribute)
                else:  # unpacked into: `self.laps, n = laps, 0`
                    other.update(n.attr for n in syntax.walk(target) if _own_attribute(n, owner))
    return frozenset(a for a in fresh - other if not _in_class(kind, a))


def _new_container(value: gast.expr | None) -> bool:
    if isinstance(value, gast.List | gast.Dict | gast.Set | gast.ListComp | gast.DictComp):
        return True
    return (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Name)
        and value.func.id in ("list", "dict", "set")
        and not value.args
        and not value.keywords
    )


def _owner(tree: gast.FunctionDef) -> str | None:
    arguments = [*tree.args.posonlyargs, *tree.args.args]
    return arguments[0].id if arguments and isinstance(arguments[0], gast.Name) else None


def _own_attribute(node: gast.AST, owner: str | None) -> str | None:
    """The attribute `node` names if it is `self.NAME`, else None."""
    if (
        owner is not None
        and isinstance(node, gast.Attribute)
        and isinstance(node.value, gast.Name)
        and node.value.id == owner
    ):
        return str(node.attr)
    return None


def _in_class(kind: type, attribute: str) -> bool:
    return any(attribute in vars(base) for base in kind.__mro__)


def _function_refusal(
    function: types.FunctionType,
    name: str,
    role: str,
    kind: type | None,
    fresh: frozenset[str],
    facts: list[Fact],
    tree: tuple[FunctionSource, gast.FunctionDef] | None = None,
) -> str | None:
    """Why `function` (`name` in messages), a manager's method (`role` is its name) or
    its generator (`role` is "yield"), is not proved; where it is, what it was proved
    with (the globals it reads, the module functions it calls) is added to `facts`."""
    read = tree or _tree(function)
    if isinstance(read, str):
        return read
    source, node = read
    defaults = [*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values()]
    if not all(isinstance(d, _CONSTANTS) for d in defaults):
        return f"{name} has a default value that is not a constant"
    if function.__code__.co_freevars:
        return f"{name} reads names of a function around it"
    flags = function.__code__.co_flags
    if flags & _SUSPENDING != (inspect.CO_GENERATOR if role == "yield" else 0):
        return f"{name} is a generator or a coroutine: what it returns is a true value"
    owner = None if kind is None else _owner(node)
    # Its body's nodes (not its decorators' or annotations'), and the names it binds.
    nodes = [n for statement in node.body for n in syntax.walk(statement)]
    local = {n.id for n in [*nodes, *syntax.walk(node.args)] if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store | gast.Param)}  # fmt: skip
    callees = {id(n.func) for n in nodes if isinstance(n, gast.Call)}
    # The manager is used only for its attributes, or returned: `print(self)`, `self == o`
    # or `str(self)` would run methods of its class srcad does not read.
    through = {id(n.value) for n in nodes if isinstance(n, gast.Attribute | gast.Return)}
    for child in nodes:
        why = _node_refusal(child, function, kind, owner, local, fresh, callees)
        if why is None and isinstance(child, gast.Return):
            why = _return_refusal(child, role, owner)
        if why is None and _used_whole(child, owner, through):
            why = f"uses `{owner}` other than for its attributes"
        if why is not None:
            line = getattr(child, "lineno", node.lineno)
            return f"{name} ({source.filename}:{line}) {why}"
    if role == "yield":
        why = _yield_refusal(node, name, source)
        if why is not None:
            return why
    for path in _global_paths(nodes, local, function):
        facts += name_facts(path, {}, function.__globals__)[0]
    return None


def _global_paths(
    nodes: list[gast.AST], local: set[str], function: types.FunctionType
) -> list[list[str]]:
    """The dotted names of globals `nodes` read (`log`, `time.perf_counter`: a module's
    attributes, not a logger's methods, which are made afresh on each read)."""
    paths: list[list[str]] = []
    for node in nodes:
        if isinstance(node, gast.Attribute | gast.Name):
            path: list[str] = []
            while isinstance(node, gast.Attribute):
                path.insert(0, node.attr)
                node = node.value
            if isinstance(node, gast.Name) and node.id not in local:
                value, kept = _lookup(node.id, function), [node.id]
                for attribute in path:
                    if not isinstance(value, types.ModuleType):
                        break
                    value = getattr(value, attribute, None)
                    kept.append(attribute)
                paths.append(kept)
    return paths


def _used_whole(node: gast.AST, owner: str | None, through: set[int]) -> bool:
    """Whether `node` is the manager (`self`) read other than for an attribute or returned."""
    return isinstance(node, gast.Name) and node.id == owner and id(node) not in through


def _return_refusal(statement: gast.Return, role: str, owner: str | None) -> str | None:
    value = statement.value
    if role == "yield":
        return "returns: it may swallow the exception raised in the body"
    if role == "__exit__":
        if value is None or (isinstance(value, gast.Constant) and value.value in (None, False)):
            return None
        return "returns a value other than None or False: a true one swallows an exception"
    if role == "__enter__" and isinstance(value, gast.Name) and value.id == owner:
        return None
    if value is None or isinstance(value, gast.Constant):
        return None
    return "returns a value other than a constant or the manager itself"


def _node_refusal(
    node: gast.AST,
    function: types.FunctionType,
    kind: type | None,
    owner: str | None,
    local: set[str],
    fresh: frozenset[str],
    callees: set[int],
) -> str | None:
    if isinstance(node, gast.Global | gast.Nonlocal):
        return "declares a global or nonlocal name"
    if isinstance(node, gast.Import | gast.ImportFrom):
        return "imports a module"
    if isinstance(node, gast.With | gast.AsyncWith | gast.Await | gast.YieldFrom):
        return "has a `with`, `await` or `yield from`"
    if isinstance(node, gast.Lambda | gast.ClassDef | gast.FunctionDef):
        return "defines a function or a class"
    if isinstance(node, gast.Assign | gast.AugAssign | gast.AnnAssign | gast.For | gast.Delete):
        targets = {
            gast.Assign: lambda n: n.targets,
            gast.Delete: lambda n: n.targets,
        }.get(type(node), lambda n: [n.target])(node)
        for target in targets:
            why = _target_refusal(target, kind, owner, isinstance(node, gast.Delete))
            if why is not None:
                return why
        return None
    if isinstance(node, gast.NamedExpr):
        return _target_refusal(node.target, kind, owner, False)
    if isinstance(node, gast.Call):
        return _call_refusal(node.func, function, owner, local, fresh)
    if isinstance(node, gast.Attribute) and id(node) not in callees:
        attribute = _own_attribute(node, owner)
        if attribute is not None:
            return _class_read_refusal(kind, attribute)
        if isinstance(node.value, gast.Name) and _module(node.value.id, function, local):
            return None
        if isinstance(node.value, gast.Name) and node.value.id in local:
            return None  # the exception `__exit__` is given, or one of its own values
        if isinstance(node.value, gast.Attribute):
            return None  # read through one of the above, each checked
        return f"reads the attribute `{node.attr}` of a value it did not make"
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in local:
        return _global_refusal(node.id, function)
    return None


def _target_refusal(
    target: gast.AST, kind: type | None, owner: str | None, deleted: bool
) -> str | None:
    if isinstance(target, gast.Name):
        return f"binds `{owner}` to another value" if target.id == owner else None
    if isinstance(target, gast.Tuple | gast.List):
        for element in target.elts:
            why = _target_refusal(element, kind, owner, deleted)
            if why is not None:
                return why
        return None
    if isinstance(target, gast.Starred):
        return _target_refusal(target.value, kind, owner, deleted)
    attribute = _own_attribute(target, owner)
    if attribute is not None and not deleted:
        assert kind is not None
        if attribute.startswith("__") or _class_read_refusal(kind, attribute) is not None:
            return (
                f"assigns `{owner}.{attribute}`, which its class defines other than as a constant"
            )
        return None
    return "assigns or deletes what is not a local name or an attribute of the manager"


def _class_read_refusal(kind: type | None, attribute: str) -> str | None:
    if kind is None or not _in_class(kind, attribute):
        return None
    value = next(vars(b)[attribute] for b in kind.__mro__ if attribute in vars(b))
    if isinstance(value, _CONSTANTS):
        return None
    return f"reads `{attribute}` of its class, which is not a constant"


def _lookup(name: str, function: types.FunctionType) -> Any:
    if name in function.__globals__:
        return function.__globals__[name]
    space = function.__globals__.get("__builtins__", builtins)
    space = space if isinstance(space, dict) else vars(space)
    return space.get(name, _lookup)  # `_lookup` itself: no such name


def _module(name: str, function: types.FunctionType, local: set[str]) -> bool:
    value = None if name in local else _lookup(name, function)
    return isinstance(value, types.ModuleType) and value.__name__ in _MODULES


def _global_refusal(name: str, function: types.FunctionType) -> str | None:
    value = _lookup(name, function)
    if (
        isinstance(value, (*_CONSTANTS, types.ModuleType, logging.Logger))
        or id(value) in _BUILTINS
        or _allowed_function(value)
        or _builtin_exception(value)
    ):
        return None
    return f"reads `{name}`, which is not a constant, a module or a function it may call"


def _builtin_exception(value: Any) -> bool:
    return (
        isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == "builtins"
    )


def _allowed_function(value: Any) -> bool:
    if value is warnings.warn:
        return True
    module = getattr(value, "__module__", None)
    return callable(value) and not isinstance(value, type) and module in _MODULES


def _call_refusal(
    func: gast.expr,
    function: types.FunctionType,
    owner: str | None,
    local: set[str],
    fresh: frozenset[str],
) -> str | None:
    if isinstance(func, gast.Name):
        if func.id in local:
            return f"calls its local value `{func.id}`"
        value = _lookup(func.id, function)
        if id(value) in _BUILTINS or _allowed_function(value) or _builtin_exception(value):
            return None
        return f"calls `{func.id}`, which may change a value the function reads"
    if not isinstance(func, gast.Attribute):
        return "calls a computed function"
    receiver = func.value
    if isinstance(receiver, gast.Constant) and isinstance(receiver.value, str):
        return None  # `"{}: {:.3f}".format(...)`, `", ".join(...)`
    attribute = _own_attribute(receiver, owner)
    if attribute is not None and attribute in fresh and func.attr in _CONTAINER_METHODS:
        return None
    path = [func.attr]
    while isinstance(receiver, gast.Attribute):
        path.insert(0, receiver.attr)
        receiver = receiver.value
    if isinstance(receiver, gast.Name) and receiver.id not in local:
        value = _lookup(receiver.id, function)
        if isinstance(value, types.ModuleType) and value.__name__ in _MODULES:
            return None
        if isinstance(value, logging.Logger) and path[0] in _LOGGER_METHODS and len(path) == 1:
            return None
        if value is warnings and path == ["warn"]:
            return None
    return f"calls `{'.'.join(path)}`, which may change a value the function reads"


def _yield_refusal(tree: gast.FunctionDef, name: str, source: FunctionSource) -> str | None:
    yields = [n for n in syntax.walk(tree) if isinstance(n, gast.Yield)]
    if len(yields) != 1:
        return f"{name} yields {len(yields)} times in its text, not once"
    value = yields[0].value
    if value is not None and not isinstance(value, gast.Constant) and not _fixed(value, tree):
        return f"{name} yields a value other than a constant or an argument it keeps"
    if not _yields_at_top(tree.body, yields[0]):
        where = f"{source.filename}:{yields[0].lineno}"
        return (
            f"{name} ({where}) yields other than as a statement at its top level or in the "
            "body of a `try` whose every `except` ends by re-raising: it could run the body "
            "more or less than once, or swallow its exception"
        )
    return None


def _fixed(value: gast.expr, tree: gast.FunctionDef) -> bool:
    """Whether `value` is an argument of the generator `tree` that it never binds again:
    a constant, as the manager is called with constants and its defaults are constants."""
    parameters = {n.id for n in syntax.walk(tree.args) if isinstance(n, gast.Name)}
    stored = {
        n.id
        for s in tree.body
        for n in syntax.walk(s)
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
    }
    return isinstance(value, gast.Name) and value.id in parameters - stored


def _yields_at_top(block: list[gast.stmt], found: gast.Yield) -> bool:
    for statement in block:
        if isinstance(statement, gast.Expr) and statement.value is found:
            return True
        if isinstance(statement, gast.Try) and _yields_at_top(statement.body, found):
            return all(
                h.body and isinstance(h.body[-1], gast.Raise) and h.body[-1].exc is None
                for h in statement.handlers
            )
    return False
