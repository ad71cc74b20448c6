"""The seed's `addone`: it mutates an array it made itself, which srcad refuses to
differentiate through (with the line, and what to do); with the seed's rule registered, the
gradient is right, also for functions that call it."""

import numpy as np

import srcad


def addone(a):
    b = np.empty_like(a)
    b[:] = a + 1.0  # the seed's `b .= a .+ 1`: an in-place write
    return np.sum(b)


def twice_addone(a):
    return 2.0 * addone(a)


def main():
    a = np.array([1.0, 2.0, 3.0])
    try:
        srcad.grad(addone)(a)
    except srcad.MutationError as error:
        print("without a rule:", error)

    @srcad.rrule.register(addone)
    def addone_rrule(a):
        y = addone(a)

        def addone_pullback(y_bar):
            return srcad.NoTangent(), np.ones_like(a) * y_bar

        return y, addone_pullback

    print("with the rule:", srcad.grad(addone)(a), srcad.grad(twice_addone)(a))
    print(srcad.source(twice_addone))


if __name__ == "__main__":
    main()
