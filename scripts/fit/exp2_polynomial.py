# The coefficients of the soft-capping kernel's 2^f (src/kernels/softcap.hpp): 2^f ~ 1 + f q(f) on
# |f| <= 1/2, q of degree D-1 (default D = 5), fitted for the least maximum relative error by Lawson's
# algorithm (iteratively reweighted least squares over Chebyshev-spaced points), as exp_polynomial.py
# fits the softmax's e^r. The constant term stays exactly 1, so 2^0 = 1 and a score of 0 stays 0.
# Offline:
#   python3 scripts/fit/exp2_polynomial.py [D]
# prints the maximum relative error of the fit (in exact arithmetic) and each coefficient as the nearest
# float (hex). Degree 5 gives 7.7e-8: tanh |x| = (1 - e) / (1 + e) takes at most half of e's relative
# error as absolute error, well inside the kernel's 2e-7 cap.
import math, struct, sys
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
u = [1.0 / N] * N
def solve(A, b):
    n = len(b)
    M = [row[:] + [bb] for row, bb in zip(A, b)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(M[i][c]))
        M[c], M[p] = M[p], M[c]
        for i in range(n):
            if i != c:
                f = M[i][c] / M[c][c]
                for j in range(c, n + 1):
                    M[i][j] -= f * M[c][j]
    return [M[i][n] / M[i][i] for i in range(n)]
for it in range(300):
    A = [[0.0] * K for _ in range(K)]
    b = [0.0] * K
    for f, w, gg, uu in zip(fs, ws, gs, u):
        phi = [w * f ** k for k in range(K)]
        for i in range(K):
            b[i] += uu * phi[i] * w * gg
            for j in range(K):
                A[i][j] += uu * phi[i] * phi[j]
    c = solve(A, b)
    errs = [w * (gg - sum(ck * f ** k for k, ck in enumerate(c))) for f, w, gg in zip(fs, ws, gs)]
    s = sum(uu * abs(e) for uu, e in zip(u, errs))
    u = [uu * abs(e) / s for uu, e in zip(u, errs)]
print('max rel err %.3e' % max(abs(e) for e in errs))
for k, ck in enumerate(c):
    f = struct.unpack('f', struct.pack('f', ck))[0]
    print('c%d = %.9g  (float %.9ef, hex %s)' % (k + 1, ck, f, f.hex()))
