"""The generated table of functions srcad has rules for, by rule module (docs/supported.md)."""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np

from srcad import primitives
from srcad.keywords import keyword_call
from srcad.registry import REGISTRY, Origin

_SYNTAX = {
    primitives.make_tuple: "tuple display `(a, b)`",
    primitives.make_list: "list display `[a, b]`",
    primitives.make_dict: "dict display `{k: v}`",
    primitives.unpack: "unpacking `a, b = t`",
    primitives.iterate: "`for` over a value",
    primitives.append: "`items.append(v)` on a fresh list",
    primitives.index_update: "`items[i] = v` (and `op=`) into a fresh array, list or dict",
    primitives.make_struct: "building a NamedTuple or dataclass `Kind(a, b=v)`",
    primitives.replace_fields: "`dataclasses.replace(value, b=v)`",
    primitives.with_attribute: "`self.name = v` in a class's `__init__`, building `Kind(a, b)`",
    primitives.call: "calling a value `f(x)`",
    primitives.method: "method call `x.m(...)`",
    primitives.unpacked_call: "call unpacking arguments `f(a, *rest, **options)`, `x.m(*shape)`",
    keyword_call: "keywords into keyword-only parameters or `**kwargs`, `f(x, k=v, **options)`",
    primitives.logabsdet: "`numpy.linalg.slogdet(a)[1]` (`.logabsdet`) alone",
    primitives.index_concatenate: "`numpy.r_[a, b, 1:3]` and `numpy.c_[a, b]`",
}


# Rule sets for functions only srcad's own code calls (the reverse rules of forward rules,
# for second derivatives): no user function is differentiated through them.
INTERNAL_RULE_SETS = frozenset({"second_order"})


def qualified_name(primal: Any) -> str:
    """`numpy.sin`, `math.exp`, `operator.add`, `sum`, or what a syntax primitive stands for."""
    if primal in _SYNTAX:
        return _SYNTAX[primal]
    if isinstance(primal, str):
        return f"attribute `.{primal}`"
    name = getattr(primal, "__name__", repr(primal))
    if isinstance(primal, types.MethodDescriptorType):  # `dict.get`: a method, by its class
        return f"{primal.__objclass__.__name__}.{name}"
    owner = getattr(primal, "__self__", None)
    if isinstance(owner, type) and owner.__module__ == "builtins":  # `dict.fromkeys`
        return f"{owner.__name__}.{name}"
    if isinstance(owner, type):  # a class's method: `itertools.chain.from_iterable`
        return f"{owner.__module__}.{owner.__name__}.{name}"
    if isinstance(owner, np.ufunc):  # a ufunc's method: `numpy.add.reduce`
        return f"{qualified_name(owner)}.{name}"
    if isinstance(primal, np.ufunc) and getattr(np, name, None) is not primal:
        return f"scipy.special.{name}" if _is_scipy_special(primal, name) else name
    if isinstance(primal, np.ufunc) or getattr(primal, "__module__", "") in ("numpy",):
        return f"numpy.{name}"
    module = (getattr(primal, "__module__", None) or "").lstrip("_")
    if module.startswith("numpy"):
        public = "numpy.linalg" if "linalg" in module else "numpy"
        qualname = getattr(primal, "__qualname__", name)
        if "." in qualname and "<" not in qualname:  # a class's: `numpy.vectorize.__call__`
            return f"{public}.{qualname}"
        return f"{public}.{name}"
    if module.startswith("scipy."):  # `scipy.special._logsumexp`: the module users import
        qualname = getattr(primal, "__qualname__", name)  # a method: `rv_continuous.logpdf`
        owner = qualname.split(".")[0]
        defined = getattr(sys.modules.get(getattr(primal, "__module__", "")), owner, None)
        public = _public_module(defined, module, owner)
        # A distribution's class (`multivariate_normal_gen`) is private; its instance is not.
        instance = getattr(sys.modules.get("scipy.stats"), owner.removesuffix("_gen"), None)
        if public == module and isinstance(defined, type) and isinstance(instance, defined):
            return f"scipy.stats.{owner.removesuffix('_gen')}.{qualname.split('.', 1)[1]}"
        return f"{public}.{qualname}"
    if isinstance(primal, types.BuiltinFunctionType | type) and module == "builtins":
        return name
    return f"{module}.{name}" if module else name


def _public_module(primal: Any, module: str, name: str) -> str:
    """The shortest parent of `module` that exposes `primal` as `name`."""
    parts = module.split(".")
    for end in range(1, len(parts) + 1):
        candidate = ".".join(parts[:end])
        if getattr(sys.modules.get(candidate), name, None) is primal:
            return candidate
    return module


def _is_scipy_special(primal: Any, name: str) -> bool:
    """Whether the ufunc `primal` is SciPy's (a ufunc has no `__module__` to say so)."""
    special = sys.modules.get("scipy.special")
    return special is not None and getattr(special, name, None) is primal


def _declared_order() -> Any:
    """The place of a rule set in the library's order (`srcad.rules`), SciPy's sets in
    theirs, whichever the user imported first: the table does not depend on it."""
    from srcad.rules import RULE_SETS, SCIPY_RULE_SETS

    names = [r.name for r in RULE_SETS] + [
        d.rules_module.rsplit(".", 1)[1] for d in SCIPY_RULE_SETS
    ]
    place = {name: i for i, name in enumerate(dict.fromkeys(names))}
    return lambda name: place.get(name, len(place))


def supported_markdown() -> str:
    """The table, as Markdown: every reverse rule by rule module, then the functions and
    attributes known to carry no derivative. The rules of optional libraries (SciPy) are
    installed for it, where the library is installed."""
    REGISTRY.install_deferred()
    by_origin: dict[str, list[tuple[str, str, bool]]] = {}
    forward = {id(rule.primal) for rule in REGISTRY.forward_rules()}
    for rule in REGISTRY.rules():
        if isinstance(rule.primal, str) and REGISTRY.attribute_frule(rule.primal):
            forward.add(id(rule.primal))
    # A reverse rule of a forward rule (for second derivatives) is srcad's own.
    forward_rules = {id(rule.rrule) for rule in REGISTRY.forward_rules()}
    for rule in REGISTRY.rules():
        if rule.origin is Origin.USER or rule.rule_set in INTERNAL_RULE_SETS:
            continue  # the library's rules for users' functions, not srcad's own
        if id(rule.primal) in forward_rules:
            continue
        rule_name = f"`{getattr(rule.rrule, '__name__', '?')}`"
        by_position = REGISTRY.by_position(rule.primal) if rule.rule_set else None
        if by_position is not None:  # differentiated keywords, in the primal's order
            named = [
                " or ".join(f"`{k}=`" for k in (p, *(a for a, to in by_position.aliases.items()
                                                    if to == p)))
                for p in by_position.parameters
                if p in by_position.differentiated
            ]  # fmt: skip
            rule_name += f" (by keyword too: {', '.join(named)})"
        entry = (qualified_name(rule.primal), rule_name, id(rule.primal) in forward)
        by_origin.setdefault(rule.rule_set, []).append(entry)
    for primal, why, rule_set in REGISTRY.refusals():
        by_origin.setdefault(rule_set, []).append(
            (qualified_name(primal), f"refused: {why}", False)
        )
    lines = [
        "# Functions srcad differentiates",
        "",
        "Generated by `srcad rules`; do not edit. Any Python function not listed here is",
        "differentiated through its own source.",
        "",
    ]
    for origin in sorted(by_origin, key=_declared_order()):
        lines += [f"## {origin}", "", "| function | reverse rule | forward rule |", "|---|---|---|"]
        for name, rule_text, has_forward in sorted(by_origin[origin]):
            lines.append(f"| {name} | {rule_text} | {'yes' if has_forward else ''} |")
        lines.append("")
    lines += ["## No derivative", ""]
    names = sorted({qualified_name(p) for p in REGISTRY.non_differentiables()})
    lines += [", ".join(f"`{n}`" for n in names), ""]
    return "\n".join(lines)
