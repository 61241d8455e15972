# Least-maximum-error polynomial fits by Lawson's algorithm: iteratively reweighted least squares over
# the given points (Chebyshev-spaced by the callers). Shared by exp_polynomial.py and exp2_polynomial.py.
import struct


def solve(A, b):
    """A x = b by Gauss-Jordan elimination with partial pivoting (A is small: K x K)."""
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


def fit(xs, ws, gs, K, iterations=300):
    """Coefficients c[0..K-1] of q(x) = sum c_k x^k minimising max |w (g - q)| over the points, and the
    weighted errors of the last iterate."""
    N = len(xs)
    u = [1.0 / N] * N
    for _ in range(iterations):
        A = [[0.0] * K for _ in range(K)]
        b = [0.0] * K
        for x, w, gg, uu in zip(xs, ws, gs, u):
            phi = [w * x ** k for k in range(K)]
            for i in range(K):
                b[i] += uu * phi[i] * w * gg
                for j in range(K):
                    A[i][j] += uu * phi[i] * phi[j]
        c = solve(A, b)
        errs = [w * (gg - sum(ck * x ** k for k, ck in enumerate(c))) for x, w, gg in zip(xs, ws, gs)]
        s = sum(uu * abs(e) for uu, e in zip(u, errs))
        u = [uu * abs(e) / s for uu, e in zip(u, errs)]
    return c, errs


def report(c, errs, first):
    """The fit's maximum error, then each coefficient (named c<first>, c<first+1>, ...) as the nearest float."""
    print('max rel err %.3e' % max(abs(e) for e in errs))
    for k, ck in enumerate(c):
        f = struct.unpack('f', struct.pack('f', ck))[0]
        print('c%d = %.9g  (float %.9ef, hex %s)' % (k + first, ck, f, f.hex()))
