"""Mean squared error written with whole-array NumPy operations, and its gradient."""

import numpy as np

import srcad


def mse(y, yhat):
    diff = y - yhat
    return np.sum(diff**2) / y.shape[0]


def main():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    yhat = np.array([1.5, 1.5, 2.5, 4.5])
    print(srcad.source(mse))
    y_bar, yhat_bar = srcad.grad(mse, wrt=(0, 1))(y, yhat)
    print("d mse / d y:   ", y_bar)
    print("d mse / d yhat:", yhat_bar)


if __name__ == "__main__":
    main()
