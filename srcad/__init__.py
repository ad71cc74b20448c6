"""srcad: source-transforming automatic differentiation for Python and NumPy."""

from srcad import testing
from srcad.api import (
    Differentiable,
    differentiate,
    frule,
    grad,
    jacobian,
    jvp,
    non_differentiable,
    opt_out,
    rrule,
    scalar_rule,
    source,
    value_and_grad,
    vjp,
)
from srcad.errors import (
    Diagnostic,
    MissingRuleError,
    MutationError,
    SourceUnavailableError,
    SrcadError,
    UnsupportedSyntaxError,
)
from srcad.projection import ProjectTo
from srcad.registry import CONFIG, RuleConfig
from srcad.tangents import (
    InplaceableThunk,
    NoTangent,
    NotImplementedTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    not_implemented,
    thunk,
    unthunk,
)

__all__ = [
    "CONFIG",
    "Diagnostic",
    "Differentiable",
    "InplaceableThunk",
    "MissingRuleError",
    "MutationError",
    "NoTangent",
    "NotImplementedTangent",
    "ProjectTo",
    "RuleConfig",
    "SourceUnavailableError",
    "SrcadError",
    "Tangent",
    "Thunk",
    "UnsupportedSyntaxError",
    "ZeroTangent",
    "differentiate",
    "frule",
    "grad",
    "jacobian",
    "jvp",
    "non_differentiable",
    "not_implemented",
    "opt_out",
    "rrule",
    "scalar_rule",
    "source",
    "testing",
    "thunk",
    "unthunk",
    "value_and_grad",
    "vjp",
]
