"""A callee that changes what its caller can see (issue 17, items 1 and 12): refused at the
call and at the change, in every mode and whatever the call's result; what a function made
for itself, and functions a rule covers, stay allowed."""

import importlib.util
import inspect
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad

HERE = pathlib.Path(__file__).parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


helpers = load("mutation_helpers")
mf = load("mutation_functions")
FILE = str(HERE / "mutation_functions.py")
HELPERS = str(HERE / "mutation_helpers.py")


def at(function, text):
    """(file, line) of the first line of `function` holding `text`."""
    lines, start = inspect.getsourcelines(function)
    line = start + next(i for i, line in enumerate(lines) if text in line)
    return inspect.getsourcefile(function), line


def where(diagnostic):
    return diagnostic.file, diagnostic.line


# (function, its arguments, [(function holding the line, text on it, code), ...] in order)
REFUSED = [
    (mf.pushed_then_read, (3.0,), [
        (mf.pushed_then_read, "push(stack, a)", "E220"), (mf.push, "stack.append", "E302")]),
    (mf.set_then_summed, (3.0,), [
        (mf.set_then_summed, "set_first(x, a)", "E220"), (mf.set_first, "x[0] = v", "E301")]),
    (mf.result_used, (1.5,), [
        (mf.result_used, "push_and_count(", "E220"), (mf.push_and_count, "stack.append", "E302")]),
    (mf.inside_a_loop, (0.7,), [
        (mf.inside_a_loop, "push(stack, a * i)", "E220"), (mf.push, "stack.append", "E302")]),
    (mf.through_a_nested_function, (2.0,), [
        (mf.through_a_nested_function, "stack.append(v)", "E302")]),
    (mf.through_a_lambda, (2.0,), [(mf.through_a_lambda, "stack.append(v)", "E302")]),
    (mf.through_another_module, (1.25,), [
        (mf.through_another_module, "helpers.scale_in_place", "E220"),
        (helpers.scale_in_place, "x *= factor", "E306")]),
    (mf.through_two_calls, (1.25,), [
        (mf.through_two_calls, "helpers.through", "E220"),
        (helpers.through, "scale_in_place(x, value)", "E220"),
        (helpers.scale_in_place, "x *= factor", "E306")]),
    (mf.recorded_in_another_module, (2.0,), [
        (mf.recorded_in_another_module, "helpers.record(a)", "E220"),
        (helpers.record, "HISTORY.append", "E302")]),
    (mf.method_changes_self, (2.0,), [
        (mf.method_changes_self, "acc.push(a)", "E220"),
        (mf.Accumulator.push, "self.items.append", "E303")]),
    (mf.method_of_a_parameter, (2.0, mf.Accumulator()), [
        (mf.method_of_a_parameter, "acc.push(a)", "E220"),
        (mf.Accumulator.push, "self.items.append", "E303")]),
    (mf.method_of_a_global, (2.0,), [
        (mf.method_of_a_global, "ACCUMULATOR.push(a)", "E220"),
        (mf.Accumulator.push, "self.items.append", "E303")]),
    (mf.callee_changes_its_closure, (2.0,), [
        (mf.callee_changes_its_closure, "remember(a)", "E220"),
        (mf.make_recorder, "seen.append(v)", "E302")]),
    (mf.callee_changes_a_global, (2.0,), [
        (mf.callee_changes_a_global, "log(a)", "E220"), (mf.log, "COUNTER.append", "E302")]),
    (mf.global_list_appended, (2.0,), [(mf.global_list_appended, "COUNTER.append", "E302")]),
    (mf.callee_rebinds_a_global, (2.0,), [
        (mf.callee_rebinds_a_global, "set_scale(a)", "E220"),
        (mf.set_scale, "global STATE", "E309")]),
    (mf.changed_after_its_use, (2.0,), [
        (mf.changed_after_its_use, "helpers.scale_in_place", "E220"),
        (helpers.scale_in_place, "x *= factor", "E306")]),
    (mf.filled_after_its_use, (2.0,), [
        (mf.filled_after_its_use, "helpers.fill_with", "E220"),
        (helpers.fill_with, "x.fill(value)", "E303")]),
    (mf.sorted_by_a_helper, (2.0,), [
        (mf.sorted_by_a_helper, "sort_it(w)", "E220"), (mf.sort_it, "x.sort()", "E303")]),
    (mf.extended_by_a_helper, (2.0,), [
        (mf.extended_by_a_helper, "extend_it(", "E220"), (mf.extend_it, "items.extend", "E303")]),
    (mf.updated_by_a_helper, (2.0,), [
        (mf.updated_by_a_helper, "update_it(d, a)", "E220"), (mf.update_it, "d.update", "E303")]),
    (mf.added_into_by_a_helper, (2.0,), [
        (mf.added_into_by_a_helper, "add_into(", "E220"), (mf.add_into, "out=a", "E304")]),
    (mf.through_recursion, (2.0,), [
        (mf.through_recursion, "recursive_push(stack, a, 2)", "E220"),
        (mf.recursive_push, "stack.append", "E302")]),
    (mf.constants_pushed_then_differentiated_data, (2.0,), [
        (mf.constants_pushed_then_differentiated_data, "push(stack, 1.0)", "E220"),
        (mf.push, "stack.append", "E302"),
        (mf.constants_pushed_then_differentiated_data, "stack.append(a)", "E302")]),
    (mf.through_a_partial, (2.0,), [
        (mf.through_a_partial, "push_later(stack, a)", "E220"),
        (mf.push, "stack.append", "E302")]),
    (mf.through_a_cached_function, (2.0,), [
        (mf.through_a_cached_function, "cached_push(2.0)", "E220"),
        (mf.cached_push.__wrapped__, "COUNTER.append", "E302")]),
    (mf.through_the_class_of_a_method, (2.0,), [
        (mf.through_the_class_of_a_method, "dict.update", "E305")]),
]  # fmt: skip

MODES = {
    "grad": lambda f, args: srcad.grad(f, wrt=0)(*args),
    "value_and_grad": lambda f, args: srcad.value_and_grad(f, wrt=0)(*args),
    "vjp": lambda f, args: srcad.vjp(f, *args),
    "jvp": lambda f, args: srcad.jvp(f, args, tuple(np.ones_like(a) for a in args)),
    "jacobian": lambda f, args: srcad.jacobian(f)(*args),
    "forward jacobian": lambda f, args: srcad.jacobian(f, mode="forward")(*args),
}


VECTOR_REFUSED = [
    (mf.vector_valued, (np.array([0.5, -1.0, 2.0]),), [
        (mf.vector_valued, "scatter_rows(grid, 0, x)", "E220"),
        (mf.scatter_rows, "out[rows] = values", "E301")]),
    (mf.in_a_branch, (np.array([0.5, 1.0]),), [
        (mf.in_a_branch, "push(stack, x * 2.0)", "E220"), (mf.push, "stack.append", "E302")]),
    (mf.in_a_comprehension, (np.array([0.5, 1.0]),), [
        (mf.in_a_comprehension, "push(stack, v)", "E220"), (mf.push, "stack.append", "E302")]),
]  # fmt: skip


@pytest.mark.parametrize("mode", ["jacobian", "forward jacobian", "jvp", "vjp"])
@pytest.mark.parametrize(
    ("function", "args", "expected"), VECTOR_REFUSED, ids=[c[0].__name__ for c in VECTOR_REFUSED]
)
def test_a_vector_function_changed_by_a_helper_is_refused(function, args, expected, mode):
    with pytest.raises(srcad.MutationError) as raised:
        MODES[mode](function, args)
    found = [(where(d), d.code) for d in raised.value.diagnostics]
    assert found == [(at(holder, text), code) for holder, text, code in expected]


@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "vjp", "jvp"])
@pytest.mark.parametrize(
    ("function", "args", "expected"), REFUSED, ids=[c[0].__name__ for c in REFUSED]
)
def test_a_change_the_caller_sees_is_refused_at_the_call_and_the_change(
    function, args, expected, mode
):
    with pytest.raises(srcad.MutationError) as raised:
        MODES[mode](function, args)
    found = [(where(d), d.code) for d in raised.value.diagnostics]
    assert found == [(at(holder, text), code) for holder, text, code in expected]
    assert all(d.hint and d.source_line for d in raised.value.diagnostics)
    first = raised.value.diagnostics[0]
    if first.code == "E220":
        assert "listed next" in first.message
        assert "@srcad.rrule.register(" in first.hint


def test_each_call_of_a_changing_callee_is_reported_and_its_changes_listed_once(tmp_path):
    path = tmp_path / "twice.py"
    path.write_text(
        textwrap.dedent("""
        def push(stack, value):
            stack.append(value)

        def twice(a):
            stack = []
            push(stack, a)
            push(stack, a * a)
            return stack[0] * stack[1]
    """)
    )
    module = load_path(path)
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(module.twice)(2.0)
    found = [(d.line, d.code) for d in raised.value.diagnostics]
    assert found == [(7, "E220"), (3, "E302"), (8, "E220")]
    assert "listed above" in raised.value.diagnostics[2].message


def load_path(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def central_difference(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


ALLOWED = [
    (mf.appended_here, 1.5),
    (mf.appended_here, -0.3),
    (mf.callee_changes_only_its_own, 0.8),
    (mf.initialiser_sets_its_own_fields, 1.7),
    (mf.calls_a_function_with_a_rule, -2.5),
]


@pytest.mark.parametrize(
    ("function", "x"), ALLOWED, ids=[f"{c[0].__name__}-{c[1]}" for c in ALLOWED]
)
def test_changes_no_caller_sees_are_differentiated_right(function, x):
    expected = central_difference(function, x)
    assert srcad.grad(function)(x) == pytest.approx(expected, rel=1e-6)
    _, tangent = srcad.jvp(function, (x,), (1.0,))
    assert tangent == pytest.approx(expected, rel=1e-6)
    value, gradient = srcad.value_and_grad(function)(x)
    assert value == pytest.approx(function(x))
    assert gradient == pytest.approx(expected, rel=1e-6)


def test_a_callee_with_a_registered_rule_is_never_read(monkeypatch):
    import srcad.passes.checks.mutations as mutations

    read = []
    real = mutations._read_own_changes
    monkeypatch.setattr(
        mutations, "_read_own_changes", lambda f, *rest: read.append(f) or real(f, *rest)
    )
    mf.push_with_rule.__dict__.pop(mutations._READ, None)  # forget any earlier reading
    srcad.grad(mf.calls_a_function_with_a_rule)(1.0)
    assert mf.push_with_rule not in read


def test_a_new_rule_for_the_callee_lifts_the_refusal(tmp_path):
    path = tmp_path / "lifted.py"
    path.write_text(
        textwrap.dedent("""
        def push(stack, value):
            stack.append(value)

        def f(a):
            stack = []
            push(stack, 1.0)
            return a * a * stack[0]
    """)
    )
    module = load_path(path)
    with pytest.raises(srcad.MutationError):
        srcad.grad(module.f)(2.0)

    @srcad.rrule.register(module.push)
    def push_rrule(stack, value):
        return module.push(stack, value), lambda y_bar: (srcad.NoTangent(),) * 3

    assert srcad.grad(module.f)(2.0) == pytest.approx(4.0)


def test_a_callee_rebound_to_one_that_changes_nothing_is_read_again(tmp_path):
    path = tmp_path / "rebound.py"
    path.write_text(
        textwrap.dedent("""
        def helper(x, v):
            x[0] = v

        def f(a):
            x = [0.0]
            helper(x, 1.0)
            return a * a
    """)
    )
    module = load_path(path)
    with pytest.raises(srcad.MutationError):
        srcad.grad(module.f)(3.0)
    other = tmp_path / "pure.py"
    other.write_text("def helper(x, v):\n    return v\n")
    module.helper = load_path(other).helper
    assert srcad.grad(module.f)(3.0) == pytest.approx(6.0)


FIVE_PROBLEMS = textwrap.dedent(
    """\
    import numpy as np

    counter = []


    def push(stack, value):
        stack.append(value)


    def items(x):
        y = np.zeros(2)
        w = y
        y[0] = x
        try:
            z = x * 2
        except ValueError:
            z = 0.0
        return w + z


    def rebinds(x):
        global counter
        counter = [x]
        return x


    def calls(x):
        stack = []
        push(stack, x)
        counter.append(1)
        return x * stack[0]
    """
)


def test_srcad_check_reports_all_five_problems_each_at_its_line(tmp_path):
    path = tmp_path / "five.py"
    path.write_text(FIVE_PROBLEMS)
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "srcad", "check", str(path), "--format", "json"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    import json

    found = [(d["line"], d["code"]) for d in json.loads(done.stdout)]
    lines = FIVE_PROBLEMS.splitlines()

    def line(text):
        return 1 + next(i for i, got in enumerate(lines) if text in got)

    expected = [
        (line("stack.append(value)"), "E302"),  # the callee's own, listed under its call too
        (line("y[0] = x"), "E301"),
        (line("try:"), "E101"),
        (line("global counter"), "E101"),
        (line("push(stack, x)"), "E220"),
        (line("counter.append(1)"), "E302"),
    ]
    assert found == expected


def test_a_value_called_with_constants_is_guarded_when_it_runs():
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(mf.value_called_with_constants, wrt=0)(2.0, mf.push_and_count)
    found = [(where(d), d.code) for d in raised.value.diagnostics]
    assert found == [
        (at(mf.value_called_with_constants, "fn([], 2.0)"), "E220"),
        (at(mf.push_and_count, "stack.append"), "E302"),
    ]
    assert "push_and_count" in raised.value.diagnostics[0].message
    assert "@srcad.rrule.register(push_and_count)" in raised.value.diagnostics[0].hint
    # A function that changes nothing runs; the derivative is right.
    for mode in ("grad", "jvp"):
        value = MODES[mode](mf.value_called_with_constants, (2.0, mf.count_only))
        assert (value if mode == "grad" else value[1]) == pytest.approx(4.0)


@pytest.mark.parametrize("mode", ["grad", "jvp", "vjp"])
def test_a_passed_function_that_changes_what_the_pullback_reads_is_refused(mode):
    with pytest.raises(srcad.MutationError) as raised:
        MODES[mode](mf.changed_after_its_use, (2.0,))
    with pytest.raises(srcad.MutationError) as raised:
        MODES[mode](mf.changed_by_a_passed_function, (2.0, helpers.scale_in_place))
    assert [(where(d), d.code) for d in raised.value.diagnostics] == [
        (at(mf.changed_by_a_passed_function, "fn(x, 3.0)"), "E220"),
        (at(helpers.scale_in_place, "x *= factor"), "E306"),
    ]


def test_a_nested_function_calling_a_method_of_a_parameter_for_its_effect_is_refused():
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(mf.nested_calls_a_method_of_a_parameter, wrt=0)(2.0, mf.Accumulator())
    assert [(where(d), d.code) for d in raised.value.diagnostics] == [
        (at(mf.nested_calls_a_method_of_a_parameter, "acc.push(1.0)"), "E308")
    ]


def test_a_method_of_a_local_instance_that_sets_a_field_is_refused():
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(mf.box_then_set)(2.0)
    assert [(where(d), d.code) for d in raised.value.diagnostics] == [
        (at(mf.box_then_set, "box.set(a)"), "E220"),
        (at(mf._box_set, "self.value = value"), "E301"),
    ]


def test_a_callee_of_a_callee_is_looked_up_again_when_its_name_is_rebound(monkeypatch):
    assert srcad.grad(mf.calls_outer)(2.0) == pytest.approx(3.0)
    monkeypatch.setattr(mf, "inner_helper", helpers.scale_in_place)

    def calls_outer_again(a):
        x = np.array([1.0, 2.0]) * a
        mf.outer(x)
        return np.sum(x)

    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(calls_outer_again)(2.0)
    assert [(where(d), d.code) for d in raised.value.diagnostics] == [
        (at(calls_outer_again, "mf.outer(x)"), "E220"),
        (at(mf.outer, "inner_helper(x)"), "E220"),
        (at(helpers.scale_in_place, "x *= factor"), "E306"),
    ]


def test_a_callee_whose_source_cannot_be_read_is_refused(tmp_path):
    path = tmp_path / "unreadable.py"
    path.write_text("def f(a):\n    n = helper(2.0)\n    return a * n\n")
    module = load_path(path)
    namespace = {}
    exec(compile("def helper(x):\n    return x\n", "<generated>", "exec"), namespace)
    module.helper = namespace["helper"]
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(module.f)(3.0)
    (site, unreadable) = raised.value.diagnostics
    assert (site.line, site.code) == (2, "E220")
    assert (unreadable.file, unreadable.code) == ("<generated>", "E310")
    assert "cannot read `helper`" in unreadable.message


# What a callee that runs as it is changes that its caller sees (`CalleeMutations`), by
# line, column and code: changes to values it made are its own business.
CALLEE_CASES = [
    ("own_array", "def f(n):\n    e = np.zeros(n)\n    e[0] = 1.0\n    e.fill(2.0)\n"
     "    np.add(e, 1.0, out=e)\n    return e\n", []),
    ("own_list", "def f(v):\n    out = []\n    out.append(v)\n    out.extend([v])\n"
     "    out.sort()\n    return out\n", []),
    ("own_copy", "def f(x):\n    y = x.copy()\n    y[0] = 1.0\n    return y\n", []),
    ("parameter", "def f(x):\n    x[0] = 1.0\n    x.sort()\n    return x\n",
     [(2, 4, "E301"), (3, 4, "E303")]),
    ("alias_of_a_parameter", "def f(x):\n    y = x\n    y[0] = 1.0\n", [(3, 4, "E301")]),
    ("view_of_a_parameter", "def f(x):\n    y = x[1:]\n    y[0] = 1.0\n", [(3, 4, "E301")]),
    ("element_of_own_list", "def f(x):\n    pair = [x]\n    pair[0][0] = 1.0\n",
     [(3, 4, "E301")]),
    ("no_copy_array", "def f(x):\n    y = np.array(x, copy=False)\n    y[0] = 1.0\n",
     [(3, 4, "E301")]),
    ("global_rebound", "def f(x):\n    global G\n    G = x\n", [(2, 4, "E309")]),
    ("global_only_read", "def f(x):\n    global G\n    return G * x\n", []),
    ("nonlocal_rebound", "def f(x):\n    t = 0\n    def g():\n        nonlocal t\n"
     "        t = x\n    g()\n    return t\n", [(4, 8, "E309")]),
    ("method_of_a_parameter_for_its_effect", "def f(acc, v):\n    acc.push(v)\n",
     [(2, 4, "E308")]),
    ("passed_function_for_its_effect", "def f(fn, v):\n    fn(v)\n", [(2, 4, "E308")]),
    ("passed_function_for_its_value", "def f(fn, v):\n    return fn(v)\n", []),
    ("shuffle", "def f(rng, x):\n    rng.shuffle(x)\n", [(2, 4, "E303")]),
    ("setitem_by_name", "def f(x):\n    x.__setitem__(0, 1.0)\n", [(2, 4, "E303")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text", "expected"), CALLEE_CASES, ids=[c[0] for c in CALLEE_CASES]
)
def test_what_a_callee_changes_that_its_caller_sees(name, text, expected):
    from srcad.passes.checks.mutations import CalleeMutations
    from srcad.passes.testing import context_for

    tree, ctx = context_for(text, env={"G": 1.0})
    found = ctx.analysis(CalleeMutations, tree)
    assert [(d.line, d.column, d.code) for d in found] == expected
