"""Functions whose callees change values the caller can see (issue 17, items 1 and 12):
each must be refused at the call and at the change, or differentiated right."""

import functools

import mutation_helpers as helpers
import numpy as np

import srcad

COUNTER = []


def push(stack, value):
    stack.append(value)


def set_first(x, v):
    x[0] = v


def pushed_then_read(a):
    stack = []
    push(stack, a)
    return a * stack[0]


def set_then_summed(a):
    x = np.zeros(2)
    set_first(x, a)
    return np.sum(x) * a


def push_and_count(stack, value):
    stack.append(value)
    return len(stack)


def result_used(a):
    stack = []
    n = push_and_count(stack, a)
    return a * stack[0] * n


def inside_a_loop(a):
    stack = []
    for i in range(3):
        if i > 0:
            push(stack, a * i)
    return a * stack[-1]


def through_a_nested_function(a):
    stack = []

    def put(v):
        stack.append(v)

    put(a)
    return a * stack[0]


def through_a_lambda(a):
    stack = []
    put = lambda v: stack.append(v)  # noqa: E731
    put(a)
    return a * stack[0]


def through_another_module(a):
    x = np.array([1.0, 2.0]) * a
    helpers.scale_in_place(x, 2.0)
    return np.sum(x)


def through_two_calls(a):
    x = np.array([1.0, 2.0]) * a
    helpers.through(x, 3.0)
    return np.sum(x)


def recorded_in_another_module(a):
    helpers.record(a)
    return a * helpers.HISTORY[-1]


class Accumulator:
    def __init__(self):
        self.items = []

    def push(self, value):
        self.items.append(value)

    def total(self):
        return sum(self.items)


def method_changes_self(a):
    acc = Accumulator()
    acc.push(a)
    return a * acc.items[0]


def method_of_a_parameter(a, acc):
    acc.push(a)
    return a * acc.items[-1]


ACCUMULATOR = Accumulator()


def method_of_a_global(a):
    ACCUMULATOR.push(a)
    return a * ACCUMULATOR.items[-1]


def make_recorder():
    seen = []

    def remember(v):
        seen.append(v)

    return remember, seen


remember, SEEN = make_recorder()


def callee_changes_its_closure(a):
    remember(a)
    return a * SEEN[-1]


def log(value):
    COUNTER.append(value)


def callee_changes_a_global(a):
    log(a)
    return a * COUNTER[-1]


def global_list_appended(a):
    COUNTER.append(1)
    return a * a


STATE = {"scale": 1.0}


def set_scale(value):
    global STATE
    STATE = {"scale": value}


def callee_rebinds_a_global(a):
    set_scale(a)
    return a * STATE["scale"]


def changed_after_its_use(a):
    # The callee gets only constants, but changes `x`, which the pullback of `a * x` reads.
    x = np.array([1.0, 2.0])
    y = a * x
    helpers.scale_in_place(x, 3.0)
    return np.sum(y)


def filled_after_its_use(a):
    x = np.array([1.0, 2.0])
    y = a * x
    helpers.fill_with(x, 5.0)
    return np.sum(y)


def sort_it(x):
    x.sort()


def extend_it(items, more):
    items.extend(more)


def update_it(d, value):
    d.update(scale=value)


def add_into(a, b):
    np.add(a, b, out=a)


def sorted_by_a_helper(a):
    x = np.array([3.0, 1.0, 2.0]) * a
    w = np.array([1.0, 2.0, 3.0])
    sort_it(w)
    return np.sum(x * w)


def extended_by_a_helper(a):
    items = [a]
    extend_it(items, [2.0 * a])
    return items[0] * items[-1]


def updated_by_a_helper(a):
    d = {"scale": 1.0}
    update_it(d, a)
    return a * d["scale"]


def added_into_by_a_helper(a):
    x = np.array([1.0, 2.0]) * a
    add_into(x, np.array([1.0, 1.0]))
    return np.sum(x * x)


def recursive_push(stack, value, depth):
    if depth > 0:
        recursive_push(stack, value, depth - 1)
    else:
        stack.append(value)


def through_recursion(a):
    stack = []
    recursive_push(stack, a, 2)
    return a * stack[0]


# -- what stays allowed ----------------------------------------------------------------------


def appended_here(a):
    stack = []
    stack.append(a)
    stack.append(a * a)
    return stack[0] * stack[1]


def basis(n, i):
    e = np.zeros(n)
    e[i] = 1.0
    return e


def collect(values):
    out = []
    for v in values:
        out.append(v * 2.0)
    return out


def callee_changes_only_its_own(a):
    e = basis(3, 1)
    doubled = collect([1.0, 2.0])
    return np.sum(e * a) * doubled[1] + a * a


class Box:
    def __init__(self, value):
        self.value = value

    def scaled(self, factor):
        return self.value * factor


def initialiser_sets_its_own_fields(a):
    box = Box(2.0)
    return box.scaled(a) * a


def push_with_rule(stack, value):
    stack.append(value)


@srcad.rrule.register(push_with_rule)
def push_with_rule_rrule(stack, value):
    y = push_with_rule(stack, value)

    def push_with_rule_pullback(y_bar):
        return srcad.NoTangent(), srcad.NoTangent(), srcad.NoTangent()

    return y, push_with_rule_pullback


def calls_a_function_with_a_rule(a):
    stack = []
    push_with_rule(stack, 1.0)
    return a * a


# -- calls of values srcad sees only when they run -------------------------------------------


def value_called_with_constants(a, fn):
    n = fn([], 2.0)
    return a * a * n


def count_only(stack, value):
    return len(stack) + 1


def changed_by_a_passed_function(a, fn):
    x = np.array([1.0, 2.0])
    y = a * x
    fn(x, 3.0)
    return np.sum(y)


def nested_calls_a_method_of_a_parameter(a, acc):
    def inner():
        acc.push(1.0)

    inner()
    return a * a


def box_then_set(a):
    box = Box(1.0)
    box.set(a)
    return box.scaled(a)


def _box_set(self, value):
    self.value = value


Box.set = _box_set


def calls_outer(a):
    x = np.array([1.0, 2.0]) * a
    outer(x)
    return np.sum(x)


def outer(x):
    return inner_helper(x)


def inner_helper(x):
    return x


push_later = functools.partial(push)


@functools.lru_cache
def cached_push(value):
    COUNTER.append(value)
    return value


def through_a_partial(a):
    stack = []
    push_later(stack, a)
    return a * stack[0]


def through_a_cached_function(a):
    return a * cached_push(2.0)


def through_the_class_of_a_method(a):
    d = {"scale": 1.0}
    dict.update(d, scale=a)
    return a * d["scale"]


def scatter_rows(out, rows, values):
    out[rows] = values


def vector_valued(x):
    # A 2-d array filled by a helper, then combined with the differentiated vector.
    grid = np.zeros((2, 3))
    scatter_rows(grid, 0, x)
    return grid @ np.ones(3) * x[:2]


def in_a_branch(x):
    stack = []
    if np.sum(x) > 0.0:
        push(stack, x * 2.0)
    else:
        stack = [x]
    return stack[0] * x


def in_a_comprehension(x):
    stack = []
    [push(stack, v) for v in x]
    return x * stack[0]


def constants_pushed_then_differentiated_data(a):
    stack = []
    push(stack, 1.0)
    stack.append(a)
    return stack[0] * stack[1] * a
