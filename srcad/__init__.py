"""srcad: source-transforming automatic differentiation for Python and NumPy."""

from srcad import testing
from srcad.api import (
    Differentiable,
    differentiate,
    grad,
    rrule,
    source,
    value_and_grad,
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
from srcad.tangents import NoTangent, Tangent, ZeroTangent

__all__ = [
    "Diagnostic",
    "Differentiable",
    "MissingRuleError",
    "MutationError",
    "NoTangent",
    "ProjectTo",
    "SourceUnavailableError",
    "SrcadError",
    "Tangent",
    "UnsupportedSyntaxError",
    "ZeroTangent",
    "differentiate",
    "grad",
    "rrule",
    "source",
    "testing",
    "value_and_grad",
]
