"""The ValueKinds analysis: kinds of locals from the kinds of the parameters."""

from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.testing import context_for
from srcad.passes.transforms.to_anf import ToANF


def kinds_of(text, kinds):
    tree, ctx = context_for(text, kinds=kinds)
    ToANF.apply(tree, ctx)
    return ctx.analysis(ValueKinds, tree).kinds


def test_loop_carried_names_join_their_assignments():
    found = kinds_of(
        """
        def f(y, yhat):
            N = len(y)
            s = 0.0
            for i in range(N):
                s += (y[i] - yhat[i]) ** 2.0
            return s / N
        """,
        "float[:], float[:]",
    )
    assert found["N"] == ("iw", 0)  # a Python int for sure: weak in NumPy's promotion
    assert found["i"] == ("iw", 0)
    assert found["s"] == ("f", 0)
    assert found["y_i"] == ("f", 0)


def test_a_name_with_two_kinds_has_none():
    found = kinds_of(
        """
        def f(x, v):
            a = x
            if x > 0.0:
                a = v
            return a * 2.0
        """,
        "float, float[:]",
    )
    assert found["a"] is None


def test_matrix_products_slices_and_reductions():
    found = kinds_of(
        """
        def f(A, b):
            c = A @ b
            d = A[0]
            e = A[:, 1:]
            return np.sum(c) + d[0] + np.sum(e)
        """,
        "float[:, :], float[:]",
    )
    assert found["c"] == ("f", 1)
    assert found["d"] == ("f", 1)
    assert found["e"] == ("f", 2)


def test_globals_and_unknown_calls_have_no_kind():
    found = kinds_of(
        """
        def f(x):
            a = SCALE * x
            b = np.linalg.norm(x)
            return a + b
        """,
        "float[:]",
    )
    assert found["a"] is None and found["b"] is None


def test_without_a_signature_nothing_has_a_kind():
    assert kinds_of("def f(x):\n    return x * 2.0\n", "") == {}
