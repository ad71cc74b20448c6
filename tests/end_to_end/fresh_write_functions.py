"""Functions that write into values they made (issue 20, "writes into values the function
created"), and their neighbours whose writes must stay refused. Read by
`test_fresh_writes.py`."""

import numpy as np

# -- written, and differentiated --------------------------------------------------------------


def rows_in_a_loop(x, y):
    out = np.zeros(3)
    for i in range(3):
        out[i] = x[0, i] * y[0] + np.sin(x[1, i])
    return np.sum(out**2)


def column_added_in_a_loop(x, y):
    out = np.zeros((2, 3))
    for j in range(3):
        out[:, j] += x[:, j] * y[1]
    return np.sum(out * out)


def recurrence(x, y):
    h = np.zeros(4)
    h[0] = y[0]
    for t in range(1, 4):
        h[t] = np.tanh(h[t - 1] * x[0, t - 1] + y[1])
    return np.sum(h**2)


def mask_tuple_and_row(x, y):
    out = x * 1.0
    out[out > 0.4] = y[0] * 3.0
    out[1, 2] = y[1] ** 2
    out[0, :] *= y[0]
    out[-1, 1:] -= np.cos(x[0, :2])
    return np.sum(out**3)


def distinct_fancy_indices(x, y):
    out = np.ones(5)
    out[[0, 3]] = x[0, :2] * y
    out[np.array([1, 4])] += x[1, 1:]
    return np.sum(np.cos(out))


def broadcast_into_a_slice(x, y):
    out = np.zeros((3, 3))
    out[1:] = y[0] * x[0]
    out[0] = np.sum(x) * y[1]
    out[:, -1] += y[1]
    return np.sum(np.sin(out))


def copy_of_a_parameter(x, y):
    out = x.copy()
    out[0, 0] = y[0] * y[1]
    out += x * y[0]
    return np.sum(out**2)


def unpacked_into_items(x, y):
    out = np.zeros(2)
    out[0], out[1] = y[1] * x[0, 0], y[0] * x[1, 1]
    return out[0] * out[1] + np.sum(out)


def written_in_a_helper(x, y):
    return np.sum(fill_from(x[0] * y[0]) ** 2)


def fill_from(v):
    out = np.empty_like(v)
    for i in range(len(v)):
        out[i] = np.exp(v[i]) if v[i] < 0.5 else v[i] ** 2
    return out


def written_in_a_nested_function(x, y):
    def fill(v):
        out = np.zeros(3)
        for i in range(3):
            out[i] = v[i] * y[0]
        return out

    return np.sum(fill(x[1]) ** 2)


def dict_filled(x, y):
    d = {}
    d["a"] = x[0] * y[0]
    d["b"] = np.sin(x[1])
    d["a"] = d["a"] * 2.0
    return np.sum(d["a"] * d["b"]) + y[1]


def list_filled(x, y):
    xs = [0.0] * 3
    for i in range(3):
        xs[i] = np.sum(x[:, i]) * y[i % 2]
    xs[-1] += y[0]
    return xs[0] * xs[1] + xs[2] ** 2


def trajectory_then_array(x, y):
    traj = []
    h = y[0]
    for i in range(3):
        h = np.tanh(h * x[0, i] + y[1])
        traj.append(h)
    traj = np.array(traj)
    return np.sum(traj**2)


def trajectory_read_whole_once_complete(x, y):
    traj = []
    for i in range(3):
        traj.append(x[0, i] * y[0])
    total = traj
    return np.sum(np.array(total) ** 2) + traj[1] * y[1]


def written_into_an_int_array(x, y):
    out = np.zeros(3, dtype=int)
    out[0] = x[0, 0] * 10.0
    return np.sum(out) * y[0] + np.sum(x * y[1])


# Writes that read the array they write (`passes/checks/fresh_values.py: _writes_into_itself`):
# NumPy writes overlapping memory as if from a copy, so each reads the old values.


def shifted_by_its_own_view(x, y):
    z = x.copy()
    z[:, 1:] = z[:, :-1]
    z[0] = z[-1]
    return np.sum(z * z * np.arange(3.0)) * y[0]


def shift_register_in_a_loop(x, y):
    h = np.zeros(4)
    for t in range(3):
        h[1:] = h[:-1]
        h[0] = np.tanh(x[0, t] * y[0] + h[1] * y[1])
    return np.sum(h**2 * np.arange(1.0, 5.0))


def stepped_and_reversed_into_itself(x, y):
    z = np.zeros(6)
    z[:3] = x[0] * y[0]
    z[3:] = x[1] * y[1]
    z[::2] = z[1::2]
    z[::-1] = z
    z[-1] = z[0] * z[-2]
    return np.sum(z**3 * np.arange(1.0, 7.0))


def columns_reversed_into_itself(x, y):
    z = np.zeros((2, 3))
    z += x * y[0]
    z[:, ::-1] = z
    z[1, -2:] = z[0, :2]
    return np.sum(np.sin(z) * np.arange(6.0).reshape(2, 3)) + y[1] * z[1, 1]


def _smoothed(values, y):
    """A helper whose result srcad cannot prove new (it may be its argument)."""
    return values * 0.5 + np.roll(values, 1) * y[1]


def rebound_after_its_writes(x, y):
    """A variable written while it holds a new array, then bound in a loop after the write
    to what a helper returns (autograd's wing example: smoke bands written, then advected):
    the later binding reaches no write."""
    smoke = np.zeros(3)
    smoke[1:] = x[0, 1:] * y[0]
    for _ in range(2):
        smoke = _smoothed(smoke, y)
    return np.sum(smoke**2) + np.sum(x[1] * smoke)


def _banded(x, y):
    band = np.zeros(3)
    band[:2] = x[1, :2] + y[0]
    for _ in range(2):
        band = _smoothed(band, y)
    return band


def rebound_after_its_writes_in_a_callee(x, y):
    """The same in a helper, which runs as it is: `band` holds a new array where it is
    written, whatever it holds after."""
    return np.sum(_banded(x, y) * x[0])


WRITTEN = [
    rows_in_a_loop,
    column_added_in_a_loop,
    recurrence,
    mask_tuple_and_row,
    distinct_fancy_indices,
    broadcast_into_a_slice,
    copy_of_a_parameter,
    unpacked_into_items,
    written_in_a_helper,
    written_in_a_nested_function,
    dict_filled,
    list_filled,
    trajectory_then_array,
    trajectory_read_whole_once_complete,
    written_into_an_int_array,
    shifted_by_its_own_view,
    shift_register_in_a_loop,
    stepped_and_reversed_into_itself,
    columns_reversed_into_itself,
    rebound_after_its_writes,
    rebound_after_its_writes_in_a_callee,
]

# -- shared, and refused ------------------------------------------------------------------------


def into_a_parameter(x, y):
    x[0, 0] = y[0]
    return np.sum(x)


def into_an_alias(x, y):
    out = np.zeros(3)
    alias = out
    out[0] = x[0, 0]
    return np.sum(alias) + y[0]


def into_a_row_kept_as_a_view(x, y):
    out = np.zeros((2, 3))
    row = out[0]
    out[0, 1] = x[0, 0]
    return np.sum(row) + y[0]


def into_a_value_a_list_holds(x, y):
    out = np.zeros(3)
    keep = [out]
    out[0] = x[0, 0]
    return np.sum(keep[0]) + y[0]


def a_list_into_itself(x, y):
    xs = [0.0, 0.0]
    xs[0] = xs
    return y[0]


def read_by_a_nested_function(x, y):
    out = np.zeros(3)

    def total():
        return np.sum(out)

    out[0] = x[0, 0]
    return total() + y[0]


def into_an_item_of_an_item(x, y):
    rows = [np.zeros(2), np.zeros(2)]
    rows[0][1] = x[0, 0]
    return np.sum(rows[0]) + y[0]


def after_a_view_of_an_element(x, y):
    z = x * 1.0
    r = z[0]
    z *= y[0]
    return np.sum(r)


def returned_by_a_helper_then_written(x, y):
    out = kept_buffer(x)
    out[0, 0] = y[0]
    return np.sum(out)


def kept_buffer(x):
    return x


def kept_through_or(x, y):
    ys = [x[0, 0] * 1.0]
    zs = ys or [0.0]
    ys += [y[0] * 2.0]  # a list's `+=` extends it in place: `zs` is `ys`
    return sum(zs)


BUFFER = np.zeros(3)


def into_a_global(x, y):
    BUFFER[0] = x[0, 0]
    return np.sum(BUFFER) + y[0]


def its_own_view_kept_after_the_write(x, y):
    z = x.copy()
    shifted = z[:, :-1]
    z[:, 1:] = shifted
    return np.sum(z) + np.sum(shifted) * y[0]  # `shifted` sees the write


def an_item_of_a_list_into_another(x, y):
    rows = [x[0] * 1.0, x[1] * 1.0]
    rows[1] = rows[0]
    rows[1] += y[0]  # in place on the array both items hold
    return np.sum(rows[0] ** 2)


def element_written_twice(x, y):
    out = np.zeros(3)
    out[[0, 0]] = x[0, :2] * y[0]
    return np.sum(out)


def rebound_in_the_loop_around_the_write(x, y):
    out = np.zeros(3)
    for i in range(2):
        out[i] = x[0, i] * y[0]
        out = kept_buffer(out)  # the next pass writes into what the helper returned
    return np.sum(out)


def _rebinding_around_its_write(x, y):
    out = np.zeros(3)
    for i in range(2):
        out[i] = x[0, i] * y[0]
        out = kept_buffer(out)
    return out


def rebound_in_the_loop_around_the_write_in_a_callee(x, y):
    return np.sum(_rebinding_around_its_write(x, y))
