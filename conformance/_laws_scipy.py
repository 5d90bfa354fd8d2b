# Vendored from SciPy 1.17.1 (scipy/stats/_ksstats.py and scipy/stats/_hypotests.py): the
# survival function of the exact two-sided one-sample Kolmogorov-Smirnov statistic
# (``_kolmogn(n, d, cdf=False)``, what ``scipy.stats.kstwo.sf`` computes) and the
# Cramer-von Mises cdf (``_cdf_cvm``, ``_cdf_cvm_inf``, ``_psi1_mod``), kept operation for
# operation so the p-values are scipy's own; only the array-API indirection, the pdf, the
# quantiles and the cdf branches the survival function never takes are left out.
#
# Copyright (c) 2001-2002 Enthought, Inc. 2003, SciPy Developers.
# All rights reserved.
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions
# are met:
#
# 1. Redistributions of source code must retain the above copyright
#    notice, this list of conditions and the following disclaimer.
#
# 2. Redistributions in binary form must reproduce the above
#    copyright notice, this list of conditions and the following
#    disclaimer in the documentation and/or other materials provided
#    with the distribution.
#
# 3. Neither the name of the copyright holder nor the names of its
#    contributors may be used to endorse or promote products derived
#    from this software without specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS
# "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT
# LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR
# A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT
# OWNER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
# SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT
# LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
# DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
# THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
# (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
# OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""Exact Kolmogorov-Smirnov and Cramer-von Mises laws, vendored from SciPy (see the notice).

``scipy.stats`` costs about half a second of CPU to import, which a block audit paid for these
two p-values alone; this module needs only numpy and ``scipy.special``. The references of the
algorithms (Simard & L'Ecuyer 2011 for the choice of method, Durbin / Marsaglia-Tsang-Wang,
Pomeranz, Pelz-Good, Ruben-Gambino; Csorgo & Faraway 1996) are in SciPy's sources.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _special as special
from ._scipy import special as scipy_special

_E128 = 128
_EP128 = np.ldexp(np.longdouble(1), _E128)
_EM128 = np.ldexp(np.longdouble(1), -_E128)

_SQRT2PI = np.sqrt(2 * np.pi)
_LOG_2PI = np.log(2 * np.pi)
_MIN_LOG = -708
_SQRT3 = np.sqrt(3)
_PI_SQUARED = np.pi**2
_PI_FOUR = np.pi**4
_PI_SIX = np.pi**6

# If B_m are the Bernoulli numbers, then Stirling coeffs are B_{2j}/(2j)/(2j-1) for j=8,...1.
_STIRLING_COEFFS = [
    -2.955065359477124183e-2,
    6.4102564102564102564e-3,
    -1.9175269175269175269e-3,
    8.4175084175084175084e-4,
    -5.952380952380952381e-4,
    7.9365079365079365079e-4,
    -2.7777777777777777778e-3,
    8.3333333333333333333e-2,
]


def _log_nfactorial_div_n_pow_n(n: int) -> Any:
    """log(n! / n**n) by Stirling's series, n log n removed up front (no cancellation)."""
    rn = 1.0 / n
    return np.log(n) / 2 - n + _LOG_2PI / 2 + rn * np.polyval(_STIRLING_COEFFS, rn / n)


def _clip_prob(p: Any) -> Any:
    return np.clip(p, 0.0, 1.0)


def _select_and_clip_prob(cdfprob: Any, sfprob: Any, cdf: bool = True) -> Any:
    return _clip_prob(np.where(cdf, cdfprob, sfprob))


def _kolmogn_dmtw(n: int, d: Any) -> Any:
    """Pr(D_n <= d) by the Durbin matrix algorithm, Marsaglia-Tsang-Wang's way."""
    if d >= 1.0:
        return _select_and_clip_prob(1.0, 0.0)
    nd = n * d
    if nd <= 0.5:
        return _select_and_clip_prob(0.0, 1.0)
    k = int(np.ceil(nd))
    h = k - nd
    m = 2 * k - 1

    H = np.zeros([m, m])
    intm = np.arange(1, m + 1)
    v = 1.0 - h**intm
    w = np.empty(m)
    fac = 1.0
    for j in intm:
        w[j - 1] = fac
        fac /= j  # This might underflow.  Isn't a problem.
        v[j - 1] *= fac
    tt = max(2 * h - 1.0, 0) ** m - 2 * h**m
    v[-1] = (1.0 + tt) * fac

    for i in range(1, m):
        H[i - 1 :, i] = w[: m - i + 1]
    H[:, 0] = v
    H[-1, :] = np.flip(v, axis=0)

    Hpwr = np.eye(np.shape(H)[0])  # Holds intermediate powers of H
    nn = n
    expnt = 0  # Scaling of Hpwr
    Hexpnt = 0  # Scaling of H
    while nn > 0:
        if nn % 2:
            Hpwr = np.matmul(Hpwr, H)
            expnt += Hexpnt
        H = np.matmul(H, H)
        Hexpnt *= 2
        if np.abs(H[k - 1, k - 1]) > _EP128:
            H /= _EP128
            Hexpnt += _E128
        nn = nn // 2

    p = Hpwr[k - 1, k - 1]
    for i in range(1, n + 1):  # multiply by n!/n^n
        p = i * p / n
        if np.abs(p) < _EM128:
            p *= _EP128
            expnt -= _E128
    if expnt != 0:
        p = np.ldexp(p, expnt)
    return _select_and_clip_prob(p, 1.0 - p)


def _pomeranz_compute_j1j2(i: int, n: int, ll: int, ceilf: int, roundf: int) -> tuple[int, int]:
    """The endpoints of the interval for row i."""
    if i == 0:
        j1, j2 = -ll - ceilf - 1, ll + ceilf - 1
    else:
        ip1div2, ip1mod2 = divmod(i + 1, 2)
        if ip1mod2 == 0:  # i is odd
            if ip1div2 == n + 1:
                j1, j2 = n - ll - ceilf - 1, n + ll + ceilf - 1
            else:
                j1, j2 = ip1div2 - 1 - ll - roundf - 1, ip1div2 + ll - 1 + ceilf - 1
        else:
            j1, j2 = ip1div2 - 1 - ll - 1, ip1div2 + ll + roundf - 1
    return max(j1 + 2, 0), min(j2, n)


def _kolmogn_pomeranz(n: int, x: Any) -> Any:
    """Pr(D_n <= x) by the Pomeranz recursion (two rows of the n x (2n+2) matrix, scaled)."""
    t = n * x
    ll = int(np.floor(t))
    f = 1.0 * (t - ll)  # fractional part of t
    g = min(f, 1.0 - f)
    ceilf = 1 if f > 0 else 0
    roundf = 1 if f > 0.5 else 0
    npwrs = 2 * (ll + 1)  # Maximum number of powers needed in convolutions
    gpower = np.empty(npwrs)  # gpower = (g/n)^m/m!
    twogpower = np.empty(npwrs)  # twogpower = (2g/n)^m/m!
    onem2gpower = np.empty(npwrs)  # onem2gpower = ((1-2g)/n)^m/m!

    gpower[0] = 1.0
    twogpower[0] = 1.0
    onem2gpower[0] = 1.0
    expnt = 0
    g_over_n, two_g_over_n, one_minus_two_g_over_n = g / n, 2 * g / n, (1 - 2 * g) / n
    for m in range(1, npwrs):
        gpower[m] = gpower[m - 1] * g_over_n / m
        twogpower[m] = twogpower[m - 1] * two_g_over_n / m
        onem2gpower[m] = onem2gpower[m - 1] * one_minus_two_g_over_n / m

    V0 = np.zeros([npwrs])
    V1 = np.zeros([npwrs])
    V1[0] = 1  # first row
    V0s, V1s = 0, 0  # start indices of the two rows

    j1, j2 = _pomeranz_compute_j1j2(0, n, ll, ceilf, roundf)
    for i in range(1, 2 * n + 2):
        k1 = j1
        V0, V1 = V1, V0
        V0s, V1s = V1s, V0s
        V1.fill(0.0)
        j1, j2 = _pomeranz_compute_j1j2(i, n, ll, ceilf, roundf)
        ends = i == 1 or i == 2 * n + 1
        pwrs = gpower if ends else (twogpower if i % 2 else onem2gpower)
        ln2 = j2 - k1 + 1
        if ln2 > 0:
            conv = np.convolve(V0[k1 - V0s : k1 - V0s + ln2], pwrs[:ln2])
            conv_start = j1 - k1  # First index to use from conv
            conv_len = j2 - j1 + 1  # Number of entries to use from conv
            V1[:conv_len] = conv[conv_start : conv_start + conv_len]
            if 0 < np.max(V1) < _EM128:  # Scale to avoid underflow.
                V1 *= _EP128
                expnt -= _E128
            V1s = V0s + j1 - k1

    ans = V1[n - V1s]  # multiply by n!
    for m in range(1, n + 1):
        if np.abs(ans) > _EP128:
            ans *= _EM128
            expnt += _E128
        ans *= m
    if expnt != 0:
        ans = np.ldexp(ans, expnt)
    return _select_and_clip_prob(ans, 1.0 - ans)


def _kolmogn_pelzgood(n: int, x: Any) -> Any:
    """Pelz-Good's approximation of Pr(D_n <= x): the Li-Chien / Korolyuk expansion
    K0(z) + K1(z)/sqrt(n) + K2(z)/n + K3(z)/n**1.5, z = x sqrt(n), through Jacobi's theta
    functions into a form suitable for small z."""
    if x <= 0.0:
        return _select_and_clip_prob(0.0, 1.0)
    if x >= 1.0:
        return _select_and_clip_prob(1.0, 0.0)

    z = np.sqrt(n) * x
    zsquared, zthree, zfour, zsix = z**2, z**3, z**4, z**6

    qlog = -_PI_SQUARED / 8 / zsquared
    if qlog < _MIN_LOG:  # z ~ 0.041743441416853426
        return _select_and_clip_prob(0.0, 1.0)

    q = np.exp(qlog)

    k1a = -zsquared
    k1b = _PI_SQUARED / 4

    k2a = 6 * zsix + 2 * zfour
    k2b = (2 * zfour - 5 * zsquared) * _PI_SQUARED / 4
    k2c = _PI_FOUR * (1 - 2 * zsquared) / 16

    k3d = _PI_SIX * (5 - 30 * zsquared) / 64
    k3c = _PI_FOUR * (-60 * zsquared + 212 * zfour) / 16
    k3b = _PI_SQUARED * (135 * zfour - 96 * zsix) / 4
    k3a = -30 * zsix - 90 * z**8

    K0to3 = np.zeros(4)
    # A Horner scheme for sum c_i q^(i^2), reduced to a sum over odd integers.
    maxk = int(np.ceil(16 * z / np.pi))
    for k in range(maxk, 0, -1):
        m = 2 * k - 1
        msquared, mfour, msix = m**2, m**4, m**6
        qpower = np.power(q, 8 * k)
        coeffs = np.array(
            [
                1.0,
                k1a + k1b * msquared,
                k2a + k2b * msquared + k2c * mfour,
                k3a + k3b * msquared + k3c * mfour + k3d * msix,
            ]
        )
        K0to3 *= qpower
        K0to3 += coeffs
    K0to3 *= q
    K0to3 *= _SQRT2PI
    K0to3 /= np.array([z, 6 * zfour, 72 * z**7, 6480 * z**10])  # z**10 > 0 as z > 0.04

    # The other sum, over all integers k: K_2 (pi^2 k^2) q^(k^2),
    # K_3 (3pi^2 k^2 z^2 - pi^4 k^4) q^(k^2); little cancellation, summed directly.
    q = np.exp(-_PI_SQUARED / 2 / zsquared)
    ks = np.arange(maxk, 0, -1)
    ksquared = ks**2
    sqrt3z = _SQRT3 * z
    kspi = np.pi * ks
    qpwers = q**ksquared
    k2extra = np.sum(ksquared * qpwers)
    k2extra *= _PI_SQUARED * _SQRT2PI / (-36 * zthree)
    K0to3[2] += k2extra
    k3extra = np.sum((sqrt3z + kspi) * (sqrt3z - kspi) * ksquared * qpwers)
    k3extra *= _PI_SQUARED * _SQRT2PI / (216 * zsix)
    K0to3[3] += k3extra
    powers_of_n = np.power(n * 1.0, np.arange(len(K0to3)) / 2.0)
    K0to3 /= powers_of_n
    return sum(K0to3)


def _kolmogn_sf(n: int, x: Any) -> Any:
    """Pr(D_n >= x), Simard & L'Ecuyer's choice of method (SciPy's ``_kolmogn``, cdf=False)."""
    if x >= 1.0:
        return _select_and_clip_prob(1.0, 0.0, cdf=False)
    if x <= 0.0:
        return _select_and_clip_prob(0.0, 1.0, cdf=False)
    t = n * x
    if t <= 1.0:  # Ruben-Gambino: 1/2n <= x <= 1/n
        if t <= 0.5:
            return _select_and_clip_prob(0.0, 1.0, cdf=False)
        if n <= 140:
            prob = np.prod(np.arange(1, n + 1) * (1.0 / n) * (2 * t - 1))
        else:
            prob = np.exp(_log_nfactorial_div_n_pow_n(n) + n * np.log(2 * t - 1))
        return _select_and_clip_prob(prob, 1.0 - prob, cdf=False)
    if t >= n - 1:  # Ruben-Gambino
        prob = 2 * (1.0 - x) ** n
        return _select_and_clip_prob(1 - prob, prob, cdf=False)
    if x >= 0.5:  # Exact: 2 * smirnov
        prob = 2 * scipy_special.smirnov(n, x)
        return _select_and_clip_prob(1.0 - prob, prob, cdf=False)

    nxsquared = t * x
    if n <= 140:
        if nxsquared <= 0.754693:
            prob = _kolmogn_dmtw(n, x)
            return _select_and_clip_prob(prob, 1.0 - prob, cdf=False)
        if nxsquared <= 4:
            prob = _kolmogn_pomeranz(n, x)
            return _select_and_clip_prob(prob, 1.0 - prob, cdf=False)
        prob = 2 * scipy_special.smirnov(n, x)  # Miller's approximation, 2 * smirnov
        return _select_and_clip_prob(1.0 - prob, prob, cdf=False)

    if nxsquared >= 370.0:
        return 0.0
    if nxsquared >= 2.2:
        prob = 2 * scipy_special.smirnov(n, x)
        return _clip_prob(prob)
    # the SF as 1 - CDF
    if nxsquared >= 18.0:
        cdfprob = 1.0
    elif n <= 100000 and n * x**1.5 <= 1.4:
        cdfprob = _kolmogn_dmtw(n, x)
    else:
        cdfprob = _kolmogn_pelzgood(n, x)
    return _select_and_clip_prob(cdfprob, 1.0 - cdfprob, cdf=False)


def kstwo_sf(d: float, n: int) -> float:
    """``scipy.stats.kstwo.sf(d, n)``: Pr(D_n >= d), D_n the two-sided one-sample statistic
    of ``n`` values (its support is [1 / (2 n), 1]; nan for an ``n`` below 1)."""
    if n < 1:
        return math.nan
    x = np.asarray(d, dtype=np.float64)  # scipy evaluates on 0-d arrays: the same float paths
    if np.isnan(x):
        return math.nan
    if x <= 0.5 / n:
        return 1.0
    if x >= 1.0:
        return 0.0
    return float(_kolmogn_sf(int(n), x))


def _psi1_mod(x: Any) -> Any:
    """psi1 of Csorgo & Faraway (1996) eq. 1.10 without its V(x) / 12 term (``_cdf_cvm``
    adds it), summed until the terms are below 1e-7 (after Faraway's MAPLE code and the R
    function pCvM of goftest 1.1.1, by permission of Adrian Baddeley, as SciPy says)."""

    def _ed2(y: Any) -> Any:
        z = y**2 / 4
        z_ = np.asarray(z)
        b = np.asarray(special.kv(1 / 4, z_) + special.kv(3 / 4, z_))
        return np.exp(-z) * (y / 2) ** (3 / 2) * b / math.sqrt(np.pi)

    def _ed3(y: Any) -> Any:
        z = y**2 / 4
        z_ = np.asarray(z)
        c = np.exp(-z) / math.sqrt(np.pi)
        kv_terms = np.asarray(
            2 * special.kv(1 / 4, z_) + 3 * special.kv(3 / 4, z_) - special.kv(5 / 4, z_)
        )
        return c * (y / 2) ** (5 / 2) * kv_terms

    def _ak(k: int, x: Any) -> Any:
        m = 2 * k + 1
        sx = 2 * np.sqrt(x)
        y1 = x ** (3 / 4)
        y2 = x ** (5 / 4)

        gamma_kp1_2 = float(special.gamma(k + 1 / 2))
        gamma_kp3_2 = float(special.gamma(k + 3 / 2))

        e1 = m * gamma_kp1_2 * _ed2((4 * k + 3) / sx) / (9 * y1)
        e2 = gamma_kp1_2 * _ed3((4 * k + 1) / sx) / (72 * y2)
        e3 = 2 * (m + 2) * gamma_kp3_2 * _ed3((4 * k + 5) / sx) / (12 * y2)
        e4 = 7 * m * gamma_kp1_2 * _ed2((4 * k + 1) / sx) / (144 * y1)
        e5 = 7 * m * gamma_kp1_2 * _ed2((4 * k + 5) / sx) / (144 * y1)

        return e1 + e2 + e3 + e4 + e5

    x = np.asarray(x)
    tot = np.zeros_like(x)
    cond = np.ones_like(x, dtype=np.bool_)
    k = 0
    while np.any(cond):
        gamma_kp1 = float(special.gamma(k + 1))
        z = -_ak(k, x[cond]) / (np.pi * gamma_kp1)
        tot[cond] = tot[cond] + z
        cond[cond.copy()] = np.abs(z) >= 1e-7
        k += 1
    return tot


def _cdf_cvm_inf(x: Any) -> Any:
    """The cdf of the Cramer-von Mises statistic for an infinite sample (Csorgo & Faraway
    1996, eq. 1.2; second line of 1.3 for the terms), summed until the terms are below 1e-7."""
    x = np.asarray(x)

    def term(x: Any, k: int) -> Any:
        u = math.exp(special.gammaln(k + 0.5) - special.gammaln(k + 1)) / (np.pi**1.5 * np.sqrt(x))
        y = 4 * k + 1
        q = y**2 / (16 * x)
        b = np.asarray(special.kv(0.25, np.asarray(q)), dtype=u.dtype)
        return u * math.sqrt(y) * np.exp(-q) * b

    tot = np.zeros_like(x, dtype=x.dtype)
    cond = np.ones_like(x, dtype=np.bool_)
    k = 0
    while np.any(cond):
        z = term(x[cond], k)
        tot[cond] += z
        cond[cond.copy()] = np.abs(z) >= 1e-7
        k += 1
    return tot


def _cdf_cvm(x: Any, n: Any) -> Any:
    """The cdf of the Cramer-von Mises statistic for ``n`` values (Csorgo & Faraway 1996, eq.
    1.8); its support is [1 / (12 n), n / 3]. Not accurate far in the upper tail (x > 2, the
    cdf close to 1, possibly above it) nor for tiny n near the ends of the support."""
    x = np.asarray(x)
    y = np.zeros_like(x, dtype=x.dtype)
    sup = (1.0 / (12 * n) < x) & (x < n / 3.0)
    # _psi1_mod leaves out the term _cdf_cvm_inf(x) / 12: it is added here
    y[sup] = _cdf_cvm_inf(x[sup]) * (1 + 1.0 / (12 * n)) + _psi1_mod(x[sup]) / n
    y[x >= n / 3] = 1.0
    return y[()] if y.ndim == 0 else y


def cramervonmises_uniform(values: Any) -> tuple[float, float]:
    """``scipy.stats.cramervonmises(values, "uniform")``: (T, p) of at least two values."""
    rvs = np.asarray(values, dtype=np.float64)
    n: Any = np.asarray(rvs.shape[-1], dtype=np.float64)
    if n <= 1:
        raise ValueError(f"the Cramer-von Mises test needs at least two values, got {int(n)}")
    vals = np.sort(rvs, axis=-1)
    cdfvals = np.clip(vals, 0.0, 1.0)  # the uniform law on [0, 1]
    u = (2 * np.arange(1, n + 1, dtype=n.dtype) - 1) / (2 * n)
    w = 1 / (12 * n) + np.sum((u - cdfvals) ** 2, axis=-1)
    # avoid small negative values that can occur due to the approximation
    p = np.clip(1.0 - _cdf_cvm(w, n), 0.0, None)
    return float(w), float(p)
