# The coefficients of expApprox's polynomial (src/kernels/attention_tile.hpp): e^r ~ 1 + r + r^2 q(r)
# on |r| <= ln2/2, q of degree D-2 (default D = 6), fitted for the least maximum relative error by
# Lawson's algorithm (iteratively reweighted least squares over Chebyshev-spaced points). Offline:
#   python3 scripts/fit/exp_polynomial.py [D]
# prints the maximum relative error of the fit and each coefficient as the nearest float (hex).
# Degree 6 gives 3.1e-9 (the Taylor series to r^7 it replaced: 8e-9); degree 5 gives 1.05e-7, about
# an ulp, too much for the kernel's 2-ulp statement.
import math, sys
from lawson import fit, report
D = int(sys.argv[1]) if len(sys.argv) > 1 else 6
K = D - 1   # coefficients c2..cD
a = math.log(2) / 2 * 1.0005
N = 4001
rs = [a * math.cos(math.pi * (i + 0.5) / N) for i in range(N)]  # Chebyshev-distributed points
def g(r):  # (e^r - 1 - r) / r^2
    if abs(r) < 1e-3:
        return sum(r**k / math.factorial(k + 2) for k in range(8))
    return (math.expm1(r) - r) / (r * r)
# relative error of 1 + r + r^2 q: (r^2 (g - q)) / e^r  -> weight w = r^2 / e^r
ws = [r * r / math.exp(r) for r in rs]
gs = [g(r) for r in rs]
report(*fit(rs, ws, gs, K), first=2)
