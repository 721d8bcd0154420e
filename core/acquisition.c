/*
 * core/acquisition.c - EI, log EI, PI, UCB, scoring and argmax (see
 * acquisition.h).
 *
 * The one delicate part is the left tail. With h(z) = φ(z) + zΦ(z) (so
 * EI = σ h(z)), the direct formula cancels catastrophically for z ≪ 0 and
 * underflows near z ≈ -38. There we use the Mills ratio
 * M(u) = Φ(-u)/φ(u), u = -z > 0, through its continued fraction
 * (Abramowitz & Stegun 26.2.14, Laplace):
 *   M(u) = 1/(u + T),   T = 1/(u + 2/(u + 3/(u + ...)))
 * Then 1 - uM = T/(u + T) = T·M exactly, hence
 *   h(-u) = φ(u)(1 - uM(u)) = φ(u)·T·M,
 *   log h(-u) = -u²/2 - ½ log 2π + log T + log M,
 * with no cancellation anywhere. 40 terms give full double precision for
 * u >= 4 (checked against mpmath at 50 digits; see test_acquisition.c);
 * above z = -4 the direct formula loses at most ~20 ulps.
 */
#include "core/acquisition.h"

#include <math.h>

#define ACQ_TAIL_Z (-4.0)
#define ACQ_CF_TERMS 40

static double log_h(double z);
static void mills(double u, double *m, double *t);

double
acq_norm_pdf(double z)
{
    /* 1/√(2π) */
    return 0.398942280401432677939946059934 * exp(-0.5 * z * z);
}

double
acq_norm_cdf(double z)
{
    return 0.5 * erfc(-z * M_SQRT1_2);
}

/* Mills ratio M(u) and the continued-fraction tail T(u), u >= 4. */
static void
mills(double u, double *m, double *t)
{
    double f = 0.0;
    for (int k = ACQ_CF_TERMS; k >= 2; k--)
        f = (double)k / (u + f);
    *t = 1.0 / (u + f);
    *m = 1.0 / (u + *t);
}

double
acq_log_norm_cdf(double z)
{
    if (isnan(z))
        return z;
    if (z < ACQ_TAIL_Z) {
        double m, t, u = -z;
        if (isinf(u))
            return -INFINITY;
        mills(u, &m, &t);
        /* Φ(-u) = φ(u) M(u). */
        return -0.5 * u * u - 0.918938533204672741780329736406 + log(m);
    }
    if (z > 0.0)
        /* log(1 - Φ(-z)) keeps its accuracy as Φ(z) → 1. */
        return log1p(-0.5 * erfc(z * M_SQRT1_2));
    return log(0.5 * erfc(-z * M_SQRT1_2));
}

/* log h(z), h(z) = φ(z) + zΦ(z) > 0. */
static double
log_h(double z)
{
    if (z < ACQ_TAIL_Z) {
        double m, t, u = -z;
        if (isinf(u))
            return -INFINITY;
        mills(u, &m, &t);
        /* ½ log 2π = 0.9189...; see the file comment. */
        return -0.5 * u * u - 0.918938533204672741780329736406 + log(t) +
               log(m);
    }
    return log(acq_norm_pdf(z) + z * acq_norm_cdf(z));
}

double
acq_ei(double mu, double sigma, double best, double xi)
{
    double d = mu - best - xi;
    if (isnan(d) || isnan(sigma))
        return NAN;
    if (!(sigma > 0.0))
        return d > 0.0 ? d : 0.0;
    double z = d / sigma;
    if (z < ACQ_TAIL_Z)
        return sigma * exp(log_h(z));
    /* EI = σ (zΦ(z) + φ(z)), Jones et al. (1998) eq. 15. */
    return sigma * (z * acq_norm_cdf(z) + acq_norm_pdf(z));
}

double
acq_log_ei(double mu, double sigma, double best, double xi)
{
    double d = mu - best - xi;
    if (isnan(d) || isnan(sigma))
        return NAN;
    if (!(sigma > 0.0))
        return d > 0.0 ? log(d) : -INFINITY;
    return log(sigma) + log_h(d / sigma);
}

double
acq_pi(double mu, double sigma, double best, double xi)
{
    double d = mu - best - xi;
    if (isnan(d) || isnan(sigma))
        return NAN;
    if (!(sigma > 0.0))
        return d > 0.0 ? 1.0 : 0.0;
    return acq_norm_cdf(d / sigma);
}

double
acq_log_pi(double mu, double sigma, double best, double xi)
{
    double d = mu - best - xi;
    if (isnan(d) || isnan(sigma))
        return NAN;
    if (!(sigma > 0.0))
        return d > 0.0 ? 0.0 : -INFINITY;
    return acq_log_norm_cdf(d / sigma);
}

double
acq_ucb(double mu, double sigma, double beta)
{
    return mu + sqrt(beta > 0.0 ? beta : 0.0) * sigma;
}

void
acq_score(enum acq_kind kind, const double *mean, const double *var, size_t n,
          double best, double param, double *out)
{
    for (size_t i = 0; i < n; i++) {
        double v = var[i];
        double s = isnan(v) ? v : sqrt(v > 0.0 ? v : 0.0);
        switch (kind) {
        case ACQ_EI:
            out[i] = acq_log_ei(mean[i], s, best, param);
            break;
        case ACQ_PI:
            out[i] = acq_log_pi(mean[i], s, best, param);
            break;
        case ACQ_UCB:
            out[i] = acq_ucb(mean[i], s, param);
            break;
        default:
            out[i] = NAN;
            break;
        }
    }
}

size_t
acq_argmax(const double *score, size_t n, const unsigned char *skip)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if ((skip && skip[i]) || isnan(score[i]))
            continue;
        if (best == n || score[i] > score[best])
            best = i;
    }
    return best;
}
