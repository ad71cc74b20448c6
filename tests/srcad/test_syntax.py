"""The emitter's own round trip: srcad's sources parse, print and recompile unchanged."""

import pathlib

import gast
import pytest

from srcad import syntax

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = sorted(p for folder in ("srcad", "rules", "passes") for p in (ROOT / folder).glob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=[f"{p.parent.name}/{p.name}" for p in SOURCES])
def test_self_hosting_round_trip(path):
    tree = syntax.parse(path.read_text())
    text = syntax.unparse(tree)
    assert syntax.same_tree(text, tree)
    compile(text, str(path), "exec")


def test_comment_markers_become_comments():
    tree = syntax.parse("x = 1\n")
    tree.body.insert(0, syntax.comment("file.py:3  x = 1"))
    assert syntax.unparse(tree) == "# file.py:3  x = 1\nx = 1\n"


@pytest.mark.parametrize(
    ("built", "text"),
    [
        ("def f(x, y):\n    return x\n", "def f(x, z):\n    return x\n"),
        ("def f(x: int):\n    return x\n", "def f(x):\n    return x\n"),
        ("try:\n    a()\nexcept E as e:\n    pass\n", "try:\n    a()\nexcept E as f:\n    pass\n"),
        ("y = -(a * b)\n", "y = -a * b\n"),
        ("x = 1\ny = 2\n", "x = 1\n"),
        ("f(a, k=1)\n", "f(a, k=2)\n"),
    ],
)
def test_same_tree_tells_a_different_text(built, text):
    tree = syntax.parse(built)
    assert syntax.same_tree(built, tree)
    assert not syntax.same_tree(text, tree)


LEAVES = (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)


def _preorder(node):
    yield node
    for child in gast.iter_child_nodes(node):
        yield from _preorder(child)


MORE_SYNTAX = """
def f(a: int, *b, c=1, **d) -> int:
    global g
    match a:
        case [x, *rest] if x > 0:
            pass
        case {"k": y, **others}:
            pass
        case Point(x=0, y=q) as p:
            pass
    with open(b) as handle, lock:
        yield from (i async for i in handle)
    return f"{a!r:>{c}}" + [lambda z=1: z for _ in d][0]()
"""


@pytest.mark.parametrize(
    "text",
    [MORE_SYNTAX, *(p.read_text() for p in SOURCES)],
    ids=["more-syntax", *(f"{p.parent.name}/{p.name}" for p in SOURCES)],
)
def test_walk_visits_every_node_but_the_leaves_in_source_order(text):
    tree = syntax.parse(text)
    expected = [node for node in _preorder(tree) if not isinstance(node, LEAVES)]
    assert [id(node) for node in syntax.walk(tree)] == [id(node) for node in expected]


def test_children_are_gasts_child_nodes_but_the_leaves():
    tree = syntax.parse(MORE_SYNTAX)
    for node in gast.walk(tree):
        expected = [c for c in gast.iter_child_nodes(node) if not isinstance(c, LEAVES)]
        assert [id(c) for c in syntax.children(node)] == [id(c) for c in expected]


def test_walk_reaches_an_except_handlers_name_and_a_keyword_value():
    tree = syntax.parse("try:\n    f(k=a)\nexcept E as e:\n    pass\n")
    names = [node.id for node in syntax.walk(tree) if isinstance(node, gast.Name)]
    assert names == ["f", "a", "E", "e"]


def test_rewriter_puts_what_a_visit_returns_in_place_children_first():
    class Fold(syntax.Rewriter):
        def visit_Name(self, node):  # noqa: N802
            return gast.Constant(value=2, kind=None) if node.id == "two" else node

        def visit_BinOp(self, node):  # noqa: N802
            self.generic_visit(node)
            if isinstance(node.left, gast.Constant) and isinstance(node.right, gast.Constant):
                return gast.Constant(value=node.left.value * node.right.value, kind=None)
            return node

    tree = syntax.parse("y = f(two * two, [x, two], k=two * x)\n")
    assert Fold().visit(tree) is tree
    assert syntax.unparse(tree) == "y = f(4, [x, 2], k=2 * x)\n"


# Source using most of the grammar, for comparing `as_gast` with gast's own conversion.
GRAMMAR = """
import os.path as p, sys
from . import x as y
@dec(1, k=2)
async def f(a, /, b: int = 1, *args: str, c, d=2, **kw) -> "r":
    global g
    nonlocal_ = lambda q, *r, s=1, **t: (q, r, s, t)
    async with m() as (u, v), n():
        async for i, *j in k:
            await z
    try:
        pass
    except (E, F) as e:
        raise G from e
    except H:
        pass
    else:
        x = [i for i in range(3) if i if not i]
    finally:
        del a[1:2, ::3], b.c
    while (w := 1) > 0 and not w or w is None:
        break
    y = {**d, 1: 2}, {1, *s}, {k: v for k, v in d.items()}, (i async for i in q)
    s = f"{a!r:>{width}} {b=}", b"raw", ...
    yield from g
    x += 1; y @= z; c: int = 3
    return -x ** 2 if y else ~x
class C(B, metaclass=M):
    def m(self): ...
match command:
    case [1, 2, *rest] | (3, 4) if rest:
        pass
    case {"k": v, **others}:
        pass
    case Point(x=0, y=yy) as pt:
        pass
    case None | True | "s" | -1 | 1 + 2j | _:
        pass
"""


# Type parameters (Python 3.12), with defaults (3.13).
TYPE_PARAMS = """
def f[T: int, *Ts, **P](x: T) -> T: ...
class C[T]: ...
type Alias[T] = list[T]
"""
TYPE_DEFAULTS = "def g[T = int, *Ts = *tuple[int], **P = [int]](): ..."
SOURCES = {"GRAMMAR": GRAMMAR, "TYPE_PARAMS": TYPE_PARAMS, "TYPE_DEFAULTS": TYPE_DEFAULTS}


@pytest.mark.parametrize(
    "module", ["GRAMMAR", "TYPE_PARAMS", "TYPE_DEFAULTS", "ast", "inspect", "dataclasses", "typing"]
)
def test_as_gast_gives_gasts_own_conversion(module):
    """`syntax.as_gast` (what srcad converts a function's definition with) builds the same
    tree as `gast.ast_to_gast`, field for field and position for position."""
    import ast
    import importlib
    import sys

    if module == "TYPE_PARAMS" and sys.version_info < (3, 12):
        pytest.skip("type parameters are Python 3.12's")
    if module == "TYPE_DEFAULTS" and sys.version_info < (3, 13):
        pytest.skip("type parameter defaults are Python 3.13's")
    if module in SOURCES:
        text = SOURCES[module]
    else:
        text = pathlib.Path(importlib.import_module(module).__file__).read_text()
    tree = ast.parse(text)
    _assert_same_nodes(syntax.as_gast(tree), gast.ast_to_gast(tree), "module")


def _assert_same_nodes(found, expected, path):
    assert type(found) is type(expected), path
    if isinstance(expected, list):
        assert len(found) == len(expected), path
        for index, (a, b) in enumerate(zip(found, expected, strict=True)):
            _assert_same_nodes(a, b, f"{path}[{index}]")
    elif isinstance(expected, gast.AST):
        assert set(vars(found)) == set(vars(expected)), path
        for name, value in vars(expected).items():
            _assert_same_nodes(vars(found)[name], value, f"{path}.{name}")
    else:
        assert found == expected, path


# Expressions at every precedence, in the places that print them differently.
PRECEDENCE = """
def f(a, /, b=1, *c, d, e=-1, **g):
    x = (a, b), [a, (b,)], (), {a: b, **g}, {a, *c}, set()
    y = -a ** -b, (-a) ** b, a ** b ** c, (a ** b) ** c, a - (b - c), (a - b) - c
    z = not a == b, (not a) == b, a < b < c, (a < b) < c, a if b else c, (a if b else c) if d else e
    w = a and b and (c or d), (a and b) or c, a or (b or c), lambda: a, lambda q, *r: q + r
    v = a[1:2, ::3], a[b, c], a[(b, c)], a[()], a[:], a[b:], a[::c], a[-1], 1 .real, (1.5).real
    u = f(*a, b, k=1, **g)(c).d[e], (a + b).c, -(-a), ~a, +a, a @ b % c // d
    t = float("inf"), 1e309, -1e309, 2j, 1e309j, None, True, ..., b"x", 'q"\\n', "'", "'\\""
    a.b[c], d = e = g
    a += b if c else d
    for (i, j), k in zip(a, b):
        if i:
            continue
        elif j:
            break
        else:
            pass
    else:
        while a:
            del a[0], b
        else:
            raise E from a
    assert a, b
    global G
    return
"""


@pytest.mark.parametrize(
    "module", ["PRECEDENCE", "GRAMMAR", "MORE_SYNTAX", "ast", "inspect", "dataclasses", "typing"]
)
def test_printer_writes_gasts_text(module):
    """`unparse` prints with `srcad.printer` what that printer prints, and with
    `gast.unparse` the rest: the text is the same either way, statement by statement."""
    import importlib

    from srcad import printer

    texts = {"PRECEDENCE": PRECEDENCE, "GRAMMAR": GRAMMAR, "MORE_SYNTAX": MORE_SYNTAX}
    if module in texts:
        text = texts[module]
    else:
        text = pathlib.Path(importlib.import_module(module).__file__).read_text()
    tree = syntax.parse(text)
    statements = [node for node in gast.walk(tree) if isinstance(node, gast.stmt)]
    printed = 0
    for node in statements:
        try:
            lines = printer.lines(node, syntax.COMMENT_MARK)
        except printer.UnprintableError:
            continue
        assert lines == syntax._gast_lines(node), gast.dump(node)
        printed += 1
    if module == "PRECEDENCE":
        assert printed == len(statements)  # all of it: nothing fell back


def test_printer_leaves_an_f_string_to_gast():
    tree = syntax.parse("x = f'{a!r}'\n")
    assert syntax.unparse(tree) == "x = f'{a!r}'\n"


def test_gast_prints_built_statements_without_positions():
    """Statements srcad builds have no line; gast's printer, for what `printer` leaves to
    it, still prints them."""
    value = syntax.parse("f'{a!r}'").body[0].value
    built = syntax.make(gast.Assign, targets=[syntax.store("x")], value=value, type_comment=None)
    tree = gast.Module(body=[built], type_ignores=[])
    assert syntax.unparse(tree) == "x = f'{a!r}'\n"
    assert "lineno" not in built.__dict__
