/*
 * core/ebm.c - the explainable boosting machine; contracts and the method
 * in core/ebm.h.
 */
#include "core/ebm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* Passes of pair purification (each moves both marginals into the mains). */
#define EBM_PURIFY_PASSES 20

struct ebm_feature {
    size_t n_bins;
    int categorical;
    int exact;     /* every distinct value is its own bin */
    double *upper; /* n_bins ascending edges (categorical: the codes) */
    double *rep;   /* mean of the data values in each bin */
    size_t *count; /* rows per bin */
    double *f;     /* contribution per bin */
};

struct ebm_pairterm {
    size_t a, b;
    double *f;     /* n_bins(a) × n_bins(b), row-major in a */
    double *count; /* rows per cell */
    double importance;
};

struct ebm {
    size_t n, p;
    double intercept, r2;
    struct ebm_feature *feat;
    double *importance; /* p */
    double *score;      /* p × p FAST scores (symmetric, 0 diagonal) */
    size_t n_pairs;
    struct ebm_pairterm *pairs;
};

/* What the fit works on: bins per row, the residual and scratch. */
struct work {
    size_t *bin; /* p × n: bin of row i for feature j at bin[j * n + i] */
    double *r;   /* n residuals */
    double *S, *N;
    size_t *order;
    double *leaf;
    double *cells_s, *cells_n, *scratch;
};

void
ebm_default_opts(struct ebm_opts *o)
{
    o->max_bins = 32;
    o->rounds = 1000;
    o->learning_rate = 0.05;
    o->max_leaves = 3;
    o->n_pairs = 3;
    o->pair_rounds = 500;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * The bin edges of one feature from its sorted values v (n, NaN last:
 * cmp_double sorts them there), of which n_nan are NaN (a missing value:
 * an inactive conditional parameter). The NaN rows get a bin of their own,
 * the last, whose edge and representative value are NaN.
 */
static void
make_bins(const double *v, size_t n, size_t n_nan, size_t max_bins,
          int categorical, struct ebm_feature *f)
{
    size_t d = n_nan > 0;
    n -= n_nan;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1])
            d++;
    f->categorical = categorical;
    f->upper = xmalloc((d ? d : 1) * sizeof *f->upper);
    f->n_bins = 0;
    f->exact = categorical || d <= max_bins;
    if (n == 0) {
        /* every value missing: the one NaN bin below */
    } else if (f->exact) {
        for (size_t i = 0; i < n; i++)
            if (i == 0 || v[i] != v[i - 1])
                f->upper[f->n_bins++] = v[i];
    } else {
        for (size_t k = 1; k <= max_bins; k++) {
            size_t pos = (k * n + max_bins - 1) / max_bins - 1;
            double e = v[pos < n ? pos : n - 1];
            if (f->n_bins == 0 || e > f->upper[f->n_bins - 1])
                f->upper[f->n_bins++] = e;
        }
        if (f->upper[f->n_bins - 1] < v[n - 1])
            f->upper[f->n_bins - 1] = v[n - 1];
    }
    if (n_nan > 0) {
        f->upper = xrealloc(f->upper, (f->n_bins + 1) * sizeof *f->upper);
        f->upper[f->n_bins++] = NAN;
    }
    f->rep = xcalloc(f->n_bins, sizeof *f->rep);
    f->count = xcalloc(f->n_bins, sizeof *f->count);
    f->f = xcalloc(f->n_bins, sizeof *f->f);
}

static size_t
bin_of(const struct ebm_feature *f, double v)
{
    int has_nan = f->n_bins > 0 && isnan(f->upper[f->n_bins - 1]);
    if (isnan(v))
        return f->n_bins - 1; /* the NaN bin (a feature without one: last) */
    size_t top = f->n_bins - (size_t)has_nan, lo = 0, hi = top;
    if (top == 0)
        return 0; /* only missing values were seen */
    /* the first edge >= v */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->upper[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == top)
        return top - 1;
    if (f->categorical && f->upper[lo] != v && lo > 0 &&
        v - f->upper[lo - 1] < f->upper[lo] - v)
        return lo - 1;
    return lo;
}

/* Squared-error score of one leaf (sum s over n rows): s²/n. */
static double
leaf_score(double s, double n)
{
    return n > 0 ? s * s / n : 0.0;
}

/*
 * The best split of bins order[lo..hi) (S, N per bin): sets *at to the
 * position of the first bin on the right; returns the gain (0 if none).
 */
static double
best_split(const double *S, const double *N, const size_t *order, size_t lo,
           size_t hi, size_t *at)
{
    double ts = 0, tn = 0, ls = 0, ln = 0, best = 0;
    for (size_t k = lo; k < hi; k++) {
        ts += S[order[k]];
        tn += N[order[k]];
    }
    double base = leaf_score(ts, tn);
    *at = hi;
    for (size_t k = lo; k + 1 < hi; k++) {
        ls += S[order[k]];
        ln += N[order[k]];
        double g = leaf_score(ls, ln) + leaf_score(ts - ls, tn - ln) - base;
        if (g > best) {
            best = g;
            *at = k + 1;
        }
    }
    return best;
}

/* Categorical bins ordered by mean residual (insertion sort: few bins). */
static void
order_by_mean(const double *S, const double *N, size_t B, size_t *order)
{
    for (size_t k = 0; k < B; k++) {
        size_t b = order[k], i = k;
        double mb = N[b] > 0 ? S[b] / N[b] : 0.0;
        while (i > 0) {
            size_t c = order[i - 1];
            double mc = N[c] > 0 ? S[c] / N[c] : 0.0;
            if (mc <= mb)
                break;
            order[i] = c;
            i--;
        }
        order[i] = b;
    }
}

/*
 * A tree of at most max_leaves leaves on bins (contiguous in order), grown
 * greedily by the best gain; leaf[b] gets the mean residual of b's leaf.
 */
static void
fit_tree1(const double *S, const double *N, size_t *order, size_t B,
          int categorical, size_t max_leaves, double *leaf)
{
    size_t start[64], n_seg = 1;

    for (size_t k = 0; k < B; k++)
        order[k] = k;
    if (categorical)
        order_by_mean(S, N, B, order);
    if (max_leaves > 64)
        max_leaves = 64;
    start[0] = 0;
    while (n_seg < max_leaves) {
        double best = 0;
        size_t best_seg = 0, best_at = 0;
        for (size_t s = 0; s < n_seg; s++) {
            size_t at, hi = s + 1 < n_seg ? start[s + 1] : B;
            double g = best_split(S, N, order, start[s], hi, &at);
            if (g > best) {
                best = g;
                best_seg = s;
                best_at = at;
            }
        }
        if (best <= 0)
            break;
        memmove(start + best_seg + 2, start + best_seg + 1,
                (n_seg - best_seg - 1) * sizeof *start);
        start[best_seg + 1] = best_at;
        n_seg++;
    }
    for (size_t s = 0; s < n_seg; s++) {
        size_t hi = s + 1 < n_seg ? start[s + 1] : B;
        double ts = 0, tn = 0;
        for (size_t k = start[s]; k < hi; k++) {
            ts += S[order[k]];
            tn += N[order[k]];
        }
        for (size_t k = start[s]; k < hi; k++)
            leaf[order[k]] = tn > 0 ? ts / tn : 0.0;
    }
}

/* One boosting step of feature j on the residual. */
static void
boost_main(struct ebm *m, struct work *w, size_t j, const struct ebm_opts *o)
{
    struct ebm_feature *f = &m->feat[j];
    const size_t *bin = w->bin + j * m->n;
    size_t B = f->n_bins;

    memset(w->S, 0, B * sizeof *w->S);
    memset(w->N, 0, B * sizeof *w->N);
    for (size_t i = 0; i < m->n; i++) {
        w->S[bin[i]] += w->r[i];
        w->N[bin[i]] += 1;
    }
    fit_tree1(w->S, w->N, w->order, B, f->categorical, o->max_leaves, w->leaf);
    for (size_t b = 0; b < B; b++) {
        w->leaf[b] *= o->learning_rate;
        f->f[b] += w->leaf[b];
    }
    for (size_t i = 0; i < m->n; i++)
        w->r[i] -= w->leaf[bin[i]];
}

/* ---- pairs ---- */

/* The best cut of a 1-D histogram (B bins): *cut = last bin on the left
 * (B - 1: no cut); returns the leaves' score. */
static double
best_cut_1d(const double *S, const double *N, size_t B, size_t *cut)
{
    double ts = 0, tn = 0, ls = 0, ln = 0;
    for (size_t k = 0; k < B; k++) {
        ts += S[k];
        tn += N[k];
    }
    double best = leaf_score(ts, tn);
    *cut = B - 1;
    for (size_t k = 0; k + 1 < B; k++) {
        ls += S[k];
        ln += N[k];
        double g = leaf_score(ls, ln) + leaf_score(ts - ls, tn - ln);
        if (g > best) {
            best = g;
            *cut = k;
        }
    }
    return best;
}

/* A small 2-D tree on a B1 × B2 view of cells (strides s1, s2): a cut c1
 * on the first coordinate, then a cut c2[side] on the second per side. */
struct tree2 {
    int swapped; /* 1: the first coordinate is the pair's b */
    size_t c1, c2[2];
    double gain;
};

static void
best_tree2(const double *S, const double *N, size_t B1, size_t B2, size_t s1,
           size_t s2, double *scr, struct tree2 *t)
{
    double *ls = scr, *ln = scr + B2, *rs = scr + 2 * B2, *rn = scr + 3 * B2;
    double ts = 0, tn = 0;

    memset(scr, 0, 4 * B2 * sizeof *scr);
    for (size_t u = 0; u < B1; u++)
        for (size_t v = 0; v < B2; v++) {
            rs[v] += S[u * s1 + v * s2];
            rn[v] += N[u * s1 + v * s2];
            ts += S[u * s1 + v * s2];
            tn += N[u * s1 + v * s2];
        }
    t->gain = 0;
    t->c1 = B1 - 1;
    t->c2[0] = t->c2[1] = B2 - 1;
    for (size_t u = 0; u < B1; u++) {
        size_t cl, cr;
        for (size_t v = 0; v < B2; v++) {
            ls[v] += S[u * s1 + v * s2];
            ln[v] += N[u * s1 + v * s2];
            rs[v] -= S[u * s1 + v * s2];
            rn[v] -= N[u * s1 + v * s2];
        }
        double g = best_cut_1d(ls, ln, B2, &cl) + best_cut_1d(rs, rn, B2, &cr) -
                   leaf_score(ts, tn);
        if (g > t->gain + 1e-12 * fabs(t->gain)) {
            t->gain = g;
            t->c1 = u;
            t->c2[0] = cl;
            t->c2[1] = cr;
        }
    }
}

/* The pair's cell sums of the residual into w->cells_s/cells_n. */
static void
pair_cells(const struct ebm *m, const struct work *w, size_t a, size_t b)
{
    size_t Bb = m->feat[b].n_bins, nc = m->feat[a].n_bins * Bb;
    const size_t *ba = w->bin + a * m->n, *bb = w->bin + b * m->n;

    memset(w->cells_s, 0, nc * sizeof *w->cells_s);
    memset(w->cells_n, 0, nc * sizeof *w->cells_n);
    for (size_t i = 0; i < m->n; i++) {
        w->cells_s[ba[i] * Bb + bb[i]] += w->r[i];
        w->cells_n[ba[i] * Bb + bb[i]] += 1;
    }
}

/* The better of the two orientations of the pair's tree. */
static void
pair_tree(const struct ebm *m, const struct work *w, size_t a, size_t b,
          struct tree2 *t)
{
    size_t Ba = m->feat[a].n_bins, Bb = m->feat[b].n_bins;
    struct tree2 u;

    best_tree2(w->cells_s, w->cells_n, Ba, Bb, Bb, 1, w->scratch, t);
    t->swapped = 0;
    best_tree2(w->cells_s, w->cells_n, Bb, Ba, 1, Bb, w->scratch, &u);
    u.swapped = 1;
    if (u.gain > t->gain)
        *t = u;
}

/* The leaf (0..3) of cell (ua, ub) under tree t. */
static size_t
tree2_leaf(const struct tree2 *t, size_t ua, size_t ub)
{
    size_t x1 = t->swapped ? ub : ua, x2 = t->swapped ? ua : ub;
    size_t side = x1 <= t->c1 ? 0 : 1;
    return side * 2 + (x2 <= t->c2[side] ? 0 : 1);
}

static void
boost_pair(struct ebm *m, struct work *w, struct ebm_pairterm *pt, double lr)
{
    size_t Ba = m->feat[pt->a].n_bins, Bb = m->feat[pt->b].n_bins;
    const size_t *ba = w->bin + pt->a * m->n, *bb = w->bin + pt->b * m->n;
    double ls[4] = {0}, ln[4] = {0};
    struct tree2 t;

    pair_cells(m, w, pt->a, pt->b);
    pair_tree(m, w, pt->a, pt->b, &t);
    if (t.gain <= 0)
        return;
    for (size_t u = 0; u < Ba; u++)
        for (size_t v = 0; v < Bb; v++) {
            size_t l = tree2_leaf(&t, u, v);
            ls[l] += w->cells_s[u * Bb + v];
            ln[l] += w->cells_n[u * Bb + v];
        }
    for (size_t l = 0; l < 4; l++)
        ls[l] = ln[l] > 0 ? lr * ls[l] / ln[l] : 0.0;
    for (size_t u = 0; u < Ba; u++)
        for (size_t v = 0; v < Bb; v++)
            pt->f[u * Bb + v] += ls[tree2_leaf(&t, u, v)];
    for (size_t i = 0; i < m->n; i++)
        w->r[i] -= ls[tree2_leaf(&t, ba[i], bb[i])];
}

/* FAST scores of every pair; the n_pairs best become terms. */
static void
choose_pairs(struct ebm *m, struct work *w, size_t n_pairs)
{
    size_t p = m->p, np = p * (p - 1) / 2, k = 0;
    size_t *idx = xmalloc((np ? np : 1) * sizeof *idx);

    for (size_t a = 0; a < p; a++)
        for (size_t b = a + 1; b < p; b++) {
            struct tree2 t;
            pair_cells(m, w, a, b);
            pair_tree(m, w, a, b, &t);
            m->score[a * p + b] = m->score[b * p + a] = t.gain / (double)m->n;
            idx[k++] = a * p + b;
        }
    /* Stable selection by score, strongest first. */
    for (size_t i = 1; i < np; i++) {
        size_t v = idx[i], j = i;
        while (j > 0 && m->score[idx[j - 1]] < m->score[v]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
    m->n_pairs = n_pairs < np ? n_pairs : np;
    m->pairs = xcalloc(m->n_pairs ? m->n_pairs : 1, sizeof *m->pairs);
    for (size_t q = 0; q < m->n_pairs; q++) {
        struct ebm_pairterm *pt = &m->pairs[q];
        pt->a = idx[q] / p;
        pt->b = idx[q] % p;
        size_t nc = m->feat[pt->a].n_bins * m->feat[pt->b].n_bins;
        pt->f = xcalloc(nc, sizeof *pt->f);
        pt->count = xcalloc(nc, sizeof *pt->count);
        pair_cells(m, w, pt->a, pt->b);
        memcpy(pt->count, w->cells_n, nc * sizeof *pt->count);
    }
    free(idx);
}

/* Moves the data-weighted marginals of the pair term into the mains. */
static void
purify(struct ebm *m, struct ebm_pairterm *pt)
{
    size_t Ba = m->feat[pt->a].n_bins, Bb = m->feat[pt->b].n_bins;
    for (int pass = 0; pass < EBM_PURIFY_PASSES; pass++) {
        for (size_t u = 0; u < Ba; u++) {
            double s = 0, c = 0;
            for (size_t v = 0; v < Bb; v++) {
                s += pt->count[u * Bb + v] * pt->f[u * Bb + v];
                c += pt->count[u * Bb + v];
            }
            double mean = c > 0 ? s / c : 0.0;
            for (size_t v = 0; v < Bb; v++)
                pt->f[u * Bb + v] -= mean;
            m->feat[pt->a].f[u] += mean;
        }
        for (size_t v = 0; v < Bb; v++) {
            double s = 0, c = 0;
            for (size_t u = 0; u < Ba; u++) {
                s += pt->count[u * Bb + v] * pt->f[u * Bb + v];
                c += pt->count[u * Bb + v];
            }
            double mean = c > 0 ? s / c : 0.0;
            for (size_t u = 0; u < Ba; u++)
                pt->f[u * Bb + v] -= mean;
            m->feat[pt->b].f[v] += mean;
        }
    }
}

/* Centres every term, computes the importances and orders the pairs. */
static void
finish(struct ebm *m)
{
    double n = (double)m->n;
    for (size_t q = 0; q < m->n_pairs; q++)
        purify(m, &m->pairs[q]);
    for (size_t j = 0; j < m->p; j++) {
        struct ebm_feature *f = &m->feat[j];
        double s = 0, a = 0;
        for (size_t b = 0; b < f->n_bins; b++)
            s += (double)f->count[b] * f->f[b];
        for (size_t b = 0; b < f->n_bins; b++) {
            f->f[b] -= s / n;
            a += (double)f->count[b] * fabs(f->f[b]);
        }
        m->intercept += s / n;
        m->importance[j] = a / n;
    }
    for (size_t q = 0; q < m->n_pairs; q++) {
        struct ebm_pairterm *pt = &m->pairs[q];
        size_t nc = m->feat[pt->a].n_bins * m->feat[pt->b].n_bins;
        double s = 0, a = 0;
        for (size_t c = 0; c < nc; c++)
            s += pt->count[c] * pt->f[c];
        for (size_t c = 0; c < nc; c++) {
            pt->f[c] -= s / n;
            a += pt->count[c] * fabs(pt->f[c]);
        }
        m->intercept += s / n;
        pt->importance = a / n;
    }
    for (size_t i = 1; i < m->n_pairs; i++) {
        struct ebm_pairterm v = m->pairs[i];
        size_t j = i;
        while (j > 0 && m->pairs[j - 1].importance < v.importance) {
            m->pairs[j] = m->pairs[j - 1];
            j--;
        }
        m->pairs[j] = v;
    }
}

static int
opts_ok(const struct ebm_opts *o)
{
    return o->max_bins >= 2 && o->max_leaves >= 2 && o->learning_rate > 0 &&
           o->learning_rate <= 1;
}

static int
inputs_ok(const double *x, size_t n, size_t p, const double *y)
{
    if (n == 0 || p == 0)
        return 0;
    for (size_t i = 0; i < n * p; i++)
        if (isinf(x[i]))
            return 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(y[i]))
            return 0;
    return 1;
}

/* Bins every feature and assigns the rows; sizes the scratch. */
static void
setup(struct ebm *m, struct work *w, const double *x,
      const unsigned char *categorical, const double *y, size_t max_bins)
{
    size_t n = m->n, p = m->p, maxb = 1;
    double *v = xmalloc(n * sizeof *v), mean = 0;

    w->bin = xmalloc(n * p * sizeof *w->bin);
    for (size_t j = 0; j < p; j++) {
        struct ebm_feature *f = &m->feat[j];
        size_t n_nan = 0, k = 0;
        for (size_t i = 0; i < n; i++)
            if (isnan(x[i * p + j]))
                n_nan++;
            else
                v[k++] = x[i * p + j];
        qsort(v, k, sizeof *v, cmp_double);
        for (; k < n; k++)
            v[k] = NAN;
        make_bins(v, n, n_nan, max_bins, categorical && categorical[j], f);
        for (size_t i = 0; i < n; i++) {
            size_t b = bin_of(f, x[i * p + j]);
            w->bin[j * n + i] = b;
            f->count[b]++;
            f->rep[b] += x[i * p + j];
        }
        for (size_t b = 0; b < f->n_bins; b++)
            f->rep[b] =
                f->exact || isnan(f->upper[b])
                    ? f->upper[b]
                    : f->rep[b] / (double)(f->count[b] ? f->count[b] : 1);
        if (f->n_bins > maxb)
            maxb = f->n_bins;
    }
    free(v);
    for (size_t i = 0; i < n; i++)
        mean += y[i];
    mean /= (double)n;
    m->intercept = mean;
    w->r = xmalloc(n * sizeof *w->r);
    for (size_t i = 0; i < n; i++)
        w->r[i] = y[i] - mean;
    w->S = xmalloc(maxb * sizeof *w->S);
    w->N = xmalloc(maxb * sizeof *w->N);
    w->order = xmalloc(maxb * sizeof *w->order);
    w->leaf = xmalloc(maxb * sizeof *w->leaf);
    w->cells_s = xmalloc(maxb * maxb * sizeof *w->cells_s);
    w->cells_n = xmalloc(maxb * maxb * sizeof *w->cells_n);
    w->scratch = xmalloc(4 * maxb * sizeof *w->scratch);
}

static void
work_clear(struct work *w)
{
    free(w->bin);
    free(w->r);
    free(w->S);
    free(w->N);
    free(w->order);
    free(w->leaf);
    free(w->cells_s);
    free(w->cells_n);
    free(w->scratch);
}

enum hpod_status
ebm_fit(const double *x, size_t n, size_t p, const unsigned char *categorical,
        const double *y, const struct ebm_opts *o, struct ebm **out)
{
    struct ebm_opts def;
    struct work w = {0};
    double sst = 0, sse = 0, mean;

    *out = NULL;
    if (!o) {
        ebm_default_opts(&def);
        o = &def;
    }
    if (!opts_ok(o) || !inputs_ok(x, n, p, y))
        return HPOD_EINVAL;
    struct ebm *m = xcalloc(1, sizeof *m);
    m->n = n;
    m->p = p;
    m->feat = xcalloc(p, sizeof *m->feat);
    m->importance = xcalloc(p, sizeof *m->importance);
    m->score = xcalloc(p * p, sizeof *m->score);
    setup(m, &w, x, categorical, y, o->max_bins);
    mean = m->intercept;
    for (size_t t = 0; t < o->rounds; t++)
        for (size_t j = 0; j < p; j++)
            boost_main(m, &w, j, o);
    if (p >= 2) {
        choose_pairs(m, &w, o->n_pairs);
        for (size_t t = 0; t < o->pair_rounds; t++)
            for (size_t q = 0; q < m->n_pairs; q++)
                boost_pair(m, &w, &m->pairs[q], o->learning_rate);
    }
    for (size_t i = 0; i < n; i++) {
        sst += (y[i] - mean) * (y[i] - mean);
        sse += w.r[i] * w.r[i];
    }
    m->r2 = sst > 0 ? 1.0 - sse / sst : 1.0;
    finish(m);
    work_clear(&w);
    *out = m;
    return HPOD_OK;
}

void
ebm_free(struct ebm *m)
{
    if (!m)
        return;
    for (size_t j = 0; j < m->p; j++) {
        free(m->feat[j].upper);
        free(m->feat[j].rep);
        free(m->feat[j].count);
        free(m->feat[j].f);
    }
    for (size_t q = 0; q < m->n_pairs; q++) {
        free(m->pairs[q].f);
        free(m->pairs[q].count);
    }
    free(m->feat);
    free(m->pairs);
    free(m->importance);
    free(m->score);
    free(m);
}

size_t
ebm_n_rows(const struct ebm *m)
{
    return m->n;
}

size_t
ebm_n_features(const struct ebm *m)
{
    return m->p;
}

double
ebm_intercept(const struct ebm *m)
{
    return m->intercept;
}

double
ebm_r2(const struct ebm *m)
{
    return m->r2;
}

double
ebm_importance(const struct ebm *m, size_t j)
{
    return m->importance[j];
}

size_t
ebm_n_bins(const struct ebm *m, size_t j)
{
    return m->feat[j].n_bins;
}

double
ebm_bin_value(const struct ebm *m, size_t j, size_t b)
{
    return m->feat[j].rep[b];
}

size_t
ebm_bin_count(const struct ebm *m, size_t j, size_t b)
{
    return m->feat[j].count[b];
}

double
ebm_contribution(const struct ebm *m, size_t j, size_t b)
{
    return m->feat[j].f[b];
}

size_t
ebm_bin_of(const struct ebm *m, size_t j, double v)
{
    return bin_of(&m->feat[j], v);
}

size_t
ebm_n_pairs(const struct ebm *m)
{
    return m->n_pairs;
}

void
ebm_pair(const struct ebm *m, size_t k, size_t *a, size_t *b,
         double *importance)
{
    *a = m->pairs[k].a;
    *b = m->pairs[k].b;
    *importance = m->pairs[k].importance;
}

double
ebm_pair_contribution(const struct ebm *m, size_t k, size_t ba, size_t bb)
{
    const struct ebm_pairterm *pt = &m->pairs[k];
    return pt->f[ba * m->feat[pt->b].n_bins + bb];
}

double
ebm_pair_score(const struct ebm *m, size_t a, size_t b)
{
    return m->score[a * m->p + b];
}

double
ebm_predict(const struct ebm *m, const double *x)
{
    double s = m->intercept;
    for (size_t j = 0; j < m->p; j++)
        s += m->feat[j].f[bin_of(&m->feat[j], x[j])];
    for (size_t q = 0; q < m->n_pairs; q++) {
        const struct ebm_pairterm *pt = &m->pairs[q];
        s += ebm_pair_contribution(m, q, bin_of(&m->feat[pt->a], x[pt->a]),
                                   bin_of(&m->feat[pt->b], x[pt->b]));
    }
    return s;
}
