/*
 * core/mstage.c - multi-stage BO bookkeeping; the rules are in mstage.h.
 *
 * Trials live in an array kept sorted by id (declarations come from the
 * database in id order, so inserting is almost always an append), each
 * with its reports sorted by step; every answer is then a function of the
 * declared set, not of the call order.
 */
#include "core/mstage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

struct ms_report {
    size_t step;
    double value;
};

struct ms_trial {
    int64_t id;
    size_t stage;
    enum mstage_state state;
    double final_value;
    struct ms_report *rep; /* sorted by step, then value */
    size_t n_rep, cap_rep;
};

struct mstage {
    size_t n, k;
    size_t steps[MSTAGE_MAX_STAGES], trials[MSTAGE_MAX_STAGES];
    int sense, exhausted;
    struct ms_trial *t; /* sorted by id */
    size_t n_t, cap_t;
};

enum hpod_status
mstage_create(const struct mstage_params *prm, struct mstage **out)
{
    if (!out)
        return HPOD_EINVAL;
    *out = NULL;
    if (!prm || !prm->steps || !prm->trials || prm->n == 0 ||
        prm->n > MSTAGE_MAX_STAGES || prm->k == 0)
        return HPOD_EINVAL;
    for (size_t i = 0; i < prm->n; i++)
        if (prm->steps[i] == 0 || prm->trials[i] == 0 ||
            (i > 0 && prm->steps[i] <= prm->steps[i - 1]))
            return HPOD_EINVAL;
    struct mstage *ms = xcalloc(1, sizeof *ms);
    ms->n = prm->n;
    ms->k = prm->k;
    memcpy(ms->steps, prm->steps, prm->n * sizeof *prm->steps);
    memcpy(ms->trials, prm->trials, prm->n * sizeof *prm->trials);
    ms->sense = prm->sense < 0 ? -1 : 1;
    ms->exhausted = prm->exhausted != 0;
    *out = ms;
    return HPOD_OK;
}

void
mstage_free(struct mstage *ms)
{
    if (!ms)
        return;
    for (size_t i = 0; i < ms->n_t; i++)
        free(ms->t[i].rep);
    free(ms->t);
    free(ms);
}

/* Index of id in ms->t, or where it would be inserted (*found = 0). */
static size_t
find(const struct mstage *ms, int64_t id, int *found)
{
    size_t lo = 0, hi = ms->n_t;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ms->t[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < ms->n_t && ms->t[lo].id == id;
    return lo;
}

static struct ms_trial *
get(const struct mstage *ms, int64_t id)
{
    int found;
    size_t i = find(ms, id, &found);
    return found ? &ms->t[i] : NULL;
}

enum hpod_status
mstage_trial(struct mstage *ms, int64_t id, size_t stage,
             enum mstage_state state, double final_value)
{
    int found;
    if (!ms || stage >= ms->n || (unsigned)state > MSTAGE_ENDED)
        return HPOD_EINVAL;
    size_t i = find(ms, id, &found);
    if (!found) {
        if (ms->n_t == ms->cap_t) {
            ms->cap_t = ms->cap_t ? 2 * ms->cap_t : 16;
            ms->t = xrealloc(ms->t, ms->cap_t * sizeof *ms->t);
        }
        memmove(ms->t + i + 1, ms->t + i, (ms->n_t - i) * sizeof *ms->t);
        memset(&ms->t[i], 0, sizeof ms->t[i]);
        ms->t[i].id = id;
        ms->n_t++;
    }
    ms->t[i].stage = stage;
    ms->t[i].state = state;
    ms->t[i].final_value = final_value;
    return HPOD_OK;
}

/* Is a better than b in the objective's direction (NaN never better)? */
static int
better(const struct mstage *ms, double a, double b)
{
    if (isnan(a))
        return 0;
    if (isnan(b))
        return 1;
    return ms->sense < 0 ? a < b : a > b;
}

enum hpod_status
mstage_observe(struct mstage *ms, int64_t id, size_t step, double value)
{
    struct ms_trial *t = ms ? get(ms, id) : NULL;
    if (!t)
        return HPOD_ENOTFOUND;
    /* Sorted insert by (step, value); an exact duplicate is dropped, so
     * observing twice changes nothing. NaN values sort last in a step. */
    size_t i = t->n_rep;
    while (i > 0 && (t->rep[i - 1].step > step ||
                     (t->rep[i - 1].step == step &&
                      better(ms, value, t->rep[i - 1].value))))
        i--;
    if (i > 0 && t->rep[i - 1].step == step &&
        (t->rep[i - 1].value == value ||
         (isnan(value) && isnan(t->rep[i - 1].value))))
        return HPOD_OK;
    if (t->n_rep == t->cap_rep) {
        t->cap_rep = t->cap_rep ? 2 * t->cap_rep : 8;
        t->rep = xrealloc(t->rep, t->cap_rep * sizeof *t->rep);
    }
    memmove(t->rep + i + 1, t->rep + i, (t->n_rep - i) * sizeof *t->rep);
    t->rep[i].step = step;
    t->rep[i].value = value;
    t->n_rep++;
    return HPOD_OK;
}

static int
value_at(const struct mstage *ms, const struct ms_trial *t, size_t f,
         double *out)
{
    double best = NAN;
    size_t i;
    for (i = 0; i < t->n_rep && t->rep[i].step < f; i++)
        if (better(ms, t->rep[i].value, best))
            best = t->rep[i].value;
    if (i < t->n_rep) {
        /* The first reported step at or past f, and its ties. */
        size_t s = t->rep[i].step;
        for (; i < t->n_rep && t->rep[i].step == s; i++)
            if (better(ms, t->rep[i].value, best))
                best = t->rep[i].value;
        *out = best;
        return 1;
    }
    if (t->state != MSTAGE_COMPLETED)
        return 0;
    if (better(ms, t->final_value, best))
        best = t->final_value;
    *out = best;
    return 1;
}

int
mstage_value_at(struct mstage *ms, int64_t id, size_t f, double *out)
{
    const struct ms_trial *t = ms ? get(ms, id) : NULL;
    return t && out ? value_at(ms, t, f, out) : 0;
}

enum mstage_action
mstage_decide(struct mstage *ms, int64_t id, size_t step)
{
    const struct ms_trial *t = ms ? get(ms, id) : NULL;
    if (!t || t->stage + 1 >= ms->n)
        return MSTAGE_CONTINUE;
    return step >= ms->steps[t->stage] ? MSTAGE_STOP : MSTAGE_CONTINUE;
}

size_t
mstage_count_at(const struct mstage *ms, size_t f)
{
    size_t k = 0;
    double v;
    for (size_t i = 0; ms && i < ms->n_t; i++)
        k += (size_t)value_at(ms, &ms->t[i], f, &v);
    return k;
}

size_t
mstage_last_step(const struct mstage *ms, int64_t id)
{
    const struct ms_trial *t = ms ? get(ms, id) : NULL;
    return t && t->n_rep ? t->rep[t->n_rep - 1].step : 0;
}

size_t
mstage_steps(const struct mstage *ms, size_t i)
{
    return ms && i < ms->n ? ms->steps[i] : 0;
}

/* A paused trial and its value at its stage's fidelity, for ordering. */
struct ranked {
    int64_t id;
    double v;
    int sense;
};

static int
ranked_cmp(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    int an = isnan(a->v), bn = isnan(b->v);
    if (an != bn)
        return an - bn; /* NaN last */
    if (!an && a->v != b->v)
        return (a->sense < 0 ? a->v < b->v : a->v > b->v) ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static void
push(int64_t **arr, size_t *n, int64_t id)
{
    *arr = xrealloc(*arr, (*n + 1) * sizeof **arr);
    (*arr)[(*n)++] = id;
}

/*
 * The paused members of stage c ranked by their value at fidelity f, best
 * first; waiting = 1 keeps only those without a value at steps[c] (seeds
 * that have yet to train to it), 0 only those with one. Returns how many.
 */
static size_t
paused_ranked(const struct mstage *ms, size_t c, size_t f, int waiting,
              struct ranked **out)
{
    size_t m = 0;
    *out = xmalloc((ms->n_t ? ms->n_t : 1) * sizeof **out);
    for (size_t i = 0; i < ms->n_t; i++) {
        const struct ms_trial *t = &ms->t[i];
        double v = NAN, w;
        if (t->stage != c || t->state != MSTAGE_PAUSED ||
            value_at(ms, t, ms->steps[c], &w) == waiting)
            continue;
        value_at(ms, t, f, &v);
        (*out)[m++] = (struct ranked){t->id, v, ms->sense};
    }
    qsort(*out, m, sizeof **out, ranked_cmp);
    return m;
}

void
mstage_plan(struct mstage *ms, struct mstage_plan *out)
{
    memset(out, 0, sizeof *out);
    if (!ms)
        return;
    size_t c = 0;
    for (size_t i = 0; i < ms->n_t; i++)
        if (ms->t[i].stage > c)
            c = ms->t[i].stage;
    for (;;) {
        size_t members = 0;
        int all_done = 1;
        double v;
        for (size_t i = 0; i < ms->n_t; i++) {
            const struct ms_trial *t = &ms->t[i];
            if (t->stage != c || t->state == MSTAGE_ENDED)
                continue;
            members++;
            /* In the last stage only a final report is the end. */
            if (t->state != MSTAGE_COMPLETED &&
                (c + 1 == ms->n || !value_at(ms, t, ms->steps[c], &v)))
                all_done = 0;
        }
        int complete = (members >= ms->trials[c] || ms->exhausted) && all_done;
        if (!complete) {
            struct ranked *r;
            size_t m = paused_ranked(ms, c, c ? ms->steps[c - 1] : 0, 1, &r);
            for (size_t j = 0; j < m; j++)
                push(&out->resume, &out->n_resume, r[j].id);
            free(r);
            out->stage = c;
            out->n_new = ms->exhausted || members >= ms->trials[c]
                             ? 0
                             : ms->trials[c] - members;
            return;
        }
        if (c + 1 == ms->n) {
            out->stage = ms->n;
            return;
        }
        /* Advance: the best min(k, trials[c+1]) paused go on. */
        struct ranked *r;
        size_t m = paused_ranked(ms, c, ms->steps[c], 0, &r);
        size_t seeds = ms->k < ms->trials[c + 1] ? ms->k : ms->trials[c + 1];
        for (size_t j = 0; j < m; j++) {
            struct ms_trial *t = get(ms, r[j].id);
            if (j < seeds) {
                t->stage = c + 1;
                push(&out->seeds, &out->n_seeds, t->id);
                out->seed_to =
                    xrealloc(out->seed_to, out->n_seeds * sizeof *out->seed_to);
                out->seed_to[out->n_seeds - 1] = c + 1;
            } else {
                t->state = MSTAGE_ENDED;
                push(&out->prune, &out->n_prune, t->id);
            }
        }
        free(r);
        c++;
    }
}

void
mstage_plan_clear(struct mstage_plan *p)
{
    if (!p)
        return;
    free(p->seeds);
    free(p->seed_to);
    free(p->prune);
    free(p->resume);
    memset(p, 0, sizeof *p);
}
