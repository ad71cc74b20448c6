"""The one module that parses and prints Python through gast; every pass goes through it."""

from __future__ import annotations

import ast
import re

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


class _StripComments(gast.NodeTransformer):
    def generic_visit(self, node: gast.AST) -> gast.AST:
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                setattr(node, field, [s for s in statements if not is_comment(s)])
        return super().generic_visit(node)


def same_tree(text: str, tree: gast.AST) -> bool:
    """Whether `text` parses back to `tree` (comments aside): the emitter's self-check."""
    import copy

    expected = _StripComments().visit(copy.deepcopy(tree))
    return bool(gast.dump(parse(text)) == gast.dump(expected))
