"""Logistic-regression loss: print srcad's emitted rrule and the gradient for the weights."""

import numpy as np

import srcad


@srcad.differentiate(wrt=("w", "b"))
def loss(w, b, x, y):
    z = x @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3))
    y = (rng.random(8) > 0.5).astype(float)
    w = rng.standard_normal(3)
    print(loss.source())
    value, (w_bar, b_bar) = loss.value_and_grad(w, 0.1, x, y)
    print("loss:", value)
    print("d loss / d w:", w_bar)
    print("d loss / d b:", b_bar)


if __name__ == "__main__":
    main()
