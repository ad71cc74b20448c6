"""Rules for NumPy's random draws: the methods of `np.random.Generator` and
`np.random.RandomState`, and the functions of `np.random` (the methods of its global
RandomState).

A draw is a function of its parameters and of the generator's stream, which it advances.
srcad runs each draw once, where the code runs it, and differentiates its value with the
stream held: the pathwise derivative (the reparameterization trick), which is what central
differences give where both points draw from the same seed.

- A draw with no float parameter (`standard_normal(size)`, `randn(*shape)`, `random`,
  `integers`, `standard_exponential`, ...) is a constant, and so is a draw of integers
  (`poisson`, `binomial`, `multinomial`, ...: piecewise constant in their parameters): no
  derivative (`rules.non_differentiable`). A draw that changes its argument in place
  (`shuffle`) or the generator itself (`seed`, `set_state`) is no draw; it stays without a
  rule.
- A draw of a location-scale family is differentiated in its parameters, through a
  definition from the standard draw of the same stream, which is how NumPy computes it:
  each call also draws NumPy's own values from a copy of the generator (which checks the
  parameters as NumPy does, `scale < 0` raising) and refuses where they differ (a NumPy
  that computed them otherwise), so the values are NumPy's, bit for bit:
  `normal(loc, scale)` is `loc + scale * z`, `lognormal(mean, sigma)` is
  `exp(mean + sigma * z)` (`z` from `standard_normal`), `uniform(low, high)` is
  `low + (high - low) * u` (`u` from `random`), `exponential(scale)` is `scale * e` (`e` from
  `standard_exponential`).
- Any other draw with float parameters (`gamma`, `beta`, `standard_t`, `laplace`,
  `multivariate_normal`, `choice` and `permutation` of floats, ...) has no rule: a call
  that may take a differentiated value is refused when it runs (a `MissingRuleError`,
  `rules/calls.py`), a gap: its pathwise derivative needs the implicit derivative of the
  distribution's sampler, or which items were chosen, which NumPy does not give.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from srcad.errors import MissingRuleError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_random")

_GENERATORS = (np.random.Generator, np.random.RandomState)

# Draws with no float parameter, or of integers: constants.
_CONSTANT_DRAWS = (
    "standard_normal", "randn", "rand", "random", "random_sample", "integers", "randint",
    "random_integers", "tomaxint", "bytes", "standard_exponential", "standard_cauchy",
    "poisson", "binomial", "negative_binomial", "geometric", "hypergeometric", "logseries",
    "zipf", "multinomial", "multivariate_hypergeometric",
)  # fmt: skip


def _members(name: str) -> list[Any]:
    """`name` of each generator class that has it, and `np.random`'s function."""
    found = [getattr(kind, name) for kind in _GENERATORS if hasattr(kind, name)]
    if hasattr(np.random, name):
        found.append(getattr(np.random, name))
    return found


for _name in _CONSTANT_DRAWS:
    rules.non_differentiable(*_members(_name))


# -- the standard draws, as non-differentiable helpers ------------------------------------


def _size(size: Any, *parameters: Any) -> Any:
    """The shape a draw takes: `size`, else the parameters' broadcast shape (None for
    numbers, where NumPy returns a Python float)."""
    if size is not None:
        return size
    if all(np.ndim(p) == 0 and not isinstance(p, np.ndarray) for p in parameters):
        return None
    return np.broadcast_shapes(*(np.shape(p) for p in parameters))


_STANDARD = {"normal": "standard_normal", "lognormal": "standard_normal",
             "exponential": "standard_exponential", "uniform": "random"}  # fmt: skip


def standard_draws(generator: Any, name: str, parameters: tuple[Any, ...], size: Any
                   ) -> tuple[Any, Any]:  # fmt: skip
    """The standard draws `generator.name(*parameters, size=size)` takes from the stream
    (advancing it as that call would), and that call's own values, drawn from a copy of
    the generator: NumPy checks the parameters there, raising as the call would
    (`scale < 0`), and `rounding_to_numpys` compares."""
    numpys = getattr(copy.deepcopy(generator), name)(*parameters, size=size)
    standard = _STANDARD[name]
    if standard == "random" and isinstance(generator, np.random.RandomState):
        standard = "random_sample"
    return getattr(generator, standard)(size=_size(size, *parameters)), numpys


def rounding_to_numpys(drawn: Any, numpys: Any) -> Any:
    """What to add to srcad's definition of a draw to get NumPy's numbers exactly: they
    differ by a rounding where the two take an exponential differently (`lognormal`), a
    difference exact in floats, so `drawn + difference` is `numpys`. Raise where they differ
    by more (a NumPy that computes the draw otherwise than from the standard draw): the
    derivative would be another function's."""
    with np.errstate(all="ignore"):
        same = np.shape(drawn) == np.shape(numpys) and np.allclose(
            drawn, numpys, rtol=1e-12, atol=0.0, equal_nan=True
        )
        if not same:
            raise MissingRuleError(
                "srcad differentiates a random draw as computed from the standard draw of "
                "its stream, but this NumPy computes it otherwise; register a rule for it"
            )
        return np.where(drawn == numpys, 0.0, np.subtract(numpys, drawn))[()]


rules.non_differentiable(standard_draws, rounding_to_numpys)


# -- the definitions, the generator first (`np.random.normal(...)` is the method of
# `np.random`'s global RandomState: `calls.call_rrule` passes it first) --------------------


def normal(generator: Any, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
    """`generator.normal(loc, scale, size)`: `loc + scale * z`."""
    z, numpys = standard_draws(generator, "normal", (loc, scale), size)
    y = loc + scale * z
    return y + rounding_to_numpys(y, numpys)


def lognormal(generator: Any, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None) -> Any:
    """`generator.lognormal(mean, sigma, size)`: `exp(mean + sigma * z)`."""
    z, numpys = standard_draws(generator, "lognormal", (mean, sigma), size)
    y = np.exp(mean + sigma * z)
    return y + rounding_to_numpys(y, numpys)


def uniform(generator: Any, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
    """`generator.uniform(low, high, size)`: `low + (high - low) * u`."""
    u, numpys = standard_draws(generator, "uniform", (low, high), size)
    y = low + (high - low) * u
    return y + rounding_to_numpys(y, numpys)


def exponential(generator: Any, scale: Any = 1.0, size: Any = None) -> Any:
    """`generator.exponential(scale, size)`: `scale * e`."""
    e, numpys = standard_draws(generator, "exponential", (scale,), size)
    y = scale * e
    return y + rounding_to_numpys(y, numpys)


_DEFINITIONS = (("normal", normal), ("lognormal", lognormal), ("uniform", uniform),
                ("exponential", exponential))  # fmt: skip
for _name, _definition in _DEFINITIONS:
    for _kind in _GENERATORS:
        by_definition(rules, getattr(_kind, _name), _definition,
                      f"{_kind.__name__.lower()}_{_name}", numpy_value=False)  # fmt: skip
