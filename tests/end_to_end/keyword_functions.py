"""Functions that pass differentiated values by keyword to keyword-only parameters and
`**kwargs`, and forward them with `**`. Read by `test_keywords.py`."""

import numpy as np


def scaled(x, scale=1.0):
    return x * scale


def keyword_only(x, *, scale, shift=0.5):
    return np.sin(x) * scale + shift * x


def collects(x, **options):
    return x * options["s"] + options.get("t", 2.0) * x * x


def forwards(x, **options):
    return scaled(x, **options)


def forwards_twice(x, **options):
    return forwards(x, **options) + keyword_only(x, **options)


def to_keyword_only(x, y):
    return keyword_only(x, scale=y * y) + keyword_only(y, shift=x, scale=2.0)


def to_double_star(x, y):
    return collects(x, s=np.cos(y)) + collects(y, t=x, s=x * y)


def forwarded(x, y):
    return forwards(x, scale=y) + forwards_twice(y, scale=x * y)


def forwarded_display(x, y):
    options = {"scale": y * 2.0}
    return scaled(x, **options) + scaled(y, **{"scale": x})


def on_arrays(v, w):
    return np.sum(keyword_only(v, scale=w) * forwards(w, scale=v))


def passed_twice(x, y):
    options = {"scale": y}
    return scaled(x, scale=x, **options)


def with_default(v, *, scale=2.0):
    return np.sin(v) * scale


def module_helper_keywords(x, y):
    """A module-level helper's keyword-only parameter: its default, a constant, and a
    value computed from the inputs."""
    return with_default(x) + with_default(y, scale=3.0) + with_default(x, scale=x * y)


def nested_keyword_only(x, y):
    def inner(v, *, scale=2.0):
        return np.sin(v) * scale

    return inner(x) + inner(y, scale=3.0) + inner(x, scale=np.exp(y) * x)


def nested_keyword_required(x, y):
    def inner(v, *, scale, shift=0.5):
        return v * v * scale + shift

    return inner(x, scale=np.cos(y)) + inner(y, shift=x * 2.0, scale=1.5)


def nested_keyword_reads_the_closure(x, y):
    s = x + y

    def inner(v, *, scale=1.0):
        return v * scale * s

    return inner(x, scale=y) + inner(y)


def nested_keyword_in_a_loop(x, y):
    def inner(v, *, scale=1.0):
        return np.tanh(v * scale)

    total = 0.0
    for k in range(3):
        total = total + inner(x + k, scale=y * (k + 1))
    return total


def nested_keyword_to_module_keyword(x, y):
    def outer(v, *, scale=1.0):
        return with_default(v, scale=scale * v)

    return outer(x, scale=y) + outer(y)


def nested_keyword_after_star_args(x, y):
    def inner(v, *rest, scale=1.0):
        return v * scale + sum(rest)

    return inner(x, y, scale=x * y)


def nested_keyword_on_arrays(v, w):
    def inner(u, *, scale=2.0):
        return np.sin(u) * scale

    return np.sum(inner(v, scale=w * v) + inner(w))


# Third derivatives (`test_keywords.py`): one argument, so that every mixed partial of the
# keywords' and the positional arguments' counts.


def third_keyword_only(t):
    return keyword_only(np.cos(t), scale=t**3, shift=np.exp(t))


def third_double_star(t):
    return collects(t * t, s=np.sin(t), t=t**3) * t


def third_forwarded_dict(t):
    options = {"scale": np.exp(t)}
    return scaled(np.sin(t), **options) * forwards(t, scale=t * t)


def third_forwarded_twice(t):
    return forwards_twice(np.sin(t), scale=t * t) * np.cos(t)


def third_star_and_keywords(t):
    return keyword_only(*[t * t], scale=np.tanh(t)) ** 2


def third_on_arrays(t):
    v = np.array([0.7, -1.3, 0.4]) * t
    return np.sum(keyword_only(v, scale=np.cos(v) * t) * forwards(v, scale=v * v))
