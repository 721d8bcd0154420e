/*
 * core/space.c - search-space encoding, decoding and sampling (space.h).
 */
#include "core/space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

void
space_init(struct space *sp)
{
    memset(sp, 0, sizeof *sp);
}

void
space_clear(struct space *sp)
{
    if (!sp)
        return;
    for (size_t i = 0; i < sp->n_params; i++) {
        free(sp->params[i].values);
        free(sp->params[i].cond);
    }
    free(sp->params);
    free(sp->kinds);
    memset(sp, 0, sizeof *sp);
}

/* A new parameter (zeroed) and its feature, of the given kind. */
static struct param *
push(struct space *sp, enum space_feature kind)
{
    sp->params = xrealloc(sp->params, (sp->n_params + 1) * sizeof *sp->params);
    struct param *p = &sp->params[sp->n_params++];
    memset(p, 0, sizeof *p);
    if (kind != SPACE_FEATURE_REAL && !sp->kinds)
        sp->kinds = xcalloc(sp->dim + 1, 1);
    else if (sp->kinds)
        sp->kinds = xrealloc(sp->kinds, sp->dim + 1);
    if (sp->kinds)
        sp->kinds[sp->dim] = (unsigned char)kind;
    sp->dim += 1;
    return p;
}

double
space_d2(const unsigned char *kinds, const double *x, const double *y,
         size_t dim)
{
    double s = 0.0;
    for (size_t d = 0; d < dim; d++) {
        double t = space_diff(kinds, d, x[d], y[d]);
        s += t * t;
    }
    return s;
}

enum hpod_status
space_add_range(struct space *sp, enum param_type type, double low, double high,
                int log)
{
    if (!isfinite(low) || !isfinite(high) || !(low < high))
        return HPOD_EUNPROC;
    if (log && !(low > 0.0))
        return HPOD_EUNPROC;
    if (type == PARAM_INT && (low != floor(low) || high != floor(high)))
        return HPOD_EUNPROC;
    if (type == PARAM_CATEGORICAL)
        return HPOD_EINVAL;
    struct param *p = push(sp, SPACE_FEATURE_REAL);
    p->type = type;
    p->low = low;
    p->high = high;
    p->log = log != 0;
    return HPOD_OK;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum hpod_status
space_add_values(struct space *sp, enum param_type type, const double *values,
                 size_t n, int log)
{
    if (n == 0 || type == PARAM_CATEGORICAL)
        return HPOD_EUNPROC;
    double *v = xmalloc(n * sizeof *v);
    memcpy(v, values, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    for (size_t i = 0; i < n; i++) {
        int bad = !isfinite(v[i]) || (i > 0 && v[i] == v[i - 1]) ||
                  (log && !(v[i] > 0.0)) ||
                  (type == PARAM_INT && v[i] != floor(v[i]));
        if (bad) {
            free(v);
            return HPOD_EUNPROC;
        }
    }
    struct param *p = push(sp, SPACE_FEATURE_REAL);
    p->type = type;
    p->values = v;
    p->n_values = n;
    p->log = log != 0;
    p->low = v[0];
    p->high = v[n - 1];
    return HPOD_OK;
}

enum hpod_status
space_add_categorical(struct space *sp, size_t n_choices)
{
    if (n_choices == 0)
        return HPOD_EUNPROC;
    struct param *p = push(sp, SPACE_FEATURE_CATEGORY);
    p->type = PARAM_CATEGORICAL;
    p->n_choices = n_choices;
    return HPOD_OK;
}

int
space_contains(const struct space *sp, size_t i, double v)
{
    const struct param *p = &sp->params[i];
    if (!isfinite(v))
        return 0;
    if (p->type == PARAM_CATEGORICAL)
        return v == floor(v) && v >= 0 && v < (double)p->n_choices;
    if (p->n_values) {
        for (size_t k = 0; k < p->n_values; k++)
            if (p->values[k] == v)
                return 1;
        return 0;
    }
    if (p->type == PARAM_INT && v != floor(v))
        return 0;
    return v >= p->low && v <= p->high;
}

/* Position of v between low and high, in log space when asked. */
static double
scale01(const struct param *p, double v)
{
    if (p->high == p->low)
        return 0.5;
    if (p->log)
        return (log(v) - log(p->low)) / (log(p->high) - log(p->low));
    if (!isfinite(p->high - p->low))
        /* A range or value list spanning more than DBL_MAX (-1e308 to
         * 1e308): the halves do not overflow, and halving is exact, so the
         * ratio is the one the full differences would give. */
        return (v / 2 - p->low / 2) / (p->high / 2 - p->low / 2);
    return (v - p->low) / (p->high - p->low);
}

static double
unscale01(const struct param *p, double u)
{
    if (p->log)
        return exp(log(p->low) + u * (log(p->high) - log(p->low)));
    if (!isfinite(p->high - p->low))
        /* low < 0 < high here, so neither term overflows. */
        return p->low * (1.0 - u) + p->high * u;
    return p->low + u * (p->high - p->low);
}

static double
clamp01(double u)
{
    if (!(u > 0.0))
        return 0.0; /* also maps NaN to 0 */
    return u < 1.0 ? u : 1.0;
}

void
space_encode(const struct space *sp, const double *raw, double *out)
{
    for (size_t i = 0; i < sp->n_params; i++) {
        const struct param *p = &sp->params[i];
        if (p->type == PARAM_CATEGORICAL)
            out[i] = isnan(raw[i]) ? -1.0 : raw[i]; /* inactive: no choice */
        else
            out[i] = clamp01(scale01(p, raw[i])); /* inactive: 0 */
    }
}

void
space_encode_rows(const struct space *sp, const double *raw, size_t n,
                  double *out)
{
    for (size_t i = 0; i < n; i++)
        space_encode(sp, raw + i * sp->n_params, out + i * sp->dim);
}

void
space_perturb(const struct space *sp, const double *center, double step,
              struct rng *r, double *out, double *rawbuf)
{
    for (size_t d = 0; d < sp->dim; d++) {
        const struct param *p = &sp->params[d];
        if (p->type != PARAM_CATEGORICAL) {
            out[d] = center[d] + step * rng_normal(r);
            continue;
        }
        /* A categorical moves by switching choice: with probability step
         * (a move of distance 1, space_diff), to any other choice. */
        out[d] = center[d];
        if (rng_uniform(r) < step && p->n_choices > 1) {
            uint64_t c = rng_below(r, p->n_choices - 1);
            out[d] = (double)c >= center[d] ? (double)(c + 1) : (double)c;
        }
    }
    space_decode(sp, out, rawbuf);
    space_encode(sp, rawbuf, out);
}

void
space_decode(const struct space *sp, const double *u, double *raw)
{
    for (size_t i = 0; i < sp->n_params; i++) {
        const struct param *p = &sp->params[i];
        if (p->type == PARAM_CATEGORICAL) {
            double c = round(u[i]), top = (double)(p->n_choices - 1);
            raw[i] = !(c > 0.0) ? 0.0 : c < top ? c : top; /* NaN -> 0 */
            continue;
        }
        double t = clamp01(u[i]);
        if (p->n_values) {
            size_t best = 0;
            double bd = INFINITY;
            for (size_t k = 0; k < p->n_values; k++) {
                double dist = fabs(scale01(p, p->values[k]) - t);
                if (dist < bd) {
                    bd = dist;
                    best = k;
                }
            }
            raw[i] = p->values[best];
        } else if (p->type == PARAM_INT) {
            double v = round(unscale01(p, t));
            raw[i] = v < p->low ? p->low : v > p->high ? p->high : v;
        } else {
            double v = unscale01(p, t);
            raw[i] = v < p->low ? p->low : v > p->high ? p->high : v;
        }
    }
}

void
space_sample(const struct space *sp, struct rng *r, double *raw)
{
    for (size_t i = 0; i < sp->n_params; i++) {
        const struct param *p = &sp->params[i];
        if (p->type == PARAM_CATEGORICAL) {
            raw[i] = (double)rng_below(r, p->n_choices);
        } else if (p->n_values) {
            raw[i] = p->values[rng_below(r, p->n_values)];
        } else if (p->type == PARAM_INT && !p->log) {
            uint64_t span = (uint64_t)(p->high - p->low) + 1;
            raw[i] = p->low + (double)rng_below(r, span);
        } else if (p->type == PARAM_INT) {
            /* Log-uniform over [low-0.5, high+0.5) so the end points get
             * their fair share after rounding. */
            double lo = log(p->low - 0.5 > 0 ? p->low - 0.5 : p->low);
            double hi = log(p->high + 0.5);
            double v = round(exp(lo + rng_uniform(r) * (hi - lo)));
            raw[i] = v < p->low ? p->low : v > p->high ? p->high : v;
        } else {
            raw[i] = unscale01(p, rng_uniform(r));
        }
    }
}

int
space_is_finite(const struct space *sp)
{
    for (size_t i = 0; i < sp->n_params; i++) {
        const struct param *p = &sp->params[i];
        if (p->type == PARAM_FLOAT && p->n_values == 0)
            return 0;
    }
    return 1;
}

/* Row order: lexicographic by value (NaN, an inactive parameter, before
 * any number and equal to NaN), then by index (a total order). */
static int
row_less(const double *raw, size_t w, size_t a, size_t b)
{
    const double *x = raw + a * w, *y = raw + b * w;
    for (size_t k = 0; k < w; k++) {
        int nx = !!isnan(x[k]), ny = !!isnan(y[k]);
        if (nx || ny) {
            if (nx != ny)
                return nx;
            continue;
        }
        if (x[k] != y[k])
            return x[k] < y[k];
    }
    return a < b;
}

/* 1 if two rows hold the same values (NaN equal to NaN). */
static int
rows_equal(const double *x, const double *y, size_t w)
{
    for (size_t k = 0; k < w; k++) {
        if (isnan(x[k]) || isnan(y[k])) {
            if (!isnan(x[k]) != !isnan(y[k]))
                return 0;
        } else if (x[k] != y[k]) {
            return 0;
        }
    }
    return 1;
}

int
space_find_duplicate(const double *raw, size_t n, size_t width, size_t *first,
                     size_t *later)
{
    size_t *idx, *tmp;
    int found = 0;

    if (n < 2)
        return 0;
    idx = xmalloc(n * sizeof *idx);
    tmp = xmalloc(n * sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    /* Bottom-up merge sort of the indices. */
    for (size_t run = 1; run < n; run *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * run) {
            size_t mid = lo + run < n ? lo + run : n;
            size_t hi = lo + 2 * run < n ? lo + 2 * run : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] =
                    row_less(raw, width, idx[b], idx[a]) ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[o++] = idx[a++];
            while (b < hi)
                tmp[o++] = idx[b++];
        }
        size_t *t = idx;
        idx = tmp;
        tmp = t;
    }
    for (size_t j = 1; j < n && !found; j++)
        if (rows_equal(raw + idx[j - 1] * width, raw + idx[j] * width, width)) {
            *first = idx[j - 1];
            *later = idx[j];
            found = 1;
        }
    free(idx);
    free(tmp);
    return found;
}

void
space_init_subset(struct space *sub, const struct space *sp, const size_t *idx,
                  size_t k)
{
    space_init(sub);
    for (size_t j = 0; j < k; j++) {
        const struct param *q = &sp->params[idx[j]];
        struct param *p =
            push(sub, q->type == PARAM_CATEGORICAL ? SPACE_FEATURE_CATEGORY
                                                   : SPACE_FEATURE_REAL);
        *p = *q;
        if (q->n_values) {
            p->values = xmalloc(q->n_values * sizeof *p->values);
            memcpy(p->values, q->values, q->n_values * sizeof *p->values);
        }
        /* Conditions name parents by their index in sp: a subset's
         * parameters are all unconditional. */
        p->conditional = 0;
        p->parent = 0;
        p->cond = NULL;
        p->n_cond = 0;
    }
}

enum hpod_status
space_set_condition(struct space *sp, size_t i, size_t parent,
                    const double *vals, size_t n)
{
    if (i >= sp->n_params || parent >= sp->n_params || i == parent || n == 0)
        return HPOD_EUNPROC;
    const struct param *q = &sp->params[parent];
    if (q->type != PARAM_CATEGORICAL && q->n_values == 0)
        return HPOD_EUNPROC;
    for (size_t k = 0; k < n; k++)
        if (!space_contains(sp, parent, vals[k]))
            return HPOD_EUNPROC;
    struct param *p = &sp->params[i];
    free(p->cond);
    p->cond = xmalloc(n * sizeof *p->cond);
    memcpy(p->cond, vals, n * sizeof *p->cond);
    p->n_cond = n;
    p->parent = parent;
    p->conditional = 1;
    return HPOD_OK;
}

int
space_has_conditions(const struct space *sp)
{
    for (size_t i = 0; i < sp->n_params; i++)
        if (sp->params[i].conditional)
            return 1;
    return 0;
}

/* Whether parameter i is active in raw, its ancestors checked up to depth
 * (a cycle, which the caller refused, ends there as inactive). */
static int
active_at(const struct space *sp, const double *raw, size_t i, size_t depth)
{
    const struct param *p = &sp->params[i];
    if (!p->conditional)
        return 1;
    if (depth == 0 || !active_at(sp, raw, p->parent, depth - 1))
        return 0;
    for (size_t k = 0; k < p->n_cond; k++)
        if (raw[p->parent] == p->cond[k])
            return 1;
    return 0;
}

void
space_active(const struct space *sp, const double *raw, unsigned char *active)
{
    for (size_t i = 0; i < sp->n_params; i++)
        active[i] = (unsigned char)active_at(sp, raw, i, sp->n_params);
}

void
space_deactivate(const struct space *sp, double *raw)
{
    /* Every parameter's activity is decided from the raw values as given,
     * before any of them becomes NaN (a NaN parent would also say
     * inactive, but the order of the writes must not matter). */
    unsigned char buf[64],
        *active = sp->n_params <= 64 ? buf : xmalloc(sp->n_params);
    space_active(sp, raw, active);
    for (size_t i = 0; i < sp->n_params; i++)
        if (!active[i])
            raw[i] = NAN;
    if (active != buf)
        free(active);
}
