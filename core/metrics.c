/*
 * core/metrics.c - TACL 2020 benchmark metrics (ftb, ftc, fb, fto, fta,
 * fbp) on one run's sampling sequence, mean/std aggregation, and how long a
 * simulated sequence must be. Contracts in core/metrics.h.
 *
 * Pure: no I/O, no globals; the only scratch memory is a "seen" bitmap for
 * counting distinct Pareto rows, from xcalloc.
 */
#include "core/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

static size_t at_least(size_t pos, size_t ninit);
static size_t raw_ftb(const size_t *seq, size_t len, const double *y, size_t n);
static size_t raw_ftc(const size_t *seq, size_t len, const double *y, size_t n,
                      double tol);
static size_t raw_fto(const size_t *seq, size_t len,
                      const unsigned char *pareto, size_t n);
static size_t raw_fta(const size_t *seq, size_t len,
                      const unsigned char *pareto, size_t n);

/* The paper counts the initial design in full: a hit there costs ninit. */
static size_t
at_least(size_t pos, size_t ninit)
{
    return pos == 0 || pos >= ninit ? pos : ninit;
}

size_t
metric_oracle_best(const double *y, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        /* Strict > keeps the first of tied maxima, as numpy.argmax. */
        if (!isnan(y[i]) && (best == n || y[i] > y[best]))
            best = i;
    return best;
}

/* 1-based position of the oracle best in seq, 0 if absent. */
static size_t
raw_ftb(const size_t *seq, size_t len, const double *y, size_t n)
{
    size_t best = metric_oracle_best(y, n);
    if (best == n)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (seq[i] == best)
            return i + 1;
    return 0;
}

/* 1-based position of the first row within tol of the best, 0 if none. */
static size_t
raw_ftc(const size_t *seq, size_t len, const double *y, size_t n, double tol)
{
    size_t best = metric_oracle_best(y, n);
    double thr;
    if (best == n)
        return 0;
    /* Same rounding as the official `bleu >= best - tol`. */
    thr = y[best] - tol;
    for (size_t i = 0; i < len; i++)
        if (seq[i] < n && y[seq[i]] >= thr)
            return i + 1;
    return 0;
}

static size_t
raw_fto(const size_t *seq, size_t len, const unsigned char *pareto, size_t n)
{
    for (size_t i = 0; i < len; i++)
        if (seq[i] < n && pareto[seq[i]])
            return i + 1;
    return 0;
}

/* 1-based position completing the Pareto set, 0 if never (or empty set). */
static size_t
raw_fta(const size_t *seq, size_t len, const unsigned char *pareto, size_t n)
{
    size_t total = 0, found = 0, pos = 0;
    unsigned char *seen;

    for (size_t i = 0; i < n; i++)
        total += pareto[i] != 0;
    if (total == 0)
        return 0;
    seen = xcalloc(n, 1);
    for (size_t i = 0; i < len && pos == 0; i++) {
        size_t r = seq[i];
        if (r < n && pareto[r] && !seen[r]) {
            seen[r] = 1;
            if (++found == total)
                pos = i + 1;
        }
    }
    free(seen);
    return pos;
}

size_t
metric_ftb(const size_t *seq, size_t len, const double *y, size_t n,
           size_t ninit)
{
    return at_least(raw_ftb(seq, len, y, n), ninit);
}

size_t
metric_ftc(const size_t *seq, size_t len, const double *y, size_t n,
           size_t ninit, double tol)
{
    return at_least(raw_ftc(seq, len, y, n, tol), ninit);
}

double
metric_fb(const size_t *seq, size_t len, const double *y, size_t n,
          size_t budget)
{
    size_t best = metric_oracle_best(y, n);
    size_t k = budget < len ? budget : len;
    double got = -INFINITY;
    if (best == n)
        return INFINITY;
    for (size_t i = 0; i < k; i++)
        if (seq[i] < n && y[seq[i]] > got)
            got = y[seq[i]];
    return y[best] - got;
}

size_t
metric_fto(const size_t *seq, size_t len, const unsigned char *pareto, size_t n,
           size_t ninit)
{
    return at_least(raw_fto(seq, len, pareto, n), ninit);
}

size_t
metric_fta(const size_t *seq, size_t len, const unsigned char *pareto, size_t n,
           size_t ninit)
{
    return at_least(raw_fta(seq, len, pareto, n), ninit);
}

size_t
metric_fbp(const size_t *seq, size_t len, const unsigned char *pareto, size_t n,
           size_t budget)
{
    size_t k = budget < len ? budget : len, count = 0;
    unsigned char *seen;
    if (n == 0)
        return 0;
    seen = xcalloc(n, 1);
    for (size_t i = 0; i < k; i++) {
        size_t r = seq[i];
        if (r < n && pareto[r] && !seen[r]) {
            seen[r] = 1;
            count++;
        }
    }
    free(seen);
    return count;
}

void
metric_mean_std(const double *v, size_t k, double *mean, double *std)
{
    double s = 0, ss = 0, mu;
    if (k == 0) {
        *mean = *std = NAN;
        return;
    }
    for (size_t i = 0; i < k; i++)
        s += v[i];
    mu = s / (double)k;
    /* Two-pass: Σ(v−μ)² avoids the cancellation of Σv² − kμ². */
    for (size_t i = 0; i < k; i++)
        ss += (v[i] - mu) * (v[i] - mu);
    *mean = mu;
    *std = sqrt(ss / (double)k);
}

static const char *const metric_names[METRIC_COUNT] = {"ftb", "ftc", "fb",
                                                       "fto", "fta", "fbp"};

const char *
metric_name(enum metric_id id)
{
    return (unsigned)id < METRIC_COUNT ? metric_names[id] : NULL;
}

enum metric_id
metric_from_name(const char *name)
{
    for (int k = 0; name && k < METRIC_COUNT; k++)
        if (strcmp(name, metric_names[k]) == 0)
            return (enum metric_id)k;
    return METRIC_COUNT;
}

int
metric_spec_measures(const struct metric_spec *spec, enum metric_id id)
{
    if ((unsigned)id >= METRIC_COUNT || (spec->skip & METRIC_BIT(id)))
        return 0;
    return id <= METRIC_FB ? spec->y != NULL : spec->pareto != NULL;
}

size_t
metric_needed_length(const struct metric_spec *spec, const size_t *seq,
                     size_t len)
{
    size_t n = spec->n;
    size_t need = spec->ninit < n ? spec->ninit : n;
    int ftb = metric_spec_measures(spec, METRIC_FTB),
        ftc = metric_spec_measures(spec, METRIC_FTC),
        fb = metric_spec_measures(spec, METRIC_FB),
        fto = metric_spec_measures(spec, METRIC_FTO),
        fta = metric_spec_measures(spec, METRIC_FTA),
        fbp = metric_spec_measures(spec, METRIC_FBP);

    if ((ftb || ftc || fb) && metric_oracle_best(spec->y, n) < n) {
        size_t b = spec->fb_budget < n ? spec->fb_budget : n;
        size_t p = ftb ? raw_ftb(seq, len, spec->y, n) : 0;
        size_t c = ftc ? raw_ftc(seq, len, spec->y, n, spec->tol) : 0;
        if (ftb && p == 0)
            return 0;
        /* With tol >= 0 the best row meets the ftc target too. */
        if (ftc && c == 0 && spec->tol >= 0)
            return 0;
        if (p > need)
            need = p;
        if (c > need)
            need = c;
        if (fb && b > need)
            need = b;
    }
    if (fto || fta || fbp) {
        size_t b = spec->fbp_budget < n ? spec->fbp_budget : n;
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
            total += spec->pareto[i] != 0;
        if (total > 0 && (fto || fta)) {
            size_t a = fta ? raw_fta(seq, len, spec->pareto, n)
                           : raw_fto(seq, len, spec->pareto, n);
            if (a == 0)
                return 0;
            if (a > need)
                need = a;
        }
        if (fbp && b > need)
            need = b;
    }
    return need <= len ? need : 0;
}
