"""ReverseAD's parts, each run alone on a small function: its analyses (`Statements`,
`NeededCotangents`, `ReverseSteps`, `InlinePlans`, `UniformCotangents`), the tape's
vocabulary, the cotangent variables, the inlined derivatives, and ReverseAD itself
(before and after)."""

import textwrap
from typing import Any

import gast
import numpy as np

import srcad
from srcad import syntax
from srcad.passes.analyses.activity import Activity
from srcad.passes.analyses.inline_plans import InlinePlans
from srcad.passes.analyses.needed_cotangents import NeededCotangents
from srcad.passes.analyses.reverse_index import ReverseSteps
from srcad.passes.analyses.statement_index import Statements
from srcad.passes.analyses.uniform_cotangents import UniformCotangents
from srcad.passes.base import Context
from srcad.passes.testing import context_for, show_reverse
from srcad.passes.transforms import tape
from srcad.passes.transforms.cotangents import Cotangents
from srcad.passes.transforms.reverse_ad import ReverseAD
from srcad.passes.transforms.to_anf import ToANF
from srcad.testing import finite_difference_vjp
from tests.conftest import sample


def normal_form(text: str, kinds: str = "") -> tuple[gast.Module, Context]:
    """The function in `text` after ToANF, and its context."""
    tree, ctx = context_for(text, kinds=kinds)
    ToANF.apply(tree, ctx)
    return tree, ctx


def targets(statements: Any) -> list[str]:
    return sorted(syntax.unparse(s.targets[0]).strip() for s in statements)


LOOP = """
def f(x, n):
    y = x
    for i in range(n):
        if i > 1:
            break
        y = y * x
    z = np.sin(y)
    return z
"""


def test_statements_index_positions_loops_and_definitions():
    tree, ctx = normal_form(LOOP)
    index = ctx.analysis(Statements, tree)
    shown = [syntax.unparse(s).splitlines()[0] for s in index.statements]
    assert shown == [
        "y = x",
        "range_n = range(n)",
        "for i in range_n:",
        "i_gt_1 = i > 1",
        "if i_gt_1:",
        "break",
        "y = y * x",
        "z = np.sin(y)",
        "return z",
    ]
    loop = next(s for s in index.statements if isinstance(s, gast.For))
    start, end = index.span(loop)
    assert index.statements[start] is loop
    assert index.nested([loop]) == index.statements[start : end + 1]
    jump = next(s for s in index.statements if isinstance(s, gast.Break))
    assert index.loop_around[id(jump)] is loop
    # `y` is assigned before the loop and in it; `x` only as a parameter.
    assert [loop_ is None for _, loop_ in index.definitions["y"]] == [True, False]
    assert index.is_parameter("x") and not index.is_parameter("y")
    assert [type(r).__name__ for r in index.returns] == ["Return"]


def test_statements_in_two_branches_of_one_if_are_exclusive():
    tree, ctx = normal_form(
        """
        def f(x, c):
            if c:
                y = x * 2.0
            else:
                y = x * 3.0
            return y
        """
    )
    index = ctx.analysis(Statements, tree)
    one, other = (index.position(s) for s in index.defining["y"])
    assert index.exclusive(one, other)
    assert not index.exclusive(one, index.position(index.returns[0]))


def test_needed_cotangents_follow_the_result_back():
    tree, ctx = normal_form(
        """
        def f(x, y):
            a = np.sin(x)
            unused = np.cos(y)
            n = len(y)
            return a * 2.0
        """
    )
    needed = ctx.analysis(NeededCotangents, tree)
    assert needed.names == {"a", "out", "x"}
    # `n = len(y)` carries no derivative: not a candidate; `unused` is one, not needed.
    assert targets(needed.candidates) == ["a", "out", "unused"]
    assert {s.targets[0].id: n for s, n in needed.operand_names.items()}["out"] == ["a"]


def test_reverse_steps_count_what_each_reverse_does():
    tree, ctx = normal_form(
        """
        def f(x):
            y = np.sin(x)
            y = 2.0
            z = x * 3.0
            return z
        """
    )
    steps = ctx.analysis(ReverseSteps, tree)
    statements = steps.index.statements
    assert [steps.differentiated[s] for s in statements] == [False, False, True, False]
    assert [steps.overwritten[s] for s in statements] == [[], [], [], []]
    assert steps.has_content(statements[2:3]) and not steps.has_content(statements[:2])
    assert steps.touched(statements, ctx.analysis(Activity, tree)) == ["z", "x"]
    assert steps.read_later("x", statements[3]) and not steps.read_later("z", statements[2])


def test_reverse_steps_reset_a_name_a_constant_overwrites():
    tree, ctx = normal_form(
        """
        def f(x):
            r = x * 2.0
            r = 1.0
            return r * x
        """
    )
    steps = ctx.analysis(ReverseSteps, tree)
    first, constant = steps.index.defining["r"]
    # The reverse resets `r`'s cotangent where the constant is assigned: what `r * x` owes
    # the constant must not reach the first `r`.
    assert steps.overwritten[constant] == ["r"] and not steps.differentiated[constant]
    assert steps.differentiated[first] and steps.overwritten[first] == []
    assert steps.has_content([constant])


def test_iteration_locals_live_within_one_iteration():
    tree, ctx = normal_form(
        """
        def f(x, n):
            s = x
            for i in range(n):
                t = np.sin(s)
                s = t * x
            return s
        """
    )
    steps = ctx.analysis(ReverseSteps, tree)
    loop = next(s for s in steps.index.statements if isinstance(s, gast.For))
    assert steps.iteration_locals(loop) == {"i", "t"}  # `s` is read before it is assigned


def test_inline_plans_only_where_kinds_are_known():
    text = """
    def f(x):
        y = np.sin(x)
        s = np.sum(y)
        return s
    """
    tree, ctx = normal_form(text, kinds="float[:]")
    plans = ctx.analysis(InlinePlans, tree)
    assert plans.kinds is not None
    assert {s.targets[0].id: p.texts for s, p in plans.plans.items()} == {
        "y": ["y_bar * cos(a)"],
        "s": ["fill_like(a, y_bar)"],
    }
    tree, ctx = normal_form(text)  # no kinds: nothing is inlined
    assert ctx.analysis(InlinePlans, tree).plans == {}


def test_uniform_cotangents_stop_where_an_array_is_read():
    tree, ctx = normal_form(
        """
        def f(x):
            y = x * 2.0
            s = np.sum(y)
            return s
        """,
        kinds="float[:]",
    )
    uniform = ctx.analysis(UniformCotangents, tree)
    assert uniform.names == {"x", "y"} and targets(uniform.reductions) == ["s"]
    tree, ctx = normal_form(
        """
        def f(x):
            x = x * 2.0
            s = np.sum(x)
            return s
        """,
        kinds="float[:]",
    )
    uniform = ctx.analysis(UniformCotangents, tree)  # a parameter assigned again
    assert uniform.names == set() and uniform.reductions == set()


def test_the_tape_records_each_exit_and_reads_back_last_first():
    loop = tape.Loop(gast.parse("while x:\n    pass").body[0], "f_tape", exit_count=2)
    loop.names = ["a"]
    appends = [tape.record_exit(loop, []), tape.record_exit(loop, [])]
    assert [syntax.unparse(a).strip() for a in appends] == [
        "f_tape.append((0, a))",
        "f_tape.append((1, a))",
    ]
    codes = {0: [syntax.parse("a_bar = a").body[0]], 1: []}
    restored: set[gast.expr] = set()
    walk = tape.read_back(loop, codes, "record", None, lambda f: f.__name__, restored)
    assert [syntax.unparse(t).strip() for t in restored] == ["(_, a)", "(_, a)"]
    assert syntax.unparse(walk) == textwrap.dedent(
        """\
        for record in reversed(f_tape):
            if record[0] == 1:
                _, a = record
            elif record[0] == 0:
                _, a = record
                a_bar = a
        """
    )


def test_trimmed_records_lose_the_exits_that_keep_and_do_nothing():
    loop = tape.Loop(gast.parse("while x:\n    pass").body[0], "f_tape", exit_count=2)
    loop.names = ["a"]
    kept = tape.record_exit(loop, [])
    loop.names = []
    dropped = tape.record_exit(loop, [])
    codes = {0: [syntax.parse("a_bar = a").body[0]], 1: []}
    assert tape.trim_records(loop, codes, {}) == [dropped]
    assert list(codes) == [0] and syntax.unparse(kept).strip() == "f_tape.append(a)"


def test_reverse_ad_alone_before_and_after():
    tree, ctx = normal_form(
        """
        def f(x, y):
            return np.sin(x) * y
        """
    )
    assert syntax.unparse(tree) == textwrap.dedent(
        """\
        def f(x, y):
            sin_x = np.sin(x)
            out = sin_x * y
            return out
        """
    )
    ReverseAD.apply(tree, ctx)
    assert syntax.unparse(tree) == textwrap.dedent(
        """\
        def rrule_f(x, y):
            sin_x, sin_x_pullback = sin_rrule(x)
            out, out_pullback = mul_rrule(sin_x, y)

            def f_pullback(out_bar):
                # <doctest>:3  return np.sin(x) * y
                _, sin_x_bar, y_bar = out_pullback(out_bar)
                _, x_bar = sin_x_pullback(sin_x_bar)
                return (NoTangent(), x_bar, y_bar)
            return (out, f_pullback)
        """
    )
    assert ctx.output.pullbacks == {"f_pullback"}


def sum_of_sines_of_a_slice(x):
    y = x[1:] * 2.0
    return np.sum(np.sin(y))


INLINED = """
def f(x):
    y = x[1:] * 2.0
    return np.sum(np.sin(y))
"""


def test_inlined_derivatives_replace_rule_calls_where_kinds_are_known():
    generic = show_reverse(INLINED, optimise=False)
    inlined = show_reverse(INLINED, kinds="float[:]")
    assert "sin_rrule" in generic and "sin_rrule" not in inlined
    assert inlined == textwrap.dedent(
        """\
        def rrule_f(x):
            x_slice = x[1:]
            y = x_slice * 2.0
            sin_y = np.sin(y)
            out = np.sum(sin_y)

            def f_pullback(out_bar):
                x_bar = zeros(x.shape)
                # <doctest>:4  return np.sum(np.sin(y))
                y_bar = out_bar * cos(y)
                # <doctest>:3  y = x[1:] * 2.0
                add_at(x_bar, slice(1, None, None), y_bar * 2.0)
                return (NO_TANGENT, x_bar)
            return (out, f_pullback)
        """
    )
    # `grad` compiles the specialised rule: its gradient is the finite differences'.
    x = sample((5,), 0)
    expected = finite_difference_vjp(sum_of_sines_of_a_slice, (x,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(sum_of_sines_of_a_slice)(x), expected, rtol=1e-7)


def test_cotangents_bind_in_a_region_what_may_not_have_run():
    tree, ctx = normal_form(
        """
        def f(x, c):
            y = x * 2.0
            if c:
                y = y * x
            return y
        """
    )
    steps = ctx.analysis(ReverseSteps, tree)

    def zero(kind: type) -> gast.expr:
        return gast.Call(func=gast.Name(kind.__name__, gast.Load(), None, None), args=[],
                         keywords=[])  # fmt: skip

    cotangents = Cotangents(ctx, steps, ctx.analysis(Activity, tree), None, zero)
    cotangents.start()
    cotangents.seen.add("y")  # the result's cotangent, the pullback's parameter
    code: list[gast.stmt] = []
    with cotangents.region(["y", "x"], code):  # the `if`: `x_bar` is bound before it
        cotangents.accumulate("x", gast.Name("a", gast.Load(), None, None), code)
    assert [syntax.unparse(c).strip() for c in code] == [
        "x_bar = ZeroTangent()",
        "x_bar = x_bar + a",
    ]
    assert cotangents.seen == {"x", "y"}
