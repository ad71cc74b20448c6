"""The API for rules: `srcad.rrule` and `srcad.frule` (a function's rule, and the
registries users add their own to), `scalar_rule`, `non_differentiable` and `opt_out`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from srcad.callables import name_of
from srcad.callables import unwrap as _unwrap
from srcad.defaults import COMPILER
from srcad.errors import SrcadError
from srcad.partials import taking_result
from srcad.scalar_rules import RuleFn, scalar_frule, scalar_rrule


class RRule:
    """`srcad.rrule(f, *args)` gives `(y, pullback)`: `f`'s registered rule, else a compiled one.

    `@srcad.rrule.register(f)` registers the decorated function as `f`'s reverse rule.
    """

    def __call__(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, RuleFn]:
        return COMPILER.rrule(f, *args, **kwargs)

    def register(
        self, primal: Callable[..., Any], *, config: bool = False
    ) -> Callable[[RuleFn], RuleFn]:
        """Decorator registering a reverse rule `rule(*args) -> (y, pullback)` for `primal`
        (with `config=True`, `rule(config, *args)`, for rules that call back into srcad).

        `primal` may be a function, a class (a rule for its constructor), or a class's
        `__call__` (a rule for calling its instances: the pullback's first cotangent is
        then the instance's)."""
        _check_registrable(primal)

        def register(rule: RuleFn) -> RuleFn:
            COMPILER.registry.register_rrule(_unwrap(primal), _checked_rule(rule), config=config)
            return rule

        return register


rrule = RRule()


class FRule:
    """`srcad.frule((f_dot, *arg_dots), f, *args)` gives `(y, y_dot)`: `f`'s registered
    forward rule, else the one srcad compiles from its source.

    `@srcad.frule.register(f)` registers one: `rule((f_dot, *arg_dots), *args)`. A nonzero
    tangent for an argument that cannot be perturbed (an int) is refused.
    """

    def __call__(
        self, dargs: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        return COMPILER.frule(dargs, f, *args, **kwargs)

    def register(
        self, primal: Callable[..., Any], *, config: bool = False
    ) -> Callable[[RuleFn], RuleFn]:
        """Decorator registering a forward rule `rule((f_dot, *arg_dots), *args)`."""
        _check_registrable(primal)

        def register(rule: RuleFn) -> RuleFn:
            COMPILER.registry.register_frule(_unwrap(primal), _checked_rule(rule), config=config)
            return rule

        return register


frule = FRule()


def _check_registrable(primal: Any) -> None:
    if not callable(primal) and not isinstance(primal, staticmethod | classmethod):
        raise SrcadError(
            f"rules are for functions (or classes, or a class's __call__), not for "
            f"{type(primal).__name__} {primal!r:.60}"
        )


def _checked_rule(rule: Any, what: str = "a rule") -> Any:
    if not callable(rule):
        raise SrcadError(f"{what} must be a function, not {type(rule).__name__} {rule!r:.60}")
    return rule


def scalar_rule(f: Callable[..., Any], *partials: Callable[..., Any]) -> None:
    """Both rules of a scalar (or elementwise) function from its partial derivatives, one
    per argument, for any number of arguments: `scalar_rule(math.sinh, lambda x:
    math.cosh(x))`. A partial takes the arguments, or the arguments and then the result
    (`lambda x, y: ...`, which saves computing the result again), told apart by how many
    it takes."""
    _check_registrable(f)
    for partial in partials:
        _checked_rule(partial, "a partial derivative")
    partials = taking_result(partials, name_of(f))
    COMPILER.registry.register_rrule(f, scalar_rrule(f, *partials), projected=True)
    COMPILER.registry.register_frule(f, scalar_frule(f, *partials))


def non_differentiable(*functions: Callable[..., Any]) -> None:
    """Mark functions whose results carry no derivative (sizes, predicates, indices)."""
    for f in functions:
        _check_registrable(f)
    COMPILER.registry.register_non_differentiable(*(_unwrap(f) for f in functions))


def opt_out(f: Callable[..., Any], predicate: Callable[..., bool]) -> None:
    """Calls of `f` whose arguments satisfy `predicate(*args, **kwargs)` are differentiated
    through `f`'s own source instead of its registered rule."""
    _check_registrable(f)
    _checked_rule(predicate, "an opt-out predicate")
    COMPILER.registry.register_opt_out(_unwrap(f), predicate)
