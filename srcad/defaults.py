"""The compiler srcad's public functions use: the library's rule sets (`srcad.rules`),
then the rules the user registers, in the registry `srcad.registry.REGISTRY`, and the
configuration `srcad.CONFIG` that rules of higher-order functions call back through.

Making it is what fills that registry: importing the compiler alone registers nothing. The
rules of optional libraries (SciPy) wait in it until the user imports them.
"""

from __future__ import annotations

from srcad.compiler import Compiler
from srcad.registry import CONFIG, REGISTRY
from srcad.requests import Request
from srcad.rules import DEFERRED_RULE_SETS, RULE_SETS

__all__ = ["COMPILER", "Request"]  # the compiler, and what to ask it for

COMPILER = Compiler(REGISTRY, CONFIG, RULE_SETS)
REGISTRY.defer(*DEFERRED_RULE_SETS)
