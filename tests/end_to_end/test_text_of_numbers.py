"""A differentiated value written as text and read back as a number (`float(str(x))` is
`x`): srcad takes text as constant, so its derivative was 0 with no error. Refused where the
number is read (E104, `passes/checks/text_numbers.py`); text that is only printed or
measured, and numbers converted as numbers, are differentiated."""

import inspect
import json

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference


def str_round_trip(s):
    return float(str(s)) * s


def f_string_in_a_name(s):
    text = f"{s * 2.0:.17g}"
    trimmed = text.strip()
    return float(trimmed) + s


def percent_and_format(s):
    return np.float64("%.17g" % s) + float("{}".format(s))  # noqa: UP031, UP032


def json_round_trip(s):
    return json.loads(json.dumps({"a": s}))["a"] * s


def array_of_text(x):
    return np.sum(np.array([str(float(v)) for v in x]).astype(float) * x)


def joined_and_split(s):
    parts = [f"{v:.17g}" for v in (s, 2.0 * s)]
    joined = ",".join(parts)
    return sum(float(p) for p in joined.split(","))


def joined_by_map(s):
    text = ",".join(map(str, [s, 2.0 * s]))
    return sum(float(p) for p in text.split(","))


REFUSED = [
    (str_round_trip, (0.7,), "float(str(s))"),
    (f_string_in_a_name, (0.7,), "float(trimmed)"),
    (percent_and_format, (0.7,), "np.float64("),
    (json_round_trip, (0.7,), "json.loads("),
    (array_of_text, (np.array([0.3, -0.7, 1.2]),), ".astype(float)"),
    (joined_and_split, (0.7,), "float(p)"),
    (joined_by_map, (0.7,), "float(p)"),
]


@pytest.mark.parametrize(("f", "args", "text"), REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_a_number_read_from_its_text_is_refused_where_it_is_read(f, args, text):
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(f)(*args)
    lines, start = inspect.getsourcelines(f)
    line = start + next(i for i, source in enumerate(lines) if text in source)
    found = [d for d in raised.value.diagnostics if d.code == "E104"]
    assert found and found[0].line == line, raised.value


def printed_and_measured(s):
    label = f"value {s:.3f}"
    width = len(label)
    print(label, end="")
    return float(s) * width + float("2.5") + np.float64(s) * 2.0


def text_of_constants(s):
    names = list(map(str, [1, 2]))
    return float(len(names)) * s + float(names[0]) * s


def numbers_converted_as_numbers(x):
    shape_text = str(x.shape)
    return np.sum(np.asarray(x, dtype=float) ** 2) + float(len(shape_text)) * np.sum(x)


TAKEN = [
    (printed_and_measured, (0.7,)),
    (text_of_constants, (0.7,)),
    (numbers_converted_as_numbers, (np.array([0.3, -0.7, 1.2]),)),
]


@pytest.mark.parametrize(("f", "args"), TAKEN, ids=lambda v: getattr(v, "__name__", ""))
def test_text_that_is_not_read_back_is_no_refusal(f, args):
    value, gradient = srcad.value_and_grad(f)(*args)
    close(value, f(*args))
    close(gradient, difference(f, args))
    tangent = np.ones_like(args[0]) * 0.6
    _, y_dot = srcad.jvp(f, args, (tangent,))
    close(y_dot, np.sum(difference(f, args) * tangent))
