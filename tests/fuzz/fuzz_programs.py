"""Random Python/NumPy programs for the fuzzer: the source of `f(...)` and its helpers, by seed.

A program is text, written to a file and imported (srcad reads source from files). The
generator keeps a typed environment of the names in scope (a float of some shape, a loop's
int, a list, dict or tuple, a callable), so every expression it writes has a known shape and
every name it reads is bound. Values are kept in a sane range by construction where that is
cheap (logarithms and square roots of `1 + e*e`, divisions by `1.5 + e*e`, non-integer powers
of positive bases) and by the caller otherwise: a program whose primal is not finite, or is
huge, at its test point is thrown away and the next attempt of the same seed is used.

Only `random.Random(seed)` drives the choices (its `random`, `randrange` and `choice` give
the same sequence on every Python version from 3.2), and no set or dict order is relied on,
so one seed gives one program on Python 3.10 to 3.13.
"""

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


@dataclasses.dataclass(frozen=True)
class Program:
    """One generated program: the module's source, `f`'s parameters and its result shape."""

    seed: int
    source: str
    parameters: tuple[tuple[str, Shape], ...]
    result: Shape


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


class Generator:
    """Writes one program from a seeded `random.Random`."""

    MAX_DEPTH = 3

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
        return out

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
        item = self.fresh("t")
        source = self.expr(scope, shape, depth)
        inner = scope.copy()
        inner.names[item] = Value(SCALAR)
        body = self.expr(inner, SCALAR, depth)
        return f"np.array([{body} for {item} in {source}])"

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

    # ---- statements
    def any_shape(self) -> Shape:
        return self.shapes[self.rng.choice([0, 0, 0, 1, 1, 2, 3])]

    def block(
        self, scope: Scope, depth: int, count: int, result: Shape, in_loop: bool
    ) -> list[str]:
        """`count` statements (at least one), in `scope` (updated with the names bound)."""
        lines: list[str] = []
        for _ in range(count):
            lines += self.statement(scope, depth, result, in_loop)
        return lines or ["pass"]

    def statement(self, scope: Scope, depth: int, result: Shape, in_loop: bool) -> list[str]:
        kinds: list[tuple[float, Callable[[], list[str]]]] = [
            (5, lambda: self.assign(scope)),
            (3, lambda: self.update(scope)),
            (1, lambda: self.alias(scope)),
            (1, lambda: self.pack(scope)),
            (1, lambda: self.build_list(scope, in_loop)),
            (0.7, lambda: self.build_dict(scope)),
            (1, lambda: self.define_function(scope)),
        ]
        if depth > 0:
            kinds += [
                (2, lambda: self.if_statement(scope, depth, result, in_loop)),
                (2.5, lambda: self.for_loop(scope, depth, result)),
                (1, lambda: self.while_loop(scope, depth, result)),
                (0.7, lambda: self.early_return(scope, result)),
            ]
        if in_loop:
            kinds.append((1.2, lambda: self.jump(scope)))
        total = sum(w for w, _ in kinds)
        r = self.rng.random() * total
        for weight, make in kinds:
            r -= weight
            if r < 0:
                return make()
        return kinds[0][1]()

    def assign(self, scope: Scope) -> list[str]:
        shape = self.any_shape()
        name = self.fresh("a")
        line = f"{name} = {self.expr(scope, shape, self.MAX_DEPTH)}"
        scope.names[name] = Value(shape)
        return [line]

    def update(self, scope: Scope) -> list[str]:
        """Rebind a float name: `a = ...`, `a += ...`, `a -= ...`, `a *= ...`."""
        names = scope.of(lambda t: isinstance(t, Value))
        if not names:
            return self.assign(scope)
        scalars = [n for n in names if scope.names[n] == Value(SCALAR)]
        name = str(self.pick(scalars if scalars and self.chance(0.6) else names))
        shape = scope.names[name].shape  # type: ignore[union-attr]
        value = self.expr(scope, shape, 2)
        op = str(self.pick(["+=", "-=", "*=", "=", "=", "+="]))
        if op == "*=":
            value = f"np.tanh({value})"
        if op != "=" and not (name.startswith("a") and self.chance(0.5)) and self.chance(0.85):
            # `+=` on an array changes it in place: on a parameter or an alias srcad must
            # refuse it (and on a parameter of unknown kind, which may be an array); mostly,
            # write the rebinding instead, which it must differentiate.
            return [f"{name} = {name} {op[0]} {value}"]
        return [f"{name} {op} {value}"]

    def alias(self, scope: Scope) -> list[str]:
        """`b = a; a = a * 2.0`: the new binding of `a` must not change `b`."""
        names = scope.of(lambda t: isinstance(t, Value))
        if not names:
            return self.assign(scope)
        name = str(self.pick(names))
        alias = self.fresh("b")
        scope.names[alias] = scope.names[name]
        return [f"{alias} = {name}", f"{name} = {name} * {self.constant()}"]

    def pack(self, scope: Scope) -> list[str]:
        """Tuples: packed, unpacked, swapped, kept for indexing."""
        shapes = (self.any_shape(), self.any_shape())
        first, second = (self.expr(scope, s, 2) for s in shapes)
        form = self.rng.randrange(3)
        if form == 0:
            names = (self.fresh("p"), self.fresh("q"))
            for n, s in zip(names, shapes, strict=True):
                scope.names[n] = Value(s)
            return [f"{names[0]}, {names[1]} = {first}, {second}"]
        if form == 1:
            name = self.fresh("tup")
            unpacked = (self.fresh("p"), self.fresh("q"))
            lines = [f"{name} = ({first}, {second})", f"{unpacked[1]}, {unpacked[0]} = {name}"]
            scope.names[name] = TupleOf(shapes)
            scope.names[unpacked[1]], scope.names[unpacked[0]] = Value(shapes[0]), Value(shapes[1])
            return lines
        pairs = [
            (a, b)
            for a in scope.of(lambda t: isinstance(t, Value))
            for b in scope.of(lambda t: isinstance(t, Value))
            if a < b and scope.names[a] == scope.names[b]
        ]
        if not pairs:
            return self.pack_kept(scope, shapes, first, second)
        a, b = self.pick(pairs)  # type: ignore[misc]
        return [f"{a}, {b} = {b}, {a}"]

    def pack_kept(
        self, scope: Scope, shapes: tuple[Shape, Shape], first: str, second: str
    ) -> list[str]:
        name = self.fresh("tup")
        scope.names[name] = TupleOf(shapes)
        return [f"{name} = {first}, {second}"]

    def build_list(self, scope: Scope, in_loop: bool) -> list[str]:
        """A list built, appended to, and read by index; `append` inside a loop too."""
        shape = self.pick([SCALAR, SCALAR, (self.rows,)])
        name = self.fresh("lst")
        count = self.rng.randrange(1, 4)
        items = ", ".join(self.expr(scope, shape, 2) for _ in range(count))  # type: ignore[arg-type]
        lines = [f"{name} = [{items}]"]
        if self.chance(0.5):
            value = self.expr(scope, shape, 2)  # type: ignore[arg-type]
            call = "push" if "push" in scope.names and self.chance(0.5) else f"{name}.append"
            lines.append(f"{call}({name}, {value})" if call == "push" else f"{call}({value})")
            count += 1
        scope.names[name] = ListOf(shape, None if in_loop else count)  # type: ignore[arg-type]
        return lines

    def append_in_loop(self, scope: Scope) -> list[str]:
        lists = scope.of(lambda t: isinstance(t, ListOf))
        if not lists:
            return []
        name = str(self.pick(lists))
        t = scope.names[name]
        assert isinstance(t, ListOf)
        scope.names[name] = ListOf(t.element, None)
        value = self.expr(scope, t.element, 2)
        if "push" in scope.names and self.chance(0.5):  # through a helper that mutates
            return [f"push({name}, {value})"]
        return [f"{name}.append({value})"]

    def build_dict(self, scope: Scope) -> list[str]:
        name = self.fresh("d")
        items = tuple(
            (key, self.any_shape()) for key in ("u", "v", "w")[: self.rng.randrange(1, 4)]
        )
        body = ", ".join(f"{k!r}: {self.expr(scope, s, 2)}" for k, s in items)
        scope.names[name] = DictOf(items)
        return [f"{name} = {{{body}}}"]

    def define_function(self, scope: Scope) -> list[str]:
        """A nested function or a lambda closing over the values in scope."""
        parameter = self.fresh("s")
        shape, result = self.any_shape(), self.any_shape()
        if self.chance(0.5):
            result = shape
        inner = scope.copy()
        inner.names[parameter] = Value(shape)
        same = scope.of(lambda t: t == Function((shape,), result))
        nested_names = [n for n in same if n.startswith("g")]
        # Now and then a second definition under a name already bound (the call after it
        # must use the new one).
        name = (
            str(self.pick(nested_names)) if nested_names and self.chance(0.5) else self.fresh("g")
        )
        body = self.expr(inner, result, 2)
        scope.names[name] = Function((shape,), result)
        if self.chance(0.4):
            return [f"{name} = lambda {parameter}: {body}"]
        lines = [f"def {name}({parameter}):"]
        if self.chance(0.4):
            local = self.fresh("c")
            lines.append(f"    {local} = {self.expr(inner, shape, 2)}")
            inner.names[local] = Value(shape)
            body = self.expr(inner, result, 2)
        return [*lines, f"    return {body}"]

    def nested(self, lines: list[str]) -> list[str]:
        return ["    " + line for line in lines]

    def if_statement(self, scope: Scope, depth: int, result: Shape, in_loop: bool) -> list[str]:
        """`if`/`elif`/`else`; names first bound in a branch stay inside it."""
        lines = [f"if {self.condition(scope, 2)}:"]
        lines += self.nested(
            self.block(scope.copy(), depth - 1, self.rng.randrange(1, 3), result, in_loop)
        )
        if self.chance(0.3):
            lines.append(f"elif {self.condition(scope, 2)}:")
            lines += self.nested(self.block(scope.copy(), depth - 1, 1, result, in_loop))
        if self.chance(0.6):
            lines.append("else:")
            lines += self.nested(
                self.block(scope.copy(), depth - 1, self.rng.randrange(1, 3), result, in_loop)
            )
        return lines

    def for_loop(self, scope: Scope, depth: int, result: Shape) -> list[str]:
        inner = scope.copy()
        form = self.rng.randrange(6)
        vectors = scope.of(lambda t: isinstance(t, Value) and len(t.shape) == 1)
        matrices = scope.of(lambda t: isinstance(t, Value) and len(t.shape) == 2)
        lists = scope.of(lambda t: isinstance(t, ListOf))
        if form == 1 and vectors:
            item = self.fresh("t")
            inner.names[item] = Value(SCALAR)
            header = f"for {item} in {self.pick(vectors)}:"
        elif form == 2 and matrices:
            item = self.fresh("row")
            name = str(self.pick(matrices))
            inner.names[item] = Value(scope.names[name].shape[1:])  # type: ignore[union-attr]
            header = f"for {item} in {name}:"
        elif form == 3 and vectors:
            first = str(self.pick(vectors))
            length = scope.names[first].shape[0]  # type: ignore[union-attr]
            second = self.expr(scope, (length,), 1)
            items = (self.fresh("t"), self.fresh("t"))
            for item in items:
                inner.names[item] = Value(SCALAR)
            header = f"for {items[0]}, {items[1]} in zip({first}, {second}):"
        elif form == 4 and vectors:
            name = str(self.pick(vectors))
            index, item = self.fresh("i"), self.fresh("t")
            inner.names[index] = Int(scope.names[name].shape[0])  # type: ignore[union-attr]
            inner.names[item] = Value(SCALAR)
            header = f"for {index}, {item} in enumerate({name}):"
        elif form == 5 and lists:
            name = str(self.pick(lists))
            item = self.fresh("t")
            inner.names[item] = Value(scope.names[name].element)  # type: ignore[union-attr]
            header = f"for {item} in {name}:"
        else:
            index = self.fresh("i")
            bound = self.rng.randrange(1, 5)
            start = self.rng.randrange(0, 2) if bound > 1 else 0
            inner.names[index] = Int(bound)
            header = (
                f"for {index} in range({bound}):"
                if start == 0
                else f"for {index} in range({start}, {bound}):"
            )
        return [header, *self.nested(self.loop_body(inner, depth, result))]

    def loop_body(self, scope: Scope, depth: int, result: Shape) -> list[str]:
        body = self.block(scope, depth - 1, self.rng.randrange(1, 4), result, True)
        if self.chance(0.3):
            body += self.append_in_loop(scope)
        return body

    def while_loop(self, scope: Scope, depth: int, result: Shape) -> list[str]:
        counter = self.fresh("k")
        bound = self.rng.randrange(1, 5)
        inner = scope.copy()
        test = f"{counter} < {bound}"
        if self.chance(0.3):
            test += f" and {self.expr(scope, SCALAR, 1)} < 100.0"
        inner.names[counter] = Int(None)
        lines = [f"{counter} = 0", f"while {test}:", f"    {counter} += 1"]
        return lines + self.nested(self.loop_body(inner, depth, result))

    def jump(self, scope: Scope) -> list[str]:
        keyword = self.pick(["break", "continue"])
        return [f"if {self.condition(scope, 1)}:", f"    {keyword}"]

    def early_return(self, scope: Scope, result: Shape) -> list[str]:
        return [f"if {self.condition(scope, 1)}:", f"    return {self.expr(scope, result, 2)}"]

    def gather(self, scope: Scope, result: Shape, depth: int) -> str:
        """A returned expression that reads several of the values in scope (the later bound
        first), so that most of what the program computed reaches its result."""
        names = scope.of(lambda t: isinstance(t, Value))[::-1]
        terms = [self.expr(scope, result, depth)]
        for name in names[: self.rng.randrange(1, 4)]:
            shape = scope.names[name].shape  # type: ignore[union-attr]
            if shape in (result, SCALAR):
                terms.append(name)
            else:
                terms.append(str(self.pick([f"np.sum({name})", f"np.mean({name})"])))
        return " + ".join(terms)

    # ---- whole programs
    def helper(self, scope: Scope) -> tuple[str, Function, list[str]]:
        name = self.fresh("helper")
        count = self.rng.randrange(1, 3)
        parameters = tuple(self.any_shape() for _ in range(count))
        result = self.any_shape()
        inner = Scope({n: t for n, t in scope.names.items() if isinstance(t, Function)})
        names = [self.fresh("h") for _ in parameters]
        for n, s in zip(names, parameters, strict=True):
            inner.names[n] = Value(s)
        body = self.block(inner, 1, self.rng.randrange(0, 3), result, False)
        body = [line for line in body if line != "pass"]
        lines = [f"def {name}({', '.join(names)}):", *self.nested(body)]
        lines.append(f"    return {self.gather(inner, result, 2)}")
        return name, Function(parameters, result), lines

    def program(self) -> Program:
        module = Scope()
        lines = ["import numpy as np", ""]
        if self.chance(0.15):  # a helper that mutates its argument and returns nothing
            module.names["push"] = Function((), (-1,))  # a result no expression asks for
            lines += ["", "def push(stack, value):", "    stack.append(value)", ""]
        for _ in range(self.rng.choice([0, 1, 1, 2])):
            name, function, text = self.helper(module)
            module.names[name] = function
            lines += ["", *text, ""]
        count = self.rng.randrange(1, 4)
        parameters = tuple(
            (name, self.shapes[self.rng.choice([0, 0, 1, 2, 3])])
            for name in ("x", "y", "z")[:count]
        )
        scope = module.copy()
        for name, shape in parameters:
            scope.names[name] = Value(shape)
        result = SCALAR if self.chance(0.8) else self.any_shape()
        body = self.block(scope, 2, self.rng.randrange(2, 7), result, False)
        body.append(f"return {self.gather(scope, result, self.MAX_DEPTH)}")
        lines += ["", f"def f({', '.join(n for n, _ in parameters)}):", *self.nested(body), ""]
        return Program(self.seed, "\n".join(lines), parameters, result)


def generate(seed: int) -> Program:
    """The program of `seed` (one of a sequence of attempts: see `attempts`)."""
    return Generator(seed).program()


def attempts(seed: int, tries: int = 20) -> list[int]:
    """The generator seeds tried for fuzz seed `seed`, in order: the first whose program
    runs to a finite, moderate value is used."""
    return [seed * 1000 + k for k in range(tries)]
