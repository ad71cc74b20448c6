"""`scipy.integrate`'s ODE solvers, refused by name: srcad has no rule for them yet.

Their derivative is the adjoint method (integrating the right-hand side's vector-Jacobian
products backwards in time, through `RuleConfig.rrule_via_ad`); until that rule exists,
a call of `odeint` or `solve_ivp` with a differentiated argument is refused at the
caller's line with this reason, rather than with the problems srcad would find in SciPy's
own source.

Installed once the user imports `scipy.integrate` (`rules/__init__.py: SCIPY_RULE_SETS`).
"""

from __future__ import annotations

import scipy.integrate as integrate

from srcad.registry import RuleSet

rules = RuleSet("scipy_integrate")  # none yet: the solvers are refused

_ADJOINT = (
    "srcad does not differentiate SciPy's ODE solvers yet (their rule, the adjoint method, "
    "is not written); integrate with a loop of your own steps, or register a rule"
)
REFUSED = {integrate.odeint: _ADJOINT, integrate.solve_ivp: _ADJOINT}
