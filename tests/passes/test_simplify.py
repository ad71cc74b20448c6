"""Simplify on pullbacks written by hand, for cases the emitted code reaches rarely."""

from srcad import syntax
from srcad.passes.testing import context_for
from srcad.passes.transforms.simplify import Simplify


def _simplified(text: str, env: dict) -> str:
    tree, ctx = context_for(text, env=env)
    ctx.output.pullbacks = {"f_pullback"}
    Simplify.apply(tree, ctx)
    return syntax.unparse(tree)


def test_a_copy_stays_when_a_loop_it_was_read_in_stops_reading_it():
    """`j = n + 1.0` goes (nothing reads `j`); the loop then no longer reads `n`, and the
    copy `n = m` (kept at first: the loop passes `m` to a call) must not be taken for one
    whose every read is in the loop, or `return n * out_bar` would read an unbound `n`."""
    text = """
def outer(m, xs):
    def f_pullback(out_bar):
        n = m
        for x in xs:
            j = n + 1.0
            g(m)
        return n * out_bar
    return f_pullback
"""
    calls = []
    simplified = _simplified(text, {"g": calls.append})
    assert simplified == (
        "def outer(m, xs):\n"
        "\n"
        "    def f_pullback(out_bar):\n"
        "        n = m\n"
        "        for x in xs:\n"
        "            g(m)\n"
        "        return n * out_bar\n"
        "    return f_pullback\n"
    )
    namespace = {"g": calls.append}
    exec(simplified, namespace)
    assert namespace["outer"](3.0, [1, 2])(2.0) == 6.0
    assert calls == [3.0, 3.0]
