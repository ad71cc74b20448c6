"""User classes with their own `__init__` built inside the differentiated function
(`srcad.constructors`), their methods and properties, on instances built inside and passed
in, inheritance resolved by the class's MRO, and callable objects: against central finite
differences in both modes. What stays refused is refused at its line."""

import inspect

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, finite_difference_jvp, finite_difference_vjp
from tests.conftest import check_two_argument_gradient, close
from tests.end_to_end import class_functions as m

SCALARS = [
    m.build_and_read,
    m.build_by_keyword,
    m.build_and_call_method,
    m.build_and_read_property,
    m.computed_fields,
    m.computed_fields_other_branch,
    m.inherited,
    m.overridden,
    m.nested_objects,
    m.built_by_a_helper,
    m.built_in_a_loop,
]
ARRAYS = [m.callable_built_inside, m.callable_global]
POINTS = [(0.7, 0.6), (-1.3, 0.4), (2.0, -0.9)]
VECTOR = np.array([0.7, -1.3, 0.2])


def _cases():
    for f in SCALARS:
        for args in POINTS:
            yield f, args
    for f in ARRAYS:
        yield f, (VECTOR, 0.6)
        yield f, (VECTOR[:2] * 2.0, -0.3)


CASES = list(_cases())


@pytest.mark.parametrize(("f", "args"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_reverse_mode(f, args):
    check_two_argument_gradient(f, args)


@pytest.mark.parametrize(("f", "args"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode(f, args):
    tangents = (np.full(np.shape(args[0]), 0.7) if np.ndim(args[0]) else 0.7, -0.4)
    value, y_dot = srcad.jvp(f, args, tangents)
    close(value, f(*args))
    close(y_dot, finite_difference_jvp(f, args, tangents))
    check_frule(f, *args)


def test_one_compilation_serves_each_class_that_inherits_an_init():
    """`Point3` runs `Point.__init__`: its initialiser builds a `Point3`, whose `lifted`
    only `Point3` has."""
    assert type(srcad.rrule(m.Point3, 0.5, 0.25)[0]) is m.Point3
    assert type(srcad.rrule(m.Point, 0.5, 0.25)[0]) is m.Point
    want = finite_difference_vjp(m.inherited, (0.5, 0.25), 1.0, 0)
    close(srcad.grad(m.inherited)(0.5, 0.25), want)


def test_the_class_itself_and_its_instance():
    """`rrule`, `frule` and `jacobian` of the class: the instance's cotangent and tangent
    by attribute name."""
    p, pullback = srcad.rrule(m.Point, 0.5, 0.25)
    assert (p.a, p.b) == (0.5, 0.25)
    bar = srcad.Tangent.of_mapping(m.Point, {"a": 2.0, "b": 3.0})
    assert pullback(bar)[1:] == (2.0, 3.0)
    _, p_dot = srcad.frule((srcad.NoTangent(), 1.0, 0.0), m.Point, 0.5, 0.25)
    assert (p_dot.a, p_dot.b) == (1.0, 0.0)


def test_methods_and_properties_of_an_instance_passed_in():
    """The gradient with respect to the instance is an instance of its class, holding each
    attribute's derivative."""
    p = m.Point(1.0, 2.0)
    gp, gx = srcad.grad(m.method_of_a_parameter, wrt=(0, 1))(p, 3.0)
    norm = np.sqrt(5.0)
    assert isinstance(gp, m.Point)
    close([gp.a, gp.b, gx], [3.0 / norm + 1.0, 6.0 / norm + 1.0, norm])
    _, y_dot = srcad.jvp(m.method_of_a_parameter, (p, 3.0), (m.Point(1.0, 0.0), 0.0))
    close(y_dot, 3.0 / norm + 1.0)


def test_bound_methods_and_callable_objects_as_the_target():
    close(srcad.grad(m.MODEL.loss)(VECTOR), 6.0 * VECTOR)
    close(srcad.grad(m.MODEL)(VECTOR), 3.0 * np.cos(VECTOR))
    _, y_dot = srcad.jvp(m.MODEL.loss, (VECTOR,), (np.ones(3),))
    close(y_dot, np.sum(6.0 * VECTOR))


def test_a_changed_init_is_compiled_again():
    """The code compiled from a class's `__init__` is guarded by it: rebinding the class's
    `__init__` compiles the new one."""

    class Moving:
        def __init__(self, a):
            self.a = 2.0 * a

    def doubled(self, a):
        self.a = 3.0 * a

    def build(x):
        return Moving(x).a

    assert srcad.grad(build)(1.0) == pytest.approx(2.0)
    Moving.__init__ = doubled
    assert srcad.grad(build)(1.0) == pytest.approx(3.0)


def test_second_order_through_an_instance():
    """An instance's tangent is read field by field through `getattr`, whose forward rule's
    reverse rule reads the cotangent the same way (`rules/second_order_calls.py`): the
    Hessian is the Jacobian of the gradient (more in `test_second_order_objects.py`)."""
    args = (0.7, 0.6)
    hessian = srcad.hessian(m.build_and_read, wrt=(0, 1))(*args)
    for position in (0, 1):
        gradient = srcad.grad(m.build_and_read, wrt=position)
        for other in (0, 1):
            step = tuple(1.0 if k == other else 0.0 for k in (0, 1))
            want = finite_difference_jvp(gradient, args, step)
            assert hessian[position][other] == pytest.approx(want, rel=1e-6, abs=1e-8)


def _line(f, text):
    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _refusal(f, *args):
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(f)(*args)
    return caught.value


@pytest.mark.parametrize(
    ("f", "cls", "text", "why"),
    [
        (m.escapes, m.Escapes, "self.a = a", "`self` is also used at line"),
        (m.reads_unset, m.ReadsUnset, "self.a = a * self.scale", "`self` is also used"),
        (m.with_setter, m.WithSetter, "self.value = a", "stored by a property of the class"),
    ],
)
def test_an_instance_that_may_be_shared_is_refused_in_its_init(f, cls, text, why):
    """Until its last write, `self` is read only for attributes `__init__` stored before:
    an instance passed on, or a class attribute read (maybe through a descriptor), is
    refused at the write; so is a write that a property's setter would make."""
    error = _refusal(f, 0.7)
    codes = [(d.code, d.line) for d in error.diagnostics]
    assert ("E301", _line(cls.__init__, text)) in codes
    assert why in str(error)


def test_changing_an_instance_after_it_is_built_stays_refused():
    error = _refusal(m.changes_after_building, 0.7)
    assert [(d.code, d.line) for d in error.diagnostics] == [
        ("E301", _line(m.changes_after_building, "p.a = 2.0 * x"))
    ]
    error = _refusal(m.changes_a_parameter, m.Point(1.0, 2.0), 0.7)
    assert error.diagnostics[0].code == "E301"


@pytest.mark.parametrize(
    ("f", "text"), [(m.slotted, "Slotted(x)"), (m.calls_super, "CallsSuper(x)")]
)
def test_classes_not_built_by_a_plain_init_are_refused_at_the_call(f, text):
    """`__slots__` (no instance `__dict__` to copy), and `super().__init__(...)` (a call
    that changes `self` in place), are refused where the class is called."""
    error = _refusal(f, 0.7)
    assert error.diagnostics[0].line == _line(f, text)
    assert error.diagnostics[0].code in ("E210", "E220")
