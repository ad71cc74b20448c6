"""The one module that parses and prints Python through gast; every pass goes through it."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import gast

from srcad import printer

# A comment cannot live in a syntax tree, so passes place a marker statement, an expression
# statement holding a string that starts with COMMENT_MARK, and `unparse` turns it into a
# `#` comment line.
COMMENT_MARK = "#srcad# "
_COMMENT_LINE = re.compile(
    r"^(?P<indent>\s*)(?P<literal>(?P<quote>\'\'\'|\"\"\"|'|\")"
    + re.escape(COMMENT_MARK)
    + r".*(?P=quote))$"
)


# Fields that never hold a node `walk` visits: identifiers, constants, and the context and
# operator leaves (`Load`, `Add`, `Eq`...), which are read through their parents.
_LEAF_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "module", "level", "asname",
    "conversion", "is_async", "simple", "rest", "tag",
})  # fmt: skip
_NAMED = (
    gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.alias, gast.MatchAs,
    gast.MatchStar,
)  # fmt: skip


def _subclasses(cls: type) -> set[type]:
    found = {cls}
    subclass: type
    for subclass in cls.__subclasses__():
        found |= _subclasses(subclass)
    return found


# Every class of node, gast's and `ast`'s (whose `AST` gast's is): `isinstance(value,
# gast.AST)`, as a set lookup.
_NODE_CLASSES = frozenset(_subclasses(gast.AST))


def _fields_holding_nodes(cls: type[gast.AST]) -> tuple[str, ...]:
    """The fields of `cls` that may hold nodes, last first (as `walk` pushes them)."""
    fields = [name for name in cls._fields if name not in _LEAF_FIELDS]
    if cls is gast.Constant:
        fields = []
    elif issubclass(cls, _NAMED):  # their `name` is a string (an `except`'s is a Name)
        fields.remove("name")
    return tuple(reversed(fields))


# Per class of node, `_fields_holding_nodes`: a table made once, for `walk` reads it for
# every node it visits.
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {
    cls: _fields_holding_nodes(cls) for cls in _NODE_CLASSES
}


def child_fields(cls: type[gast.AST]) -> tuple[str, ...]:
    """The fields of nodes of class `cls` that may hold nodes (all but identifiers,
    constants and the context and operator leaves), last first."""
    return _CHILD_FIELDS[cls]


def walk(node: gast.AST) -> Iterator[gast.AST]:
    """Every node of a tree but the context and operator leaves (`Load`, `Add`...),
    `node` first, each before its children and children in order (depth first, like
    reading the source).

    A fast path: cProfile of compiling robust_fit_loss (`benchmarks/profile_compile.py`)
    has `walk` the most called function of the compiler (2,400 nodes yielded per compile,
    7% of its time); written plainly, `todo += reversed(children(node))`, a walk of the
    emitted tree takes 2 to 3 times as long (0.5 to 1.0 ms against 0.2 to 0.35 ms)."""
    todo = [node]
    pop, push = todo.pop, todo.append
    children, nodes = _CHILD_FIELDS, _NODE_CLASSES
    while todo:
        node = pop()
        yield node
        state = node.__dict__
        for name in children[node.__class__]:
            child = state.get(name)
            if child.__class__ is list:
                for item in reversed(child):
                    if item.__class__ in nodes:
                        push(item)
            elif child.__class__ in nodes:
                push(child)


def children(node: gast.AST) -> list[gast.AST]:
    """The nodes `node` holds, in order, but the context and operator leaves (what
    `gast.iter_child_nodes` gives, less those)."""
    found: list[gast.AST] = []
    for name in reversed(child_fields(type(node))):
        child = getattr(node, name, None)
        if isinstance(child, list):
            found += [item for item in child if isinstance(item, gast.AST)]
        elif isinstance(child, gast.AST):
            found.append(child)
    return found


class Rewriter:
    """`gast.NodeTransformer` for the passes' rewrites: a method `visit_<Class>(node)`
    returns the expression or statement to put in place of `node` (`node` itself to keep
    it; it calls `generic_visit(node)` to rewrite the children first); a node without one
    has its children rewritten. Unlike gast's, it does not visit the context and
    operator leaves, and a method returns one node, never None or a list."""

    def visit(self, node: gast.AST) -> gast.AST:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            return self.generic_visit(node)
        rewritten: gast.AST = method(node)
        return rewritten

    def generic_visit(self, node: gast.AST) -> gast.AST:
        for name in child_fields(type(node)):
            child = getattr(node, name, None)
            if isinstance(child, list):
                for index, item in enumerate(child):
                    if isinstance(item, gast.AST):
                        child[index] = self.visit(item)
            elif isinstance(child, gast.AST):
                setattr(node, name, self.visit(child))
        return node


def parse(text: str) -> gast.Module:
    """Parse Python source text into a gast module."""
    return gast.parse(text)


def parse_ast(text: str) -> ast.Module:
    """Parse Python source text into Python's own tree (`as_gast` converts the parts of
    it a pass needs: converting a whole file costs more than parsing it)."""
    return ast.parse(text)


def to_ast(node: gast.AST) -> ast.AST:
    """Python's own tree of the gast `node`, with its positions (to compile it)."""
    return gast.gast_to_ast(node)


def as_gast(node: ast.AST) -> gast.AST:
    """The gast tree of Python's tree `node`: what `gast.ast_to_gast` gives (the tests
    compare the two on whole modules).

    A fast path: the function srcad differentiates, and each callee, is converted once
    per compile; cProfile of compiling robust_fit_loss (`benchmarks/profile_compile.py`)
    puts `gast.ast_to_gast` of its definition at 1.2 to 2.3 ms against this conversion's
    0.2 to 0.6 ms (up to a tenth of the compile time). Each node becomes the
    gast node of its class's name, with its fields converted and its position; a
    parameter (`ast.arg`) becomes a `Name` in the `Param` context, the name an `except`
    clause binds a `Name` in the `Store` context, and the fields only gast has (`Name`'s
    annotation, `type_params` before Python 3.12...) are empty."""
    converted: gast.AST = _convert(node)
    return converted


def _convert(value: Any) -> Any:
    cls = value.__class__
    if cls is ast.Name:
        return _converted_name(value)  # the most nodes of all
    if cls is list:
        return [_convert(item) for item in value]
    plan = _CONVERSIONS.get(cls)
    if plan is None:
        if not isinstance(value, ast.AST):
            return value  # an identifier or a constant (in a list: `global a, b`...)
        leaf = _LEAF_CONVERSIONS.get(cls)
        if leaf is not None:
            return leaf
        special = _SPECIAL_CONVERSIONS.get(cls)
        if special is not None:
            return special(value)
        plan = _conversion(cls)
    target: Any
    target, dropped, leaves, leaf_lists, children, only_gast = plan
    if target is None:
        return None  # a class gast does not have (as `gast.ast_to_gast` drops it)
    new = target.__new__(target)
    # Identifiers, constants and positions, most of a node, are kept as they are.
    new.__dict__ = state = value.__dict__.copy()
    for name in dropped:
        state.pop(name, None)
    # A context or an operator becomes gast's shared one.
    shared = _LEAF_CONVERSIONS
    for name in leaves:
        item = state.get(name)
        if item is not None:
            state[name] = shared[item.__class__]
    for name in leaf_lists:
        state[name] = [shared[item.__class__] for item in state[name]]
    for name in children:
        item = state.get(name)
        if item is not None:
            state[name] = _converted_name(item) if item.__class__ is ast.Name else _convert(item)
    for name, empty in only_gast:
        state[name] = [] if empty else None
    return new


# Per `ast` class, how `_convert` makes its gast node: the gast class; the fields and
# position attributes gast's class lacks; the fields holding a context or an operator,
# and those holding a list of them (a comparison's); the fields that may hold nodes;
# gast's own fields (True: a list).
_CONVERSIONS: dict[type, Any] = {}
_LIST_FIELDS = frozenset({"type_params"})
# Each context and operator class of `ast`, and one instance of gast's class of its name:
# converted trees share them, as `copy_tree`'s copies do.
_LEAF_CONVERSIONS: dict[type, gast.AST] = {
    cls: getattr(gast, cls.__name__)()
    for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for cls in base.__subclasses__()
    if hasattr(gast, cls.__name__)
}


def _conversion(cls: Any) -> Any:
    target = getattr(gast, cls.__name__, None)
    plan: Any = (None, (), (), (), (), ())
    if target is not None:
        shared = [name for name in target._fields if name in cls._fields]
        dropped = tuple(name for name in cls._fields if name not in target._fields) + tuple(
            name for name in cls._attributes if name not in target._attributes
        )
        leaves = tuple(name for name in shared if name in ("ctx", "op"))
        leaf_lists = tuple(name for name in shared if name == "ops")
        children = tuple(name for name in shared if name in child_fields(target))
        only_gast = tuple(
            (name, name in _LIST_FIELDS) for name in target._fields if name not in cls._fields
        )
        plan = (target, dropped, leaves, leaf_lists, children, only_gast)
    _CONVERSIONS[cls] = plan
    return plan


def _converted_name(node: ast.Name) -> gast.Name:
    given = node.__dict__
    new = gast.Name.__new__(gast.Name)
    state = new.__dict__ = {
        "id": node.id,
        "ctx": _LEAF_CONVERSIONS[node.ctx.__class__],
        "annotation": None,
        "type_comment": None,
    }
    if "end_col_offset" in given:  # a parsed name has all its positions
        state["lineno"] = given["lineno"]
        state["col_offset"] = given["col_offset"]
        state["end_lineno"] = given["end_lineno"]
        state["end_col_offset"] = given["end_col_offset"]
    else:
        state.update((name, given[name]) for name in _POSITIONS if name in given)
    return new


def _converted_arg(node: ast.arg) -> gast.Name:
    new = gast.Name(id=node.arg, ctx=gast.Param(), annotation=_convert(node.annotation),
                    type_comment=node.type_comment)  # fmt: skip
    return located(new, node)


def _converted_handler(node: ast.ExceptHandler) -> gast.ExceptHandler:
    name = None
    if node.name:
        name = gast.Name(id=node.name, ctx=gast.Store(), annotation=None, type_comment=None)
    new = gast.ExceptHandler(type=_convert(node.type), name=name, body=_convert(node.body))
    return located(new, node)


_SPECIAL_CONVERSIONS: dict[type, Callable[[Any], gast.AST]] = {
    ast.arg: _converted_arg,
    ast.ExceptHandler: _converted_handler,
}


def comment(text: str) -> gast.Expr:
    """A statement that `unparse` prints as the comment `# text`."""
    return make(gast.Expr, value=make(gast.Constant, value=COMMENT_MARK + text, kind=None))


def is_comment(node: gast.AST) -> bool:
    return (
        isinstance(node, gast.Expr)
        and isinstance(node.value, gast.Constant)
        and isinstance(node.value.value, str)
        and node.value.value.startswith(COMMENT_MARK)
    )


def unparse(tree: gast.AST) -> str:
    """Source text for `tree`, with comment markers printed as comments: `printer`'s
    text, which is `gast.unparse`'s, and `gast.unparse` itself for a tree holding
    something `printer` leaves alone.

    >>> print(unparse(parse("x = a  +  b")), end="")
    x = a + b
    """
    try:
        lines = printer.lines(tree, COMMENT_MARK)
    except printer.UnprintableError:
        lines = _gast_lines(tree)
    return "\n".join(lines) + "\n"


def _gast_lines(tree: gast.AST) -> list[str]:
    # gast's printer reads each statement's line (for `# type: ignore` comments), which
    # the statements srcad builds lack: it prints a copy where they are line 0.
    tree = copy_tree(tree)
    for node in walk(tree):
        if isinstance(node, gast.stmt) and not hasattr(node, "lineno"):
            node.lineno = 0
    lines = []
    for line in gast.unparse(tree).splitlines():
        match = _COMMENT_LINE.match(line)
        if match:
            value = ast.literal_eval(match["literal"])
            if isinstance(value, str) and value.startswith(COMMENT_MARK):
                lines.append(f"{match['indent']}# {value[len(COMMENT_MARK) :]}")
                continue
        lines.append(line)
    return lines


_BLOCKS = ("body", "orelse", "finalbody")
_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def copy_tree(node: Any) -> Any:
    """A copy of a tree (or a list of trees): new nodes, the same identifiers, constants and
    positions (the context and operator leaves, `Load`, `Add`..., are shared: nothing
    changes them in place). `copy.deepcopy` would copy the leaves too, and keep a memo
    of every object: 5 times the cost, on the trees the passes copy for each loop and
    each nested function.

    >>> tree = parse("y = f(x) + 1")
    >>> twin = copy_tree(tree)
    >>> twin is not tree and gast.dump(twin) == gast.dump(tree)
    True
    """
    if isinstance(node, list):
        return [copy_tree(item) for item in node]
    if not isinstance(node, gast.AST):
        return node  # str, int, float, None...: immutable
    cls: type[gast.AST] = type(node)
    new = gast.AST.__new__(cls)
    state = new.__dict__ = node.__dict__.copy()
    for name in child_fields(cls):
        child = state.get(name)
        if isinstance(child, list):
            state[name] = [copy_tree(item) for item in child]
        elif isinstance(child, gast.AST):
            state[name] = copy_tree(child)
    return new


def located(new: Any, old: gast.AST) -> Any:
    """`new` with `old`'s source position (what `gast.copy_location` does, where `old`
    may lack some of them)."""
    state, position = new.__dict__, old.__dict__
    for name in _POSITIONS:
        if name in position:
            state[name] = position[name]
    return new


N = TypeVar("N", bound=gast.AST)


def make(cls: type[N], **fields: Any) -> N:
    """A new node: what `cls(**fields)` builds (give every field).

    A fast path: gast's constructors check and fill every field, 2.6 µs for a `Name`
    against 1.2 µs here; the passes build about a thousand nodes to compile
    robust_fit_loss (cProfile, `benchmarks/profile_compile.py`), a tenth of the time."""
    node: N = gast.AST.__new__(cls)
    node.__dict__ = fields
    return node


# The contexts of built names, and the operator of sums: one instance of each, shared as
# `copy_tree` shares the leaves (nothing changes a context or an operator in place).
LOAD, STORE, ADD = gast.Load(), gast.Store(), gast.Add()


def load(name: str) -> gast.Name:
    """The name `name`, read."""
    return make(gast.Name, id=name, ctx=LOAD, annotation=None, type_comment=None)


def store(name: str) -> gast.Name:
    """The name `name`, assigned."""
    return make(gast.Name, id=name, ctx=STORE, annotation=None, type_comment=None)


def same_tree(text: str, tree: gast.AST) -> bool:
    """Whether `text` parses back to `tree` (comments aside): the emitter's self-check.

    The trees are compared field by field, as their `gast.dump` texts would be, without
    copying `tree` or printing either.

    >>> tree = parse("y = (a + b) * c")
    >>> same_tree("y = (a + b) * c", tree), same_tree("y = a + b * c", tree)
    (True, False)
    """
    return same_as_parsed(ast.parse(text), tree)


def same_as_parsed(parsed: Any, built: Any) -> bool:
    """Whether `parsed`, from `ast.parse` (not converted to gast: that costs more than the
    parse), is the gast tree `built` (comments aside): node classes match by name, a
    parameter `ast.arg` (and the name bound by `except E as name`) is gast's `Name`, and a
    field gast adds (`Name.annotation`, `type_params` on older Pythons) must be empty.

    A fast path: every emitted text is checked this way, and cProfile of compiling
    robust_fit_loss (`benchmarks/profile_compile.py`) has the comparison of its 150 lines
    take 0.7 to 1.0 ms so, against 2.3 to 3.0 ms for a plain recursive comparison of
    fields (and 10 ms for comparing `gast.dump` texts): the commonest classes are
    compared by hand, the others by a plan made once per pair of classes."""
    cls, parsed_class = built.__class__, parsed.__class__
    # The classes most nodes of emitted code have, by hand, most frequent first (as their
    # plans compare them: every field, a list field element by element).
    if cls is gast.Name:
        if parsed_class is ast.Name:
            return (
                parsed.id == built.id
                and _LEAVES.get(parsed.ctx.__class__) is built.ctx.__class__
                and built.annotation is None
                and built.type_comment is None
            )
    elif cls is gast.Assign:
        if parsed_class is ast.Assign:
            return (
                built.type_comment is None  # (`ast.parse` reads no type comments)
                and _same_lists(parsed.targets, built.targets)
                and same_as_parsed(parsed.value, built.value)
            )
    elif cls is gast.Constant:
        if parsed_class is ast.Constant:
            return parsed.kind == built.kind and _same_value(parsed.value, built.value)
    elif cls is gast.BinOp:
        if parsed_class is ast.BinOp:
            return (
                _LEAVES.get(parsed.op.__class__) is built.op.__class__
                and same_as_parsed(parsed.left, built.left)
                and same_as_parsed(parsed.right, built.right)
            )
    elif cls is gast.Tuple:
        if parsed_class is ast.Tuple:
            return _LEAVES.get(parsed.ctx.__class__) is built.ctx.__class__ and _same_lists(
                parsed.elts, built.elts
            )
    elif cls is gast.Call:
        if parsed_class is ast.Call:
            return (
                same_as_parsed(parsed.func, built.func)
                and _same_lists(parsed.args, built.args)
                and _same_lists(parsed.keywords, built.keywords)
            )
    elif cls is gast.Subscript:
        if parsed_class is ast.Subscript:
            return (
                _LEAVES.get(parsed.ctx.__class__) is built.ctx.__class__
                and same_as_parsed(parsed.value, built.value)
                and same_as_parsed(parsed.slice, built.slice)
            )
    elif cls is gast.If:
        if parsed_class is ast.If:
            return (
                same_as_parsed(parsed.test, built.test)
                and _same_blocks(parsed.body, built.body)
                and _same_blocks(parsed.orelse, built.orelse)
            )
    elif cls is gast.Expr:
        if parsed_class is ast.Expr:
            return same_as_parsed(parsed.value, built.value)
    elif cls is list and parsed_class is list:
        return _same_lists(parsed, built)
    plan = _PLANS.get((parsed_class, cls))
    if plan is None:
        plan = _plan(parsed, built)
    if plan.__class__ is not tuple:
        return bool(plan(parsed, built))
    state, other = built.__dict__, parsed.__dict__
    for name, kind in plan:
        expected = state.get(name)
        if kind is _FIELD:
            value = other.get(name)
            if expected.__class__ is str or expected is None:
                if value == expected and value.__class__ is expected.__class__:
                    continue  # an identifier, or None, alike on both sides: most fields
                return False
            if not same_as_parsed(value, expected):
                return False
        elif kind is _LEAF:  # a context or an operator
            if _LEAVES.get(other.get(name).__class__) is not expected.__class__:
                return False
        elif kind is _BLOCK:
            if expected.__class__ is list:
                if not _same_blocks(other.get(name), expected):
                    return False
            elif not same_as_parsed(other.get(name), expected):
                return False
        elif not (expected is None or expected == []):  # a field only gast has
            return False
    return True


# How `same_as_parsed` compares a parsed node with a built one, by their two classes: a
# function, or each field of the built one with how to compare it.
_PLANS: dict[tuple[type, type], Any] = {}
_FIELD, _LEAF, _BLOCK, _ONLY_GAST = "field", "leaf", "block", "only gast"
# Each context and operator class of `ast`, and gast's class of the same name.
_LEAVES: dict[type, type] = {
    cls: getattr(gast, cls.__name__)
    for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for cls in base.__subclasses__()
    if hasattr(gast, cls.__name__)
}


def _plan(parsed: Any, built: Any) -> Any:
    parsed_class, built_class = parsed.__class__, built.__class__
    plan: Any
    if built_class is list:
        plan = _same_lists if parsed_class is list else _different
    elif not isinstance(built, gast.AST):
        plan = _different if isinstance(parsed, ast.AST) or parsed_class is list else _same_value
    elif isinstance(parsed, str) or parsed_class is ast.arg:
        plan = _same_special
    elif parsed_class.__name__ != built_class.__name__:
        plan = _different
    else:
        fields = parsed._fields
        plan = tuple(
            (name, _field_kind(name) if name in fields else _ONLY_GAST) for name in built._fields
        )
    _PLANS[parsed_class, built_class] = plan
    return plan


def _field_kind(name: str) -> str:
    if name in ("ctx", "op"):
        return _LEAF
    return _BLOCK if name in _BLOCKS else _FIELD


def _same_lists(parsed: Any, built: list[Any]) -> bool:
    if parsed.__class__ is not list or len(parsed) != len(built):
        return False
    if len(built) == 1:  # most lists here (targets, arguments): without building a map
        return same_as_parsed(parsed[0], built[0])
    return all(map(same_as_parsed, parsed, built))


def _same_blocks(parsed: Any, built: list[Any]) -> bool:
    # The built statements less their comments, which no parse has.
    statements = [s for s in built if not is_comment(s)]
    return _same_lists(parsed, statements)


def _same_value(parsed: Any, built: Any) -> bool:
    return repr(parsed) == repr(built)  # a constant: `-0.0` is not `0.0`, `1` not `True`


def _different(parsed: Any, built: Any) -> bool:
    return False


def _same_special(parsed: Any, built: gast.AST) -> bool:
    """A name bound by `except E as name` (a string in `ast`), or a parameter (`ast.arg`),
    compared with gast's `Name`."""
    if isinstance(parsed, str):
        return type(built) is gast.Name and parsed == built.id
    return (
        type(built) is gast.Name
        and isinstance(built.ctx, gast.Param)
        and parsed.arg == built.id
        and same_as_parsed(parsed.annotation, built.annotation)
        and parsed.type_comment == built.type_comment
    )
