"""Functions that reach srcad's own machinery (`srcad/machinery.py`), read by
`test_machinery.py`: each way of reading it, and a call that reaches it only when the
code runs."""

from typing import Any

import numpy as np

import srcad.registry
from srcad.registry import CONFIG, REGISTRY


def reads_the_registry(x: Any) -> Any:
    return x * float(REGISTRY.is_non_differentiable(x))  # line 14


def reads_the_configuration_through_modules(x: Any) -> Any:
    return srcad.registry.CONFIG.frule_via_ad((None, 1.0), np.sin, x)[1] * x  # line 18


def make_closure() -> Any:
    config = CONFIG

    def reads_a_closure(x: Any) -> Any:
        return config.rrule_via_ad(np.sin, x)[0]  # line 25

    return reads_a_closure


def calls_a_method_of_what_it_is_given(x: Any, receiver: Any) -> Any:
    return receiver.is_non_differentiable(x * x) + x
