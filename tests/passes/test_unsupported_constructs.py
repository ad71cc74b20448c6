"""UnsupportedConstructs and Callees: every problem reported at once, at its line and column."""

import pytest

from srcad.passes.checks.callees import Callees
from srcad.passes.checks.unsupported_constructs import UnsupportedConstructs
from srcad.passes.testing import context_for

CASES = [
    ("try_statement", "def f(x):\n    try:\n        y = x\n    except E:\n        y = 0\n"
     "    return y\n", [(2, 4, "E101")]),
    ("with_statement", "def f(x):\n    with g():\n        y = x\n    return y\n",
     [(2, 4, "E101")]),
    ("nested_in_a_loop", "def f(x):\n    for i in range(3):\n        if x:\n            del x\n"
     "    return x\n", [(4, 12, "E101")]),
    # A loop's `else`, `assert` and f-strings run in the forward sweep (issue 20); what they
    # hold is checked as the rest is.
    ("loop_else", "def f(x):\n    while x:\n        x = x - 1\n    else:\n        x = 0\n"
     "    return x\n", []),
    ("in_a_loop_else", "def f(x):\n    for i in x:\n        x = x - 1\n    else:\n"
     "        del x\n    return x\n", [(5, 8, "E101")]),
    ("assert_and_f_string", "def f(x):\n    assert x, f'{x!r:>4}'\n    return f'{x}'\n", []),
    ("in_an_assert", "def f(x):\n    assert sum((t := v) for v in x)\n    return x\n",
     [(2, 16, "E102")]),
    # A lambda used as a value is bound to a name first (`passes/transforms/lambdas.py`),
    # but for one with defaults, evaluated where the lambda is.
    ("lambda_not_assigned", "def f(x):\n    return (lambda t, s=1: t)(x)\n", [(2, 12, "E102")]),
    ("lambda_value", "def f(x):\n    return (lambda t: t)(x)\n", []),
    # Each `name = lambda ...` is a nested function of its own, whatever else the name is
    # bound to (issue 17): calls resolve by the def-use chains, and `Callees` and
    # `OperationRules` refuse what they cannot differentiate (test_soundness_control.py).
    ("lambda_name_assigned_again", "def f(x):\n    g = lambda t: t\n    g = x\n    return g\n",
     []),
    ("lambdas_in_two_branches", "def f(x):\n    if x:\n        g = lambda t: t\n    else:\n"
     "        g = lambda t: 2 * t\n    return g(x)\n", []),
    # The shifts and `^` take integers, with no derivative, as `//` does (issue 20).
    ("shift", "def f(x):\n    return x << 2\n", []),
    ("augmented_shift", "def f(x):\n    x <<= 2\n    x >>= 1\n    x ^= 3\n    return x\n", []),
    # `:=` is an assignment of its own (`assignment_expressions.py`), but where Python
    # evaluates it later or in a scope of its own.
    ("walrus", "def f(x):\n    if (y := x) > 0 and (z := y * 2):\n        return z\n    return y\n",
     []),
    ("walrus_in_a_generator", "def f(x):\n    return sum((y := v) for v in x)\n",
     [(2, 16, "E102")]),
    ("walrus_in_a_lambda", "def f(x):\n    g = lambda: (y := x)\n    return g()\n",
     [(2, 17, "E102")]),
    ("walrus_in_a_chain", "def f(x):\n    return 0 < x < (y := 2)\n", [(2, 20, "E102")]),
    ("dict_comprehension", "def f(x):\n    return {k: v for k, v in x.items()}\n", []),
    ("dict_unpacked", "def f(x):\n    return {**x, 'a': 1}\n", []),
    # `**kw` parameters and `f(*args, **kw)` calls are supported (test_star_calls.py), and
    # starred targets, which ToANF slices (test_starred_targets.py).
    ("double_star_kwargs", "def f(**kw):\n    return kw\n", []),
    ("star_call", "def f(*args, **kw):\n    return g(*args, **kw)\n", []),
    ("star_in_list", "def f(x):\n    return [*x, 1]\n", []),  # a joined list
    ("star_target", "def f(x):\n    a, *b = x\n    return a\n", []),
    ("star_loop_target", "def f(x):\n    for a, *b in x:\n        pass\n", []),
    ("star_comprehension_target", "def f(x):\n    return [a for a, *b in x]\n", []),
    ("three_at_once", "def f(x):\n    with x:\n        pass\n    x = sum((t := v) for v in x)\n"
     "    return (lambda t=x: t)\n", [(2, 4, "E101"), (4, 13, "E102"), (5, 12, "E102")]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_reported_at_line_and_column(name, text, expected):
    tree, ctx = context_for(text)
    found = ctx.analysis(UnsupportedConstructs, tree)
    assert [(d.line, d.column, d.code) for d in found] == expected
    assert all(d.file == "<doctest>" and d.source_line for d in found)


CALLEE_CASES = [
    ("undefined", "def f(x):\n    return nowhere(x)\n", [(2, 11, "E201")]),
    ("missing_attribute", "def f(x):\n    return np.no_such_function(x)\n", [(2, 11, "E201")]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "expected"), CALLEE_CASES,
                         ids=[c[0] for c in CALLEE_CASES])  # fmt: skip
def test_unresolvable_callees(name, text, expected):
    tree, ctx = context_for(text)
    found = ctx.analysis(Callees, tree).diagnostics
    assert [(d.line, d.column, d.code) for d in found] == expected


@pytest.mark.parametrize(
    ("text", "primitive"),
    [
        ("def f(x, g):\n    return g(x)\n", "call"),
        ("def f(x):\n    return (np.sin if x else np.cos)(x)\n", "call"),
        ("def f(x):\n    return x.sum(axis=0)\n", "method"),
        ("def f(x):\n    return (x * 2).reshape(3, 1)\n", "method"),
    ],
    ids=["parameter", "computed", "method", "method_of_expression"],
)
def test_values_are_called_through_primitives(text, primitive):
    from srcad import primitives

    tree, ctx = context_for(text)
    assert list(ctx.analysis(Callees, tree).callees.values())[-1] is getattr(primitives, primitive)


def test_resolved_callee_is_the_object():
    tree, ctx = context_for("def f(x):\n    return np.sin(x)\n")
    import numpy as np

    assert list(ctx.analysis(Callees, tree).callees.values()) == [np.sin]


MORE_CASES = [
    # (a declaration of a name only read is dropped, one of a counter taken:
    # passes/transforms/declarations.py)
    ("global", "def f(x):\n    global g\n    g = x\n    return x\n", [(2, 4, "E101")]),
    ("nonlocal", "def f(x):\n    y = x\n    def g(t):\n        nonlocal y\n        y = 1\n"
     "        return t\n    return g(x)\n", [(4, 8, "E101")]),
    # (a `yield` statement is differentiated: passes/transforms/generators.py)
    ("yield", "def f(x):\n    y = yield x\n    return y\n", [(2, 8, "E102")]),
    ("yield_in_while", "def f(x):\n    while True:\n        yield x\n", [(3, 8, "E102")]),
    ("yield_from", "def f(x):\n    yield from x\n", [(2, 4, "E102")]),
    # An import in the function's own body is run where it compiles, and a `del` that only
    # frees memory dropped (`local_imports`, `deletions`: test_local_imports_and_deletions.py)
    ("import", "def f(x):\n    import math\n    return x\n", []),
    ("import_in_a_block", "def f(x):\n    if x:\n        import math\n    return math.pi\n",
     [(3, 8, "E101")]),
    ("import_read_before", "def f(x):\n    y = math.pi\n    import math\n    return y\n",
     [(3, 4, "E101")]),
    ("import_bound_otherwise", "def f(x):\n    from math import pi\n    pi = x\n    return pi\n",
     [(2, 4, "E101")]),
    ("del_name", "def f(x):\n    y = x\n    del y\n    return x\n", []),
    ("del_then_read", "def f(x):\n    y = x\n    del y\n    return y\n", [(3, 4, "E101")]),
    ("del_unbound", "def f(x):\n    if x:\n        y = x\n    del y\n    return x\n",
     [(4, 4, "E101")]),
    ("xor", "def f(x):\n    return x ^ 1\n", []),
    # (a class of plain methods and constants is made once: passes/transforms/nested_classes.py)
    ("class", "def f(x):\n    class A(dict):\n        pass\n    return x\n", [(2, 4, "E101")]),
    ("class_in_branch", "def f(x):\n    if x:\n        class A:\n            pass\n    return x\n",
     [(3, 8, "E101")]),
    ("async_with_in_nested", "def f(x):\n    async def g():\n        return 1\n    return x\n",
     [(2, 4, "E101")]),
    # A set is taken; one of differentiated values is refused as a dict's keys are (E215,
    # test_expressions.py)
    ("set_comprehension", "def f(x):\n    return {t for t in x} | {1, *x}\n", []),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "expected"), MORE_CASES, ids=[c[0] for c in MORE_CASES])
def test_more_constructs_reported(name, text, expected):
    tree, ctx = context_for(text)
    found = ctx.analysis(UnsupportedConstructs, tree)
    assert [(d.line, d.column, d.code) for d in found] == expected
    assert all(d.file == "<doctest>" and d.hint for d in found)


def test_async_function_is_refused_at_its_definition(tmp_path):
    import importlib.util

    import srcad

    path = tmp_path / "coroutines.py"
    path.write_text("async def co(x):\n    return x * 2.0\n")
    spec = importlib.util.spec_from_file_location("coroutines", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
        srcad.grad(module.co)(1.0)
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.line, diagnostic.code) == (1, "E101")
