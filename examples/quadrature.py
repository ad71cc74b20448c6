"""A quadrature routine whose rule uses the fundamental theorem of calculus for its bounds,
and calls back into srcad (`rrule_via_ad`) for the integrand's parameter, instead of
differentiating through the loop of the numerical integration."""

import numpy as np

import srcad
from srcad.testing import check_rrule

NODES = 400


def integrate(f, a, b, theta):
    """The trapezoidal rule for the integral of f(x, theta) over x from a to b."""
    h = (b - a) / NODES
    total = 0.5 * (f(a, theta) + f(b, theta))
    for i in range(1, NODES):
        total = total + f(a + i * h, theta)
    return total * h


@srcad.rrule.register(integrate, config=True)
def integrate_rrule(config, f, a, b, theta):
    y = integrate(f, a, b, theta)
    h = (b - a) / NODES
    nodes = a + h * np.arange(NODES + 1)
    weights = np.full(NODES + 1, h)
    weights[[0, -1]] = h / 2
    pullbacks = [config.rrule_via_ad(f, x, theta)[1] for x in nodes]
    f_a, f_b = f(a, theta), f(b, theta)

    def integrate_pullback(y_bar):
        # d/db = f(b), d/da = -f(a); d/dtheta = the integral of df/dtheta.
        theta_bar = sum(
            w * pullback(y_bar)[2] for w, pullback in zip(weights, pullbacks, strict=True)
        )
        return srcad.NoTangent(), srcad.NoTangent(), -f_a * y_bar, f_b * y_bar, theta_bar

    return y, integrate_pullback


def gaussian(x, theta):
    return np.exp(-theta * x * x)


def area(a, b, theta):
    return integrate(gaussian, a, b, theta) * 2.0


def main():
    check_rrule(area, -0.5, 1.0, 0.7, rtol=1e-4, atol=1e-6)
    print("check_rrule(area, -0.5, 1.0, 0.7): passed (the rule differentiates the integral;")
    print("finite differences see the quadrature, which agrees to its accuracy)")
    print(srcad.source(area))
    print("gradient:", srcad.grad(area, wrt=(0, 1, 2))(-0.5, 1.0, 0.7))


if __name__ == "__main__":
    main()
