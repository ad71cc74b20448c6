"""The seed's `sum3`: three reads of an array; its gradient is one array with three ones."""

import numpy as np

import srcad


def sum3(array):
    x = array[0]
    y = array[1]
    z = array[2]
    return x + y + z


def main():
    print(srcad.source(sum3))
    print("gradient:", srcad.grad(sum3)(np.linspace(0.0, 1.0, 6)))


if __name__ == "__main__":
    main()
