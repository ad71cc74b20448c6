"""`global` and `nonlocal` declarations (`passes/transforms/declarations.py`): one of a name
only read is differentiated as the same code without it; a counter or flag the function
writes through one is written as the function writes it, once per run of its body (the
count each derivative makes is checked); a derivative that could depend on one is
refused, located, with why. A callee's global counter is counted as Python counts it
where nothing the derivative reads reads it; otherwise, and a callee's other global writes,
stay refused (E309)."""

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

SOURCE = """
import math

import numpy as np

SCALE = 3.0
N_EVALS = 0
DONE = False
STEPS = 0


def reads_a_global(x):
    global SCALE
    return np.sum(np.sin(x) * SCALE)


def reads_an_enclosing_variable(x):
    scale = 2.0

    def inner(v):
        nonlocal scale
        return v * scale

    return np.sum(inner(x) * x)


def counts(x):
    global N_EVALS
    N_EVALS += 1
    return np.sum(np.exp(x) * x)


def counts_and_flags_in_blocks(x):
    global N_EVALS, DONE, STEPS
    N_EVALS = N_EVALS + 1
    s = 0.0
    for i in range(len(x)):
        STEPS += 2
        s = s + math.sin(x[i]) * x[i]
        if s > 1.0:
            DONE = True
    return s


def counts_beside_a_comprehension(x):
    # (fuzz --constructs: the read of the counter was moved on entry, before the
    # declaration, where a comprehension over constants was unrolled: a SyntaxError)
    global N_EVALS
    N_EVALS += 1
    parts = [np.sin(x) * c for c in (1.0, 2.0)]
    N_EVALS = N_EVALS + 1
    return np.sum(parts[0] * parts[1] + x)


def counts_in_a_nested_function(x):
    def inner(v):
        global N_EVALS
        N_EVALS += 1
        return np.tanh(v) * v

    return np.sum(inner(x) + inner(x * 2.0))


def counts_calls_of_a_nested_function(x):
    calls = 0

    def inner(v):
        nonlocal calls
        calls += 1
        return np.sin(v) * v

    s = 0.0
    for i in range(2):
        s = s + np.sum(inner(x * (i + 1.0)))
    return np.sum(inner(x)) + s


def make_counted():
    calls = 0

    def objective(x):
        nonlocal calls
        calls += 1
        return np.sum(np.cos(x) * x * x)

    def count():
        return calls

    return objective, count


objective, objective_calls = make_counted()
"""

TAKEN = [
    "reads_a_global",
    "reads_an_enclosing_variable",
    "counts",
    "counts_and_flags_in_blocks",
    "counts_beside_a_comprehension",
    "counts_in_a_nested_function",
    "counts_calls_of_a_nested_function",
    "objective",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("declarations"), "declaration_cases", SOURCE)


@pytest.mark.parametrize("name", TAKEN)
def test_differentiated_as_without_the_declaration(module, name):
    f = getattr(module, name)
    x = np.array([0.3, -0.7, 1.1])
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    direction = np.array([1.0, -2.0, 0.5])
    y, y_dot = srcad.jvp(f, (x,), (direction,))
    close(y, f(x))
    close(y_dot, want @ direction)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


# How many times each derivative runs the function's body, for an argument of n elements.
RUNS = {
    "grad": (lambda f, x: srcad.grad(f)(x), lambda n: 1),
    "value_and_grad": (lambda f, x: srcad.value_and_grad(f)(x), lambda n: 1),
    "vjp": (lambda f, x: srcad.vjp(f, x)[1](1.0), lambda n: 1),
    "jvp": (lambda f, x: srcad.jvp(f, (x,), (np.ones_like(x),)), lambda n: 1),
    "hessian": (lambda f, x: srcad.hessian(f)(x), lambda n: n),
    "hessian_vector_product": (
        lambda f, x: srcad.hessian_vector_product(f)(x, np.ones_like(x)),
        lambda n: 1,
    ),
}


@pytest.mark.parametrize("derivative", sorted(RUNS))
@pytest.mark.parametrize("size", [2, 3])
def test_a_counter_counts_each_run_of_the_body(module, derivative, size):
    run, expected = RUNS[derivative]
    x = np.linspace(0.2, 0.9, size)
    module.DONE = False
    module.counts_and_flags_in_blocks(x)  # the primal: whether it sets the flag
    done = module.DONE
    module.N_EVALS, module.STEPS, module.DONE = 0, 0, False
    run(module.counts_and_flags_in_blocks, x)
    runs = expected(size)
    counted = (module.N_EVALS, module.STEPS, module.DONE)
    assert counted == (runs, 2 * size * runs, done)
    module.N_EVALS = 0
    run(module.counts_beside_a_comprehension, x)
    counted_beside = module.N_EVALS
    assert counted_beside == 2 * runs
    module.N_EVALS = 0
    run(module.counts_in_a_nested_function, x)
    counted_calls = module.N_EVALS
    assert counted_calls == 2 * runs  # two calls of the nested function per run
    before = module.objective_calls()
    run(module.objective, x)
    assert module.objective_calls() - before == runs


def test_a_flag_set_once_is_set_by_the_gradient_alone(module):
    """`grad`'s own code leaves out what only the value needs, never a global's write."""
    module.DONE = False
    srcad.grad(module.counts_and_flags_in_blocks)(np.array([2.0, 1.5, 1.0]))
    assert module.DONE is True


REFUSED = {
    "a_differentiated_value_written": (
        "G = 0.0\ndef f(x):\n    global G\n    G = x * 2.0\n    return x\n",
        3,
        "assigned only `NAME = value`",
    ),
    "a_counter_the_function_reads": (
        "N = 0\ndef f(x):\n    global N\n    N += 1\n    return x * N\n",
        3,
        "read other than to assign such a name again",
    ),
    "a_counter_a_branch_reads": (
        "N = 0\ndef f(x):\n    global N\n    N += 1\n    if N > 2:\n        x = x * 2.0\n"
        "    return x\n",
        3,
        "the derivative code may read it after another call changed it",
    ),
    "unpacked_into_globals": (
        "A = B = 0\ndef f(x):\n    global A, B\n    A, B = 1, 2\n    return x\n",
        3,
        "assigned only `NAME = value`",
    ),
    "a_nested_functions_counter_the_function_reads": (
        "def f(x):\n    n = 0\n    def g(v):\n        nonlocal n\n        n += 1\n"
        "        return v * v\n    return g(x) + n\n",
        4,
        "read other than to assign such a name again",
    ),
    "a_global_defined_by_def": (
        "def f(x):\n    global helper\n    def helper(v):\n        return v\n    return x\n",
        2,
        "bound by `def`, `class` or `import`",
    ),
    "a_global_read_where_a_function_around_binds_it": (
        "S = 1.0\ndef f(x):\n    S = 2.0\n    def g(v):\n        global S\n"
        "        return v * S\n    return g(x) * S\n",
        5,
        "a function around it binds too",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_declaration_a_derivative_could_depend_on_is_refused(tmp_path, name):
    text, line, message = REFUSED[name]
    module = user_module(tmp_path, f"declaration_refused_{name}", text)
    for derivative in (srcad.grad(module.f), lambda x: srcad.jvp(module.f, (x,), (1.0,))):
        with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
            derivative(1.5)
        (diagnostic,) = raised.value.diagnostics
        assert (diagnostic.line, diagnostic.code) == (line, "E101")
        assert message in diagnostic.message


CALLEES = """
import math

import numpy as np

CALLS = 0
DONE = False


def step(v):
    global CALLS
    CALLS += 1
    return v * 2.0


def flag(v):
    global DONE, CALLS
    if v > 0.5:
        DONE = True
    CALLS = CALLS + 1
    return math.sin(v)


def through(v):
    return step(v) * np.cos(v)


def once(x):
    return np.sum(np.sin(step(x)) * x)


def in_a_loop(x):
    total = 0.0
    for i in range(len(x)):
        total += step(x[i]) * x[i]
    return total


def in_a_branch_and_a_loop(x):
    total = 0.0
    for i in range(len(x)):
        if x[i] > 0.4:
            total = total + flag(x[i]) * x[i]
        else:
            total = total + through(x[i])
    return total


def nested(x):
    def inner(v):
        return np.exp(step(v)) * v

    return np.sum(inner(x) + through(x))


def counts_itself_too(x):
    global CALLS
    CALLS += 10
    return np.sum(step(x) * x)
"""

# Each case, with how many times one run of its body counts (for x below).
COUNTED = {
    "once": 1,
    "in_a_loop": 3,
    "in_a_branch_and_a_loop": 3,
    "nested": 2,
    "counts_itself_too": 11,
}


@pytest.fixture(scope="module")
def callees(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("declarations"), "declaration_callees", CALLEES)


@pytest.mark.parametrize("name", sorted(COUNTED))
def test_a_callee_counting_in_a_global_is_differentiated(callees, name):
    f, runs = getattr(callees, name), COUNTED[name]
    x = np.array([0.3, -0.7, 1.1])
    want = difference(f, (x,))
    callees.CALLS = 0
    value, gradient = srcad.value_and_grad(f)(x)
    assert runs == callees.CALLS
    close(value, f(x))
    close(gradient, want)
    direction = np.array([1.0, -2.0, 0.5])
    callees.CALLS = 0
    y, y_dot = srcad.jvp(f, (x,), (direction,))
    assert runs == callees.CALLS
    close(y, f(x))
    close(y_dot, want @ direction)
    callees.CALLS = 0
    hessian = srcad.hessian(f)(x)
    assert 3 * runs == callees.CALLS  # once per column
    close(hessian, difference(srcad.grad(f), (x,)))


def test_a_callees_flag_is_set_as_python_sets_it(callees):
    callees.DONE = False
    srcad.grad(callees.in_a_branch_and_a_loop)(np.array([0.1, 0.2, 0.3]))
    assert callees.DONE is False
    srcad.grad(callees.in_a_branch_and_a_loop)(np.array([0.1, 0.9, 0.3]))
    assert callees.DONE is True


COUNTER = "N = 0\ndef helper(v):\n    global N\n    N += 1\n    return v * v\n"
CALLEE_REFUSED = {
    "the_caller_reads_the_count": (COUNTER + "def f(x):\n    y = helper(x)\n"
                                   "    return y * N\n", 8, "which `f` reads"),
    "a_branch_of_the_caller_reads_it": (COUNTER + "def f(x):\n    y = helper(x)\n"
                                        "    if N > 1:\n        y = y * 2.0\n    return y\n",
                                        8, "which `f` reads"),
    "another_callee_reads_it": (COUNTER + "def scale(v):\n    return v * N\n"
                                "def f(x):\n    return scale(helper(x))\n", 9,
                                "which `scale` reads"),
    "a_differentiated_value_written": ("G = 0.0\ndef helper(v):\n    global G\n"
                                      "    G = v\n    return v * v\n"
                                      "def f(x):\n    return helper(x) * 2.0\n", 3,
                                      "assigns the global"),
    "the_callee_reads_its_count": ("N = 0\ndef helper(v):\n    global N\n    N += 1\n"
                                   "    return v * N\ndef f(x):\n    return helper(x)\n", 3,
                                   "assigns the global"),
    "a_method_counting": ("N = 0\nclass Box:\n    def get(self, v):\n        global N\n"
                          "        N += 1\n        return v * v\n"
                          "def f(x):\n    b = Box()\n    return b.get(x)\n", 4,
                          "assigns the global"),
    "a_generator_counting": ("N = 0\ndef gen(v):\n    global N\n    for k in range(3):\n"
                             "        N += 1\n        yield v * k\n"
                             "def f(x):\n    it = gen(x)\n    return next(it) * x\n", 8,
                             "runs a generator to its end"),
    "counted_for_a_lazy_iterators_items": (COUNTER + "def f(x):\n    it = map(helper, [x, x])\n"
                                           "    return next(it)\n", 7, "lazy iterator"),
    "counted_in_a_generator_expression": (COUNTER + "def f(x):\n    total = 0.0\n"
                                          "    for v in (helper(x * k) for k in range(3)):\n"
                                          "        total = total + v\n        break\n"
                                          "    return total\n", 8, "lazy iterator"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CALLEE_REFUSED))
def test_a_callees_global_a_derivative_could_read_stays_refused(tmp_path, name):
    text, line, message = CALLEE_REFUSED[name]
    module = user_module(tmp_path, f"declaration_callee_{name}", text)
    for derivative in (srcad.grad(module.f), lambda x: srcad.jvp(module.f, (x,), (1.0,))):
        with pytest.raises(srcad.SrcadError) as raised:
            derivative(1.5)
        found = [d for d in raised.value.diagnostics if d.code == "E309"]
        assert [d.line for d in found] == [line]
        assert message in found[0].message
