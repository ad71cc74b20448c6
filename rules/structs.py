"""Rules for building NamedTuples and dataclasses (`primitives.make_struct`, the normal form
of `Kind(a, b=v)` where `primitives.struct_fields` proves the initialiser only stores its
fields), for `dataclasses.replace` (`primitives.replace_fields`), and for the steps of a
class's own `__init__` as srcad compiles it (`srcad.constructors`: `new_instance`,
`with_attribute`). Their cotangents and tangents are structural `Tangent`s, by field name."""

from __future__ import annotations

from typing import Any

from srcad.errors import MissingRuleError
from srcad.primitives import (
    make_struct,
    new_instance,
    replace_fields,
    struct_fields,
    with_attribute,
)
from srcad.registry import Linearity, RuleSet
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("structs")

Pullback = Any


def _fields_of(kind: type) -> tuple[str, ...]:
    fields = struct_fields(kind)
    if fields is None:
        raise MissingRuleError(
            f"srcad builds only NamedTuples and dataclasses whose initialiser stores its "
            f"fields as they are, not a {kind.__name__}; register a rule for it"
        )
    return fields


def _field_bars(bar: Any, kind: type, names: tuple[str, ...]) -> list[Any]:
    """The (co)tangents of the fields `names` of a value of `kind`, from its own."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return [ZeroTangent()] * len(names)
    fields = _fields_of(kind)
    if issubclass(kind, tuple):  # a NamedTuple's: by element, or by field name
        by_name = dict(zip(fields, elements_of(bar, len(fields)), strict=True))
        return [by_name[name] for name in names]
    return [getattr(bar, name) for name in names]


def _struct_tangent(kind: type, names: tuple[str, ...], dots: list[Any]) -> Any:
    given = {name: dot for name, dot in zip(names, dots, strict=True)}
    if all(isinstance(d, AbstractZero) for d in given.values()):
        return ZeroTangent()
    return Tangent(kind, **given)


@rules.rrule(make_struct)
def make_struct_rrule(kind: type, *values: Any) -> tuple[Any, Pullback]:
    names = _fields_of(kind)[: len(values)]

    def make_struct_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), NoTangent(), *_field_bars(y_bar, kind, names))

    return make_struct(kind, *values), make_struct_pullback


@rules.frule(make_struct)
def make_struct_frule(dargs: tuple[Any, ...], kind: type, *values: Any) -> tuple[Any, Any]:
    names = _fields_of(kind)[: len(values)]
    dots = [unthunk(d) for d in dargs[2:]]
    return make_struct(kind, *values), _struct_tangent(kind, names, dots)


@rules.rrule(replace_fields)
def replace_fields_rrule(value: Any, names: tuple[str, ...], *values: Any) -> tuple[Any, Pullback]:
    """`dataclasses.replace`: the replaced fields' cotangents go to the new values, the
    others' to the value replaced in."""
    kind = type(value)
    kept = tuple(name for name in _fields_of(kind) if name not in names)

    def replace_fields_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(unthunk(y_bar), AbstractZero):
            return (NoTangent(), ZeroTangent(), NoTangent(), *(ZeroTangent() for _ in values))
        value_bar = _struct_tangent(kind, kept, _field_bars(y_bar, kind, kept))
        return (NoTangent(), value_bar, NoTangent(), *_field_bars(y_bar, kind, names))

    return replace_fields(value, names, *values), replace_fields_pullback


@rules.frule(replace_fields)
def replace_fields_frule(
    dargs: tuple[Any, ...], value: Any, names: tuple[str, ...], *values: Any
) -> tuple[Any, Any]:
    kind = type(value)
    fields = _fields_of(kind)
    dots = dict(zip(fields, _field_bars(dargs[1], kind, fields), strict=True))
    dots.update(zip(names, (unthunk(d) for d in dargs[3:]), strict=True))
    return replace_fields(value, names, *values), _struct_tangent(
        kind, fields, [dots[name] for name in fields]
    )


# An instance `__init__` is building: its attributes have no derivative before they are
# set, so the empty instance has none.
rules.non_differentiable(new_instance)


def _without(bar: Any, name: str) -> Any:
    """The part of an instance's (co)tangent `bar` (a `Tangent` by attribute name) that is
    not the attribute `name`'s."""
    rest = {k: v for k, v in bar.fields.items() if k != name}
    return Tangent.of_mapping(bar.primal_type, rest) if rest else ZeroTangent()


@rules.rrule(with_attribute)
def with_attribute_rrule(instance: Any, name: str, value: Any) -> tuple[Any, Pullback]:
    """Setting an attribute as a new instance: the attribute's cotangent goes to the value
    set, the others' to the instance it was set on."""

    def with_attribute_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), ZeroTangent(), NoTangent(), ZeroTangent())
        return (NoTangent(), _without(y_bar, name), NoTangent(), y_bar[name])

    return with_attribute(instance, name, value), with_attribute_pullback


@rules.frule(with_attribute)
def with_attribute_frule(
    dargs: tuple[Any, ...], instance: Any, name: str, value: Any
) -> tuple[Any, Any]:
    instance_dot, value_dot = unthunk(dargs[1]), unthunk(dargs[3])
    fields = {} if isinstance(instance_dot, AbstractZero) else dict(instance_dot.fields)
    fields[name] = value_dot
    y = with_attribute(instance, name, value)
    if all(isinstance(d, AbstractZero) for d in fields.values()):
        return y, ZeroTangent()
    return y, Tangent.of_mapping(type(instance), fields)


# Building a struct, replacing its fields and setting an attribute move values and tangents
# alike, by field name: linear in every argument, so their forward rules' reverse rules
# pull the result and its tangent back through the same pullback (second derivatives),
# complex fields too.
for _moving in (make_struct, replace_fields, with_attribute):
    rules.primitive(_moving, linearity=Linearity.LINEAR_IN_ALL)
