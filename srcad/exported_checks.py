"""What an exported gradient reads from the user's modules, and checks there (`srcad export`).

srcad's rules are compiled in the user's globals: they read a module's global when they run
(`SCALE`, rebound to another float, changes the gradient as it changes the function), and
their guards check the facts they were compiled on (`srcad.guards`: a callee is still the
function resolved, its code unchanged). An exported module does the same: its entry first
calls `_sources_read()`, which reads each global the rules read from its module, and checks
each fact, raising where one fails (the gradient would be wrong) and saying to export again.
The objects a fact names (a callee, its code) are read as the module is imported, and
checked then to have the type and name they had when exported (`_exported_as`); that the
source is still the one exported is what `srcad export --check` tells (its fingerprints).
"""

from __future__ import annotations

import sys
import types
from typing import Any

from srcad.compiler import CompiledRule
from srcad.errors import ExportError
from srcad.guards import MISSING, Guards

__all__ = ["source_checks"]

_EXPORTED_AS = '''def _exported_as(value, what, kind, name):
    """`value`, read from `what` as this module is imported: the object the gradient was
    exported for, where it has the type (`kind`) and name (`__qualname__`) it had then."""
    found = f"{type(value).__module__}.{type(value).__qualname__}"
    own = getattr(value, "__qualname__", None)
    if found != kind or (own if isinstance(own, str) else None) != name:
        raise ImportError(
            f"{what} is a {found} {own or ''}, not the {kind} {name or ''} this gradient was "
            "exported for: export it again (srcad export)"
        )
    return value'''

_SOURCES_READ = '''def _sources_read():
    """Read the globals the rules read from their modules, as srcad's rules do (live), and
    check that each fact the rules were compiled on still holds: else this gradient would
    be wrong, and raises."""
{reads}    for holds, fact in _FACTS:
        try:
            held = holds()
        except Exception:  # a name deleted, an attribute gone
            held = False
        if not held:
            raise RuntimeError(
                f"{{fact}} since this gradient was exported: its rules no longer "
                "hold; export it again (srcad export)"
            )'''

# An object read as the exported module is imported (by id): its name there, and in words.
Captured = dict[int, tuple[str, str]]


def source_checks(copy: Any, rules: list[tuple[CompiledRule, types.FunctionType]]) -> list[str]:
    """The definitions of `_sources_read()` (none where the rules read nothing of the
    user's), which the exported entry calls first. `copy`: the exported module's
    `export._Runtime`, whose `live` names the globals the rules read, and their modules."""
    namespaces = {id(s.__globals__): copy.module_names.get(s.__module__, s.__module__)
                  for _, s in rules}  # fmt: skip
    captured: Captured = {}
    lines: list[str] = []
    tests: list[str] = []
    for fact in Guards.union(*(rule.guards for rule, _ in rules)).facts:
        if fact.kind == "cell" or fact.of_structure:
            raise ExportError(f"cannot export: the rules rely on {fact.describe()}, "
                              "which only srcad can check")  # fmt: skip
        holder, said = _holder(copy, fact.holder, namespaces, captured, lines)
        said = f"{said}.{fact.key}"
        if fact.kind == "item":
            read, absent = f"{holder}[{fact.key!r}]", f"{fact.key!r} not in {holder}"
        else:
            read = f"{holder}.{fact.key}" if fact.key.isidentifier() else (
                f"getattr({holder}, {fact.key!r})")  # fmt: skip
            absent = f"not hasattr({holder}, {fact.key!r})"
        if fact.expected is MISSING:
            test, words = absent, f"{said} was defined"
        elif fact.of_type:
            expected = copy.expression(fact.expected, "type", said)
            test, words = f"type({read}) is {expected}", f"{said} is no longer a {expected}"
        elif fact.expected is None:
            test, words = f"{read} is None", f"{said} was set"
        else:
            test = f"{read} is {_captured(copy, fact.expected, read, said, captured, lines)}"
            words = f"{said} was rebound"
        tests.append(f"    (lambda: {test}, {words!r}),")
    if not tests and not copy.live:
        return []
    reads = "".join(
        f"    global {name}\n    {name} = {module}.{name}\n"
        for name, module in sorted(copy.live.items())
    )
    for name in ("_exported_as", "_FACTS", "_sources_read"):
        copy.claim(name, source_checks, "checks")
    return [
        _EXPORTED_AS,
        "",
        *lines,
        "_FACTS = (",
        *tests,
        ")",
        "",
        _SOURCES_READ.format(reads=reads),
    ]


def _holder(copy: Any, holder: Any, namespaces: dict[int, str], captured: Captured,
            lines: list[str]) -> tuple[str, str]:  # fmt: skip
    """The expression of the exported module reading a fact's holder (a module's
    namespace, a module, an object read on import), and its name in words."""
    if id(holder) in captured:
        return captured[id(holder)]
    if isinstance(holder, dict):
        module = namespaces.get(id(holder))
        if module is None:
            found = [
                m for m in list(sys.modules.values()) if getattr(m, "__dict__", None) is holder
            ]
            if not found:
                raise ExportError("cannot export: the rules rely on a namespace of no module")
            module = copy.expression(found[0], "module", "checks")
        return f"vars({module})", module
    if isinstance(holder, types.ModuleType):
        module = copy.expression(holder, "module", "checks")
        return module, module
    read = copy.expression(holder, "exported", "checks")  # a function: `mexp.f`
    return _captured(copy, holder, read, read, captured, lines), read


def _captured(copy: Any, value: Any, read: str, said: str, captured: Captured,
              lines: list[str]) -> str:  # fmt: skip
    """A name bound, as the module is imported, to what `read` gives then: `value`, where it
    has the type and name it has now (`_exported_as`)."""
    if id(value) in captured:
        return captured[id(value)][0]
    copy.keep.append(value)
    found = copy.fresh("exported")
    captured[id(value)] = (found, said)
    copy.claim(found, value, "checks")
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    name = getattr(value, "__qualname__", None)
    name = name if isinstance(name, str) else None
    lines.append(f"{found} = _exported_as({read}, {said!r}, {kind!r}, {name!r})")
    return found
