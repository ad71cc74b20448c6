"""The rule registry: rule sets built by the rule library, composed with the user's rules."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from srcad.projection import ProjectTo, conj
from srcad.tangents import NoTangent

RuleFn = Callable[..., Any]


@dataclass(frozen=True)
class Rule:
    """A reverse rule for one primal: `rrule(*args, **kwargs) -> (y, pullback)`."""

    primal: Any
    rrule: RuleFn
    origin: str  # the rule set (library module), "user", or "compiled" from source
    # For compiled rules: the pullback returns a cotangent per one of these parameters,
    # whether the call passed it by position, by keyword, or left it to its default.
    parameters: tuple[str, ...] | None = None


def _rename(fn: RuleFn, name: str) -> RuleFn:
    """Give a generated function its own name, also in tracebacks (which read the code)."""
    code = fn.__code__.replace(co_name=name)
    if sys.version_info >= (3, 11):
        code = code.replace(co_qualname=name)
    fn.__code__ = code
    fn.__name__ = fn.__qualname__ = name
    return fn


def primal_name(primal: Any) -> str:
    """The short name rules and generated code use for a primal function."""
    return str(getattr(primal, "__name__", type(primal).__name__)).strip("_<>") or "call"


class RuleSet:
    """The rules one module of the rule library defines.

    >>> import math
    >>> rules = RuleSet("example")
    >>> _ = rules.scalar(math.sinh, lambda x, y: math.cosh(x))
    >>> y, pullback = rules.rrules[math.sinh].rrule(0.0)
    >>> pullback.__name__, pullback(2.0)
    ('sinh_pullback', (NoTangent(), 2.0))
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.rrules: dict[Any, Rule] = {}
        self.non_differentiables: set[Any] = set()
        self.attribute_rrules: dict[str, Rule] = {}
        self.non_differentiable_attributes: set[str] = set()

    def _claim(self, key: Any, what: str) -> None:
        if key in self.rrules or key in self.non_differentiables:
            raise ValueError(f"rule set {self.name!r} defines {what} twice")

    def rrule(self, *primals: Any) -> Callable[[RuleFn], RuleFn]:
        """Register the decorated function as the reverse rule of each of `primals`."""

        def register(fn: RuleFn) -> RuleFn:
            for primal in primals:
                self._claim(primal, f"a rule for {primal_name(primal)}")
                self.rrules[primal] = Rule(primal, fn, self.name)
            return fn

        return register

    def attribute(self, *names: str) -> Callable[[RuleFn], RuleFn]:
        """Register the decorated function as the reverse rule of reading `.name`."""

        def register(fn: RuleFn) -> RuleFn:
            for name in names:
                if name in self.attribute_rrules:
                    raise ValueError(f"rule set {self.name!r} defines attribute .{name} twice")
                self.attribute_rrules[name] = Rule(name, fn, self.name)
            return fn

        return register

    def non_differentiable(self, *primals: Any) -> None:
        """Mark functions whose result does not depend differentiably on their arguments."""
        for primal in primals:
            self._claim(primal, f"{primal_name(primal)} as non-differentiable")
            self.non_differentiables.add(primal)

    def non_differentiable_attribute(self, *names: str) -> None:
        """Mark attributes (`.shape`, `.dtype`, ...) that carry no derivative."""
        self.non_differentiable_attributes.update(names)

    def scalar(self, primal: Any, *partials: Callable[..., Any], name: str = "") -> RuleFn:
        """Register an elementwise rule from the partial derivatives of `primal`.

        Each partial takes the arguments and then the result (like ChainRules' `Ω`); the
        pullback scales the incoming cotangent by the conjugate of each partial and
        projects it onto its argument, undoing broadcasting.
        """
        rrule = scalar_rrule(primal, *partials, name=name)
        self.rrule(primal)(rrule)
        return rrule


def scalar_rrule(primal: Any, *partials: Callable[..., Any], name: str = "") -> RuleFn:
    """Build a named reverse rule from partial derivatives; see `RuleSet.scalar`."""
    name = name or primal_name(primal)
    if len(partials) == 1:
        (d_x,) = partials

        def rrule1(x: Any) -> tuple[Any, RuleFn]:
            y = primal(x)
            project_x = ProjectTo(x)

            def pullback(y_bar: Any) -> tuple[Any, Any]:
                return NoTangent(), project_x(y_bar * conj(d_x(x, y)))

            _rename(pullback, f"{name}_pullback")
            return y, pullback

        return _rename(rrule1, f"{name}_rrule")
    if len(partials) == 2:
        d_a, d_b = partials

        def rrule2(a: Any, b: Any) -> tuple[Any, RuleFn]:
            y = primal(a, b)
            project_a = ProjectTo(a)
            project_b = ProjectTo(b)

            def pullback(y_bar: Any) -> tuple[Any, Any, Any]:
                return (
                    NoTangent(),
                    project_a(y_bar * conj(d_a(a, b, y))),
                    project_b(y_bar * conj(d_b(a, b, y))),
                )

            _rename(pullback, f"{name}_pullback")
            return y, pullback

        return _rename(rrule2, f"{name}_rrule")
    raise ValueError(f"scalar rules take one or two partials, not {len(partials)}")


class Registry:
    """The live table consulted by the compiler: library rule sets, then user rules.

    `version` grows with every change, so compiled code can be cached against it.
    """

    def __init__(self) -> None:
        self.version = 0
        self._rrules: dict[Any, Rule] = {}
        self._non_differentiables: set[Any] = set()
        self._attribute_rrules: dict[str, Rule] = {}
        self._non_differentiable_attributes: set[str] = set()

    def install(self, rule_sets: Iterable[RuleSet]) -> None:
        """Compose library rule sets in order; a primal defined twice names both modules."""
        for rules in rule_sets:
            for key, rule in rules.rrules.items():
                self._check_fresh(key, rules.name)
                self._rrules[key] = rule
            for key in rules.non_differentiables:
                self._check_fresh(key, rules.name)
                self._non_differentiables.add(key)
            for attr, rule in rules.attribute_rrules.items():
                if attr in self._attribute_rrules:
                    other = self._attribute_rrules[attr].origin
                    raise ValueError(f"attribute .{attr} has rules in {other} and {rules.name}")
                self._attribute_rrules[attr] = rule
            self._non_differentiable_attributes |= rules.non_differentiable_attributes
        self.version += 1

    def _check_fresh(self, key: Any, origin: str) -> None:
        if key in self._rrules:
            other = self._rrules[key].origin
        elif key in self._non_differentiables:
            other = "a non-differentiable table"
        else:
            return
        raise ValueError(f"{primal_name(key)} has rules in both {other} and {origin}")

    def register_rrule(self, primal: Any, fn: RuleFn) -> None:
        """A user's rule: replaces any library rule for `primal`."""
        self._non_differentiables.discard(primal)
        self._rrules[primal] = Rule(primal, fn, "user")
        self.version += 1

    def register_non_differentiable(self, *primals: Any) -> None:
        for primal in primals:
            self._rrules.pop(primal, None)
            self._non_differentiables.add(primal)
        self.version += 1

    def rrule_for(self, primal: Any) -> Rule | None:
        try:
            return self._rrules.get(primal)
        except TypeError:  # unhashable callables have no rules
            return None

    def is_non_differentiable(self, primal: Any) -> bool:
        try:
            return primal in self._non_differentiables
        except TypeError:
            return False

    def attribute_rrule(self, name: str) -> Rule | None:
        return self._attribute_rrules.get(name)

    def is_non_differentiable_attribute(self, name: str) -> bool:
        return name in self._non_differentiable_attributes

    def rules(self) -> list[Rule]:
        """Every registered rule, for registry-wide checks and the supported-functions table."""
        return [*self._rrules.values(), *self._attribute_rrules.values()]


REGISTRY = Registry()
