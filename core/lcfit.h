/*
 * core/lcfit.h - a power law fitted to a partial learning curve, to
 * extrapolate it ("looking forward"; Domhan et al. 2015, IJCAI,
 * use pow3 = a + b·t^(−α) as one of their curve families).
 *
 * Model, for checkpoints t = 1, 2, ... (1-based), lower is better:
 *
 *     f(t) = a + b·t^(−α),   b >= 0, α in [LCFIT_ALPHA_MIN, LCFIT_ALPHA_MAX]
 *
 * f is non-increasing in t and tends to the asymptote a.
 *
 * The fit is made to the RUNNING MINIMUM (best so far) of the curve, not
 * to the raw values: the raw curves of nmtlc overfit (they rise) and
 * restart (they drop again), which a monotone law cannot follow, while the
 * running minimum is non-increasing by construction and is also the value
 * one keeps (a model is kept at its best checkpoint). Non-finite values
 * are skipped: they neither enter the running minimum nor count as points,
 * but the checkpoints after them keep their own t.
 *
 * Method: for a fixed α the model is linear in (a, b), so the least
 * squares (a, b) is closed form; the constraints are a <= m (m = the last
 * running minimum: the asymptote cannot lie above a value already
 * reached) and b >= 0. When the unconstrained optimum violates them, the
 * constrained one lies on a = m with b = max(0, Σx(y−m)/Σx²), x = t^(−α)
 * (the problem is a convex quadratic; its boundary {b = 0, a <= m} is
 * dominated by the point a = m, b = 0). The sum of squared errors is then
 * minimized over α: a log-spaced grid of LCFIT_GRID points on the bracket,
 * then golden-section search between the neighbours of the best grid
 * point (the SSE is not unimodal in general; the grid guards against that).
 *
 * Pure: no I/O, no allocation, no globals.
 */
#ifndef HPOD_LCFIT_H
#define HPOD_LCFIT_H

#include <stddef.h>

#include "common/status.h"

#define LCFIT_ALPHA_MIN 0.01
#define LCFIT_ALPHA_MAX 10.0
#define LCFIT_GRID 48
#define LCFIT_MIN_POINTS 3

/* A fitted power law, and what it was fitted to. */
struct lcfit {
    double a;     /* asymptote (<= m) */
    double b;     /* scale (>= 0) */
    double alpha; /* decay exponent */
    double sse;   /* sum of squared errors against the running minimum */
    double m;     /* the last running minimum (best so far), NaN if none */
    size_t n;     /* finite points fitted */
    int ok;       /* 1: a fit; 0: degenerate (see lcfit_power) */
};

/*
 * lcfit_power - fits f(t) = a + b·t^(−α) to the running minimum of
 * y[0 .. len-1] (y[j] is checkpoint t = j + 1), as described above.
 * Output: *out. Return: HPOD_OK with out->ok = 1; HPOD_ENUMERIC with
 * out->ok = 0 when fewer than LCFIT_MIN_POINTS values are finite (two
 * points determine no α): *out is then the flat law a = m, b = 0, alpha = 1
 * (lcfit_predict gives the best so far, NaN if there is none), so a caller
 * may use it as the fallback; HPOD_EINVAL if out is NULL, or y is NULL
 * with len > 0.
 */
enum hpod_status lcfit_power(const double *y, size_t len, struct lcfit *out);

/*
 * lcfit_power_from - the same fit, made to the running minimum at
 * checkpoints first+1 .. len only: y[0 .. first-1] still enter the running
 * minimum (and m) but are not fitted. The early checkpoints of a training
 * run are a transient (warm-up; on the robust19 sets of nmtlc the first
 * dev perplexity is 5 to 10 times the later ones) that the law does not
 * describe and that, being the largest values, would dominate an unweighted
 * SSE; core/sh.c fits the second half of each prefix. out->n counts the fitted
 * points, and the degenerate case is n < LCFIT_MIN_POINTS. lcfit_power is first
 * = 0.
 */
enum hpod_status lcfit_power_from(const double *y, size_t len, size_t first,
                                  struct lcfit *out);

/*
 * lcfit_predict - f(t) = a + b·t^(−α) for t > 0 (t need not be an
 * integer); non-increasing in t since b >= 0 and α > 0.
 */
double lcfit_predict(const struct lcfit *f, double t);

#endif
