"""The seed's `exception`: try/except cannot be differentiated through, so srcad refuses it
at compile time with the line; the seed's rule makes it differentiable."""

import srcad


def exception(x):
    try:
        return x**2
    except TypeError:
        print("could not square input")
        raise


def main():
    try:
        srcad.grad(exception)(3.0)
    except srcad.UnsupportedSyntaxError as error:
        print("without a rule:", error)

    @srcad.rrule.register(exception)
    def exception_rrule(x):
        y = exception(x)

        def exception_pullback(y_bar):
            return srcad.NoTangent(), 2.0 * x * y_bar

        return y, exception_pullback

    print("with the rule: d/dx at 3.0 =", srcad.grad(exception)(3.0))
    print("a caller's rrule uses it:")
    print(srcad.source(caller))


def caller(x):
    return exception(x) + x


if __name__ == "__main__":
    main()
