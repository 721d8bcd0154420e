/*
 * bench/simulate.c - simulations on the benchmarks: the request body
 * parsed and the repeats run. See bench/simulate.h.
 */
#include "bench/simulate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/simrun.h"
#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "core/mobo.h"
#include "core/pareto.h"
#include "core/simulate.h"

#define SIM_THREADS 2

static json_t *
stat_json(const struct simulate_stat *s)
{
    if (!isfinite(s->mean))
        return json_pack("{s:n, s:n, s:I}", "mean", "std", "missed",
                         (json_int_t)s->missed);
    return json_pack("{s:f, s:f, s:I}", "mean", s->mean, "std",
                     isfinite(s->std) ? s->std : 0.0, "missed",
                     (json_int_t)s->missed);
}

/* The stat of metric id in sum. */
static const struct simulate_stat *
sum_stat(const struct simulate_summary *sum, enum metric_id id)
{
    switch (id) {
    case METRIC_FTB:
        return &sum->ftb;
    case METRIC_FTC:
        return &sum->ftc;
    case METRIC_FB:
        return &sum->fb;
    case METRIC_FTO:
        return &sum->fto;
    case METRIC_FTA:
        return &sum->fta;
    default:
        return &sum->fbp;
    }
}

/*
 * The metrics spec measures, as the answer's "metrics" object (*metrics)
 * and "computed_metrics" list (*names), in enum metric_id order.
 */
static void
metrics_json(const struct metric_spec *spec, const struct simulate_summary *sum,
             json_t **metrics, json_t **names)
{
    *metrics = json_object();
    *names = json_array();
    for (int m = 0; m < METRIC_COUNT; m++) {
        if (!metric_spec_measures(spec, (enum metric_id)m))
            continue;
        json_object_set_new(*metrics, metric_name((enum metric_id)m),
                            stat_json(sum_stat(sum, (enum metric_id)m)));
        json_array_append_new(*names,
                              json_string(metric_name((enum metric_id)m)));
    }
}

/*
 * Checks the request's "metrics" (asked, from simreq_table_parse) against
 * what this kind of run can compute (allowed): the first name outside it
 * is a 422 on metrics[i], why saying what does apply.
 */
static enum hpod_status
metrics_check(json_t *body, struct hpod_err *err, unsigned asked,
              unsigned allowed, const char *why)
{
    json_t *ms = json_object_get(body, "metrics");
    char f[32];
    if ((asked & ~allowed) == 0)
        return HPOD_OK;
    for (size_t i = 0; i < json_array_size(ms); i++) {
        const char *nm = json_string_value(json_array_get(ms, i));
        enum metric_id id = metric_from_name(nm);
        unsigned bit = id != METRIC_COUNT ? METRIC_BIT(id) : SIM_METRIC_GAP;
        if (bit & allowed)
            continue;
        snprintf(f, sizeof f, "metrics[%zu]", i);
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "metric %s does not apply to this simulation: %s", nm,
                         why);
    }
    return hpod_fail(err, HPOD_EUNPROC, "metrics",
                     "metrics do not apply to this simulation: %s", why);
}

/*
 * The ftc tolerance: "tolerance", or the paper's 0.5 BLEU (1.0 on
 * nmthpo/en-ja).
 */
static enum hpod_status
sim_tolerance(json_t *body, struct hpod_err *err, const struct bench_table *t,
              double *tol)
{
    json_t *v = json_object_get(body, "tolerance");
    *tol = strcmp(t->name, "nmthpo/en-ja") == 0 ? 1.0 : 0.5;
    if (!v || json_is_null(v))
        return HPOD_OK;
    if (!json_is_number(v))
        return hpod_fail(err, HPOD_EINVAL, "tolerance",
                         "tolerance must be a number");
    enum hpod_status st = hj_number_field(v, "tolerance", tol, err);
    if (st != HPOD_OK)
        return st;
    if (!(*tol > 0))
        return hpod_fail(err, HPOD_EUNPROC, "tolerance",
                         "tolerance must be > 0");
    return HPOD_OK;
}

/* See bench/simulate.h. */
void
bench_simulate_result_set(struct bench_sim_result *res, json_t **summary,
                          size_t **seqs, size_t **lens, size_t stride,
                          size_t runs, size_t cap, double seconds)
{
    res->summary = *summary;
    res->seqs = *seqs;
    res->lens = *lens;
    *summary = NULL;
    *seqs = *lens = NULL;
    res->stride = stride;
    res->runs = runs;
    res->cap = cap;
    res->seconds = seconds;
}

/* See bench/simulate.h. */
void
bench_simulate_result_free(struct bench_sim_result *res)
{
    json_decref(res->summary);
    free(res->seqs);
    free(res->lens);
    memset(res, 0, sizeof *res);
}

/* A multi-objective or constrained request, checked against the table. */
struct mo_req {
    json_t *objs; /* new reference: "objectives", or the alias wrapped */
    json_t *cons; /* borrowed: "constraints" or NULL */
    int alias;    /* objs came from "objective" */
    size_t m, nc;
    const double *col[BENCH_SIM_MAX_OBJECTIVES];
    const double *ccol[BENCH_SIM_MAX_CONSTRAINTS];
    int sense[BENCH_SIM_MAX_OBJECTIVES], cmax[BENCH_SIM_MAX_CONSTRAINTS];
    double bound[BENCH_SIM_MAX_CONSTRAINTS];
};

/* q->objs from "objectives" or its alias "objective" (default bleu). */
static void
mo_objs_get(json_t *body, struct mo_req *q)
{
    json_t *objs = json_object_get(body, "objectives");
    if (objs) {
        q->objs = json_incref(objs);
        return;
    }
    json_t *o1 = json_object_get(body, "objective");
    if (json_is_null(o1))
        o1 = NULL; /* as in the single-objective run: the default */
    q->alias = o1 != NULL;
    q->objs = json_pack(
        "[O]",
        o1 ? o1 : json_pack("{s:s, s:s}", "name", "bleu", "goal", "maximize"));
    if (!o1)
        json_decref(json_array_get(q->objs, 0));
}

/* The objectives: columns of t and senses. */
static enum hpod_status
mo_objectives(json_t *body, const struct bench_table *t, struct mo_req *q,
              struct hpod_err *err)
{
    char f[64];

    mo_objs_get(body, q);
    if (!json_is_array(q->objs) || json_array_size(q->objs) == 0 ||
        json_array_size(q->objs) > BENCH_SIM_MAX_OBJECTIVES)
        return hpod_fail(err, HPOD_EINVAL, "objectives",
                         "objectives must be an array of 1 to %d objects",
                         BENCH_SIM_MAX_OBJECTIVES);
    q->m = json_array_size(q->objs);
    for (size_t j = 0; j < q->m; j++) {
        json_t *o = json_array_get(q->objs, j);
        json_t *nm = json_object_get(o, "name"),
               *g = json_object_get(o, "goal");
        /* Errors name what the client wrote: objective or objectives[j]. */
        if (q->alias)
            snprintf(f, sizeof f, "objective");
        else
            snprintf(f, sizeof f, "objectives[%zu]", j);
        if (!json_is_object(o) || !json_is_string(nm) ||
            (g && !json_is_string(g)))
            return hpod_fail(err, HPOD_EINVAL, f,
                             "%s must be {\"name\": metric, \"goal\": ...}", f);
        const char *gs = g ? json_string_value(g) : "maximize";
        size_t fl = strlen(f);
        if (strcmp(gs, "maximize") && strcmp(gs, "minimize")) {
            snprintf(f + fl, sizeof f - fl, ".goal");
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "goal must be maximize or minimize");
        }
        if (!(q->col[j] = tables_table_metric(t, json_string_value(nm)))) {
            snprintf(f + fl, sizeof f - fl, ".name");
            return hpod_fail(err, HPOD_EUNPROC, f, "%s has no metric %s",
                             t->name, json_string_value(nm));
        }
        q->sense[j] = gs[1] == 'a' ? 1 : -1;
    }
    return HPOD_OK;
}

/* The constraints: columns of t, directions and bounds. */
static enum hpod_status
mo_constraints(json_t *body, const struct bench_table *t, struct mo_req *q,
               struct hpod_err *err)
{
    json_t *cons = json_object_get(body, "constraints");
    enum hpod_status st;
    char f[64];

    q->cons = cons;
    q->nc = json_is_array(cons) ? json_array_size(cons) : 0;
    if (cons && (!json_is_array(cons) || q->nc > BENCH_SIM_MAX_CONSTRAINTS))
        return hpod_fail(err, HPOD_EINVAL, "constraints",
                         "constraints must be an array of at most %d",
                         BENCH_SIM_MAX_CONSTRAINTS);
    for (size_t k = 0; k < q->nc; k++) {
        json_t *o = json_array_get(cons, k);
        json_t *mt = json_object_get(o, "metric");
        json_t *mx = json_object_get(o, "max"), *mn = json_object_get(o, "min");
        snprintf(f, sizeof f, "constraints[%zu]", k);
        if (!json_is_object(o) || !json_is_string(mt) ||
            !json_is_number(mx ? mx : mn) || (mx && mn))
            return hpod_fail(err, HPOD_EINVAL, f,
                             "%s must be {\"metric\": m, \"max\"|\"min\": x}",
                             f);
        if (!(q->ccol[k] = tables_table_metric(t, json_string_value(mt))))
            return hpod_fail(err, HPOD_EUNPROC, f, "%s has no metric %s",
                             t->name, json_string_value(mt));
        q->cmax[k] = mx != NULL;
        char fb[96];
        snprintf(fb, sizeof fb, "%s.%s", f, mx ? "max" : "min");
        if ((st = hj_number_field(mx ? mx : mn, fb, &q->bound[k], err)) !=
            HPOD_OK)
            return st;
    }
    if (q->m == 1 && q->nc == 0)
        return hpod_fail(err, HPOD_EUNPROC, "objectives",
                         "ehvi needs two or more objectives, or constraints");
    return HPOD_OK;
}

/* See bench/simulate.h. */
void
bench_simulate_mo_setup_init(struct bench_mo_setup *s,
                             const struct bench_table *t, size_t m,
                             const double *const *col, const int *sense,
                             size_t nc, const double *const *ccol,
                             const int *cmax, const double *bound)
{
    size_t n = t->n;
    int ones[BENCH_SIM_MAX_OBJECTIVES];

    memset(s, 0, sizeof *s);
    s->n = n;
    s->m = m;
    s->nc = nc;
    s->y = xmalloc(n * m * sizeof *s->y);
    s->y0 = xmalloc(n * sizeof *s->y0);
    s->c = xmalloc(n * (nc ? nc : 1) * sizeof *s->c);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < m; j++)
            s->y[i * m + j] = sense[j] * col[j][i];
        s->y0[i] = s->y[i * m];
        for (size_t k = 0; k < nc; k++)
            s->c[i * nc + k] = cmax[k] ? ccol[k][i] : -ccol[k][i];
    }
    for (size_t j = 0; j < m; j++)
        ones[j] = 1;
    pareto_reference(s->y, n, m, ones, 0.1, s->ref);
    for (size_t k = 0; k < nc; k++) {
        s->cb[k] = cmax[k] ? bound[k] : -bound[k];
        s->con_log[k] = cmax[k] && bound[k] > 0;
        for (size_t i = 0; i < n && s->con_log[k]; i++)
            s->con_log[k] = ccol[k][i] > 0;
    }
    /* Pareto rows of the objectives. */
    s->pareto = xcalloc(n ? n : 1, 1);
    if (m >= 2) {
        size_t *front = xmalloc(n * sizeof *front);
        size_t nf = pareto_front(s->y, n, m, ones, front);
        for (size_t q = 0; q < nf; q++)
            s->pareto[front[q]] = 1;
        free(front);
    }
    s->mp = (struct simulate_mo_problem){&t->space,
                                         t->raw,
                                         n,
                                         m,
                                         s->y,
                                         s->ref,
                                         nc,
                                         nc ? s->c : NULL,
                                         nc ? s->cb : NULL,
                                         nc ? s->con_log : NULL};
}

/* See bench/simulate.h. */
void
bench_simulate_mo_setup_free(struct bench_mo_setup *s)
{
    free(s->y);
    free(s->y0);
    free(s->c);
    free(s->pareto);
    memset(s, 0, sizeof *s);
}

static int
mo_feasible(const struct bench_mo_setup *s, size_t row)
{
    int ok = 1;
    for (size_t q = 0; q < s->nc; q++)
        ok &= s->c[row * s->nc + q] <= s->cb[q];
    return ok;
}

/* See bench/simulate.h. */
int
bench_simulate_mo_gap(const struct bench_mo_setup *s, const size_t *seqs,
                      size_t stride, const size_t *lens, size_t runs,
                      size_t budget, struct simulate_stat *g)
{
    double best = -INFINITY, *gaps;
    size_t k = 0, none = 0;

    for (size_t i = 0; i < s->n; i++)
        if (mo_feasible(s, i) && s->y[i] > best)
            best = s->y[i];
    if (best == -INFINITY)
        return 0;
    gaps = xmalloc((runs ? runs : 1) * sizeof *gaps);
    for (size_t r = 0; r < runs; r++) {
        double b = -INFINITY;
        size_t len = lens[r] < budget ? lens[r] : budget;
        for (size_t i = 0; i < len; i++) {
            size_t row = seqs[r * stride + i];
            if (mo_feasible(s, row) && s->y[row] > b)
                b = s->y[row];
        }
        if (b == -INFINITY)
            none++;
        else
            gaps[k++] = fabs(best - b);
    }
    *g = (struct simulate_stat){NAN, NAN, 0, 0};
    if (k)
        metric_mean_std(gaps, k, &g->mean, &g->std);
    g->runs = k;
    g->missed = none;
    free(gaps);
    return 1;
}

/* The metrics asked of a multi-objective or constrained run, checked. */
static enum hpod_status
mo_metrics(json_t *body, const struct mo_req *q, unsigned *asked,
           struct hpod_err *err)
{
    /* Two or more objectives measure fto, fta and fbp (and ftb, ftc, fb of
     * the first objective when asked); one objective with constraints
     * measures gap. */
    unsigned allowed = q->nc == 0  ? METRIC_SINGLE | METRIC_PARETO
                       : q->m == 1 ? SIM_METRIC_GAP
                                   : METRIC_PARETO;
    if (!*asked)
        *asked = q->m == 1 ? SIM_METRIC_GAP : METRIC_PARETO;
    return metrics_check(
        body, err, *asked, allowed,
        q->nc == 0  ? "gap needs constraints"
        : q->m == 1 ? "one objective with constraints measures gap"
                    : "several objectives with constraints measure fto, "
                      "fta and fbp");
}

/* The summary of a finished multi-objective or constrained run. */
static json_t *
mo_summary(const char *name, const struct bench_sim_table *tr,
           const struct mo_req *q, long long budget, long long pbudget,
           json_t *metrics, json_t *names, double tol, int has_tol,
           double seconds)
{
    json_t *summary =
        json_pack("{s:s, s:O, s:I, s:I, s:I, s:O, s:O, s:I, s:I, "
                  "s:o, s:f}",
                  "benchmark", name, "algorithm", tr->norm_algo, "repeats",
                  (json_int_t)tr->repeats, "init", (json_int_t)tr->init, "seed",
                  (json_int_t)tr->seed, "objectives", q->objs, "constraints",
                  q->cons ? q->cons : json_array(), "budget",
                  (json_int_t)budget, "pareto_budget", (json_int_t)pbudget,
                  "metrics", metrics, "seconds", seconds);
    if (!q->cons)
        json_decref(json_object_get(summary, "constraints"));
    json_object_set_new(summary, "computed_metrics", names);
    if (has_tol)
        json_object_set_new(summary, "tolerance", json_real(tol));
    return summary;
}

/* Whether any row of s meets its constraints (checked before the runs). */
static int
mo_any_feasible(const struct bench_mo_setup *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (mo_feasible(s, i))
            return 1;
    return 0;
}

/* See bench/simulate.h. */
struct bench_sim_plan {
    json_t *body; /* referenced: the strings below point into it */
    char name[160];
    const struct bench_table *t;
    struct bench_sim_table tr; /* tr.norm_algo referenced */
    int mo;                    /* the multi-objective / constrained run */
    /* One objective: its name and goal, the table's column oriented
     * (larger is better) and the problem over it. */
    const char *obj_name, *goal;
    double *y;
    struct simulate_problem prob;
    /* Several objectives or constraints. */
    struct mo_req q;
    struct bench_mo_setup s;
    long long budget, pbudget;
    double tol;
    struct metric_spec spec;
    size_t length; /* most rows per run; 0: the whole table */
};

/*
 * The multi-objective / constrained simulation (core/simulate_run_mo):
 * "objectives" with 2+ entries, or "constraints", or ehvi.
 * Multi-objective runs report fto, fta, fbp against the Pareto rows of
 * the requested objectives; constrained single-objective runs report the
 * gap between the table's best feasible value and the best feasible row
 * found within "budget" evaluations (default 40), and how many runs found
 * none.
 */
static enum hpod_status
plan_mo(struct bench_sim_plan *p, struct hpod_err *err)
{
    const struct bench_table *t = p->t;
    struct mo_req *q = &p->q;
    unsigned asked = p->tr.metrics;
    enum hpod_status st;

    if ((st = mo_objectives(p->body, t, q, err)) != HPOD_OK ||
        (st = mo_constraints(p->body, t, q, err)) != HPOD_OK ||
        (st = mo_metrics(p->body, q, &asked, err)) != HPOD_OK ||
        (st = sim_tolerance(p->body, err, t, &p->tol)) != HPOD_OK)
        return st;
    if (!p->tr.mo_able && q->m == 1)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.name",
                         "greedy has no constrained single-objective form: "
                         "it takes constraints with several objectives");
    int big = t->n > 400;
    p->budget = q->m == 1 ? 40 : 20;
    p->pbudget = big ? 200 : 50;
    if ((st = hj_get_int(p->body, "", "budget", 1, 1000000, &p->budget, NULL,
                         err)) != HPOD_OK ||
        (st = hj_get_int(p->body, "", "pareto_budget", 1, 1000000, &p->pbudget,
                         NULL, err)) != HPOD_OK)
        return st;
    bench_simulate_mo_setup_init(&p->s, t, q->m, q->col, q->sense, q->nc,
                                 q->ccol, q->cmax, q->bound);
    if (q->m == 1 && !mo_any_feasible(&p->s))
        return hpod_fail(err, HPOD_EUNPROC, "constraints",
                         "no row of %s meets the constraints", t->name);
    /* The ftb, ftc and fb of several objectives are those of the first.
     * Multi-objective runs stop once every metric asked is final;
     * constrained single-objective runs take exactly `budget` evaluations
     * (a spec that measures nothing: simrun_simulate). */
    simrun_spec_init(&p->spec, p->s.y0, p->s.pareto, t->n, (size_t)p->tr.init,
                     p->tol, (size_t)p->budget, (size_t)p->pbudget,
                     q->m >= 2 ? asked : 0);
    p->length = q->m >= 2 ? 0 : (size_t)p->budget;
    return HPOD_OK;
}

/* The result of a multi-objective or constrained simulation. */
static enum hpod_status
result_mo(const struct bench_sim_plan *p, const struct simrun_runs *all,
          json_t **summary, struct hpod_err *err)
{
    json_t *metrics, *names;

    if (p->q.m >= 2) {
        struct simulate_summary sum;
        simulate_summarize(&p->spec, all->seqs, all->stride, all->lens,
                           all->runs, &sum);
        metrics_json(&p->spec, &sum, &metrics, &names);
    } else {
        struct simulate_stat g;
        if (!bench_simulate_mo_gap(&p->s, all->seqs, all->stride, all->lens,
                                   all->runs, (size_t)p->budget, &g))
            return hpod_fail(err, HPOD_EUNPROC, "constraints",
                             "no row of %s meets the constraints", p->t->name);
        metrics = json_pack("{s:o}", "gap", stat_json(&g));
        names = json_pack("[s]", "gap");
    }
    *summary =
        mo_summary(p->name, &p->tr, &p->q, p->budget, p->pbudget, metrics,
                   names, p->tol, p->spec.y != NULL, all->seconds);
    return HPOD_OK;
}

/*
 * The "metrics" list of a simulate request: names from ftb, ftc, fb, fto,
 * fta, fbp and gap, each at most once. *out gets their bits.
 */
enum hpod_status
bench_simulate_metrics_parse(struct hpod_err *err, json_t *ms, unsigned *out)
{
    char f[32];
    *out = 0;
    if (!json_is_array(ms))
        return hpod_fail(err, HPOD_EINVAL, "metrics",
                         "metrics must be an array of metric names");
    if (json_array_size(ms) == 0)
        return hpod_fail(err, HPOD_EUNPROC, "metrics",
                         "metrics must name at least one metric");
    for (size_t i = 0; i < json_array_size(ms); i++) {
        json_t *v = json_array_get(ms, i);
        unsigned bit;
        snprintf(f, sizeof f, "metrics[%zu]", i);
        if (!json_is_string(v))
            return hpod_fail(err, HPOD_EINVAL, f, "%s must be a metric name",
                             f);
        const char *nm = json_string_value(v);
        enum metric_id id = metric_from_name(nm);
        if (id != METRIC_COUNT)
            bit = METRIC_BIT(id);
        else if (strcmp(nm, "gap") == 0)
            bit = SIM_METRIC_GAP;
        else
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "unknown metric \"%.64s\": use ftb, ftc, fb, "
                             "fto, fta, fbp or gap",
                             nm);
        if (*out & bit)
            return hpod_fail(err, HPOD_EUNPROC, f, "metric %s is named twice",
                             nm);
        *out |= bit;
    }
    return HPOD_OK;
}

/*
 * The single objective of a simulate request: "objectives[0]" or its alias
 * "objective" (bleu, maximized, when absent). *col is the table's column.
 */
static enum hpod_status
single_objective(json_t *body, const struct bench_table *t,
                 const char **obj_name, const char **goal, const double **col,
                 struct hpod_err *err)
{
    json_t *objs = json_object_get(body, "objectives");
    json_t *v =
        objs ? json_array_get(objs, 0) : json_object_get(body, "objective");
    const char *of = objs ? "objectives[0]" : "objective";
    char f[64];

    *obj_name = "bleu";
    *goal = "maximize";
    if (v && !json_is_null(v)) {
        json_t *on = json_object_get(v, "name"),
               *og = json_object_get(v, "goal");
        if (!json_is_object(v) || !json_is_string(on) ||
            (og && !json_is_string(og)))
            return hpod_fail(err, HPOD_EINVAL, of,
                             "%s must be {\"name\": metric, \"goal\": "
                             "\"maximize\"|\"minimize\"}",
                             of);
        *obj_name = json_string_value(on);
        *goal = og ? json_string_value(og) : "maximize";
        if (strcmp(*goal, "maximize") && strcmp(*goal, "minimize")) {
            snprintf(f, sizeof f, "%s.goal", of);
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "goal must be maximize or minimize");
        }
    }
    if (!(*col = tables_table_metric(t, *obj_name))) {
        snprintf(f, sizeof f, "%s.name", of);
        return hpod_fail(err, HPOD_EUNPROC, f, "%s has no metric \"%.64s\"",
                         t->name, *obj_name);
    }
    return HPOD_OK;
}

/* The single-objective run on a lookup table (core/simulate_run). */
static enum hpod_status
plan_single(struct bench_sim_plan *p, struct hpod_err *err)
{
    const struct bench_table *t = p->t;
    const double *col;
    enum hpod_status st;

    if ((st = single_objective(p->body, t, &p->obj_name, &p->goal, &col,
                               err)) != HPOD_OK ||
        (st = sim_tolerance(p->body, err, t, &p->tol)) != HPOD_OK)
        return st;
    int big = strcmp(t->name, "nmthpo/sw-en") == 0 ||
              strcmp(t->name, "nmthpo/so-en") == 0;
    p->pbudget = big ? 200 : 50;
    if ((st = hj_get_int(p->body, "", "pareto_budget", 1, 1000000, &p->pbudget,
                         NULL, err)) != HPOD_OK)
        return st;
    /* One objective measures ftb, ftc and fb unless "metrics" says
     * otherwise; fto, fta and fbp (the table's BLEU / GPU-time front) only
     * when asked, since they need every Pareto row in each sequence. */
    int has_pareto =
        tables_table_metric(t, "bleu") && tables_table_metric(t, "gpu_time");
    unsigned asked = p->tr.metrics ? p->tr.metrics : METRIC_SINGLE;
    if ((st = metrics_check(
             p->body, err, asked,
             METRIC_SINGLE | (has_pareto ? METRIC_PARETO : 0),
             has_pareto ? "gap needs constraints"
                        : "fto, fta and fbp need a table with bleu and "
                          "gpu_time, gap needs constraints")) != HPOD_OK)
        return st;
    int sense = p->goal[1] == 'a' ? 1 : -1;
    p->y = xmalloc((t->n ? t->n : 1) * sizeof *p->y);
    for (size_t i = 0; i < t->n; i++)
        p->y[i] = sense * col[i];
    p->prob = (struct simulate_problem){
        .space = &t->space, .raw = t->raw, .y = p->y, .n = t->n};
    simrun_spec_init(&p->spec, p->y, has_pareto ? t->pareto : NULL, t->n,
                     (size_t)p->tr.init, p->tol, (size_t)p->tr.budget,
                     (size_t)p->pbudget, asked);
    return HPOD_OK;
}

/* The result of a single-objective simulation. */
static json_t *
result_single(const struct bench_sim_plan *p, const struct simrun_runs *all)
{
    const struct bench_sim_table *tr = &p->tr;
    struct simulate_summary sum;
    json_t *metrics, *names;

    simulate_summarize(&p->spec, all->seqs, all->stride, all->lens, all->runs,
                       &sum);
    metrics_json(&p->spec, &sum, &metrics, &names);
    return json_pack(
        "{s:s, s:O, s:I, s:I, s:I, s:{s:s, s:s}, s:f, s:I, "
        "s:I, s:o, s:o, s:f}",
        "benchmark", p->name, "algorithm", tr->norm_algo, "repeats",
        (json_int_t)tr->repeats, "init", (json_int_t)tr->init, "seed",
        (json_int_t)tr->seed, "objective", "name", p->obj_name, "goal", p->goal,
        "tolerance", p->tol, "budget", (json_int_t)tr->budget, "pareto_budget",
        (json_int_t)p->pbudget, "metrics", metrics, "computed_metrics", names,
        "seconds", all->seconds);
}

/* See bench/simulate.h. */
enum hpod_status
bench_simulate_plan_create(json_t *body, const char *name,
                           const struct bench_table *t,
                           const struct bench_sim_table *tr,
                           struct bench_sim_plan **out, struct hpod_err *err)
{
    struct bench_sim_plan *p = xcalloc(1, sizeof *p);
    json_t *objs = json_object_get(body, "objectives");
    enum hpod_status st;

    *out = NULL;
    p->body = json_incref(body);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->t = t;
    p->tr = *tr;
    json_incref(p->tr.norm_algo);
    /* "objectives" with one entry is the single-objective run, as in a
     * study definition; "objective" is its older alias. More entries, a
     * constraint or ehvi make the multi-objective run. */
    int single = !objs || (json_is_array(objs) && json_array_size(objs) == 1);
    p->mo = tr->force_mo || json_object_get(body, "constraints") || !single;
    st = p->mo ? plan_mo(p, err) : plan_single(p, err);
    if (st != HPOD_OK) {
        bench_simulate_plan_free(p);
        return st;
    }
    *out = p;
    return HPOD_OK;
}

/* See bench/simulate.h. */
void
bench_simulate_plan_free(struct bench_sim_plan *p)
{
    if (!p)
        return;
    json_decref(p->q.objs);
    bench_simulate_mo_setup_free(&p->s);
    free(p->y);
    json_decref(p->tr.norm_algo);
    json_decref(p->body);
    free(p);
}

/* See bench/simulate.h. */
size_t
bench_simulate_plan_stride(const struct bench_sim_plan *p)
{
    return p->t->n;
}

/* See bench/simulate.h. */
enum hpod_status
bench_simulate_plan_run(const struct bench_sim_plan *p, size_t first,
                        size_t count, const struct bench_sim_hooks *hooks,
                        struct simrun_runs *out, struct hpod_err *err)
{
    size_t n = p->t->n;
    enum hpod_status *status = xcalloc(count ? count : 1, sizeof *status);
    enum hpod_status st = HPOD_OK;
    /* The loop of `hpod-bench`: the same request gives the same sequences
     * there and here. */
    struct simrun run = {.p = p->mo ? NULL : &p->prob,
                         .algo = &p->tr.single,
                         .mo = p->mo ? &p->s.mp : NULL,
                         .mo_algo = &p->tr.mo,
                         .spec = &p->spec,
                         .length = p->length,
                         .seed0 = (unsigned long long)p->tr.seed + first,
                         .init = (size_t)p->tr.init,
                         .runs = count,
                         .status = status};

    simrun_runs_init(out, first, count, n);
    run.seqs = out->seqs;
    run.lens = out->lens;
    if (hooks) {
        run.progress = hooks->progress;
        run.progress_arg = hooks->progress_arg;
        run.cancel = hooks->stop;
        run.stop_at = hooks->stop_at;
    }
    simrun_simulate(&run, SIM_THREADS);
    out->seconds = run.seconds;
    for (size_t r = 0; r < count; r++) {
        if (status[r] == HPOD_OK)
            continue;
        out->runs = r; /* stopped (HPOD_EBUSY) or failed here */
        if (status[r] == HPOD_EBUSY)
            break;
        if (p->mo)
            st = hpod_fail(err, HPOD_EUNPROC, "algorithm",
                           "run %zu failed on this table", first + r);
        else
            st = hpod_fail(
                err, HPOD_EUNPROC, "algorithm",
                "run %zu failed: %s cannot run on this table", first + r,
                json_string_value(json_object_get(p->tr.norm_algo, "name")));
        break;
    }
    free(status);
    return st;
}

/* See bench/simulate.h. */
enum hpod_status
bench_simulate_plan_result(const struct bench_sim_plan *p,
                           struct simrun_runs *all,
                           struct bench_sim_result *res, struct hpod_err *err)
{
    json_t *summary = NULL;
    enum hpod_status st = HPOD_OK;

    memset(res, 0, sizeof *res);
    if (p->mo)
        st = result_mo(p, all, &summary, err);
    else
        summary = result_single(p, all);
    if (st != HPOD_OK)
        return st;
    /* A constrained single-objective run holds `budget` rows at most. */
    size_t cap = p->mo && p->q.m == 1 ? (size_t)p->budget : all->stride;
    bench_simulate_result_set(res, &summary, &all->seqs, &all->lens,
                              all->stride, all->runs, cap, all->seconds);
    simrun_runs_clear(all);
    return HPOD_OK;
}

/* See bench/simulate.h. */
enum hpod_status
bench_simulate_table(json_t *body, const char *name,
                     const struct bench_table *t,
                     const struct bench_sim_table *tr,
                     struct bench_sim_result *res, struct hpod_err *err)
{
    struct bench_sim_plan *p = NULL;
    struct simrun_runs all = {0};
    enum hpod_status st;

    memset(res, 0, sizeof *res);
    if ((st = bench_simulate_plan_create(body, name, t, tr, &p, err)) ==
            HPOD_OK &&
        (st = bench_simulate_plan_run(p, 0, (size_t)tr->repeats, NULL, &all,
                                      err)) == HPOD_OK)
        st = bench_simulate_plan_result(p, &all, res, err);
    simrun_runs_clear(&all);
    bench_simulate_plan_free(p);
    return st;
}
