"""The fuzzer's `--constructs` productions: what session 36 taught srcad to differentiate.

In-place methods on lists, dicts and arrays the function made (`xs.sort()`, `v = xs.pop()`,
`xs.insert(...)`, `xs.reverse()`, `d.update(...)`, `d.setdefault(...)`, `w.fill(...)`,
`np.add.at(w, ...)`), appends mixed with item writes and `+=` into them (`xs[1] += ...`,
`d["u"] *= ...`, in loops over their keys too), dict comprehensions and `{**d, k: v}`, `:=`
(in an `if`'s and a `while`'s test, in comprehensions), `with np.errstate(...)` and the other
contexts taken, a global counter (`global calls; calls += 1`), closures passed as values
(`map(lambda s: s * w, xs)`, `functools.reduce`), `x.flat`, the float-splitting functions
(`np.modf`, `math.fmod`, `divmod`, `np.copysign`), static methods called through an
instance, and annotated assignments.

`Constructs` is a base of `fuzz_programs.Generator`: its statements (`construct`) and
expressions (`construct_productions`) are chosen only when `constructs` is set, after every
other choice, so that the programs of the other options stay as they were.
"""

from __future__ import annotations

from fuzz_expressions import SCALAR, DictOf, Expressions, Function, Int, ListOf, Scope, Shape, Value

KEYS = ("u", "v", "w", "z")

#: Module-level statements of a program with `constructs`: a counter `f` declares global and
#: counts its calls with (never read into a value), and a class whose static methods are
#: called through an instance (`ops.scale(...)`, `Ops().shift(...)`).
COUNTER = "calls"


class Constructs(Expressions):
    """The statements and expressions of `--constructs` (see the module's docstring)."""

    constructs = False
    counting = False  # whether the function being written declared the counter global
    walking: tuple[str, ...] = ()  # the lists `for` loops around the statement walk

    # ---- the module
    def construct_module(self, module: Scope) -> list[str]:
        """Imports, the counter and the class of static methods, their names in `module`."""
        lines = ["import contextlib", "import functools", "import math", "import warnings", ""]
        lines += [f"{COUNTER} = 0", "", "", "class Ops:"]
        for method, shape in (("scale", SCALAR), ("shift", (self.rows,))):
            inner = Scope({"v": Value(shape)})
            body = self.expr(inner, shape, 2)
            lines += ["    @staticmethod", f"    def {method}(v):", f"        return {body}", ""]
            owner = "ops" if self.chance(0.5) else "Ops()"
            module.names[f"{owner}.{method}"] = Function((shape,), shape)
        lines += ["", "ops = Ops()", ""]
        return lines

    def counter_lines(self) -> list[str]:
        """The first statements of `f`, now and then: `global calls` and a count."""
        if not self.chance(0.3):
            return []
        self.counting = True
        return [f"global {COUNTER}", f"{COUNTER} += 1"]

    # ---- statements
    def construct(self, scope: Scope, depth: int, result: Shape, in_loop: bool) -> list[str]:
        kinds = [
            (3.0, lambda: self.changed_list(scope, in_loop)),
            (2.5, lambda: self.changed_dict(scope)),
            (2.0, lambda: self.changed_array(scope)),
            (1.5, lambda: self.walrus(scope, depth, result, in_loop)),
            (1.0, lambda: self.annotated(scope)),
            (1.0, lambda: self.split_float(scope)),
        ]
        if depth > 0:
            kinds.append((1.2, lambda: self.context(scope, depth, result, in_loop)))
        if self.counting:
            kinds.append((0.6, lambda: self.count(scope)))
        total = sum(w for w, _ in kinds)
        r = self.rng.random() * total
        for weight, make in kinds:
            r -= weight
            if r < 0:
                return make()
        return kinds[0][1]()

    def changed_list(self, scope: Scope, in_loop: bool) -> list[str]:
        """A list made, then changed by its methods and item writes, appends among them."""
        shape: Shape = self.pick([SCALAR, SCALAR, (self.rows,)])  # type: ignore[assignment]
        name = self.fresh("xs")
        length = self.rng.randrange(2, 5)
        vectors = scope.of(lambda t: isinstance(t, Value) and len(t.shape) == 1)
        if shape == SCALAR and vectors and self.chance(0.3):
            source = str(self.pick(vectors))
            length = scope.names[source].shape[0]  # type: ignore[union-attr]
            item = self.fresh("t")
            inner = scope.copy()
            inner.names[item] = Value(SCALAR)
            lines = [f"{name} = [{self.expr(inner, SCALAR, 2)} for {item} in {source}]"]
        else:
            items = ", ".join(self.expr(scope, shape, 2) for _ in range(length))
            lines = [f"{name} = [{items}]"]
        for _ in range(self.rng.randrange(1, 4)):
            change, length = self.list_change(scope, name, shape, length)
            lines += change
        scope.names[name] = ListOf(shape, None if in_loop else length)
        return lines

    def list_change(
        self, scope: Scope, name: str, shape: Shape, length: int
    ) -> tuple[list[str], int]:
        """One change of the list `name` of `length` items of `shape`: the lines, the length."""
        e = self.expr(scope, shape, 2)
        k = self.rng.randrange(-length, length)
        forms = ["append", "insert", "extend", "reverse", "item", "item", "update", "loop"]
        if length > 1:
            forms += ["pop", "pop_at"]
        if shape == SCALAR:
            forms += ["sort", "sort"]
        form = self.pick(forms)
        if form == "append":
            return [f"{name}.append({e})"], length + 1
        if form == "insert":
            return [f"{name}.insert({self.rng.randrange(-length, length + 1)}, {e})"], length + 1
        if form == "extend":
            return [f"{name}.extend([{e}, {self.expr(scope, shape, 1)}])"], length + 2
        if form == "reverse":
            return [f"{name}.reverse()"], length
        if form == "sort":
            return [f"{name}.sort({self.pick(['', '', 'reverse=True'])})"], length
        if form == "item":
            return [f"{name}[{k}] = {e}"], length
        if form == "update":
            op = str(self.pick(["+=", "-=", "*="]))
            value = f"np.tanh({e})" if op == "*=" else e
            return [f"{name}[{k}] {op} {value}"], length
        if form == "loop":
            index = self.fresh("i")
            inner = scope.copy()
            inner.names[index] = Int(length)
            value = self.expr(inner, shape, 2)
            if self.chance(0.5):
                body = f"{name}[{index}] = {name}[{index}] * {self.constant()} + {value}"
                return [f"for {index} in range({length}):", f"    {body}"], length
            count = self.rng.randrange(1, 4)
            body = f"{name}.append({name}[-1] * {self.constant()} + {value})"
            return [f"for {index} in range({count}):", f"    {body}"], length + count
        popped = self.fresh("v")
        scope.names[popped] = Value(shape)
        at = "" if form == "pop" else str(k)
        return [f"{popped} = {name}.pop({at})"], length - 1

    def changed_dict(self, scope: Scope) -> list[str]:
        """A dict made (a display, a comprehension, `{**d, k: v}`), then changed: item writes,
        `+=`, `update`, `setdefault`, `pop`, and a loop over its keys."""
        name = self.fresh("d")
        dicts = scope.of(lambda t: isinstance(t, DictOf))
        form = self.rng.randrange(4)
        if form == 1 and dicts:
            source = str(self.pick(dicts))
            items = dict(scope.names[source].items)  # type: ignore[union-attr]
            key = str(self.pick(list(KEYS)))
            shape = items.get(key, self.any_shape())  # type: ignore[attr-defined]
            items[key] = shape
            lines = [f"{name} = {{**{source}, {key!r}: {self.expr(scope, shape, 2)}}}"]
        elif form == 2 and dicts:
            source = str(self.pick(dicts))
            items = dict(scope.names[source].items)  # type: ignore[union-attr]
            k, v = self.fresh("k"), self.fresh("s")
            value = f"{v} * {self.expr(scope, SCALAR, 1)}"
            lines = [f"{name} = {{{k}: {value} for {k}, {v} in {source}.items()}}"]
        elif form == 3:
            shape = self.any_shape()  # type: ignore[attr-defined]
            keys = KEYS[: self.rng.randrange(1, 4)]
            items = dict.fromkeys(keys, shape)
            k = self.fresh("k")
            lines = [f"{name} = {{{k}: {self.expr(scope, shape, 2)} for {k} in {keys!r}}}"]
        else:
            keys = KEYS[: self.rng.randrange(1, 4)]
            items = {key: self.any_shape() for key in keys}  # type: ignore[attr-defined]
            body = ", ".join(f"{k!r}: {self.expr(scope, s, 2)}" for k, s in items.items())
            lines = [f"{name} = {{{body}}}"]
        for _ in range(self.rng.randrange(1, 4)):
            lines += self.dict_change(scope, name, items)
        scope.names[name] = DictOf(tuple(items.items()))
        return lines

    def dict_change(self, scope: Scope, name: str, items: dict[str, Shape]) -> list[str]:
        """One change of the dict `name` whose keys have the shapes `items` (updated)."""
        key = str(self.pick(list(items)))
        new = str(self.pick([k for k in KEYS if k not in items] or [key]))
        form = self.rng.randrange(8)
        if form == 0:
            op = str(self.pick(["+=", "-=", "*="]))
            value = self.expr(scope, items[key], 2)
            return [f"{name}[{key!r}] {op} {f'np.tanh({value})' if op == '*=' else value}"]
        if form == 1:
            shape = items.get(new, self.any_shape())  # type: ignore[attr-defined]
            items[new] = shape
            return [f"{name}[{new!r}] = {self.expr(scope, shape, 2)}"]
        if form == 2:
            shape = items.get(new, self.any_shape())  # type: ignore[attr-defined]
            items[new] = shape
            value = self.expr(scope, shape, 2)
            if self.chance(0.5):
                return [f"{name}.update({{{new!r}: {value}}})"]
            return [f"{name}.update({new}={value})"]
        if form == 3:
            shape = items.get(new, self.any_shape())  # type: ignore[attr-defined]
            items[new] = shape
            call = f"{name}.setdefault({new!r}, {self.expr(scope, shape, 2)})"
            if self.chance(0.5):
                kept = self.fresh("v")
                scope.names[kept] = Value(shape)
                return [f"{kept} = {call}"]
            return [call]
        if form == 4 and len(items) > 1:
            kept = self.fresh("v")
            scope.names[kept] = Value(items.pop(key))
            return [f"{kept} = {name}.pop({key!r})"]
        if form == 5:
            k = self.fresh("k")
            op = str(self.pick(["*=", "+=", "="]))
            scale = self.expr(scope, SCALAR, 1)
            value = f"np.tanh({scale})" if op != "=" else f"np.sin({name}[{k}]) * {scale}"
            return [f"for {k} in {name}:", f"    {name}[{k}] {op} {value}"]
        value = self.expr(scope, items[key], 2)
        return [f"{name}[{key!r}] = {name}[{key!r}] * {self.constant()} + {value}"]

    def changed_array(self, scope: Scope) -> list[str]:
        """An array made, then changed: `fill`, `sort`, `np.add.at`, item writes."""
        shape: Shape = self.pick([(self.rows,), (self.cols,), (self.rows, self.cols)])  # type: ignore[assignment]
        name = self.fresh("w")
        sources = scope.of(lambda t: isinstance(t, Value) and t.shape == shape)
        made = [f"np.zeros({shape})", f"np.ones({shape})"]
        if sources:
            made += [f"{self.pick(sources)}.copy()", f"np.array({self.pick(sources)})"]
        lines = [f"{name} = {self.pick(made)}"]
        for _ in range(self.rng.randrange(1, 4)):
            form = self.rng.randrange(5)
            if form == 0:
                lines.append(f"{name}.fill({self.expr(scope, SCALAR, 2)})")
            elif form == 1 and len(shape) == 1:
                lines.append(f"{name}.sort()")
            elif form == 2:
                index = [self.rng.randrange(shape[0]) for _ in range(3)]
                value = self.expr(scope, SCALAR if self.chance(0.4) else (3, *shape[1:]), 2)
                lines.append(f"np.add.at({name}, {index}, {value})")
            elif form == 3 and len(shape) == 2:
                column = self.rng.randrange(shape[1])
                lines.append(f"{name}[:, {column}] += {self.expr(scope, (shape[0],), 2)}")
            else:
                lines += self.item_write(scope, name, shape, None)  # type: ignore[attr-defined]
        scope.names[name] = Value(shape)
        return lines

    def walrus(self, scope: Scope, depth: int, result: Shape, in_loop: bool) -> list[str]:
        """`:=` in an `if`'s test, a `while`'s test, a comprehension, an assignment."""
        bound = self.fresh("n")
        form = self.rng.randrange(4)
        if form == 0 and depth > 0:
            test = f"({bound} := {self.expr(scope, SCALAR, 2)}) > {self.constant()}"
            scope.names[bound] = Value(SCALAR)
            lines = [f"if {test}:"]
            lines += self.nested(self.block(scope.copy(), depth - 1, 1, result, in_loop))  # type: ignore[attr-defined]
            if self.chance(0.5):
                lines += ["else:"]
                lines += self.nested(self.block(scope.copy(), depth - 1, 1, result, in_loop))  # type: ignore[attr-defined]
            return lines
        if form == 1 and depth > 0:
            limit = self.rng.randrange(2, 5)
            inner = scope.copy()
            inner.names[bound] = Int(None)
            lines = [f"{bound} = 0", f"while ({bound} := {bound} + 1) < {limit}:"]
            body = self.block(inner, depth - 1, self.rng.randrange(1, 3), result, True)  # type: ignore[attr-defined]
            return lines + self.nested(body)
        name = self.fresh("a")
        vectors = scope.of(lambda t: isinstance(t, Value) and len(t.shape) == 1)
        if form == 2 and vectors:
            source = str(self.pick(vectors))
            item = self.fresh("t")
            inner = scope.copy()
            inner.names[item] = Value(SCALAR)
            value = self.expr(inner, SCALAR, 2)
            shape = scope.names[source].shape  # type: ignore[union-attr]
            scope.names[name] = Value(shape)
            return [f"{name} = np.array([({bound} := {value}) * {bound} for {item} in {source}])"]
        shape = self.any_shape()  # type: ignore[attr-defined]
        value = self.expr(scope, shape, 2)
        inner = scope.copy()
        inner.names[bound] = Value(shape)
        scope.names[name] = Value(shape)
        rest = self.expr(inner, shape, 1)
        scope.names[bound] = Value(shape)
        return [f"{name} = ({bound} := {value}) * {self.constant()} + {rest}"]

    def context(self, scope: Scope, depth: int, result: Shape, in_loop: bool) -> list[str]:
        """A `with` block of the contexts srcad takes; names it binds stay bound after it."""
        manager = self.pick(
            [
                "np.errstate(all='ignore')",
                "np.errstate(divide='ignore', invalid='ignore')",
                "np.errstate(over='ignore')",
                "warnings.catch_warnings()",
                "contextlib.nullcontext()",
            ]
        )
        body = self.block(scope, depth - 1, self.rng.randrange(1, 3), result, in_loop)  # type: ignore[attr-defined]
        return [f"with {manager}:", *self.nested(body)]

    def annotated(self, scope: Scope) -> list[str]:
        shape = self.any_shape()  # type: ignore[attr-defined]
        name = self.fresh("a")
        annotation = "float" if shape == SCALAR else self.pick(["np.ndarray", "'np.ndarray'"])
        line = f"{name}: {annotation} = {self.expr(scope, shape, 2)}"
        scope.names[name] = Value(shape)
        return [line]

    def split_float(self, scope: Scope) -> list[str]:
        """`q, r = divmod(e, c)` or `part, whole = np.modf(e)`: both parts bound."""
        shape = self.any_shape()  # type: ignore[attr-defined]
        first, second = self.fresh("p"), self.fresh("q")
        value = self.expr(scope, shape, 2)
        call = f"divmod({value}, {self.positive()})" if self.chance(0.5) else f"np.modf({value})"
        scope.names[first] = scope.names[second] = Value(shape)
        return [f"{first}, {second} = {call}"]

    def count(self, scope: Scope) -> list[str]:
        """`calls += 1`, and a value that reads whether it counted (always true)."""
        lines = [f"{COUNTER} += 1"]
        if self.chance(0.5):
            name = self.fresh("a")
            value = self.expr(scope, SCALAR, 2)
            lines.append(f"{name} = {value} if {COUNTER} > 0 else {self.constant()}")
            scope.names[name] = Value(SCALAR)
        return lines

    # ---- expressions
    def construct_productions(self, scope: Scope, shape: Shape, depth: int) -> list:  # type: ignore[type-arg]
        """Expressions of `shape`: closures passed to `map` and `functools.reduce`, `.flat`,
        the float-splitting functions."""
        e = self.expr
        out: list = []  # type: ignore[type-arg]
        arrays = scope.of(lambda t: isinstance(t, Value) and t.shape != SCALAR)

        def split() -> str:
            a = e(scope, shape, depth)
            options = [
                f"np.modf({a})[0]",
                f"np.modf({a})[1]",
                f"divmod({a}, {self.positive()})[1]",
                f"np.fmod({a}, {self.positive()})",
                f"np.copysign({a}, {e(scope, shape, depth)})",
            ]
            if shape == SCALAR:
                options += [f"math.fmod({a}, {self.positive()})", f"math.modf({a})[0]"]
            return str(self.pick(options))

        out.append((1.0, split))
        scalar_lists = scope.of(lambda t: isinstance(t, ListOf) and t.element == SCALAR)
        if shape == SCALAR and scalar_lists:

            def over_list() -> str:
                source = self.pick(scalar_lists)
                s, p = self.fresh("s"), self.fresh("p")
                inner = scope.copy()
                inner.names[s] = Value(SCALAR)
                if self.chance(0.5):
                    return f"sum(map(lambda {s}: {e(inner, SCALAR, depth)}, {source}))"
                inner.names[p] = Value(SCALAR)
                body = f"{p} * {self.constant()} + {e(inner, SCALAR, depth)}"
                return f"functools.reduce(lambda {p}, {s}: {body}, {source})"

            out.append((1.5, over_list))
        functions = scope.of(lambda t: t == Function((shape,), shape))
        lists = scope.of(lambda t: isinstance(t, ListOf) and t.element == shape)
        if functions and lists:
            out.append((1.0, lambda: f"sum(map({self.pick(functions)}, {self.pick(lists)}))"))
        if len(shape) == 1:

            def mapped() -> str:
                s = self.fresh("s")
                inner = scope.copy()
                inner.names[s] = Value(SCALAR)
                source = e(scope, shape, depth)
                return f"np.array(list(map(lambda {s}: {e(inner, SCALAR, depth)}, {source})))"

            out.append((1.0, mapped))
        if arrays and len(shape) <= 1:

            def flat() -> str:
                name = str(self.pick(arrays))
                size = 1
                for n in scope.names[name].shape:  # type: ignore[union-attr]
                    size *= n
                if shape == SCALAR:
                    if self.chance(0.3):
                        return f"sum({name}.flat)"
                    return f"{name}.flat[{self.rng.randrange(-size, size)}]"
                if size < shape[0]:
                    return e(scope, shape, depth)
                start = self.rng.randrange(size - shape[0] + 1)
                return f"{name}.flat[{start}:{start + shape[0]}]"

            out.append((1.0, flat))
        return out
