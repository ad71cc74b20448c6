"""The expressions of the fuzzer's programs: the types of the names in scope, and expressions
of a wanted shape over them (see fuzz_programs.py for the programs built from them)."""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable

Shape = tuple[int, ...]
SCALAR: Shape = ()


@dataclasses.dataclass(frozen=True)
class Value:
    """A float, or a float array, of a known shape."""

    shape: Shape


@dataclasses.dataclass(frozen=True)
class Int:
    """A Python int; `bound`: it lies in `range(bound)` (a loop index), else None."""

    bound: int | None


@dataclasses.dataclass(frozen=True)
class ListOf:
    """A list of values of one shape; `length` None once it is appended to in a loop."""

    element: Shape
    length: int | None


@dataclasses.dataclass(frozen=True)
class DictOf:
    """A dict from string keys to values of known shapes."""

    items: tuple[tuple[str, Shape], ...]


@dataclasses.dataclass(frozen=True)
class TupleOf:
    """A tuple of values of known shapes."""

    elements: tuple[Shape, ...]


@dataclasses.dataclass(frozen=True)
class Function:
    """A callable: a module-level helper, a nested function or a lambda."""

    parameters: tuple[Shape, ...]
    result: Shape


Type = Value | Int | ListOf | DictOf | TupleOf | Function


@functools.cache
def slices_to(length: int, wanted: int) -> tuple[str, ...]:
    """Every slice text (`a:b:c`, parts left out where None) taking `wanted` elements of a
    sequence of `length`, negative bounds and steps included, in a fixed order."""
    bounds = [None, *range(-length, length + 1)]
    found = []
    for step in (None, 2, -1, -2, 3):
        for start in bounds:
            for stop in bounds:
                if len(range(length)[slice(start, stop, step)]) != wanted:
                    continue
                text = f"{'' if start is None else start}:{'' if stop is None else stop}"
                found.append(text if step is None else f"{text}:{step}")
    return tuple(found)


class Scope:
    """The names in scope where a statement is written, and their types."""

    def __init__(self, names: dict[str, Type] | None = None) -> None:
        self.names: dict[str, Type] = dict(names or {})

    def copy(self) -> Scope:
        return Scope(self.names)

    def of(self, predicate: Callable[[Type], bool]) -> list[str]:
        return [name for name, t in self.names.items() if predicate(t)]

    def values(self, shape: Shape) -> list[str]:
        return self.of(lambda t: t == Value(shape))


class Expressions:
    """Writes expressions of known shapes from a seeded `random.Random`."""

    MAX_DEPTH = 3
    # Whether the variables of comprehensions and nested functions now and then reuse a name
    # in scope (a global's, a parameter's, a local's), which they hide inside: `shadowing`.
    shadowing = False
    # Whether expressions include `fuzz_constructs`' (`construct_productions`): `--constructs`.
    constructs = False

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        rows = self.rng.choice([2, 3, 4])
        self.rows, self.cols = rows, self.rng.choice([c for c in (2, 3, 4, 5) if c != rows])
        self.shapes: list[Shape] = [SCALAR, (self.rows,), (self.cols,), (self.rows, self.cols)]
        self.counter = 0
        self.loop_depth = 0

    # ---- small helpers
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: list) -> object:  # type: ignore[type-arg]
        return options[self.rng.randrange(len(options))]

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def own_name(self, scope: Scope, stem: str) -> str:
        """A name for a variable of a comprehension or nested function: fresh, or, with
        `shadowing`, now and then the name of a value or function in scope, which it hides
        inside that scope only."""
        if self.shadowing and self.chance(0.5):
            names = scope.of(lambda t: isinstance(t, Value | Function))
            names = [n for n in names if "." not in n]  # not a static method, `ops.scale`
            if names:
                return str(self.pick(names))
        return self.fresh(stem)

    def constant(self) -> str:
        value = round(self.rng.uniform(-2.0, 2.0), 2)
        return f"({value})" if value < 0 else repr(value)

    def positive(self) -> str:
        return repr(round(self.rng.uniform(0.5, 2.0), 2))

    # ---- expressions
    def expr(self, scope: Scope, shape: Shape, depth: int) -> str:
        """An expression of `shape` over the names in `scope`."""
        if depth <= 0 or self.chance(0.2):
            return self.leaf(scope, shape)
        productions = self.productions(scope, shape, depth)
        weights = [w for w, _ in productions]
        total = sum(weights)
        r = self.rng.random() * total
        for weight, make in productions:
            r -= weight
            if r < 0:
                return make()
        return productions[-1][1]()

    def leaf(self, scope: Scope, shape: Shape) -> str:
        names = scope.values(shape)
        if names and self.chance(0.85):
            return str(self.pick(names))
        if len(shape) == 2 and scope.values(shape[::-1]) and self.chance(0.7):
            return f"{self.pick(scope.values(shape[::-1]))}.T"
        scalars = scope.values(SCALAR)
        if shape == SCALAR:
            return str(self.pick(scalars)) if scalars and self.chance(0.7) else self.constant()
        sliced = self.slice_of(scope, shape)
        if sliced is not None and self.chance(0.6):
            return sliced
        if self.chance(0.3):
            values = ", ".join(self.constant() for _ in range(shape[0]))
            if len(shape) == 1:
                return f"np.array([{values}])"
        base = str(self.pick(scalars)) if scalars else self.constant()
        dims = f"({shape[0]}, {shape[1]})" if len(shape) == 2 else str(shape[0])
        return f"({base} * np.ones({dims}))"

    def slice_of(self, scope: Scope, shape: Shape) -> str | None:
        """A slice of an array in scope with `shape`, if there is one to take."""
        if len(shape) == 1:
            sources = [
                (name, t.shape)
                for name, t in scope.names.items()
                if isinstance(t, Value) and len(t.shape) >= 1
            ]
            sources = [(n, s) for n, s in sources if (s[0] >= shape[0] if len(s) == 1 else True)]
            if not sources:
                return None
            name, source = self.pick(sources)  # type: ignore[misc]
            if len(source) == 1:
                return f"{name}[{self.pick(list(slices_to(source[0], shape[0])))}]"
            rows, cols = source
            options = []
            if cols == shape[0]:
                options.append(f"{name}[{self.rng.randrange(-rows, rows)}]")
                options.append(f"{name}[{self.rng.randrange(-rows, rows)}, :]")
            if rows == shape[0]:
                options.append(f"{name}[:, {self.rng.randrange(-cols, cols)}]")
            if cols >= shape[0]:
                s = self.pick(list(slices_to(cols, shape[0])))
                options.append(f"{name}[{self.rng.randrange(-rows, rows)}, {s}]")
            if rows >= shape[0]:
                s = self.pick(list(slices_to(rows, shape[0])))
                options.append(f"{name}[{s}, {self.rng.randrange(-cols, cols)}]")
            return str(self.pick(options)) if options else None
        if len(shape) == 2:
            sources = [
                name
                for name, t in scope.names.items()
                if isinstance(t, Value)
                and len(t.shape) == 2
                and t.shape[0] >= shape[0]
                and t.shape[1] >= shape[1]
            ]
            if not sources:
                return None
            name = str(self.pick(sources))
            rows, cols = scope.names[name].shape  # type: ignore[union-attr]
            first = self.pick(list(slices_to(rows, shape[0])))
            second = self.pick(list(slices_to(cols, shape[1])))
            return f"{name}[{first}, {second}]"
        return None

    def productions(self, scope: Scope, shape: Shape, depth: int) -> list:  # type: ignore[type-arg]
        d = depth - 1
        e = functools.partial(self.expr, scope)
        out: list = []  # type: ignore[type-arg]

        def other(s: Shape) -> str:  # an operand: the same shape, or a scalar broadcast
            return e(SCALAR if (s != SCALAR and self.chance(0.3)) else s, d)

        def binary() -> str:
            op = self.pick(["+", "-", "*", "+", "*"])
            left, right = (e(shape, d), other(shape))
            return f"({left} {op} {right})" if self.chance(0.5) else f"({right} {op} {left})"

        out.append((6, binary))
        out.append((1, lambda: f"(-{e(shape, d)})"))

        def divide() -> str:
            den = e(self.pick([shape, SCALAR]), d)  # type: ignore[arg-type]
            form = self.rng.randrange(3)
            if form == 0:
                return f"({e(shape, d)} / ({self.positive()} + {den} * {den}))"
            if form == 1:
                return f"({e(shape, d)} / {self.positive()})"
            return f"({e(shape, d)} / (2.0 + np.cos({den})))"

        out.append((2, divide))

        def unary() -> str:
            a = e(shape, d)
            return str(
                self.pick(
                    [
                        f"np.sin({a})",
                        f"np.cos({a})",
                        f"np.tanh({a})",
                        f"np.exp({a})",
                        f"np.exp(np.sin({a}))",
                        f"np.log(1.0 + {a} * {a})",
                        f"np.log({self.positive()} + np.abs({a}))",
                        f"np.sqrt({a} * {a} + {self.positive()})",
                        f"np.abs({a})",
                    ]
                )
            )

        out.append((4, unary))

        def power() -> str:
            a = e(shape, d)
            return str(
                self.pick(
                    [f"({a} ** 2)", f"({a} ** 3)", f"({a} ** 2.0)", f"(({a} * {a} + 0.5) ** 1.5)"]
                )
            )

        out.append((2, power))

        def extremum() -> str:
            fn = self.pick(["np.maximum", "np.minimum"])
            return f"{fn}({e(shape, d)}, {other(shape)})"

        out.append((1.5, extremum))
        out.append(
            (1, lambda: f"np.where({e(shape, d)} > {other(shape)}, {e(shape, d)}, {other(shape)})")
        )
        out.append(
            (1.5, lambda: f"({e(shape, d)} if {self.condition(scope, d)} else {e(shape, d)})")
        )
        if shape == SCALAR:
            out.append(
                (1, lambda: f"(({self.condition(scope, d)} and {e(shape, d)}) or {e(shape, d)})")
            )
            ints = scope.of(lambda t: isinstance(t, Int))
            if ints:
                out.append((1, lambda: f"(({self.pick(ints)} * 0.5) or {e(shape, d)})"))
                out.append((1, lambda: f"({e(shape, d)} * {self.pick(ints)})"))
            out.append((3, lambda: self.reduction(scope, d)))
            out.append((2, lambda: self.element(scope, SCALAR)))
            if self.shadowing:
                out.append((1, lambda: self.over_functions(scope, d)))
        if len(shape) == 1:
            out.append((2, lambda: self.element(scope, shape) or e(shape, d)))
            out.append((2, lambda: self.axis_reduction(scope, shape, d)))
            out.append((1.5, lambda: self.comprehension(scope, shape, d)))
        if shape != SCALAR:
            out.append((1.5, lambda: self.matmul(scope, shape, d)))
        if len(shape) == 2:
            out.append((1, lambda: f"{e(shape[::-1], d)}.T"))
            out.append((0.5, lambda: f"np.transpose({e(shape[::-1], d)})"))
        functions = scope.of(lambda t: isinstance(t, Function) and t.result == shape)
        if functions:

            def call() -> str:
                name = str(self.pick(functions))
                t = scope.names[name]
                assert isinstance(t, Function)
                return f"{name}({', '.join(e(p, d) for p in t.parameters)})"

            out.append((3, call))
        containers = self.container_reads(scope, shape)
        if containers:
            out.append((3, lambda: str(self.pick(containers))))
        if self.constructs:  # last, so that programs without it stay as they were
            out += self.construct_productions(scope, shape, d)
        return out

    def construct_productions(self, scope: Scope, shape: Shape, depth: int) -> list:  # type: ignore[type-arg]
        """The expressions of `--constructs` (`fuzz_constructs.Constructs`)."""
        return []

    def condition(self, scope: Scope, depth: int) -> str:
        """A Python truth value: comparisons of scalars (ints included), `not`, `and`, `or`."""
        ints = scope.of(lambda t: isinstance(t, Int))
        form = self.rng.randrange(7)
        e = functools.partial(self.expr, scope, SCALAR, max(depth - 1, 0))
        if form == 0 and ints:
            return f"({self.pick(ints)} % 2 == {self.rng.randrange(2)})"
        if form == 1 and ints:
            return f"({self.pick(ints)} > {self.rng.randrange(3)})"
        if form == 2:
            low = round(self.rng.uniform(-2.0, 0.5), 2)
            high = round(low + self.rng.uniform(0.5, 3.0), 2)
            return f"({low} < {e()} < {high})"
        if form == 3:
            return f"(not ({e()} > {self.constant()}))"
        if form == 4:
            op = self.pick(["and", "or"])
            return f"(({e()} > {self.constant()}) {op} ({e()} < {self.constant()}))"
        return f"({e()} {self.pick(['<', '>', '<=', '>='])} {e()})"

    def reduction(self, scope: Scope, depth: int) -> str:
        """A scalar from an array: sum, mean, max, prod, a dot product, sum of a list."""
        shape = self.pick([s for s in self.shapes if s != SCALAR])
        a = self.expr(scope, shape, depth)  # type: ignore[arg-type]
        options = [
            f"np.sum({a})",
            f"np.mean({a})",
            f"np.max({a})",
            f"np.min({a})",
            f"np.sum({a} * {a})",
            f"np.prod(np.tanh({a}) + 1.5)",
        ]
        if len(shape) == 1:  # type: ignore[arg-type]
            b = self.expr(scope, shape, depth)  # type: ignore[arg-type]
            options += [f"({a} @ {b})", f"np.dot({a}, {b})", f"sum({a})"]
        lists = scope.of(lambda t: isinstance(t, ListOf) and t.element == SCALAR)
        if lists:
            options.append(f"sum({self.pick(lists)})")
        return str(self.pick(options))

    def axis_reduction(self, scope: Scope, shape: Shape, depth: int) -> str:
        """A vector from a matrix, reduced along the axis that leaves `shape`."""
        other = self.pick([n for n in (self.rows, self.cols, 2)])
        axis = self.rng.randrange(2)
        matrix = (other, shape[0]) if axis == 0 else (shape[0], other)
        a = self.expr(Scope(scope.names), matrix, depth)  # type: ignore[arg-type]
        fn = self.pick(["np.sum", "np.mean", "np.max", "np.sum", "np.prod"])
        if fn == "np.prod":
            return f"np.prod(np.tanh({a}) + 1.5, axis={axis})"
        return f"{fn}({a}, axis={axis})"

    def matmul(self, scope: Scope, shape: Shape, depth: int) -> str:
        inner = self.pick([self.rows, self.cols])
        if len(shape) == 1:
            m = self.expr(scope, (shape[0], inner), depth)  # type: ignore[arg-type]
            v = self.expr(scope, (inner,), depth)  # type: ignore[arg-type]
            return f"({m} @ {v})" if self.chance(0.7) else f"({v} @ {m}.T)"
        a = self.expr(scope, (shape[0], inner), depth)  # type: ignore[arg-type]
        b = self.expr(scope, (inner, shape[1]), depth)  # type: ignore[arg-type]
        return f"({a} @ {b})"

    def element(self, scope: Scope, shape: Shape) -> str | None:
        """An element or row of an array in scope: constant or loop-index subscripts."""
        if shape == SCALAR:
            arrays = scope.of(lambda t: isinstance(t, Value) and t.shape != SCALAR)
            if not arrays:
                return self.leaf(scope, SCALAR)
            name = str(self.pick(arrays))
            dims = scope.names[name].shape  # type: ignore[union-attr]
            indices = [self.index(scope, n) for n in dims]
            if len(dims) == 2 and self.chance(0.3):
                return f"{name}[{indices[0]}][{indices[1]}]"
            return f"{name}[{', '.join(indices)}]"
        return self.slice_of(scope, shape)

    def index(self, scope: Scope, length: int) -> str:
        loops = scope.of(lambda t: isinstance(t, Int) and t.bound is not None and t.bound <= length)
        if loops and self.chance(0.5):
            i = self.pick(loops)
            return str(i) if self.chance(0.7) else f"-1 - {i}"
        return str(self.rng.randrange(-length, length))

    def comprehension(self, scope: Scope, shape: Shape, depth: int) -> str:
        """`np.array([g(t) for t in v])` over a vector of the same length, or a list's array."""
        lists = scope.of(
            lambda t: isinstance(t, ListOf) and t.element == SCALAR and t.length == shape[0]
        )
        if lists and self.chance(0.4):
            return f"np.array({self.pick(lists)})"
        item = self.own_name(scope, "t")
        source = self.expr(scope, shape, depth)
        inner = scope.copy()
        inner.names[item] = Value(SCALAR)
        body = self.expr(inner, SCALAR, depth)
        return f"np.array([{body} for {item} in {source}])"

    def over_functions(self, scope: Scope, depth: int) -> str:
        """`sum(fn(e) for fn in (np.sin, np.tanh, fn))`: a generator over functions, its
        variable named now and then like a function in scope, which the tuple (read outside
        the generator) may hold too."""
        functions = scope.of(lambda t: t == Function((SCALAR,), SCALAR))
        named = [n for n in functions if "." not in n]  # a variable's name, not `ops.scale`
        item = str(self.pick(named)) if named and self.chance(0.6) else self.fresh("fn")
        options = ["np.sin", "np.tanh", "np.cos", *functions]
        count = self.rng.randrange(1, 4)
        iterable = ", ".join(str(self.pick(options)) for _ in range(count))
        inner = scope.copy()
        inner.names[item] = Function((SCALAR,), SCALAR)
        body = f"{item}({self.expr(inner, SCALAR, depth)})"
        return f"sum({body} for {item} in ({iterable},))"

    def container_reads(self, scope: Scope, shape: Shape) -> list[str]:
        """Reads of list elements, dict values and tuple elements of `shape`."""
        reads = []
        for name, t in scope.names.items():
            if isinstance(t, ListOf) and t.element == shape:
                if t.length:
                    reads.append(f"{name}[{self.rng.randrange(-t.length, t.length)}]")
                else:
                    reads.append(f"{name}[-1]")
            if isinstance(t, DictOf):
                reads += [f"{name}[{k!r}]" for k, s in t.items if s == shape]
            if isinstance(t, TupleOf):
                reads += [f"{name}[{i}]" for i, s in enumerate(t.elements) if s == shape]
        return reads
