# The coefficients of expApprox's polynomial (src/kernels/attention_tile.hpp): e^r ~ 1 + r + r^2 q(r)
# on |r| <= ln2/2, q of degree D-2 (default D = 6), fitted for the least maximum relative error by
# Lawson's algorithm (iteratively reweighted least squares over Chebyshev-spaced points). Offline:
#   python3 scripts/fit/exp_polynomial.py [D]
# prints the maximum relative error of the fit and each coefficient as the nearest float (hex).
# Degree 6 gives 3.1e-9 (the Taylor series to r^7 it replaced: 8e-9); degree 5 gives 1.05e-7, about
# an ulp, too much for the kernel's 2-ulp statement.
import math, sys
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
    for r, w, gg, uu in zip(rs, ws, gs, u):
        phi = [w * r**k for k in range(K)]
        for i in range(K):
            b[i] += uu * phi[i] * w * gg
            for j in range(K):
                A[i][j] += uu * phi[i] * phi[j]
    c = solve(A, b)
    errs = [w * (gg - sum(ck * r**k for k, ck in enumerate(c))) for r, w, gg in zip(rs, ws, gs)]
    s = sum(uu * abs(e) for uu, e in zip(u, errs))
    u = [uu * abs(e) / s for uu, e in zip(u, errs)]
print('max rel err %.3e' % max(abs(e) for e in errs))
import struct
for k, ck in enumerate(c):
    f = struct.unpack('f', struct.pack('f', ck))[0]
    print('c%d = %.9g  (float %.9ef, hex %s)' % (k + 2, ck, f, f.hex()))
