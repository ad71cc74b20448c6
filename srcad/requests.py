"""What the driver is asked to compile: a mode, a target, a typed request.

A request replaces the flags that used to travel as positional booleans
(`compiled(f, wrt, "reverse", kinds, True, value)`) and that the passes tested to decide
whether to run: the request names its target, and each target has one pipeline
(`srcad.passes.PIPELINES`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from srcad.kinds import Signature


class Mode(enum.Enum):
    """Which rules the compiled code calls and gives: reverse (rrules, with pullbacks) or
    forward (frules, with tangents)."""

    REVERSE = "reverse"
    FORWARD = "forward"


class Target(enum.Enum):
    """What a compilation emits; each has its own pipeline."""

    RRULE = "rrule"  # `rrule_f(*args) -> (y, f_pullback)`, for arguments of any kinds
    SPECIALISED_RRULE = "specialised rrule"  # the same, derivatives inlined for known kinds
    GRADIENT = "gradient"  # `grad_f(*args) -> (y, pullback(1.0))`, for known kinds, for grad
    GRADIENT_WITHOUT_VALUE = "gradient without value"  # the same, `y` None where proven float
    GENERAL_GRADIENT = "general gradient"  # `grad_f` where no argument's kind is known
    FRULE = "frule"  # `frule_f((f_dot, *arg_dots), *args) -> (y, y_dot)`
    SPECIALISED_FRULE = "specialised frule"  # the same, tangents inlined for known kinds

    @property
    def fused(self) -> bool:
        """Whether the target is a gradient function rather than an rrule or frule."""
        return self in (Target.GRADIENT, Target.GRADIENT_WITHOUT_VALUE, Target.GENERAL_GRADIENT)


@dataclass(frozen=True)
class Request:
    """What to compile for a function: its `mode`'s rule, or (`gradient`) the gradient
    function `grad` calls, which gives `(y, pullback(1.0))`, with `y` left out (None)
    where proven a real float unless `value`; specialised for arguments of the kinds in
    `signature` (`srcad.kinds`; none: any). `optimise=False` leaves out the optimising
    passes (to show the code before them). A forward rule for `directions` > 0 pushes that
    many tangents forward in one call, the primal computed once
    (`passes/transforms/directions.py`)."""

    mode: Mode = Mode.REVERSE
    signature: Signature = ()
    gradient: bool = False
    value: bool = True
    optimise: bool = True
    directions: int = 0

    @classmethod
    def rrule(cls, signature: Signature = ()) -> Request:
        return cls(Mode.REVERSE, signature)

    @classmethod
    def frule(cls, signature: Signature = (), directions: int = 0) -> Request:
        return cls(Mode.FORWARD, signature, directions=directions)

    @classmethod
    def grad(cls, signature: Signature, value: bool = True) -> Request:
        return cls(Mode.REVERSE, signature, gradient=True, value=value)

    def target(self, specialised: bool) -> Target:
        """The target this request asks for, where the kinds of some parameters are known
        (`specialised`) or not."""
        if self.mode is Mode.FORWARD:
            return Target.SPECIALISED_FRULE if specialised else Target.FRULE
        if not self.gradient:
            return Target.SPECIALISED_RRULE if specialised else Target.RRULE
        if not specialised:
            return Target.GENERAL_GRADIENT
        return Target.GRADIENT if self.value else Target.GRADIENT_WITHOUT_VALUE

    @property
    def description(self) -> str:
        """What the emitted text's header calls it."""
        if self.directions:
            return f"{self.mode.value} rule for {self.directions} directions"
        return "gradient" if self.gradient else f"{self.mode.value} rule"
