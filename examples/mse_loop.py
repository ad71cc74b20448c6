"""The seed's mean squared error, written as an explicit index loop: srcad keeps one record
per iteration on a tape, and the named pullback walks it backwards."""

import numpy as np

import srcad


def mse(y, yhat):
    N = len(y)  # noqa: N806 (the seed's spelling)
    s = 0.0
    for i in range(N):
        s += (y[i] - yhat[i]) ** 2.0
    return s / N


def main():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    yhat = np.array([1.5, 1.5, 2.5, 4.5])
    print(srcad.source(mse))
    y_bar, yhat_bar = srcad.grad(mse, wrt=(0, 1))(y, yhat)
    print("d mse / d y:   ", y_bar)
    print("d mse / d yhat:", yhat_bar)


if __name__ == "__main__":
    main()
