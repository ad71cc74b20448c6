"""Random Python/NumPy programs for the fuzzer: the source of `f(...)` and its helpers, by seed.

A program is text, written to a file and imported (srcad reads source from files). The
generator keeps a typed environment of the names in scope (a float of some shape, a loop's
int, a list, dict or tuple, a callable), so every expression it writes has a known shape and
every name it reads is bound. Values are kept in a sane range by construction where that is
cheap (logarithms and square roots of `1 + e*e`, divisions by `1.5 + e*e`, non-integer powers
of positive bases) and by the caller otherwise: a program whose primal is not finite, or is
huge, at its test point is thrown away and the next attempt of the same seed is used.

Only `random.Random(seed)` drives the choices (its `random`, `randrange` and `choice` give
the same sequence on every Python version from 3.2), and no set's order is relied on,
so one seed gives one program on Python 3.10 to 3.13.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from fuzz_constructs import Constructs
from fuzz_expressions import (
    SCALAR,
    DictOf,
    Function,
    Int,
    ListOf,
    Scope,
    Shape,
    TupleOf,
    Value,
)

# The module's globals of a program generated with `shadowing`: read by its functions, never
# rebound (a function assigning one would make it a local of its own), and hidden now and
# then by a comprehension's or nested function's variable of the same name.
GLOBALS: dict[str, tuple[str, Value | Function]] = {
    "fn": ("np.tanh", Function((SCALAR,), SCALAR)),
    "c0": ("0.7", Value(SCALAR)),
}


@dataclasses.dataclass(frozen=True)
class Program:
    """One generated program: the module's source, `f`'s parameters and its result shape."""

    seed: int
    source: str
    parameters: tuple[tuple[str, Shape], ...]
    result: Shape


class Generator(Constructs):
    """Writes one program from a seeded `random.Random`: statements and helpers, over the
    expressions of `Expressions` (and with `constructs`, `Constructs`' statements too)."""

    writes = False  # whether it writes items of arrays it made (`write_items`)

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
        if self.writes:  # last, so that programs without it stay as they were
            kinds.append((1.5, lambda: self.write_items(scope)))
        if self.constructs:  # after `writes`, for the same reason
            kinds.append((4, lambda: self.construct(scope, depth, result, in_loop)))
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
        names = [n for n in scope.of(lambda t: isinstance(t, Value)) if n not in GLOBALS]
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
        names = [n for n in scope.of(lambda t: isinstance(t, Value)) if n not in GLOBALS]
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
        lists = [name for name in lists if name not in self.walking]
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

    def write_items(self, scope: Scope) -> list[str]:
        """An array the function makes and then writes item by item (`w = np.zeros(3)`,
        `w[i] = ...`, `w[:, 1] += ...`, `w[w > 0.5] = ...`, in a loop over its rows too),
        which srcad rewrites as new values; now and then an index that writes an element
        twice (`w[[0, 0]] = ...`), which it must refuse."""
        shape = (self.rows, self.cols) if self.chance(0.5) else (self.pick([self.rows, self.cols]),)
        name = self.fresh("w")
        sources = scope.of(lambda t: isinstance(t, Value) and t.shape == shape)
        made = [f"np.zeros({shape})", f"np.ones({shape})"]
        if sources:
            made += [f"{self.pick(sources)}.copy()", f"np.array({self.pick(sources)})"]
        lines = [f"{name} = {self.pick(made)}"]
        scope.names[name] = Value(shape)
        for _ in range(self.rng.randrange(1, 4)):
            if self.chance(0.3):
                index = self.fresh("i")
                inner = scope.copy()
                inner.names[index] = Int(shape[0])
                lines += [f"for {index} in range({shape[0]}):"]
                lines += self.nested(self.item_write(inner, name, shape, index))
            else:
                lines += self.item_write(scope, name, shape, None)
        return lines

    def item_write(self, scope: Scope, name: str, shape: Shape, index: str | None) -> list[str]:
        """One `name[...] op= value` into the array `name` of `shape`, at row `index` (a
        loop's) or at an index of any kind: an int, slices, a tuple, a mask, a list."""
        rows = shape[0]
        first = index or str(self.rng.randrange(-rows, rows))
        forms: list[tuple[str, Shape]] = [(first, shape[1:])]
        if len(shape) == 2:
            column = self.rng.randrange(-shape[1], shape[1])
            forms += [(f"{first}, {column}", SCALAR), (f":, {column}", (rows,))]
            forms += [(f"{first}, 1:", (shape[1] - 1,))]
        else:
            forms += [("1:", (rows - 1,)), (f"{name} > 0.5", SCALAR), ("[0, -1]", (2,))]
            if self.chance(0.1):
                forms.append(("[0, 0]", (2,)))  # an element written twice: refused
        where, item = self.pick(forms)  # type: ignore[misc]
        value_shape = item if self.chance(0.7) else SCALAR
        value = self.expr(scope, value_shape, 2)
        op = str(self.pick(["=", "=", "+=", "-=", "*="]))
        if op == "*=":
            value = f"np.tanh({value})"
        return [f"{name}[{where}] {op} {value}"]

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
        parameter = self.own_name(scope, "s")
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
            if self.constructs:  # not appended to in the loop, which would never end
                saved, self.walking = self.walking, (*self.walking, name)
                body = self.loop_body(inner, depth, result)
                self.walking = saved
                return [header, *self.nested(body)]
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
        inner = Scope({n: t for n, t in scope.names.items() if isinstance(t, Function | Value)})
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
        if self.shadowing:  # globals, which the variables of nested scopes may hide
            lines += [f"{name} = {value}" for name, (value, _) in GLOBALS.items()]
            module.names.update({name: t for name, (_, t) in GLOBALS.items()})
        if self.constructs:  # imports, a counter, a class of static methods
            lines += self.construct_module(module)
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
        counter = self.counter_lines() if self.constructs else []
        body = counter + self.block(scope, 2, self.rng.randrange(2, 7), result, False)
        self.counting = False
        body.append(f"return {self.gather(scope, result, self.MAX_DEPTH)}")
        lines += ["", f"def f({', '.join(n for n, _ in parameters)}):", *self.nested(body), ""]
        return Program(self.seed, "\n".join(lines), parameters, result)


def generate(
    seed: int, writes: bool = False, shadowing: bool = False, constructs: bool = False
) -> Program:
    """The program of `seed` (one of a sequence of attempts: see `attempts`); with `writes`,
    its statements include writes into arrays it made (`Generator.write_items`); with
    `shadowing`, the module has globals (`GLOBALS`), and comprehensions and nested functions
    name their variables now and then like a global or local in scope
    (`Expressions.own_name`, `Expressions.over_functions`); with `constructs`, statements
    and expressions of `fuzz_constructs` too (in-place methods, `:=`, `with`, ...)."""
    generator = Generator(seed)
    generator.constructs = constructs
    generator.writes = writes
    generator.shadowing = shadowing
    return generator.program()


def attempts(seed: int, tries: int = 20) -> list[int]:
    """The generator seeds tried for fuzz seed `seed`, in order: the first whose program
    runs to a finite, moderate value is used."""
    return [seed * 1000 + k for k in range(tries)]
