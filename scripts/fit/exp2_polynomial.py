# The coefficients of the soft-capping kernel's 2^f (src/kernels/softcap.hpp): 2^f ~ 1 + f q(f) on
# |f| <= 1/2, q of degree D-1 (default D = 5), fitted for the least maximum relative error by Lawson's
# algorithm (iteratively reweighted least squares over Chebyshev-spaced points), as exp_polynomial.py
# fits the softmax's e^r. The constant term stays exactly 1, so 2^0 = 1 and a score of 0 stays 0.
# Offline:
#   python3 scripts/fit/exp2_polynomial.py [D]
# prints the maximum relative error of the fit (in exact arithmetic) and each coefficient as the nearest
# float (hex). Degree 5 gives 7.7e-8: tanh |x| = (1 - e) / (1 + e) takes at most half of e's relative
# error as absolute error, well inside the kernel's 2e-7 cap.
import math, sys
from lawson import fit, report
D = int(sys.argv[1]) if len(sys.argv) > 1 else 5
K = D       # coefficients c1..cD
a = 0.5 * 1.0005
N = 4001
fs = [a * math.cos(math.pi * (i + 0.5) / N) for i in range(N)]  # Chebyshev-distributed points
L = math.log(2)
def g(f):  # (2^f - 1) / f
    if abs(f) < 1e-4:
        return sum(L ** (k + 1) * f ** k / math.factorial(k + 1) for k in range(8))
    return math.expm1(f * L) / f
# relative error of 1 + f q: f (g - q) / 2^f  -> weight w = f / 2^f
ws = [f / 2 ** f for f in fs]
gs = [g(f) for f in fs]
report(*fit(fs, ws, gs, K), first=1)
