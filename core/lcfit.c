/*
 * core/lcfit.c - power-law fit of a partial learning curve (contract,
 * model and method in core/lcfit.h).
 *
 * Pure: no I/O, no allocation, no globals. Each evaluation of the SSE at
 * one α walks the curve three times (means, centred sums, residuals):
 * centring avoids the cancellation of Σx² − (Σx)²/n when x = t^(−α) is
 * nearly constant (small α), and summing the residuals directly keeps the
 * SSE of an exact power law at rounding level, which the exactness tests
 * rely on.
 */
#include "core/lcfit.h"

#include <math.h>

/* The least squares (a, b) at one α, and its SSE. */
struct lsq {
    double a, b, sse;
};

static struct lsq fit_at(const double *y, size_t len, size_t first,
                         double alpha, double m);

/*
 * Fits (a, b) at α to the running minimum of the finite values of y at
 * checkpoints first+1 .. len (earlier values enter the running minimum
 * only), under a <= m and b >= 0 (m: the last running minimum); see
 * lcfit.h for why the constrained optimum is a = m,
 * b = max(0, Σx(r−m)/Σx²).
 */
static struct lsq
fit_at(const double *y, size_t len, size_t first, double alpha, double m)
{
    struct lsq r;
    double run = NAN, sx = 0, sy = 0, n = 0;
    for (size_t j = 0; j < len; j++) {
        if (!isfinite(y[j]))
            continue;
        run = isnan(run) || y[j] < run ? y[j] : run;
        if (j < first)
            continue;
        sx += exp(-alpha * log((double)(j + 1)));
        sy += run;
        n++;
    }
    double mx = sx / n, my = sy / n;
    double cxx = 0, cxy = 0, xx = 0, xm = 0;
    run = NAN;
    for (size_t j = 0; j < len; j++) {
        if (!isfinite(y[j]))
            continue;
        run = isnan(run) || y[j] < run ? y[j] : run;
        if (j < first)
            continue;
        double x = exp(-alpha * log((double)(j + 1)));
        cxx += (x - mx) * (x - mx);
        cxy += (x - mx) * (run - my);
        xx += x * x;
        xm += x * (run - m);
    }
    r.b = cxx > 0 ? cxy / cxx : 0;
    r.a = my - r.b * mx;
    if (r.b < 0 || r.a > m) {
        r.a = m;
        r.b = xx > 0 && xm > 0 ? xm / xx : 0;
    }
    r.sse = 0;
    run = NAN;
    for (size_t j = 0; j < len; j++) {
        if (!isfinite(y[j]))
            continue;
        run = isnan(run) || y[j] < run ? y[j] : run;
        if (j < first)
            continue;
        double e = run - r.a - r.b * exp(-alpha * log((double)(j + 1)));
        r.sse += e * e;
    }
    return r;
}

enum hpod_status
lcfit_power(const double *y, size_t len, struct lcfit *out)
{
    return lcfit_power_from(y, len, 0, out);
}

enum hpod_status
lcfit_power_from(const double *y, size_t len, size_t first, struct lcfit *out)
{
    if (!out || (!y && len > 0))
        return HPOD_EINVAL;
    double m = NAN;
    size_t n = 0;
    for (size_t j = 0; j < len; j++)
        if (isfinite(y[j])) {
            m = isnan(m) || y[j] < m ? y[j] : m;
            n += j >= first;
        }
    out->m = m;
    out->n = n;
    if (n < LCFIT_MIN_POINTS) {
        out->a = m;
        out->b = 0;
        out->alpha = 1;
        out->sse = 0;
        out->ok = 0;
        return HPOD_ENUMERIC;
    }

    /* Grid on log α: the SSE can have several local minima in α. */
    const double lo = log(LCFIT_ALPHA_MIN), hi = log(LCFIT_ALPHA_MAX);
    const double step = (hi - lo) / (LCFIT_GRID - 1);
    size_t best_k = 0;
    double best_sse = INFINITY;
    for (size_t k = 0; k < LCFIT_GRID; k++) {
        struct lsq r = fit_at(y, len, first, exp(lo + step * (double)k), m);
        if (r.sse < best_sse) {
            best_sse = r.sse;
            best_k = k;
        }
    }

    /*
     * Golden section on [grid k−1, grid k+1] (Press et al., Numerical
     * Recipes §10.2): the interval shrinks by 0.618 per step, so ~60 steps
     * take its width of 2·step ≈ 0.3 below 1e-12 in log α.
     */
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double u = best_k > 0 ? lo + step * (double)(best_k - 1) : lo;
    double v = best_k + 1 < LCFIT_GRID ? lo + step * (double)(best_k + 1) : hi;
    double p = v - g * (v - u), q = u + g * (v - u);
    double fp = fit_at(y, len, first, exp(p), m).sse;
    double fq = fit_at(y, len, first, exp(q), m).sse;
    for (int it = 0; it < 80 && v - u > 1e-12; it++) {
        if (fp <= fq) {
            v = q;
            q = p;
            fq = fp;
            p = v - g * (v - u);
            fp = fit_at(y, len, first, exp(p), m).sse;
        } else {
            u = p;
            p = q;
            fp = fq;
            q = u + g * (v - u);
            fq = fit_at(y, len, first, exp(q), m).sse;
        }
    }
    double la = fp <= fq ? p : q;
    struct lsq r = fit_at(y, len, first, exp(la), m);
    /* Keep the grid point if the refinement did not improve on it. */
    if (!(r.sse <= best_sse)) {
        la = lo + step * (double)best_k;
        r = fit_at(y, len, first, exp(la), m);
    }
    out->a = r.a;
    out->b = r.b;
    out->alpha = exp(la);
    out->sse = r.sse;
    out->ok = 1;
    return HPOD_OK;
}

double
lcfit_predict(const struct lcfit *f, double t)
{
    return f->a + f->b * exp(-f->alpha * log(t));
}
