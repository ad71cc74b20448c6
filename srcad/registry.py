"""The rule registry: rule sets built by the rule library, composed with the user's rules."""

from __future__ import annotations

import enum
import inspect
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from srcad.fitting import check_frule_tangent, check_rrule_cotangents
from srcad.kinds import ResultKind
from srcad.machinery import Machinery
from srcad.positions import ByPosition
from srcad.scalar_rules import RuleFn as RuleFn
from srcad.scalar_rules import named as named
from srcad.scalar_rules import primal_name as primal_name
from srcad.scalar_rules import scalar_frule as scalar_frule
from srcad.scalar_rules import scalar_rrule as scalar_rrule
from srcad.templates import Choose as Choose
from srcad.templates import Inline as Inline


@dataclass(frozen=True)
class Rule:
    """A reverse rule for one primal: `rrule(*args, **kwargs) -> (y, pullback)`."""

    primal: Any
    rrule: RuleFn
    origin: Origin
    # Compiled rules, and library rules that differentiate arguments passed by name
    # (`odeint(..., args=(p,))`): the pullback gives a cotangent per parameter here,
    # passed or not.
    parameters: tuple[str, ...] | None = None
    rule_set: str = ""  # a library rule's: the name of its rule set (`provenance`)


class Linearity(enum.Enum):
    """How a primitive depends on its differentiated arguments, where that gives its
    forward rule's reverse rule (`rules/second_order.py`): `LINEAR`, `y_dot = f(x_dot)`
    (the first argument; the rest are options); `BILINEAR`, `y_dot = f(a_dot, b) +
    f(a, b_dot)` (the first two); `MULTILINEAR`, linear in each argument with the others
    fixed, `y_dot` the sum of `f` with one argument replaced by its tangent (`np.einsum`);
    `PIECEWISE_LINEAR`, `y_dot` a linear map of the argument tangents whose coefficients
    do not vary with the arguments, or only by jumps (a selection, a sign: `np.where`,
    `np.maximum`, `np.concatenate`), so that its reverse rule's pullback is that map's
    adjoint, and the map has no derivative with respect to the arguments (the jumps are
    kinks, where the second derivative is taken as 0); `LINEAR_IN_ALL`, `y` and `y_dot`
    the same linear map, with no pieces, of every argument and of every argument's
    tangent (the rest: ints, keys, no tangent): building, reading and copying containers
    (`make_tuple`, `unpack`, `list`), which move values whole, complex ones too."""

    LINEAR = "linear"
    BILINEAR = "bilinear"
    MULTILINEAR = "multilinear"
    PIECEWISE_LINEAR = "piecewise linear"
    LINEAR_IN_ALL = "linear in every argument"


@dataclass(frozen=True)
class Primitive:
    """What srcad knows about one primitive function besides its rules, from the one entry
    that registers it (`RuleSet.primitive`): the kind of its result, how its derivative is
    inlined, and its linearity. Passes ask the registry for these (`Registry.primitive`)
    and keep no tables of their own.

    `definition`, for a function that is none of the `Linearity` kinds: a plain Python
    function taking the same arguments and computing the same values from functions srcad
    differentiates to any order; its second derivatives are those of the definition (the
    reverse rule of the forward rule srcad compiles for it, `rules/second_order.py`). A
    piecewise linear one may have one too, for its complex arguments (`abs`: `np.hypot` of
    the parts), over which it is not piecewise linear."""

    function: Any
    result: ResultKind | None = None
    inline: Inline | None = None
    linearity: Linearity | None = None
    definition: Callable[..., Any] | None = None

    @property
    def elementwise(self) -> bool:
        """Whether it acts on each element alone (see `ResultKind.elementwise`)."""
        return self.result is not None and self.result.elementwise


class RuleSet(Machinery):
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
        self.frules: dict[Any, Rule] = {}
        self.non_differentiables: set[Any] = set()
        self.attribute_rrules: dict[str, Rule] = {}
        self.attribute_frules: dict[str, Rule] = {}
        self.non_differentiable_attributes: set[str] = set()
        self.primitives: dict[Any, Primitive] = {}
        self.by_position: dict[Any, ByPosition] = {}
        self.arrangers: list[Callable[[Any], ByPosition | None]] = []

    def _claim(self, key: Any, what: str) -> None:
        if key in self.rrules or key in self.non_differentiables:
            raise ValueError(f"rule set {self.name!r} defines {what} twice")

    def rrule(
        self, *primals: Any, parameters: tuple[str, ...] | None = None
    ) -> Callable[[RuleFn], RuleFn]:
        """Register the decorated function as the reverse rule of each of `primals`. With
        `parameters`, its pullback gives a cotangent per parameter named, passed by
        position or by name (`Rule.parameters`), as a compiled rule's does."""

        def register(fn: RuleFn) -> RuleFn:
            for primal in primals:
                self._claim(primal, f"a rule for {primal_name(primal)}")
                self.rrules[primal] = Rule(
                    primal, fn, Origin.LIBRARY, parameters, rule_set=self.name
                )
            return fn

        return register

    def frule(
        self, *primals: Any, parameters: tuple[str, ...] | None = None
    ) -> Callable[[RuleFn], RuleFn]:
        """Register the decorated function as the forward rule of each of `primals`:
        `frule((f_dot, *arg_dots), *args) -> (y, y_dot)` (with `parameters`, an argument
        tangent per parameter named, passed by position or by name)."""

        def register(fn: RuleFn) -> RuleFn:
            for primal in primals:
                if primal in self.frules:
                    raise ValueError(
                        f"rule set {self.name!r} defines two forward rules for "
                        f"{primal_name(primal)}"
                    )
                self.frules[primal] = Rule(
                    primal, fn, Origin.LIBRARY, parameters, rule_set=self.name
                )
            return fn

        return register

    def attribute(self, *names: str) -> Callable[[RuleFn], RuleFn]:
        """Register the decorated function as the reverse rule of reading `.name`."""

        def register(fn: RuleFn) -> RuleFn:
            for name in names:
                if name in self.attribute_rrules:
                    raise ValueError(f"rule set {self.name!r} defines attribute .{name} twice")
                self.attribute_rrules[name] = Rule(name, fn, Origin.LIBRARY, rule_set=self.name)
            return fn

        return register

    def attribute_frule(self, *names: str) -> Callable[[RuleFn], RuleFn]:
        """Register the decorated function as the forward rule of reading `.name`:
        `rule((f_dot, x_dot), x) -> (y, y_dot)`."""

        def register(fn: RuleFn) -> RuleFn:
            for name in names:
                if name in self.attribute_frules:
                    raise ValueError(f"rule set {self.name!r} defines attribute .{name} twice")
                self.attribute_frules[name] = Rule(name, fn, Origin.LIBRARY, rule_set=self.name)
            return fn

        return register

    def keywords_by_position(self, function: Any, *differentiated: str, **options: Any) -> None:
        """Declare the keyword parameters of `function` that its rules differentiate when
        passed by position, so that a call passing them by keyword is arranged to pass
        them by position (`ByPosition.of`, which takes the `options`)."""
        if function in self.by_position:
            raise ValueError(f"rule set {self.name!r} declares {primal_name(function)} twice")
        self.by_position[function] = ByPosition.of(function, *differentiated, **options)

    def keywords_by_position_of(self, arranger: Callable[[Any], ByPosition | None]) -> None:
        """As `keywords_by_position`, for callables no table lists: `arranger(callee)` is
        the `ByPosition` of each it knows (a `scipy.stats` distribution's method, whose
        parameters the distribution's shapes name), None for the others."""
        self.arrangers.append(arranger)

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
        projects it onto its argument, undoing broadcasting. A zero cotangent (tangent)
        stays zero where the partial is infinite (`srcad.partials.strong_product`)."""
        rrule = scalar_rrule(primal, *partials, name=name)
        self.rrule(primal)(rrule)
        self.frule(primal)(scalar_frule(primal, *partials, name=name))
        return rrule

    def primitive(
        self,
        function: Any,
        *partials: Callable[..., Any],
        rrule: RuleFn | None = None,
        frule: RuleFn | None = None,
        result: ResultKind | None = None,
        inline: Inline | None = None,
        linearity: Linearity | None = None,
        definition: Callable[..., Any] | None = None,
    ) -> Primitive:
        """Register everything srcad knows about `function`, in one entry: its rules and
        its facts (`Primitive`). The rules come from its `partials` as `scalar` builds them,
        or are the given `rrule` and `frule`; with neither, they are the rules this set
        already registered for it (a decorated rule above the entry), or it has none (a
        non-differentiable function, whose entry gives its result kind).

        >>> import numpy as np
        >>> from srcad.kinds import FLOAT_ELEMENTWISE
        >>> rules = RuleSet("example")
        >>> fact = rules.primitive(
        ...     np.fabs,
        ...     lambda x, y: np.sign(x),
        ...     result=FLOAT_ELEMENTWISE,
        ...     inline=Inline("y_bar * sign(a)", sign=np.sign),
        ... )
        >>> y, pullback = rules.rrules[np.fabs].rrule(-2.0)
        >>> y_again, y_dot = rules.frules[np.fabs].rrule((None, 0.5), -2.0)
        >>> float(y), pullback(3.0), float(y_dot)
        (2.0, (NoTangent(), -3.0), -0.5)
        >>> fact.result([("f4", 1)]), fact.elementwise
        (('f4', 1), True)
        """
        if function in self.primitives:
            raise ValueError(f"rule set {self.name!r} has two entries for {primal_name(function)}")
        if definition is not None and definition.__code__.co_flags & inspect.CO_VARARGS:
            # Second derivatives differentiate a definition's named parameters only.
            raise ValueError(f"the definition of {primal_name(function)} takes *args")
        if partials:
            self.scalar(function, *partials)
        if rrule is not None:
            self.rrule(function)(rrule)
        if frule is not None:
            self.frule(function)(frule)
        fact = Primitive(function, result, inline, linearity, definition)
        self.primitives[function] = fact
        return fact

    def holomorphic(self, *functions: Any) -> None:
        """State that each of `functions`, registered above with fixed inline templates, is
        holomorphic: its complex operands are inlined by those conjugated
        (`Inline.holomorphic`), and forward mode reads them as they are."""
        for function in functions:
            fact = self.primitives[function]
            assert fact.inline is not None, f"{primal_name(function)} has no inline derivative"
            self.primitives[function] = replace(fact, inline=fact.inline.holomorphic())


class Origin(enum.Enum):
    """Where a rule comes from."""

    LIBRARY = "library"  # a rule set of `rules/` (`Rule.rule_set` names it)
    USER = "user"  # registered by the user (`@srcad.rrule.register`, `scalar_rule`)
    COMPILED = "compiled"  # generated by srcad from the callee's source
    LOCAL = "local"  # a function nested in the one compiled, generated with it
    ENTRY = "entry"  # a derivative srcad returned: its form's rules (`srcad.entry_rules`)


def provenance(rule: Rule) -> str:
    """Where `rule` comes from, as messages say it: its rule set, or its origin."""
    return rule.rule_set or rule.origin.value


class AD(Protocol):
    """What a rule of a higher-order function calls back into: the compiler
    (`srcad.compiler.Compiler`), which the registry never imports (the compiler sits above
    it and hands itself to its `RuleConfig`)."""

    has_forward_mode: bool

    def rrule(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Any]: ...

    def frule(
        self, dargs: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]: ...

    def forward_rule(
        self, f: Callable[..., Any], args: tuple[Any, ...], wrt: tuple[str, ...] | None = None
    ) -> Callable[..., Any]: ...


class RuleConfig(Machinery):
    """What the AD system calling a rule can do, for rules of higher-order functions
    (ChainRules' `RuleConfig`): such a rule, registered with `config=True`, gets this as its
    first argument and calls back into srcad through `rrule_via_ad` / `frule_via_ad`.

    It calls the compiler it was given (`ad`); the compiler that owns it gives itself when
    it is made (`Compiler.__init__`)."""

    has_reverse_mode = True

    def __init__(self, ad: AD | None = None) -> None:
        self.ad = ad

    def _compiler(self) -> AD:
        if self.ad is None:
            raise RuntimeError("this RuleConfig belongs to no compiler yet")
        return self.ad

    @property
    def has_forward_mode(self) -> bool:
        return self._compiler().has_forward_mode

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """`(y, pullback)` for `f`: its registered rule, else the rule srcad compiles."""
        return self._compiler().rrule(f, *args, **kwargs)

    def frule_via_ad(
        self, dargs: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """`(y, y_dot)` for `f`: its registered forward rule, else srcad's forward mode."""
        return self._compiler().frule(dargs, f, *args, **kwargs)

    def forward_rule(
        self, f: Callable[..., Any], args: tuple[Any, ...], wrt: tuple[str, ...] | None = None
    ) -> Callable[..., Any]:
        """The forward rule srcad generates from the source of the Python function `f`, for
        arguments like `args`, with respect to the parameters `wrt` (None: every one it
        can): a function `(dargs, *args) -> (y, y_dot)` that srcad differentiates in turn
        (its reverse rule: second derivatives)."""
        return self._compiler().forward_rule(f, args, wrt)


# The default compiler's rule configuration and registry (`srcad.defaults.COMPILER`): made
# here, empty and unbound, so that the rule library can name them; the default compiler
# fills the registry with the library's rule sets and binds the configuration to itself.
CONFIG = RuleConfig()


def with_config(fn: RuleFn) -> RuleFn:
    """A rule that receives `CONFIG` first, as a rule called without it."""

    def configured(*args: Any, **kwargs: Any) -> Any:
        return fn(CONFIG, *args, **kwargs)

    configured.configured_rule = fn  # type: ignore[attr-defined]
    return named(configured, getattr(fn, "__name__", "rule"))


def checked_user_rrule(rule: RuleFn, instance_call: bool = False) -> RuleFn:
    """A user's reverse rule, as the registry holds it: its pullback's cotangents are
    checked against the arguments (one per positional argument, each of a shape that
    projects onto it) and projected by `ProjectTo`, or refused with a `TangentShapeError`
    naming the rule and the argument. The library's rules are not wrapped: their tests
    prove their shapes, and they pay nothing; every path to a user's rule (compiled code,
    `grad`'s entry, `srcad.rrule`) reads it from the registry, so none skips the check."""

    def user_rrule(*args: Any, **kwargs: Any) -> Any:
        y, pullback = rule(*args, **kwargs)

        def user_pullback(y_bar: Any) -> tuple[Any, ...]:
            return check_rrule_cotangents(rule, args, pullback(y_bar), instance_call)

        user_pullback.__name__ = getattr(pullback, "__name__", "pullback")
        user_pullback.__qualname__ = getattr(pullback, "__qualname__", "pullback")
        return y, user_pullback

    user_rrule.user_rule = rule  # type: ignore[attr-defined]
    return _named_like(user_rrule, rule)


def checked_user_frule(rule: RuleFn) -> RuleFn:
    """A user's forward rule, as the registry holds it: the tangent it returns must have
    its result's shape (see `checked_user_rrule`)."""

    def user_frule(dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
        y, y_dot = rule(dargs, *args, **kwargs)
        check_frule_tangent(rule, y, y_dot)
        return y, y_dot

    user_frule.user_rule = rule  # type: ignore[attr-defined]
    return _named_like(user_frule, rule)


def checked_user_frule_rrule(rule: RuleFn) -> RuleFn:
    """The reverse rule of a user's checked forward rule, for second derivatives (reverse
    mode over forward mode differentiates the forward rule): the rule srcad compiles from
    the user's source, with the tangent checked as `checked_user_frule` checks it."""

    def user_frule_rrule(dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
        result, pullback = CONFIG.rrule_via_ad(rule, dargs, *args, **kwargs)
        check_frule_tangent(rule, *result)

        def user_frule_pullback(bars: Any) -> Any:
            return pullback(bars)

        return result, user_frule_pullback

    return named(user_frule_rrule, f"{getattr(rule, '__name__', 'frule')}_rrule")


def _named_like(wrapper: RuleFn, rule: RuleFn) -> RuleFn:
    """`wrapper` under the name of the rule it wraps (emitted code and messages use it)."""
    name = getattr(rule, "__name__", None)
    return named(wrapper, name) if isinstance(name, str) and name.isidentifier() else wrapper


@dataclass(frozen=True)
class DeferredRuleSet:
    """The rules for a library srcad does not import itself (SciPy, an optional
    dependency): `rules_module` (a module of the rule library, which imports the library)
    defines them as `rules`, installed the first time the registry is consulted after the
    user has imported `module`. A function of it reaches srcad only through code that
    imported it, so its rules are there when asked for, and importing srcad does not import
    the library (SciPy's statistics take seconds). The module may also refuse functions by
    name, `REFUSED = {function: reason}`: srcad then never reads their source, and a call
    of one with a differentiated argument is refused at the caller's line, with the reason
    (SciPy's adaptive quadrature, whose rule is not written)."""

    module: str
    rules_module: str

    def load(self) -> tuple[RuleSet, dict[Any, str]]:
        """Its rule set and refusals, importing the rule module (and so the library)."""
        loaded = __import__(self.rules_module, fromlist=["rules"])
        return loaded.rules, getattr(loaded, "REFUSED", {})


class Registry(Machinery):
    """The live table consulted by the compiler: library rule sets, then user rules.
    `version` grows with every change, so compiled code can be cached against it."""

    def __init__(self) -> None:
        self.version = 0
        self._rrules: dict[Any, Rule] = {}
        self._frules: dict[Any, Rule] = {}
        self._non_differentiables: set[Any] = set()
        self._attribute_rrules: dict[str, Rule] = {}
        self._attribute_frules: dict[str, Rule] = {}
        self._non_differentiable_attributes: set[str] = set()
        self._opt_outs: dict[Any, list[Callable[..., bool]]] = {}
        self._primitives: dict[Any, Primitive] = {}
        self._by_position: dict[Any, ByPosition] = {}
        self._arrangers: list[Callable[[Any], ByPosition | None]] = []
        self._refusals: dict[Any, tuple[str, str]] = {}  # primal: (reason, rule set)
        self._deferred: tuple[DeferredRuleSet, ...] = ()

    def install(self, rule_sets: Iterable[RuleSet]) -> None:
        """Compose library rule sets in order; a primal defined twice names both modules."""
        for rules in rule_sets:
            for key, rule in rules.rrules.items():
                self._check_fresh(key, rules.name)
                self._rrules[key] = rule
            for key in rules.non_differentiables:
                self._check_fresh(key, rules.name)
                self._non_differentiables.add(key)
            for key, rule in rules.frules.items():
                if key in self._frules:
                    other = provenance(self._frules[key])
                    raise ValueError(
                        f"{primal_name(key)} has forward rules in both {other} and {rules.name}"
                    )
                self._frules[key] = rule
            for attr, rule in rules.attribute_rrules.items():
                if attr in self._attribute_rrules:
                    other = provenance(self._attribute_rrules[attr])
                    raise ValueError(f"attribute .{attr} has rules in {other} and {rules.name}")
                self._attribute_rrules[attr] = rule
            for attr, rule in rules.attribute_frules.items():
                self._attribute_frules[attr] = rule
            self._non_differentiable_attributes |= rules.non_differentiable_attributes
            for key, fact in rules.primitives.items():
                if key in self._primitives:
                    raise ValueError(f"{primal_name(key)} has two entries, one in {rules.name}")
                self._primitives[key] = fact
            for key, arrangement in rules.by_position.items():
                if key in self._by_position:
                    raise ValueError(f"{primal_name(key)} is declared by position twice")
                self._by_position[key] = arrangement
            self._arrangers += rules.arrangers
        self.version += 1

    def defer(self, *deferred: DeferredRuleSet) -> None:
        """Rule sets to install once their library is imported (`DeferredRuleSet`)."""
        self._deferred += deferred
        self._install_imported()

    def install_deferred(self) -> None:
        """Install every deferred rule set now, importing its library (for the table of
        supported functions)."""
        for deferred in self._deferred:
            __import__(deferred.module)
        self._install_imported()

    def _install_imported(self) -> None:
        """Install the deferred rule sets whose library the user has imported. Every method
        that reads or changes the rules calls this first, so that a library rule is in place
        before any lookup of its function and before a user rule that replaces it."""
        if not self._deferred or not any(d.module in sys.modules for d in self._deferred):
            return
        ready = tuple(d for d in self._deferred if d.module in sys.modules)
        self._deferred = tuple(d for d in self._deferred if d not in ready)
        for deferred in ready:
            rules, refused = deferred.load()
            self._refusals.update({f: (why, rules.name) for f, why in refused.items()})
            self.install([rules])

    def _check_fresh(self, key: Any, origin: str) -> None:
        if key in self._rrules:
            other = provenance(self._rrules[key])
        elif key in self._non_differentiables:
            other = "a non-differentiable table"
        else:
            return
        raise ValueError(f"{primal_name(key)} has rules in both {other} and {origin}")

    def register_rrule(
        self, primal: Any, fn: RuleFn, config: bool = False, projected: bool = False
    ) -> None:
        """A user's rule: replaces any library rule for `primal`. Its pullback's cotangents
        are checked and projected wherever it is called (see `checked_user_rrule`), unless
        srcad built it and it projects them itself (`projected`, as `scalar_rule`'s do)."""
        self._install_imported()
        self._non_differentiables.discard(primal)
        rule = with_config(fn) if config else fn
        if not projected:
            # A rule for calling instances (a class's `__call__`) takes the instance first
            # and returns its cotangent in the function's place.
            rule = checked_user_rrule(rule, getattr(primal, "__name__", None) == "__call__")
        self._rrules[primal] = Rule(primal, rule, Origin.USER)
        self.version += 1

    def register_frule(self, primal: Any, fn: RuleFn, config: bool = False) -> None:
        """A user's forward rule: replaces any library forward rule for `primal`. Its
        tangents are checked wherever it is called (see `checked_user_frule`)."""
        self._install_imported()
        self._non_differentiables.discard(primal)
        rule = with_config(fn) if config else fn
        checked = checked_user_frule(rule)
        self._frules[primal] = Rule(primal, checked, Origin.USER)
        self._rrules[checked] = Rule(checked, checked_user_frule_rrule(rule), Origin.USER)
        self.version += 1

    def register_opt_out(self, primal: Any, predicate: Callable[..., bool]) -> None:
        """Calls of `primal` whose arguments satisfy `predicate` skip its rule."""
        self._install_imported()
        self._opt_outs.setdefault(primal, []).append(predicate)
        self.version += 1

    def opt_outs(self, primal: Any) -> list[Callable[..., bool]]:
        self._install_imported()
        try:
            return self._opt_outs.get(primal, [])
        except TypeError:
            return []

    def frule_for(self, primal: Any) -> Rule | None:
        self._install_imported()
        try:
            return self._frules.get(primal)
        except TypeError:
            return None

    def register_non_differentiable(self, *primals: Any) -> None:
        self._install_imported()
        for primal in primals:
            self._rrules.pop(primal, None)
            self._non_differentiables.add(primal)
        self.version += 1

    def rrule_for(self, primal: Any) -> Rule | None:
        self._install_imported()
        try:
            return self._rrules.get(primal)
        except TypeError:  # unhashable callables have no rules
            return None

    def is_non_differentiable(self, primal: Any) -> bool:
        self._install_imported()
        try:
            return primal in self._non_differentiables
        except TypeError:
            return False

    def covered(self) -> list[Any]:
        """Every function a rule covers (either mode) or marked non-differentiable: srcad
        reads none of them (`Mutations` does not look into what they change)."""
        self._install_imported()
        return [*self._rrules, *self._frules, *self._non_differentiables]

    def knows(self, primal: Any) -> bool:
        """Whether `primal` has a rule (either mode) or is marked non-differentiable."""
        ruled = self.rrule_for(primal) is not None or self.frule_for(primal) is not None
        return ruled or self.is_non_differentiable(primal)

    def refusal(self, primal: Any) -> str | None:
        """Why srcad refuses to differentiate `primal` (`DeferredRuleSet`), or None. A rule
        the user registers for it comes first."""
        self._install_imported()
        try:
            found = self._refusals.get(primal)
        except TypeError:
            return None
        return None if found is None else found[0]

    def refusals(self) -> list[tuple[Any, str, str]]:
        """Every refused function, with the reason and its rule set's name."""
        self._install_imported()
        return [(primal, why, rule_set) for primal, (why, rule_set) in self._refusals.items()]

    def attribute_rrule(self, name: str) -> Rule | None:
        return self._attribute_rrules.get(name)

    def attribute_frule(self, name: str) -> Rule | None:
        return self._attribute_frules.get(name)

    def is_non_differentiable_attribute(self, name: str) -> bool:
        return name in self._non_differentiable_attributes

    def primitive(self, function: Any) -> Primitive | None:
        """The library's facts about `function` (its result kind, inline derivative and
        linearity), from its entry in `rules/`; None for every other function.

        The inline derivative is the library rule's derivative written out: it is left
        out once a user's rule or opt-out replaces that rule, so that the user's rule is
        what every compiled derivative calls (the result kind, a fact of the primal
        itself, stays)."""
        self._install_imported()
        try:
            fact = self._primitives.get(function)
        except TypeError:  # unhashable callables are no primitives
            return None
        if fact is not None and fact.inline is not None and self._replaced(function):
            return replace(fact, inline=None)
        return fact

    def by_position(self, function: Any) -> ByPosition | None:
        """The keywords of `function` that the library's rules differentiate by position
        (`ByPosition`); None where it declares none, or a user's rule or opt-out replaces
        those rules (which may not take them by position)."""
        self._install_imported()
        try:
            found = self._by_position.get(function)
        except TypeError:  # unhashable callables are no primitives
            return None
        for arranger in self._arrangers if found is None else ():
            found = found or arranger(function)
        return None if found is None or self._replaced(function) else found

    def _replaced(self, function: Any) -> bool:
        """Whether a user's rule or opt-out replaces the library's rules of `function`."""
        return function in self._opt_outs or any(
            rule is not None and rule.origin is Origin.USER
            for rule in (self._rrules.get(function), self._frules.get(function))
        )

    def primitives(self) -> list[Primitive]:
        """Every primitive's facts, for checks over the whole table."""
        self._install_imported()
        return list(self._primitives.values())

    def rules(self) -> list[Rule]:
        """Every registered reverse rule, for registry-wide checks and the table of
        supported functions."""
        self._install_imported()
        return [*self._rrules.values(), *self._attribute_rrules.values()]

    def forward_rules(self) -> list[Rule]:
        self._install_imported()
        return list(self._frules.values())

    def non_differentiables(self) -> list[Any]:
        self._install_imported()
        return list(self._non_differentiables)


REGISTRY = Registry()  # see CONFIG
