"""Guards: the facts compiled code relies on that can change after it is compiled, each
checked on entry by one generated function.

srcad resolves a callee when it compiles: `helper(x)` becomes a call of the rule srcad
built for the object `helper` named then, and `np.sum(x)` a call of `np.sum`'s rule. The
primal reads those names when it runs, so a name rebound since (`M.helper = other`, a
notebook cell defining `helper` again, `np.sum` monkeypatched, a closure cell set to
another function, `%autoreload` replacing a function's `__code__`) would leave the
gradient differentiating the old callee. Each such resolution is a `Fact`: reading
`holder` (a namespace, a closure cell, an object's attribute) gives `expected` (the very
object). A compiled rule keeps the facts it relies on, those of the rules it calls
included, and is never used unless they all hold; when one fails, srcad compiles again.

Values the emitted code reads live (a global `SCALE` holding an object) need no fact: the
code reads the value it is called with, as the primal does; but an array, list, tuple or
dict of no kind read so has its type checked, since one of a class that computes its own
way (a masked array, `srcad.foreign`) is refused when compiling. A module constant that code is
specialised on (a float, an int, a tuple of floats, an array: `constant_kinds.constant_kind`) is
read once on entry and has a fact: its type for a number, so that `TOLERANCE = 1e-10` needs
no new compilation, its identity for a tuple, and for an array its identity, its dtype and
its number of dimensions (which change in place). A container of parameters (a list or dict
of floats and arrays, a NamedTuple: `FunctionSource.constant_structure`) has
its structure checked, item by item, on every entry, as `grad`'s entry checks an argument's.

The check is generated Python, one identity test per fact (an equality test for a bound
method, which Python makes anew on each read: `np.add.reduce`), so that a guard costs a few
nanoseconds (`grad`'s entry function calls it before the gradient function):

    def guards_hold():
        try:
            return h0['helper'] is e0 and e0.__code__ is e1 and type(h0['TOLERANCE']) is e2
        except Exception:  # a name deleted, an attribute gone, a cell emptied
            return False

A structure's test reads the container once, into a local, and an item that is missing
raises: `type(v0 := h0['RATES']) is e3 and len(v0) == 2 and type(v0['decay']) is float
and type(v0['drive']) is float`.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


@dataclass(frozen=True, eq=False)
class Fact:
    """Reading `holder` gives the object `expected`: `holder[key]` for a namespace
    (`"item"`, `MISSING` where the name must be absent), `holder.cell_contents` for a
    closure cell (`"cell"`), `getattr(holder, key)` for an attribute (`"attribute"`).

    `of_type`: reading it gives an object whose type is exactly `expected` (a module
    constant `TOLERANCE` that code is specialised on as a float, `constant_kinds.constant_kind`,
    and which may be rebound to another float without compiling again).

    `of_structure`: reading it gives a container whose structure (`srcad.kinds.Structure`,
    what `argument_kind` gives) is `expected`: a module-level dict or list of parameters,
    which may change in place (`PARAMS["a"] = 2.0` keeps it; `PARAMS["a"] = "x"` does not),
    so the check reads its items' kinds on every entry, as `grad`'s entry reads an
    argument's."""

    kind: str
    holder: Any
    key: str
    expected: Any
    of_type: bool = False
    of_structure: bool = False

    @property
    def identity(self) -> tuple[str, int, str, bool, bool]:
        """What two facts about the same place share (the holder is kept alive by both)."""
        return (self.kind, id(self.holder), self.key, self.of_type, self.of_structure)

    def describe(self) -> str:
        where = {"item": f"[{self.key!r}]", "cell": ".cell_contents", "attribute": f".{self.key}"}
        read = f"{type(self.holder).__name__}{where[self.kind]}"
        if self.of_type:
            return f"type({read}) is {self.expected.__name__}"
        if self.of_structure:
            return f"the structure of {read} is {self.expected.describe()}"
        return f"{read} is {self.expected!r}"

    def by_type(self) -> Fact:
        """The same place, checked for the type of what it holds now, not its identity."""
        return Fact(self.kind, self.holder, self.key, type(self.expected), of_type=True)

    def by_structure(self, structure: Any) -> Fact:
        """The same place, checked for the structure of what it holds now."""
        return Fact(self.kind, self.holder, self.key, structure, of_structure=True)


def _always() -> bool:
    return True


class Guards:
    """A set of facts and the generated function `hold()` checking them all."""

    __slots__ = ("facts", "hold")

    def __init__(self, facts: Iterable[Fact] = ()) -> None:
        unique: dict[tuple[str, int, str, bool, bool], Fact] = {}
        for fact in facts:
            unique.setdefault(fact.identity, fact)
        self.facts: tuple[Fact, ...] = tuple(unique.values())
        self.hold: Callable[[], bool] = _checker(self.facts) if self.facts else _always

    def __bool__(self) -> bool:
        return bool(self.facts)

    @staticmethod
    def union(*groups: Guards) -> Guards:
        return Guards(fact for group in groups for fact in group.facts)

    def without(self, holder: Any, keys: Iterable[str]) -> Guards:
        """These guards less the facts about attributes `keys` of `holder`."""
        left_out = set(keys)
        return Guards(
            fact
            for fact in self.facts
            if not (fact.holder is holder and fact.kind == "attribute" and fact.key in left_out)
        )

    def failing(self) -> list[Fact]:
        """The facts that no longer hold (for messages and tests)."""
        return [fact for fact in self.facts if not _holds(fact)]


def _holds(fact: Fact) -> bool:
    try:
        if fact.kind == "item":
            found = fact.holder.get(fact.key, MISSING)
        elif fact.kind == "cell":
            found = fact.holder.cell_contents
        else:
            found = getattr(fact.holder, fact.key, MISSING)
    except Exception:
        return False
    if fact.of_structure:
        return bool(fact.expected.holds(found))
    if _made_on_reading(fact.expected):
        return bool(found == fact.expected)
    return (type(found) if fact.of_type else found) is fact.expected


def _made_on_reading(value: Any) -> bool:
    """Whether `value` is a bound method, which Python makes anew on each read of the
    attribute (`np.add.reduce is np.add.reduce` is false): a guard compares it with `==`,
    true where it binds the same function to the same object."""
    if isinstance(value, types.MethodType):
        return True
    owner = getattr(value, "__self__", None)
    return isinstance(value, types.BuiltinMethodType) and not (
        owner is None or isinstance(owner, types.ModuleType)
    )


def _checker(facts: tuple[Fact, ...]) -> Callable[[], bool]:
    """`guards_hold()`: one expression of identity tests, the holders and expected objects
    read as globals of its own namespace (the fastest names Python reads)."""
    namespace: dict[str, Any] = {}
    text = (
        "def guards_hold():\n"
        "    try:\n"
        f"        return {facts_expression(facts, namespace)}\n"
        "    except Exception:\n"
        "        return False\n"
    )
    exec(compile(text, "<srcad guards>", "exec"), namespace)
    checker: Callable[[], bool] = namespace.pop("guards_hold")
    return checker


def facts_expression(facts: tuple[Fact, ...], namespace: dict[str, Any], prefix: str = "") -> str:
    """The expression that is true where all of `facts` hold (`True` for none), reading
    the holders and expected objects by the names it adds to `namespace` (each starting
    with `prefix`). Reading a name deleted or an attribute gone raises: the code that
    evaluates it takes an exception for a fact that fails (`guards_hold`, the `jvp`
    entry, `srcad.forward_entry`)."""
    missing = f"{prefix}MISSING"
    namespace[missing] = MISSING
    names: dict[int, str] = {}  # an object's id: its name, so a chain reads `e0.sum`
    locals_: list[str] = []  # the local names a structure's test binds (`v0 := ...`)

    def name_of(value: Any, kind: str) -> str:
        found = names.get(id(value))
        if found is None:
            found = names[id(value)] = f"{prefix}{kind}{len(names)}"
            namespace[found] = value
        return found

    def local() -> str:
        locals_.append(f"{prefix}v{len(locals_)}")
        return locals_[-1]

    tests = []
    for fact in facts:
        holder = name_of(fact.holder, "h")
        if fact.kind == "item":
            if fact.expected is MISSING:
                tests.append(f"{fact.key!r} not in {holder}")
                continue
            read = f"{holder}[{fact.key!r}]"
        elif fact.kind == "cell":
            read = f"{holder}.cell_contents"
        elif fact.key.isidentifier():
            read = f"{holder}.{fact.key}"
        else:
            read = f"getattr({holder}, {fact.key!r})"
        expected = missing if fact.expected is MISSING else name_of(fact.expected, "e")
        if fact.of_structure:
            tests.append(fact.expected.test(read, name_of, local))  # a `srcad.kinds.Structure`
        else:
            same = "==" if _made_on_reading(fact.expected) else "is"
            test = f"type({read}) is {expected}" if fact.of_type else f"{read} {same} {expected}"
            tests.append(test)
    return " and ".join(tests) or "True"


def name_facts(
    path: list[str],
    closure: dict[str, Any],
    globals_: dict[str, Any],
    fixed: frozenset[str] = frozenset(),
) -> tuple[list[Fact], str, Any]:
    """The facts of resolving the dotted name `path` (`np.linalg.norm`) from a function's
    closure cells, globals and builtins, where it lives ("closure", "global", "builtin",
    "undefined") and the object it names now (`MISSING` where it names none). A cell
    named in `fixed` is srcad's own (a class or module it made once, `FunctionSource.made`),
    which nothing else can rebind: no fact of it, but of the attributes read through it."""
    root = path[0]
    facts: list[Fact] = []
    if root in closure:
        cell = closure[root]
        try:
            value = cell.cell_contents
        except ValueError:
            return [Fact("cell", cell, "", MISSING)], "undefined", MISSING
        if root not in fixed:
            facts.append(Fact("cell", cell, "", value))
        where = "closure"
    elif root in globals_:
        value = globals_[root]
        facts.append(Fact("item", globals_, root, value))
        where = "global"
    else:
        namespace = globals_.get("__builtins__", builtins)
        if not isinstance(namespace, dict):
            namespace = vars(namespace)
        value = namespace.get(root, MISSING)
        facts += [Fact("item", globals_, root, MISSING), Fact("item", namespace, root, value)]
        where = "undefined" if value is MISSING else "builtin"
    for attr in path[1:]:
        if value is MISSING:
            break
        holder, value = value, getattr(value, attr, MISSING)
        facts.append(Fact("attribute", holder, attr, value))
    if value is MISSING:
        where = "undefined"
    return facts, where, value


def function_facts(func: Any) -> list[Fact]:
    """What a compiled rule of the Python function `func` relies on about `func` itself:
    its code (which `%autoreload` replaces in place) and its default values (which the
    compiled function copies)."""
    return [
        Fact("attribute", func, "__code__", func.__code__),
        Fact("attribute", func, "__defaults__", func.__defaults__),
        Fact("attribute", func, "__kwdefaults__", func.__kwdefaults__),
    ]
