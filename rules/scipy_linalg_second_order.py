"""The second derivatives of `rules/scipy_linalg_numpy.py`'s routines: the reverse rules of
their forward rules, through their definitions, as `rules/second_order.py` builds those of
the library's rules (installed with them, once the user imports `scipy.linalg`)."""

from __future__ import annotations

from srcad.rules import scipy_linalg_numpy, second_order

rules = second_order.build([scipy_linalg_numpy.rules])
