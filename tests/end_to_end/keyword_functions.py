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
