"""ToANF: golden text of the normal form."""

import textwrap

import pytest

from srcad.passes.testing import show
from srcad.passes.transforms.to_anf import ToANF

CASES = {
    "nested_calls": (
        """
        def f(x):
            return np.sin(np.cos(x))
        """,
        """
        def f(x):
            cos_x = np.cos(x)
            out = np.sin(cos_x)
            return out
        """,
    ),
    "rebinding_keeps_the_name": (
        """
        def f(x):
            x = x * 2.0
            x += 1.0
            return x
        """,
        """
        def f(x):
            x = x * 2.0
            x = x + 1.0
            return x
        """,
    ),
    "swap_reads_before_binding": (
        """
        def f(a, b):
            a, b = b, a
            return a - b
        """,
        """
        def f(a, b):
            a_2 = a
            a = b
            b = a_2
            out = a - b
            return out
        """,
    ),
    "unpacking_a_value": (
        """
        def f(x):
            m, (n, k) = x.shape[0], x.shape[1:]
            return m
        """,
        """
        def f(x):
            x_shape = x.shape
            x_shape_2 = x.shape
            x_shape_2_slice = x_shape_2[1:]
            m = x_shape[0]
            n, k = x_shape_2_slice
            return m
        """,
    ),
    "docstring_and_pass_go": (
        '''
        def f(x):
            """Doc."""
            pass
            return x
        ''',
        """
        def f(x):
            return x
        """,
    ),
    "globals_stay_atoms": (
        """
        def f(x):
            return np.pi * x + math.e
        """,
        """
        def f(x):
            np_pi_times_x = np.pi * x
            out = np_pi_times_x + math.e
            return out
        """,
    ),
    "long_names_shrink": (
        """
        def f(x, w):
            return (x @ w - 1.0) ** 2
        """,
        """
        def f(x, w):
            x_matmul_w = x @ w
            minus = x_matmul_w - 1.0
            out = minus ** 2
            return out
        """,
    ),
    "conditional_expression_short_circuits": (
        """
        def f(x, y):
            return x / y if y != 0 else 0.0
        """,
        """
        def f(x, y):
            y_ne_0 = y != 0
            if y_ne_0:
                out = x / y
            else:
                out = 0.0
            return out
        """,
    ),
    "while_tests_at_the_top": (
        """
        def f(x, y):
            while x < 3 and y > 0:
                x = x * 2
            return x
        """,
        """
        def f(x, y):
            while True:
                x_lt_3 = x < 3
                both = x_lt_3
                if x_lt_3:
                    both = y > 0
                if not both:
                    break
                x = x * 2
            return x
        """,
    ),
    "chained_comparison_reads_the_middle_once": (
        """
        def f(x):
            return 0 < np.sin(x) < 1
        """,
        """
        def f(x):
            sin_x = np.sin(x)
            n0_lt_sin_x = 0 < sin_x
            out = n0_lt_sin_x
            if n0_lt_sin_x:
                out = sin_x < 1
            return out
        """,
    ),
    "loop_target_tuple_unpacks_in_the_body": (
        """
        def f(xs):
            for i, x in enumerate(xs):
                y = x
            return y
        """,
        """
        def f(xs):
            enumerate_xs = enumerate(xs)
            for item in enumerate_xs:
                i, x = item
                y = x
            return y
        """,
    ),
    "starred_targets_slice_the_items": (
        """
        def f(pair):
            (a, *b), c = pair
            first, *middle, last = b
            return a * c + last
        """,
        """
        def f(pair):
            item, c = pair
            items = list(item)
            len_items = len(items)
            len_items_lt_1 = len_items < 1
            if len_items_lt_1:
                raise ValueError(f'not enough values to unpack (expected at least 1, got {len_items})')
            a = items[0]
            b = items[1:]
            items_2 = list(b)
            len_items_2 = len(items_2)
            len_items_2_lt_2 = len_items_2 < 2
            if len_items_2_lt_2:
                raise ValueError(f'not enough values to unpack (expected at least 2, got {len_items_2})')
            first = items_2[0]
            middle = items_2[1:-1]
            last = items_2[-1]
            a_times_c = a * c
            out = a_times_c + last
            return out
        """,  # noqa: E501 (a normal-form statement is one line)
    ),
    "implicit_return_none": (
        """
        def f(x):
            y = x
        """,
        """
        def f(x):
            y = x
            return None
        """,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_normal_form(name):
    before, after = CASES[name]
    assert show(ToANF, before) == textwrap.dedent(after).lstrip("\n")
