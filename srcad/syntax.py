"""The one module that parses and prints Python through gast; every pass goes through it."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

import gast

# A comment cannot live in a syntax tree, so passes place a marker statement, an expression
# statement holding a string that starts with COMMENT_MARK, and `unparse` turns it into a
# `#` comment line.
COMMENT_MARK = "#srcad# "
_COMMENT_LINE = re.compile(
    r"^(?P<indent>\s*)(?P<literal>(?P<quote>\'\'\'|\"\"\"|'|\")"
    + re.escape(COMMENT_MARK)
    + r".*(?P=quote))$"
)


def walk(node: gast.AST) -> Iterator[gast.AST]:
    """Every node of a tree, `node` first, each before its children and children in
    order (depth first, like reading the source); `ast.walk`'s work at less cost, for the
    compiler walks its trees many times over."""
    todo = [node]
    pop, push = todo.pop, todo.append
    while todo:
        node = pop()
        yield node
        for name in reversed(node._fields):
            child = getattr(node, name, None)
            if isinstance(child, list):
                for item in reversed(child):
                    if isinstance(item, gast.AST):
                        push(item)
            elif isinstance(child, gast.AST):
                push(child)


def parse(text: str) -> gast.Module:
    """Parse Python source text into a gast module."""
    return gast.parse(text)


def comment(text: str) -> gast.Expr:
    """A statement that `unparse` prints as the comment `# text`."""
    return gast.Expr(value=gast.Constant(value=COMMENT_MARK + text, kind=None))


def is_comment(node: gast.AST) -> bool:
    return (
        isinstance(node, gast.Expr)
        and isinstance(node.value, gast.Constant)
        and isinstance(node.value.value, str)
        and node.value.value.startswith(COMMENT_MARK)
    )


def unparse(tree: gast.AST) -> str:
    """Source text for `tree`, with comment markers printed as comments.

    >>> print(unparse(parse("x = a  +  b")), end="")
    x = a + b
    """
    lines = []
    for line in gast.unparse(tree).splitlines():
        match = _COMMENT_LINE.match(line)
        if match:
            value = ast.literal_eval(match["literal"])
            if isinstance(value, str) and value.startswith(COMMENT_MARK):
                lines.append(f"{match['indent']}# {value[len(COMMENT_MARK) :]}")
                continue
        lines.append(line)
    return "\n".join(lines) + "\n"


_BLOCKS = ("body", "orelse", "finalbody")
_UNSET = object()


def _shown(node: gast.AST, name: str, value: object) -> bool:
    """Whether `gast.dump` shows the field: not when unset, an empty list, or None where
    the class's default is None."""
    if value is _UNSET or (isinstance(value, list) and not value):
        return False
    return value is not None or getattr(type(node), name, _UNSET) is not None


def _same(parsed: Any, built: Any) -> bool:
    """Whether `gast.dump` prints the two alike, once comments are taken out of `built`."""
    if isinstance(built, list):
        return (
            isinstance(parsed, list)
            and len(parsed) == len(built)
            and all(map(_same, parsed, built))
        )
    if not isinstance(built, gast.AST):
        return not isinstance(parsed, gast.AST | list) and repr(parsed) == repr(built)
    if type(parsed) is not type(built):
        return False
    for name in built._fields:
        value = getattr(parsed, name, _UNSET)
        expected = getattr(built, name, _UNSET)
        leaf = type(expected) in (str, type(None))
        if leaf and type(value) is type(expected) and value == expected:
            continue  # an identifier, or None, alike on both sides: most fields
        if name in _BLOCKS and isinstance(expected, list):
            expected = [s for s in expected if not is_comment(s)]
        shown = _shown(built, name, expected)
        if shown != _shown(parsed, name, value) or (shown and not _same(value, expected)):
            return False
    return True


_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def copy_tree(node: Any) -> Any:
    """A copy of a tree (or a list of trees): new nodes, the same identifiers, constants and
    positions. Much cheaper than `copy.deepcopy`, which keeps a memo of every object.

    >>> tree = parse("y = f(x) + 1")
    >>> twin = copy_tree(tree)
    >>> twin is not tree and gast.dump(twin) == gast.dump(tree)
    True
    """
    if isinstance(node, list):
        return [copy_tree(item) for item in node]
    if not isinstance(node, gast.AST):
        return node  # str, int, float, None...: immutable
    new = type(node)(**{name: copy_tree(getattr(node, name, None)) for name in node._fields})
    for name in _POSITIONS:
        if hasattr(node, name):
            setattr(new, name, getattr(node, name))
    return new


def same_tree(text: str, tree: gast.AST) -> bool:
    """Whether `text` parses back to `tree` (comments aside): the emitter's self-check.

    The trees are compared field by field, as their `gast.dump` texts would be, without
    copying `tree` or printing either.

    >>> tree = parse("y = (a + b) * c")
    >>> same_tree("y = (a + b) * c", tree), same_tree("y = a + b * c", tree)
    (True, False)
    """
    return _same(parse(text), tree)
