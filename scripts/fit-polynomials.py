#!/usr/bin/python3
"""Fits the polynomials of compiler/codegen/fast_math.cc and compiler/ir/math_functions.cc.

Each is interpolation of g at Chebyshev nodes of [lo, hi] in 60-digit arithmetic (close to the
minimax polynomial), converted to monomial coefficients, rounded to double, and checked on a dense
grid: the printed error is the largest relative error of the whole function (not just g) when the
rounded polynomial is evaluated exactly. Needs Debian's python3-mpmath.
"""
import sys

import mpmath as mp

mp.mp.dps = 60


def fit(g, lo, hi, degree):
    nodes = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (2 * k + 1) / (2 * (degree + 1))) for k in range(degree + 1)]
    # Solve the Vandermonde system exactly (60 digits): monomial coefficients of the interpolant.
    a = mp.matrix([[n ** j for j in range(degree + 1)] for n in nodes])
    c = mp.lu_solve(a, mp.matrix([g(n) for n in nodes]))
    return [float(c[j]) for j in range(degree + 1)]


def horner(c, t):
    r = mp.mpf(0)
    for v in reversed(c):
        r = r * t + mp.mpf(v)
    return r


def check(name, c, whole, exact, lo, hi, points=4000):
    worst = 0
    for i in range(points + 1):
        t = lo + (hi - lo) * i / points
        e = exact(t)
        if e == 0:
            continue
        worst = max(worst, abs((whole(c, t) - e) / e))
    print(f"{name}: degree {len(c) - 1}, max relative error {float(worst):.3g}")
    print("  {" + ", ".join(repr(v) for v in c) + "}")


def small(g, u, series):
    # g(u) near 0, where the closed form cancels: its series.
    return series(u) if abs(u) < mp.mpf(10) ** -12 else g(u)


def main():
    deg = dict(a.split("=") for a in sys.argv[1:])
    d = lambda k, v: int(deg.get(k, v))
    q = mp.pi / 4 * (1 + mp.mpf(10) ** -6)
    # sin(r) = r + r u S(u), u = r^2, |r| <= pi/4.
    S = lambda u: small(lambda u: (mp.sin(mp.sqrt(u)) / mp.sqrt(u) - 1) / u, u, lambda u: -mp.mpf(1) / 6 + u / 120)
    c = fit(S, mp.mpf(0), q * q, d("sin", 4))
    check("sin", c, lambda c, r: r + r * r * r * horner(c, r * r), mp.sin, mp.mpf(10) ** -8, q)
    # cos(r) = 1 - u/2 + u^2 C(u).
    C = lambda u: small(lambda u: (mp.cos(mp.sqrt(u)) - 1 + u / 2) / (u * u), u, lambda u: mp.mpf(1) / 24 - u / 720)
    c = fit(C, mp.mpf(0), q * q, d("cos", 4))
    check("cos", c, lambda c, r: 1 - r * r / 2 + r ** 4 * horner(c, r * r), mp.cos, mp.mpf(0), q)
    # atan(t) = t + t u P(u), |t| <= tan(pi/8).
    t8 = mp.tan(mp.pi / 8) * (1 + mp.mpf(10) ** -6)
    A = lambda u: small(lambda u: (mp.atan(mp.sqrt(u)) / mp.sqrt(u) - 1) / u, u, lambda u: -mp.mpf(1) / 3 + u / 5)
    c = fit(A, mp.mpf(0), t8 * t8, d("atan", 7))
    check("atan", c, lambda c, t: t + t ** 3 * horner(c, t * t), mp.atan, mp.mpf(10) ** -8, t8)
    # asin(s) = s + s u P(u), |s| <= 0.5.
    B = lambda u: small(lambda u: (mp.asin(mp.sqrt(u)) / mp.sqrt(u) - 1) / u, u, lambda u: mp.mpf(1) / 6 + 3 * u / 40)
    c = fit(B, mp.mpf(0), mp.mpf(0.25), d("asin", 8))
    check("asin", c, lambda c, s: s + s ** 3 * horner(c, s * s), mp.asin, mp.mpf(10) ** -8, mp.mpf(0.5))
    # Float32 polynomials: expm1(x) = x + x^2 E(x) on [-1, 1].
    E = lambda x: small(lambda x: (mp.expm1(x) - x) / (x * x), x, lambda x: mp.mpf(1) / 2 + x / 6)
    c = fit(E, mp.mpf(-1), mp.mpf(1), d("expm1", 7))
    check("expm1", c, lambda c, x: x + x * x * horner(c, x), mp.expm1, mp.mpf(-1), mp.mpf(1))
    # sinh(x) = x + x u P(u), u = x^2 <= 1.
    H = lambda u: small(lambda u: (mp.sinh(mp.sqrt(u)) / mp.sqrt(u) - 1) / u, u, lambda u: mp.mpf(1) / 6 + u / 120)
    c = fit(H, mp.mpf(0), mp.mpf(1), d("sinh", 3))
    check("sinh", c, lambda c, x: x + x ** 3 * horner(c, x * x), mp.sinh, mp.mpf(10) ** -8, mp.mpf(1))
    # GELU's erf(t) = P(t - 1.95) on [0, 3.9], to an absolute error (what x (1 + erf) / 2 carries).
    c = fit(lambda s: mp.erf(s + mp.mpf(1.95)), mp.mpf(-1.95), mp.mpf(1.95), d("gelu_erf", 15))
    worst = max(abs(horner(c, mp.mpf(i) / 1000 - mp.mpf(1.95)) - mp.erf(mp.mpf(i) / 1000)) for i in range(3901))
    print(f"gelu_erf: degree {len(c) - 1}, max absolute error {float(worst):.3g}")
    print("  {" + ", ".join(repr(v) for v in c) + "}")


if __name__ == "__main__":
    main()
