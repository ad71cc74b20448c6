"""A fixed set of random programs, each checked every way (tests/fuzz/fuzz_oracle.py): no wrong
value and no exception other than `SrcadError`.

`python tests/fuzz/run.py --count 20000 --seed 0 --jobs 2` runs as many as you ask for, and
`python tests/fuzz/run.py --only SEED` shows one seed's program and its reduced reproducer.
"""

import hashlib
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # run.py's own modules: fuzz_programs, fuzz_oracle, fuzz_reduce

import fuzz_oracle  # noqa: E402
import fuzz_programs  # noqa: E402
import fuzz_reduce  # noqa: E402

_spec = importlib.util.spec_from_file_location("srcad_fuzz_run", HERE / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)

MUTATING_CALLEE = (
    "issue 17 #1: a callee that mutates its argument (`push(stack, value)`: "
    "stack.append(value)) is not analysed: grad(f) of one argument is silently wrong, "
    "grad of several and vjp crash, jvp is wrong or crashes"
)
OR_READS_TARGET = (
    "`x = a or x` / `x = a and x * 2`: the target is bound to `a` before the right operand "
    "reads `x`: wrong value (not only derivative) in every mode"
)
CLOSURE_ATTRIBUTE = (
    "a nested function or lambda reading an attribute of a captured value (`return x.T`): "
    "its derivative is dropped (zero) in every mode"
)
OR_IN_LOOP = (
    "issue 17 #4: `or` inside a loop (`y = x * (i or y)`): the pullback re-tests the condition "
    "of the last iteration; vjp wrong, jvp right"
)
APPEND_OWN_SUM = (
    "`lst.append(sum(lst))`: `append` changed the list a rule had read, so its pullback saw "
    "the longer list: reverse mode raised 'cannot add tangents of 2 and 3 elements'"
)

#: Seeds that found a bug, by its class (in seeds 0-4999 of `run.py`): each is checked in CI
#: from then on, as a regression test.
FOUND: dict[int, str] = {
    529: MUTATING_CALLEE,
    1840: MUTATING_CALLEE,
    554: OR_READS_TARGET,
    983: OR_READS_TARGET,
    1837: OR_READS_TARGET,
    1470: CLOSURE_ATTRIBUTE,
    3491: OR_READS_TARGET,
    3674: MUTATING_CALLEE,
    4326: OR_IN_LOOP,
    4338: MUTATING_CALLEE,
    3119: APPEND_OWN_SUM,
    4650: APPEND_OWN_SUM,
}

#: Those of them whose fix is not merged yet: remove an entry when it is.
KNOWN: dict[int, str] = {}

#: The seeds CI checks (about 25 s of one core here, 0.2 s a program).
SEEDS = [*range(120), *sorted(FOUND)]


def _cases():
    for seed in SEEDS:
        if seed in KNOWN:
            mark = pytest.mark.xfail(reason=KNOWN[seed], raises=AssertionError, strict=False)
            yield pytest.param(seed, marks=mark, id=str(seed))
        else:
            yield pytest.param(seed, id=str(seed))


@pytest.mark.parametrize("seed", list(_cases()))
def test_program_is_differentiated_right_or_refused(seed):
    _, program, outcome = run.fuzz_one(seed)
    assert outcome.kind not in ("WRONG", "CRASH"), (
        f"seed {seed}: {outcome.kind} in {outcome.check}: {outcome.detail}\n"
        f"{program.source}\n(reduce it: python tests/fuzz/run.py --only {seed})"
    )


#: Seeds checked with `--shadowing`'s programs (module globals, and comprehensions and
#: nested functions whose variables hide names in scope): 23 of seeds 0-299 crashed or
#: would have been wrong before comprehensions' own variables were told from globals.
SHADOWING_SEEDS = [*range(20), 212, 244]


@pytest.mark.parametrize("seed", SHADOWING_SEEDS)
def test_program_with_shadowed_names_is_differentiated_right_or_refused(seed):
    _, program, outcome = run.fuzz_one(seed, shadowing=True)
    assert outcome.kind not in ("WRONG", "CRASH"), (
        f"seed {seed}: {outcome.kind} in {outcome.check}: {outcome.detail}\n"
        f"{program.source}\n(reduce it: python tests/fuzz/run.py --shadowing --only {seed})"
    )


#: Seeds checked with `--writes --shadowing`'s programs (item writes into arrays they made,
#: and the above): seed 89 crashed in the fresh-values check on `w[:, 0] -= w[:, 5::2].T`
#: (an attribute of an item, taken for an attribute of a name).
WRITES_SEEDS = [*range(10), 89]


@pytest.mark.parametrize("seed", WRITES_SEEDS)
def test_program_with_item_writes_is_differentiated_right_or_refused(seed):
    _, program, outcome = run.fuzz_one(seed, writes=True, shadowing=True)
    assert outcome.kind not in ("WRONG", "CRASH"), (
        f"seed {seed}: {outcome.kind} in {outcome.check}: {outcome.detail}\n"
        f"{program.source}\n(reduce it: python tests/fuzz/run.py --writes --shadowing "
        f"--only {seed})"
    )


def test_generator_is_deterministic_on_every_python_version():
    """One seed, one program: the digest of the first programs, the same on 3.10 to 3.13."""
    digest = hashlib.sha256()
    for seed in range(50):
        digest.update(fuzz_programs.generate(seed * 1000 + 1).source.encode())
    assert digest.hexdigest()[:16] == "0b38524bbd8dc0c7"


def test_reducer_keeps_the_failure_and_shortens_the_program():
    """The reducer drops what the failure does not need (here: anything but a `np.sin`)."""
    source = (
        "import numpy as np\n\ndef f(x):\n    a = x * 2.0\n    b = np.sin(a)\n    return b + a\n"
    )
    reduced = fuzz_reduce.reduce(source, lambda text: "np.sin" in text)
    assert "np.sin" in reduced
    assert len(reduced) < len(source)
    assert "def f(x):" in reduced


def test_oracle_skips_a_point_where_rounding_decides_a_branch():
    """`x > np.mean(x * np.ones((3, 5)))` is false in exact arithmetic and true or false from one
    point to the next in floating point: the oracle's jump test finds it (seed 9612 of the first
    20,000-program run was a false WRONG), and leaves a smooth function and a kink alone."""

    def rounding_decided(x):
        return np.where(x > np.mean(x * np.ones((3, 5))), np.exp(x), x)

    assert fuzz_oracle.jumps_near(rounding_decided, [0.7], [1.0], 2.0)
    assert not fuzz_oracle.jumps_near(np.sin, [0.7], [1.0], 2.0)
    assert not fuzz_oracle.jumps_near(np.abs, [0.3], [1.0], 2.0)
    assert not fuzz_oracle.jumps_near(np.exp, [np.linspace(-1, 2, 5)], [np.ones(5)], 9.0)
    assert run.fuzz_one(9612)[2].kind == "skipped"


RUNTIME_ZERO_TIMES_INFINITY = (
    "a loop drives `x` to inf, then `x = np.where(c, c0, x / 1.69)` with `c` true: the "
    "cotangent the loop's reverse starts from is 0.0 at run time only, and 0.0 * inf is NaN "
    "(docs/higher_order.md, 'Zero times infinity'); the derivative is 0"
)

#: Seeds checked with `--second-order` (and the generator options each was found with):
#: 90099 and 50041 crashed, a cotangent pulled back to the symbolic zero tangent of a
#: float in the shape of an array it was broadcast against
#: (`tests/end_to_end/test_second_order_zero_tangents.py`).
SECOND_ORDER_SEEDS = {
    90099: {"writes": True, "shadowing": True},
    50041: {"shadowing": True},
    50118: {"shadowing": True},
}
SECOND_ORDER_KNOWN = {50118: RUNTIME_ZERO_TIMES_INFINITY}


def _second_order_cases():
    for seed, options in SECOND_ORDER_SEEDS.items():
        marks = ()
        if seed in SECOND_ORDER_KNOWN:
            reason = SECOND_ORDER_KNOWN[seed]
            marks = (pytest.mark.xfail(reason=reason, raises=AssertionError, strict=True),)
        yield pytest.param(seed, options, marks=marks, id=str(seed))


@pytest.mark.parametrize(("seed", "options"), list(_second_order_cases()))
def test_program_is_differentiated_right_to_second_order(seed, options):
    _, program, outcome = run.fuzz_one(seed, second_order=True, **options)
    flags = " ".join(f"--{name}" for name in options)
    assert outcome.kind not in ("WRONG", "CRASH"), (
        f"seed {seed}: {outcome.kind} in {outcome.check}: {outcome.detail}\n"
        f"{program.source}\n(reduce it: python tests/fuzz/run.py --second-order {flags} "
        f"--only {seed})"
    )


#: Seeds checked with `--constructs`' programs (and the options each was found with): 1021
#: and 2027 (of `--writes --shadowing`) crashed, a global counter read on entry, before its
#: `global` declaration, where a comprehension over constants was unrolled
#: (`tests/end_to_end/test_declarations.py`).
CONSTRUCTS_SEEDS = {
    **{seed: {} for seed in range(6)},
    1021: {},
    2027: {"writes": True, "shadowing": True},
}


@pytest.mark.parametrize(("seed", "options"), list(CONSTRUCTS_SEEDS.items()), ids=str)
def test_program_with_new_constructs_is_differentiated_right_or_refused(seed, options):
    _, program, outcome = run.fuzz_one(seed, constructs=True, **options)
    flags = "".join(f" --{name}" for name in options)
    assert outcome.kind not in ("WRONG", "CRASH"), (
        f"seed {seed}: {outcome.kind} in {outcome.check}: {outcome.detail}\n"
        f"{program.source}\n(reduce it: python tests/fuzz/run.py --constructs{flags} "
        f"--only {seed})"
    )


#: What `--constructs` writes (`fuzz_constructs.py`), each found in the programs of the first
#: seeds: the forms srcad learnt to differentiate in session 36.
CONSTRUCTS = (
    ".sort(", ".pop(", ".insert(", ".reverse()", ".extend(", "] += ", "] *= ", ".append(",
    ".update(", ".setdefault(", "{**d", ".items()}", ".fill(", "np.add.at(", ".flat",
    "np.modf(", "math.fmod(", "divmod(", "np.copysign(", "if (n", "while (n",
    "with np.errstate(", "global calls", "map(lambda", "functools.reduce(lambda",
    "@staticmethod", "ops.", "Ops().", ": float = ", ": np.ndarray = ",
)  # fmt: skip


def test_generator_writes_each_new_construct_and_only_when_asked():
    sources = [fuzz_programs.generate(seed * 1000, constructs=True).source for seed in range(300)]
    text = "\n".join(sources)
    missing = [construct for construct in CONSTRUCTS if construct not in text]
    assert not missing, f"no program of the first 300 seeds writes {missing}"
    lines = text.splitlines()
    assert any(":=" in line and " for t" in line for line in lines)  # in a comprehension
    assert any(line.strip().startswith("for k") for line in lines)  # over a dict's keys
    assert any(line.endswith(")}") and " for k" in line for line in lines)  # dict comprehension
    assert "calls += 1" in text
    plain = "\n".join(fuzz_programs.generate(seed * 1000).source for seed in range(100))
    assert not any(construct in plain for construct in (":=", "@staticmethod", "np.add.at("))
