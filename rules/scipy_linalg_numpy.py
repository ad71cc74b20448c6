"""Rules for the routines of `scipy.linalg` that `np.linalg` computes too: `inv`, `det`,
`solve`, `cholesky`, `eigh`, `eigvalsh`, `svd`, `svdvals`, `pinv` and `norm`.

Installed once the user imports `scipy.linalg` (`rules/__init__.py: SCIPY_RULE_SETS`). Each
is srcad's own rule of a definition in NumPy's functions (`rules/_support.by_definition`),
whose derivatives, to any order, are those of NumPy's rules; the value is SciPy's own.
Where SciPy reads one triangle of a symmetric matrix (`solve` with `assume_a` `"sym"`,
`"her"` or `"pos"`, `cholesky`, `eigh`), the definition builds the matrix from that
triangle, so the cotangent lies on it. Eigenvectors and singular vectors are defined only
up to a sign (a phase, for complex ones) each, which NumPy and SciPy may choose otherwise:
the definition turns NumPy's to SciPy's (`aligned`), and refuses when it runs where they
differ by more (a repeated eigenvalue or singular value, whose vectors either may rotate).

Refused when the rule runs (an `UnsupportedCallError`), each a gap but the first: letting
SciPy overwrite an argument (`overwrite_a=True`: unsound to follow); `solve`'s other
structures (`"diagonal"`, `"banded"`, `"tridiagonal"`, triangular: use `solve_triangular`);
`inv` of a structure; the generalized problem and the subsets of `eigh` and `eigvalsh`
(`b=`, `subset_by_index=`, `subset_by_value=`, `type=`); `pinv` given `atol`, `rtol` or
`return_rank`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as linalg

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("scipy_linalg_numpy")


# -- checks and the parts without derivative, as non-differentiable helpers -----------------


def refused(condition: Any, what: str) -> None:
    """Raise, naming `what` srcad does not differentiate, where `condition` holds."""
    if condition:
        raise UnsupportedCallError(f"srcad does not differentiate scipy.linalg's {what}")


def phases(vectors: Any, scipys: Any) -> Any:
    """The sign (or phase) by which each column of `vectors` becomes the column of `scipys`
    (the same vector, as SciPy chose it); refused where a column is another vector."""
    inner = np.sum(np.conj(vectors) * scipys, axis=-2)
    size = np.abs(inner)
    if not np.allclose(size, 1.0, rtol=0.0, atol=1e-6):
        raise UnsupportedCallError(
            "scipy.linalg gives other eigenvectors (or singular vectors) than NumPy, whose "
            "rules srcad differentiates them by: a repeated eigenvalue (or singular value), "
            "whose vectors are not defined by the matrix; differentiate a function of the "
            "eigenvalues, or of a projector onto their space"
        )
    return inner / size if np.iscomplexobj(inner) else np.sign(inner)


def scipy_eigenvectors(a: Any, lower: Any) -> Any:
    return linalg.eigh(a, lower=lower)[1]


def scipy_singular_vectors(a: Any, full_matrices: Any) -> Any:
    u, _, vh = linalg.svd(a, full_matrices=full_matrices)
    return u, vh


rules.non_differentiable(refused, phases, scipy_eigenvectors, scipy_singular_vectors)


def symmetric_from(a: Any, lower: Any) -> Any:
    """The symmetric (Hermitian) matrix whose `lower` (else upper) triangle is `a`'s: all
    LAPACK reads of `a`."""
    if lower:
        return np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))
    return np.triu(a) + np.conj(np.swapaxes(np.triu(a, 1), -1, -2))


# -- the definitions ----------------------------------------------------------------------

_SYMMETRIC = ("sym", "symmetric", "her", "hermitian", "pos", "positive definite")


def inv(a: Any, overwrite_a: Any = False, check_finite: Any = True, *, assume_a: Any = None,
        lower: Any = False) -> Any:  # fmt: skip
    """`scipy.linalg.inv`: NumPy's inverse."""
    refused(overwrite_a, "inv with overwrite_a=True")
    refused(assume_a not in (None, "gen", "general"), f"inv with assume_a={assume_a!r}")
    return np.linalg.inv(a)


def det(a: Any, overwrite_a: Any = False, check_finite: Any = True) -> Any:
    """`scipy.linalg.det`: NumPy's determinant."""
    refused(overwrite_a, "det with overwrite_a=True")
    return np.linalg.det(a)


def solve(a: Any, b: Any, lower: Any = False, overwrite_a: Any = False,
          overwrite_b: Any = False, check_finite: Any = True, assume_a: Any = None,
          transposed: Any = False) -> Any:  # fmt: skip
    """`scipy.linalg.solve`: NumPy's solve, of the matrix built from the triangle SciPy
    reads where it assumes a symmetric one, transposed where asked."""
    refused(overwrite_a or overwrite_b, "solve with overwrite_a or overwrite_b")
    general = assume_a in (None, "gen", "general")
    refused(not general and assume_a not in _SYMMETRIC, f"solve with assume_a={assume_a!r}")
    matrix = a if general else symmetric_from(a, lower)
    if transposed:
        matrix = np.swapaxes(matrix, -1, -2)
    return np.linalg.solve(matrix, b)


def cholesky(a: Any, lower: Any = False, overwrite_a: Any = False,
             check_finite: Any = True) -> Any:  # fmt: skip
    """`scipy.linalg.cholesky`: NumPy's lower factor of the matrix built from the triangle
    SciPy reads, or its adjoint, the upper one."""
    refused(overwrite_a, "cholesky with overwrite_a=True")
    factor = np.linalg.cholesky(symmetric_from(a, lower))
    return factor if lower else np.conj(np.swapaxes(factor, -1, -2))


def _no_generalized(b: Any, type: Any, subset_by_index: Any, subset_by_value: Any,
                    overwrite: Any) -> None:  # fmt: skip
    refused(overwrite, "eigh with overwrite_a or overwrite_b")
    refused(b is not None or type != 1, "generalized eigenproblem (b=)")
    refused(subset_by_index is not None or subset_by_value is not None, "eigenvalue subsets")


def eigh(a: Any, b: Any = None, *, lower: Any = True, eigvals_only: Any = False,
         overwrite_a: Any = False, overwrite_b: Any = False, type: Any = 1,
         check_finite: Any = True, subset_by_index: Any = None, subset_by_value: Any = None,
         driver: Any = None) -> Any:  # fmt: skip
    """`scipy.linalg.eigh`: NumPy's eigenvalues and eigenvectors of the matrix built from
    the triangle SciPy reads, each vector turned to SciPy's."""
    _no_generalized(b, type, subset_by_index, subset_by_value, overwrite_a or overwrite_b)
    matrix = symmetric_from(a, lower)
    if eigvals_only:
        return np.linalg.eigh(matrix)[0]
    values, vectors = np.linalg.eigh(matrix)
    turned = phases(vectors, scipy_eigenvectors(a, lower))
    return values, vectors * np.expand_dims(turned, -2)


def eigvalsh(a: Any, b: Any = None, *, lower: Any = True, overwrite_a: Any = False,
             overwrite_b: Any = False, type: Any = 1, check_finite: Any = True,
             subset_by_index: Any = None, subset_by_value: Any = None,
             driver: Any = None) -> Any:  # fmt: skip
    """`scipy.linalg.eigvalsh`: NumPy's eigenvalues of the matrix built from the triangle
    SciPy reads."""
    _no_generalized(b, type, subset_by_index, subset_by_value, overwrite_a or overwrite_b)
    return np.linalg.eigh(symmetric_from(a, lower))[0]


def svd(a: Any, full_matrices: Any = True, compute_uv: Any = True, overwrite_a: Any = False,
        check_finite: Any = True, lapack_driver: Any = "gesdd") -> Any:  # fmt: skip
    """`scipy.linalg.svd`: NumPy's factors, each pair of singular vectors turned to SciPy's."""
    refused(overwrite_a, "svd with overwrite_a=True")
    if not compute_uv:
        return np.linalg.svd(a, compute_uv=False)
    m, n = np.shape(a)[-2:]
    refused(full_matrices and m != n, "svd of a non-square matrix with full_matrices=True "
            "(its extra singular vectors are not defined by the matrix: pass "
            "full_matrices=False)")  # fmt: skip
    u, s, vh = np.linalg.svd(a, full_matrices)
    scipy_u, scipy_vh = scipy_singular_vectors(a, full_matrices)
    turned_u = phases(u, scipy_u)
    turned_v = phases(np.conj(np.swapaxes(vh, -1, -2)), np.conj(np.swapaxes(scipy_vh, -1, -2)))
    return u * np.expand_dims(turned_u, -2), s, vh * np.expand_dims(np.conj(turned_v), -1)


def svdvals(a: Any, overwrite_a: Any = False, check_finite: Any = True) -> Any:
    """`scipy.linalg.svdvals`: NumPy's singular values."""
    refused(overwrite_a, "svdvals with overwrite_a=True")
    return np.linalg.svd(a, compute_uv=False)


def pinv(a: Any, *, atol: Any = None, rtol: Any = None, return_rank: Any = False,
         check_finite: Any = True) -> Any:  # fmt: skip
    """`scipy.linalg.pinv` with its default cutoff: NumPy's pseudo-inverse (both drop only
    the singular values rounding gives a nonzero matrix)."""
    refused(atol is not None or rtol is not None or return_rank, "pinv with atol, rtol or "
            "return_rank")  # fmt: skip
    return np.linalg.pinv(a)


def norm(a: Any, ord: Any = None, axis: Any = None, keepdims: Any = False,
         check_finite: Any = True) -> Any:  # fmt: skip
    """`scipy.linalg.norm`: NumPy's norm."""
    return np.linalg.norm(a, ord, axis, keepdims)


for _definition in (inv, det, solve, cholesky, eigh, eigvalsh, svd, svdvals, pinv, norm):
    by_definition(rules, getattr(linalg, _definition.__name__), _definition,
                  f"scipy_{_definition.__name__}")  # fmt: skip
