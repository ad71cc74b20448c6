"""The rules of the functions srcad returns: srcad differentiates its own output.

`grad` and `value_and_grad` return an entry function (`srcad/entry.py`), generated code
that dispatches to gradient functions; `jacobian`, `hessian`, `hessian_vector_product`
and `grad` of a gradient return Python functions that loop over srcad's rules. Neither
text is a definition srcad could differentiate, and none is read: each stands for a
*form* (`srcad/forms.py`), the derivative of the user's `f` it computes, whose rules come
from `f`'s own generated code, one order higher (the reverse rule of the forward rule srcad
generates for `f`'s forward rule, ...). The forward rule of a form is a form again, so the
rules compose to any order: `hessian` of a function that calls `grad(f)`, `grad` of one
that calls `jacobian(f)`, a `jvp` of either, wherever the derivative is called (the
target of a transform, a global called by name, a value made inside the function, an
argument).

These rules serve every way to ask: `jvp`, `jacobian` in either mode, `vjp`, `rrule`,
`frule`, `hessian`, and a call inside a function srcad differentiates
(`Compiler.callee_rule`, `Compiler.forward_callee_rule`, and the second-order rules of
calls of values, `rules/second_order_calls.py`).
"""

from __future__ import annotations

import inspect
import re
import types
from typing import Any

from srcad.atoms import gradient_atom, is_zero, zeros
from srcad.callables import Call, check_tangents
from srcad.errors import SrcadError
from srcad.forms import DerivativeArray, Form, Forward, Gradient
from srcad.tangents import NoTangent, unthunk

DISPATCHER = "srcad_dispatcher"  # the attribute of an entry function naming its Dispatcher
# The attribute of every other derivative function srcad returns (`jacobian`, `hessian`,
# `grad` of a gradient, ...): `(f, positions, kind)`, the function, the arguments it is a
# derivative of `f` with respect to (innermost first) and its kind; None where `grad` and
# `jacobian` of it do not compose one order higher (a tuple `wrt`). Such a function is
# never differentiated from its own source (`Compiler.compiled` refuses it): only through
# its form's rules.
DERIVATIVE = "srcad_derivative_of"
# The attribute holding that function's form (`srcad/forms.py`): absent where its
# derivatives are refused.
FORM = "srcad_form"
# Its kind: `JACOBIAN`, the array of the derivatives of that order (`jacobian`, `hessian`);
# `GRADIENT`, the gradient of the directional derivative (`grad` of a gradient).
JACOBIAN, GRADIENT = "jacobian", "gradient"


def entry_rules(compiler: Any, f: Any) -> FormRules | RefusedRules | None:
    """The rules of `f` if it is a function srcad returned (an entry function, another
    derivative function, a rule of one), else None. (`compiler`, a
    `srcad.compiler.Compiler`, imports this module: named here, it would be a cycle.)"""
    if isinstance(f, FormFunction):
        return FormRules(f.form, getattr(f, "function", None))
    if isinstance(f, ReverseRule):
        return RefusedRules(f.__name__, "a reverse rule, which srcad differentiates no further")
    if not isinstance(f, types.FunctionType):
        return None
    dispatcher = f.__dict__.get(DISPATCHER)
    if dispatcher is not None:
        return FormRules(entry_form(compiler, dispatcher), f)
    form = f.__dict__.get(FORM)
    if form is not None:
        return FormRules(form, f)
    if DERIVATIVE in f.__dict__:
        return RefusedRules(
            f.__qualname__, "a derivative with respect to several arguments at once"
        )
    return None


def entry_form(compiler: Any, dispatcher: Any) -> Form:
    """The form of an entry function: the gradient at its positions, with its value."""
    form = getattr(dispatcher, "form", None)
    if form is None or form.compiler is not compiler:
        name = getattr(dispatcher.call.function, "__name__", "f").strip("<>")
        form = Gradient(
            compiler,
            dispatcher.call,
            f"{dispatcher.name}_of_{name}",
            dispatcher.positions,
            single=dispatcher.single,
            value=dispatcher.value,
            primal=dispatcher.function,
        )
        dispatcher.form = form
    return form


class RefusedRules:
    """The rules of a derivative srcad returned but does not differentiate in turn: each
    raises a `SrcadError` naming it, why, and what to do instead."""

    def __init__(self, name: str, why: str) -> None:
        self.name, self.why = name, why
        self.rrule = self._refuse
        self.frule = self._refuse

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise SrcadError(
            f"srcad does not differentiate {self.name}, {self.why}; differentiate the "
            "function it was made from to the order you need (grad, jacobian or hessian of "
            "it with respect to one argument)"
        )


def directional_gradient(
    compiler: Any, call: Call, args: tuple[Any, ...], directions: list[tuple[Any, ...]]
) -> tuple[Any, tuple[Any, ...]]:
    """`f`'s value and `∇ ∂ᵏf[t₁, ..., tₖ]`, one cotangent per argument of `args`: the
    gradient of the k-th directional derivative of the real-scalar `f` along `directions`
    (each a tangent per argument), the reverse rule of `Fₖ` seeded with 1.0
    (`atoms.gradient_atom`). This is what `grad(grad(...grad(f)))` computes (`srcad.api`)."""
    return gradient_atom(compiler, call, args, 1.0, directions)


def derivative_array(compiler: Any, call: Call, args: tuple[Any, ...], positions: list[int]) -> Any:
    """The derivatives of `f` of order `len(positions)`, one along each basis direction of
    the argument at each of `positions`, as an array of shape `output.shape + x_1.shape +
    ... + x_k.shape` (`jacobian(jacobian(f))`)."""
    form = DerivativeArray(compiler, call, "jacobian", tuple(positions))
    return form.partial(args, [], {}, [])


# -- the rules of a form ---------------------------------------------------------------------


class FormFunction:
    """A form as a callable that emitted code calls by its `__name__` (the forward rule
    of a derivative, `frule_grad_of_f`): `srcad.entry_rules` gives its rules, so that it
    is differentiated in turn."""

    __slots__ = ("__name__", "__signature__", "form")

    def __init__(self, form: Form) -> None:
        self.form = form
        self.__name__ = identifier(form.name)
        self.__signature__ = inspect.Signature(
            [
                inspect.Parameter("dargs", inspect.Parameter.POSITIONAL_ONLY),
                inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
            ]
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.form.with_keywords(kwargs).value(args)

    def __repr__(self) -> str:
        return f"<srcad rule {self.__name__}>"


class ReverseRule:
    """A form's reverse rule, under the name emitted code calls it by. srcad takes no
    derivative of a reverse rule (its own transforms never ask: second derivatives are
    reverse mode over forward rules); `srcad.entry_rules` refuses, saying so."""

    __slots__ = ("__name__", "__signature__", "rules")

    def __init__(self, rules: FormRules) -> None:
        self.rules = rules
        self.__name__ = identifier(f"rrule_{rules.form.name}")
        self.__signature__ = inspect.Signature(
            [
                inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
            ]
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.rules.reverse(*args, **kwargs)


def identifier(name: str) -> str:
    """`name` as emitted code may call it: `jacobian_<lambda>` as `jacobian__lambda_`."""
    return re.sub(r"\W", "_", name)


class FormRules:
    """The reverse (`rrule`) and forward (`frule`) rules of a function standing for
    `form`: the pullback gives `xgrad` and `lgrad` of the output's cotangent; the forward
    rule is the `Forward` form, a `FormFunction` whose rules are these again."""

    def __init__(self, form: Form, function: Any = None) -> None:
        self.form = form
        self.function = function  # the function checked for its arguments' tangents
        self.rrule = ReverseRule(self)
        self.frule = _Frule(self)

    def reverse(self, *a: Any, **kwargs: Any) -> tuple[Any, Any]:
        form = self.form.with_keywords(kwargs)
        x, ls = form.split(a)
        form.check(x)
        result = form.value(a)

        def pullback(result_bar: Any) -> tuple[Any, ...]:
            bar = unthunk(result_bar)
            if is_zero(bar):
                return (NoTangent(), *zeros(len(a)))
            x_bar = form.xgrad(x, ls, {}, [], bar)
            l_bars = [form.lgrad(x, ls, i, {}, [], bar) for i in range(len(ls))]
            return (NoTangent(), *form.join(tuple(x_bar), l_bars))

        pullback.__name__ = f"{form.name}_pullback"
        return result, pullback


class _Frule(FormFunction):
    """The forward rule of `rules.form`: called as emitted code calls a forward rule,
    `(dargs, *args)`, its tangents checked against the arguments they perturb."""

    __slots__ = ("function",)

    def __init__(self, rules: FormRules) -> None:
        super().__init__(Forward(rules.form))
        self.function = rules.function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args and self.function is not None and isinstance(args[0], tuple | list):
            check_tangents(self.function, tuple(args[0]), args[1:])
        return self.form.with_keywords(kwargs).value(args)


# The rule objects of forms: called as functions are, and differentiated through the rules
# `srcad.entry_rules` gives them (`rules/calls.py`: never through their class's `__call__`).
RULE_TYPES = FormFunction | ReverseRule
