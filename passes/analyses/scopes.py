"""Scopes: classify every name a function reads as parameter, local, closure, global or builtin."""

from __future__ import annotations

from functools import cached_property

import beniget
import gast

from srcad import syntax
from srcad.passes.analyses.nodes import Nodes
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.normal_form import COMPOUND


class ScopeInfo:
    """The parameters and locals of the function, its nested functions, and what each name
    load refers to (`bindings`), with every identifier the function mentions (`names`).

    Those last two are found from the function's name nodes when first asked for (like
    any analysis result, they describe the tree until a transform changes it): what
    `ToANF` knows of its output spares it the def-use chains, and a walk for them, which
    the passes after it never ask for."""

    def __init__(self, function: gast.FunctionDef, bound: set[str], ctx: Context,
                 names: list[gast.Name] | None = None) -> None:  # fmt: skip
        """`bound`: the names bound in the function's scope (its parameters among them or
        not); `names`: its name nodes, where known (else a walk finds them)."""
        args = function.args
        every_arg = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every_arg += [a for a in (args.vararg, args.kwarg) if a is not None]
        self.parameters = [a.id for a in every_arg]
        self.locals = bound - set(self.parameters)
        self._function, self._source, self._name_nodes = function, ctx.source, names
        # The name nodes of comprehensions' own variables (`comprehension_variables`), where
        # the function has comprehensions: `Scopes` sets them.
        self.comprehension_variables: frozenset[int] = frozenset()
        # Beniget's def-use chains of the function, where `Scopes` needed them.
        self.chains: beniget.DefUseChains | None = None

    @property
    def capturable(self) -> set[str]:
        """The names a function nested in this one may read from it: its parameters and
        locals, and, in a nested function itself, those of the enclosing functions (a
        function nested two deep reads them through this one, whose rule gives their
        cotangents or reads their tangents in turn)."""
        return set(self.parameters) | self.locals | self._source.enclosing

    @cached_property
    def definitions(self) -> dict[gast.stmt, gast.FunctionDef]:
        """The nested functions defined in the function's own statements, by the statement
        binding each (`nested_definitions`)."""
        return nested_definitions(self._function)

    @property
    def bindings(self) -> dict[gast.Name, str]:
        """The binding kind of each name load: "parameter", "local", or where Python finds
        it ("global", "closure", "builtin", ...)."""
        return self._by_name_node[0]

    @property
    def names(self) -> set[str]:
        """Every identifier the function mentions."""
        return self._by_name_node[1]

    @cached_property
    def _by_name_node(self) -> tuple[dict[gast.Name, str], set[str]]:
        """`bindings` and `names`, from one look at each name node."""
        names = self._name_nodes
        if names is None:
            names = [node for node in syntax.walk(self._function) if isinstance(node, gast.Name)]
        by_name: dict[str, str] = {}  # what each name is: the same for each of its loads
        bindings: dict[gast.Name, str] = {}
        every_name: set[str] = set()
        for node in names:
            name = node.id
            every_name.add(name)
            if isinstance(node.ctx, gast.Load):
                if id(node) in self.comprehension_variables:
                    bindings[node] = "local"  # a loop variable once `ToANF` lowers it
                    continue
                binding = by_name.get(name)
                if binding is None:
                    binding = by_name[name] = self._binding(name)
                bindings[node] = binding
        return bindings, every_name

    def _binding(self, name: str) -> str:
        if name in self.parameters:
            return "parameter"
        if name in self.locals:
            return "local"
        return self._source.lookup(name)[0]


class _QuietChains(beniget.DefUseChains):
    """Def-use chains that keep quiet: names beniget cannot bind inside the function are
    globals, closure cells or builtins, which `Scopes` looks up itself."""

    def warn(self, msg: str, node: gast.AST) -> None:
        """Say nothing: an unbound name here is resolved later, not an error."""


class Scopes(Analysis[ScopeInfo]):
    """Beniget's def-use chains over the function, completed by its globals and closure.

    A loaded name defined in the function is a "parameter" or "local"; any other is looked
    up where Python would at run time: "closure", "global", "builtin", else "undefined".
    A plain function's locals are simply the names it assigns: the chains are not needed.
    """

    def run(self, tree: gast.Module, ctx: Context) -> ScopeInfo:
        function = function_of(tree)
        names, bound = _names_and_plain_locals(function, ctx.analysis(Nodes, tree))
        chains = None
        if bound is None:
            chains = _QuietChains()
            chains.visit(gast.Module(body=[function], type_ignores=[]))
            bound = {d.name() for d in chains.locals[function]}
        info = ScopeInfo(function, bound, ctx, names)
        info.chains = chains
        if chains is not None:  # a plain function has no comprehension
            info.comprehension_variables = comprehension_variables(function)
        return info


# The nodes of a plain function: one that binds names only by assignment to a name and by
# `for` (no nested scope, no `global`, `del`, `import`, `with`, `:=` ...), as most
# numerical code does.
_PLAIN_NODES = (
    gast.Assign, gast.AugAssign, gast.For, gast.While, gast.If, gast.Return, gast.Expr,
    gast.Pass, gast.Break, gast.Continue, gast.Raise, gast.BoolOp, gast.BinOp, gast.UnaryOp,
    gast.IfExp, gast.Dict, gast.List, gast.Tuple, gast.Call, gast.keyword, gast.Compare,
    gast.Attribute, gast.Subscript, gast.Slice, gast.Name, gast.Constant, gast.arguments,
    gast.Load, gast.Store, gast.Param, gast.operator, gast.unaryop, gast.cmpop, gast.boolop,
    gast.Assert, gast.JoinedStr, gast.FormattedValue,
)  # fmt: skip


def _names_and_plain_locals(
    function: gast.FunctionDef, nodes: list[gast.AST]
) -> tuple[list[gast.Name], set[str] | None]:
    """Every name node of the function (among its `nodes`), and the names a plain function
    binds, parameters included, as beniget finds them; None for any other function, which
    needs beniget's def-use chains (much slower).

    As in beniget, `name += value` alone does not make `name` local.
    """
    names: list[gast.Name] = []
    bound: set[str] | None = set()
    augmented: set[gast.Name] = set()
    for node in nodes:
        if isinstance(node, gast.Name):
            names.append(node)
            stored = isinstance(node.ctx, gast.Store | gast.Param) and node not in augmented
            if bound is not None and stored:
                bound.add(node.id)
        elif not isinstance(node, _PLAIN_NODES) and node is not function:
            bound = None
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            augmented.add(node.target)
    return names, bound


def scope_info(function: gast.FunctionDef, bound: set[str], ctx: Context) -> ScopeInfo:
    """What `Scopes` finds in `function`, given the names bound in its own scope (its
    parameters among them or not): a transform that knows them spares the def-use chains."""
    return ScopeInfo(function, bound, ctx)


class LocalFunction:
    """The nested functions (each defined by a `def` or by `name = lambda`) that a call of
    a local name may call: the definitions of the name that reach it, found by the def-use
    chains, and those reaching any other call that one of them reaches. Each definition is
    compiled on its own; emitted code binds their rules to one name, wherever the function
    binds its own name to one of them, so that each call calls the rule of the definition
    that ran."""

    __slots__ = ("name", "nodes")

    def __init__(self, name: str, nodes: tuple[gast.FunctionDef, ...]) -> None:
        self.name = name
        self.nodes = nodes

    @property
    def parameters(self) -> tuple[str, ...]:
        """The differentiated parameters (`parameters_of`; the same for each definition:
        `Callees` checks)."""
        return parameters_of(self.nodes[0])

    def captured(self, outer: set[str]) -> list[str]:
        """The enclosing function's names any of the definitions reads when called."""
        names = [name for node in self.nodes for name in captured_names(node, outer)]
        return list(dict.fromkeys(names))

    def captured_by(self, node: gast.FunctionDef, outer: set[str]) -> list[str]:
        """What the rule of one definition, `node`, gives cotangents (or reads tangents)
        for: what any of the definitions reads, but the names `node` binds itself (those
        are its own, not the enclosing function's). It gives a zero for what it does not
        read, so each definition's cotangent for the function has the same fields."""
        own = _bound_in(node)
        return [name for name in self.captured(outer) if name not in own]

    def __repr__(self) -> str:
        lines = ", ".join(str(getattr(node, "lineno", "?")) for node in self.nodes)
        return f"<nested function {self.name} defined at line(s) {lines}>"


def parameters_of(node: gast.FunctionDef) -> tuple[str, ...]:
    """The parameters a nested function's rule gives a cotangent (or reads a tangent) for,
    in order, and which a call's arguments go to by position or name: the positional ones,
    then, where it takes no `*args` (whose arguments come after the positional ones), its
    keyword-only ones (`def inner(y, *, scale)`), which a call passes by name."""
    args = node.args
    keyword_only = args.kwonlyargs if args.vararg is None else []
    return tuple(a.id for a in [*args.posonlyargs, *args.args, *keyword_only])


_SCOPES = (
    gast.FunctionDef,
    gast.Lambda,
    gast.ListComp,
    gast.SetComp,
    gast.DictComp,
    gast.GeneratorExp,
)


def _bound_in(node: gast.FunctionDef | gast.Lambda) -> set[str]:
    """The names a nested function binds in its own scope: its parameters and what it
    assigns (not what a function nested in it, or a comprehension's variable, binds:
    those live in scopes of their own)."""
    return _scope_names(node)[0]


def _scope_names(node: gast.AST) -> tuple[set[str], list[str]]:
    """The names the scope `node` (a function, lambda or comprehension) binds, and the
    free names it reads, in order: those read in it, or in a scope nested in it, that it
    does not bind itself. A nested function's default values and decorators, and a
    comprehension's first iterable, are read in the scope around it: they count as the
    reads of the scope that defines it."""
    bound: set[str] = set()
    read: list[str] = []
    if isinstance(node, gast.FunctionDef | gast.Lambda):
        arguments = node.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        bound |= {a.id for a in [*every, arguments.vararg, arguments.kwarg] if a is not None}
        todo: list[gast.AST] = list(node.body) if isinstance(node.body, list) else [node.body]
    else:  # a comprehension: its targets are its own, its first iterable is the outside's
        generators = node.generators
        todo = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
        for i, generator in enumerate(generators):
            todo += [generator.target, *([generator.iter] if i else []), *generator.ifs]

    def visit(child: gast.AST) -> None:  # in the order of the source, like `syntax.walk`
        if isinstance(child, gast.Name):
            if isinstance(child.ctx, gast.Load):
                read.append(child.id)
            else:
                bound.add(child.id)
        elif isinstance(child, _SCOPES):
            if isinstance(child, gast.FunctionDef):
                bound.add(child.name)
            for part in _outside_reads(child):
                visit(part)
            read.extend(_scope_names(child)[1])
        else:
            for grandchild in gast.iter_child_nodes(child):
                visit(grandchild)

    for child in todo:
        visit(child)
    return bound, [name for name in dict.fromkeys(read) if name not in bound]


def comprehension_variables(function: gast.FunctionDef) -> frozenset[int]:
    """The ids of the name nodes that refer to a comprehension's own variable: `fn` in
    `[fn(x) for fn in fs]` is that comprehension's, not a global `fn` (which the function's
    other reads of `fn` may be), and `ToANF` makes it a local of the loop it lowers the
    comprehension to. Everything a comprehension binds is its own (Python 3 scopes), but for
    the first iterable, which the scope around it evaluates."""
    found: set[int] = set()
    for node in syntax.walk(function):
        if isinstance(node, gast.ListComp | gast.SetComp | gast.DictComp | gast.GeneratorExp):
            own = _scope_names(node)[0]
            outside = {id(n) for part in _outside_reads(node) for n in syntax.walk(part)}
            found.update(
                id(child)
                for child in syntax.walk(node)
                if isinstance(child, gast.Name) and child.id in own and id(child) not in outside
            )
    return frozenset(found)


def _outside_reads(node: gast.AST) -> list[gast.AST]:
    """The parts of a scope `node` that the scope around it evaluates."""
    if isinstance(node, gast.FunctionDef | gast.Lambda):
        arguments = node.args
        parts = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
        return parts + list(getattr(node, "decorator_list", []))
    return [node.generators[0].iter]


def captured_names(node: gast.FunctionDef | gast.Lambda, outer: set[str]) -> list[str]:
    """The names of `outer` that a nested function reads (its default values among them)
    and does not bind itself, found by Python's scope rules."""
    read = _scope_names(node)[1]
    defaults = [
        n.id
        for part in _outside_reads(node)
        for n in syntax.walk(part)
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
    ]
    return [name for name in dict.fromkeys(defaults + read) if name in outer]


def as_function_def(name: str, node: gast.Lambda) -> gast.FunctionDef:
    """`name = lambda args: body` as the `def` it is equivalent to."""
    body = [syntax.located(gast.Return(value=node.body), node)]
    function = gast.FunctionDef(
        name=name,
        args=node.args,
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        type_params=[],
    )
    return syntax.located(function, node)


def nested_definitions(function: gast.FunctionDef) -> dict[gast.stmt, gast.FunctionDef]:
    """Each nested function `function` defines in its own statements, by the statement that
    binds it: a `def` (itself), or an assignment `name = lambda ...` (the `def` it is
    equivalent to, made once here, which the normal form puts in its place)."""
    found: dict[gast.stmt, gast.FunctionDef] = {}
    stack = list(function.body)
    while stack:
        statement = stack.pop()
        if isinstance(statement, gast.FunctionDef):
            found[statement] = statement
            continue
        if isinstance(statement, gast.Assign):
            target = statement.targets[0]
            if (
                len(statement.targets) == 1
                and isinstance(target, gast.Name)
                and isinstance(statement.value, gast.Lambda)
            ):
                found[statement] = as_function_def(target.id, statement.value)
        if type(statement) in COMPOUND:
            stack += statement.body
            stack += getattr(statement, "orelse", [])
    return found


def variable_nodes(function: gast.FunctionDef, name: str) -> list[gast.Name]:
    """The name nodes of `function`'s own variable `name`, in the order of `syntax.walk`:
    those in a nested function, lambda or comprehension that binds `name` in its own scope
    belong to another variable, by Python's scope rules (`_scope_names`), and are left
    out (but for the defaults, decorators or first iterable the enclosing scope
    evaluates). A scope that declares `name` `nonlocal` or `global` is not left out: the
    callers refuse such a name."""
    found: list[gast.Name] = []
    stack: list[gast.AST] = [function]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Name) and node.id == name:
            found.append(node)
        if node is not function and isinstance(node, _SCOPES) and _binds_own(node, name):
            children: list[gast.AST] = _outside_reads(node)
        else:
            children = list(gast.iter_child_nodes(node))
        stack += reversed(children)
    return found


def _binds_own(scope: gast.AST, name: str) -> bool:
    """Whether `scope` (a nested function, lambda or comprehension) has a variable `name`
    of its own: it binds the name and declares it neither `nonlocal` nor `global`."""
    if name not in _scope_names(scope)[0]:
        return False
    return not any(
        isinstance(n, gast.Global | gast.Nonlocal) and name in n.names for n in syntax.walk(scope)
    )


def owning_scope(node: gast.AST, ancestors: list[gast.AST], name: str) -> gast.AST | None:
    """The scope whose variable `name` a use of it at `node` refers to: the innermost of
    `ancestors` (`node`'s, innermost first, up to the function compiled) that is a
    function, lambda or comprehension with a variable `name` of its own, where `node` is
    not in a part the scope around it evaluates (a default value, a first iterable). None:
    the name is not the function's (a global, a closure cell, a builtin)."""
    path = {node}
    for ancestor in ancestors:
        own = isinstance(ancestor, _SCOPES) and not any(
            part in path for part in _outside_reads(ancestor)
        )
        if own and ancestor is ancestors[-1]:
            return ancestor if name in _bound_in(ancestor) else None
        if own and _binds_own(ancestor, name):
            return ancestor
        path.add(ancestor)
    return None
