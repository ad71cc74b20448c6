"""Helpers in a module of their own that change their arguments or their module's state:
callers in other modules are refused at the call and at the change."""

HISTORY = []


def scale_in_place(x, factor):
    x *= factor


def record(value):
    HISTORY.append(value)
    return value


def fill_with(x, value):
    x.fill(value)


def through(x, value):
    scale_in_place(x, value)
    return None
