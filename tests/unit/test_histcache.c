/*
 * tests/unit/test_histcache.c - the history cache's merge, without a
 * database: after any sequence of deltas (new trials, updated ones, values
 * added, leases expired, rows read again), the cached rows equal a full
 * read of the same "database" (brute-force reference: a map by id), and
 * history_build_parsed on them gives the same evidence as history_build
 * on the full read.
 */
#include "tests/support/check.h"
#include "tests/support/studydef.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "study/histcache.h"
#include "study/modelcache.h"

#define NMAX 64

/* The reference database: trial id i + 1 at slot i. */
struct ref {
    int exists, expired, state, has_loss, bad_params;
    double x, loss;
};

static void
def_make(struct study_def *d)
{
    const char *text =
        "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
        "\"low\":0,\"high\":1}],\"objectives\":[{\"name\":\"loss\","
        "\"goal\":\"minimize\"}],\"algorithm\":{\"name\":\"gp\"}}";
    def_parse(text, d);
}

/* The row of reference slot i as a read gives it (owned strings). */
static void
row_of(const struct ref *r, size_t i, struct trial *t)
{
    char p[64];
    memset(t, 0, sizeof *t);
    t->id = (long long)i + 1;
    t->state = (enum trial_state)r[i].state;
    t->candidate = -1;
    t->train_to = -1;
    t->resume_from_step = -1;
    t->lease_expired = r[i].expired;
    if (r[i].bad_params)
        snprintf(p, sizeof p, "{\"y\":1}");
    else
        snprintf(p, sizeof p, "{\"x\":%.17g}", r[i].x);
    t->params = xstrdup(p);
    if (r[i].has_loss && !r[i].expired)
        metric_set_add(&t->values, "loss", r[i].loss);
}

/* A full read: every existing trial not failed by lease expiry. */
static size_t
full_read(const struct ref *r, struct trial *out)
{
    size_t n = 0;
    for (size_t i = 0; i < NMAX; i++)
        if (r[i].exists && !r[i].expired)
            row_of(r, i, &out[n++]);
    return n;
}

static void
assert_same_history(const struct history *a, const struct history *b)
{
    assert_int_equal(a->n_obs, b->n_obs);
    assert_int_equal(a->n_pend, b->n_pend);
    for (size_t i = 0; i < a->n_obs; i++) {
        assert_true(a->obs_raw[i] == b->obs_raw[i]);
        assert_true(a->obs_y[i] == b->obs_y[i]);
    }
    for (size_t i = 0; i < a->n_pend; i++)
        assert_true(a->pend_raw[i] == b->pend_raw[i]);
}

/* One random change of the reference; returns the slot changed. */
static size_t
change(struct ref *r, size_t *n_ids)
{
    static const int states[] = {TRIAL_PENDING, TRIAL_RUNNING, TRIAL_COMPLETED,
                                 TRIAL_PRUNED, TRIAL_FAILED};
    size_t i;
    if (*n_ids < NMAX && (*n_ids == 0 || rand() % 3 == 0)) {
        i = (*n_ids)++; /* a new trial (ids only grow) */
        r[i].exists = 1;
        r[i].state = TRIAL_PENDING;
        r[i].x = (double)(rand() % 1000) / 1000.0;
        r[i].bad_params = rand() % 10 == 0;
        return i;
    }
    i = (size_t)rand() % *n_ids;
    if (r[i].expired)
        return i; /* an expired trial stays so (read again: idempotent) */
    switch (rand() % 4) {
    case 0: /* its lease expires */
        r[i].expired = 1;
        r[i].state = TRIAL_FAILED;
        break;
    case 1: /* a report with values */
        r[i].state = TRIAL_COMPLETED;
        r[i].has_loss = 1;
        r[i].loss = (double)(rand() % 100);
        break;
    default:
        r[i].state = states[rand() % 5];
        break;
    }
    return i;
}

static void
test_merge_equals_full_read(void **unused)
{
    (void)unused;
    struct study_def d;
    struct mf_work w = {.train_to = -1, .max_new = -1};
    def_make(&d);
    for (unsigned seed = 1; seed <= 40; seed++) {
        struct ref r[NMAX];
        struct hcache c = {.study_id = 1};
        size_t n_ids = 0;
        srand(seed);
        memset(r, 0, sizeof r);
        for (int round = 0; round < 30; round++) {
            unsigned char changed[NMAX] = {0};
            int k = rand() % 6;
            for (int j = 0; j < k; j++)
                changed[change(r, &n_ids)] = 1;
            /* Rows read again though unchanged (xid >= xmin but already
             * seen): merging is idempotent. */
            for (size_t i = 0; i < n_ids; i++)
                if (rand() % 8 == 0)
                    changed[i] = 1;
            struct trial *delta = xcalloc(NMAX, sizeof *delta);
            size_t nd = 0;
            for (size_t i = 0; i < n_ids; i++)
                if (changed[i])
                    row_of(r, i, &delta[nd++]);
            histcache_merge(&c, delta, nd, &d);
            free(delta);

            struct trial full[NMAX];
            size_t nf = full_read(r, full);
            assert_int_equal(c.n, nf);
            for (size_t i = 0; i < nf; i++) {
                assert_int_equal(c.rows[i].id, full[i].id);
                assert_int_equal(c.rows[i].state, full[i].state);
                assert_string_equal(c.rows[i].params, full[i].params);
                assert_int_equal(c.rows[i].values.n, full[i].values.n);
                assert_int_equal(c.ok[i], !r[full[i].id - 1].bad_params);
                if (c.ok[i])
                    assert_true(c.raw[i] == r[full[i].id - 1].x);
            }
            struct history a = {0}, b = {0};
            history_build(&d, full, nf, NULL, 0, 0, &w, &a);
            history_build_parsed(&d, c.rows, c.raw, c.ok, c.n, NULL, 0, 0, &w,
                                 &b);
            assert_same_history(&a, &b);
            history_clear(&a);
            history_clear(&b);
            for (size_t i = 0; i < nf; i++)
                trial_clear(&full[i]);
        }
        histcache_reset(&c);
        assert_int_equal(c.n, 0);
        assert_int_equal(c.study_id, 1);
    }
    def_clear(&d);
}

/* Without a definition (random search: only candidates), nothing parsed. */
static void
test_merge_candidates_only(void **unused)
{
    (void)unused;
    struct hcache c = {.study_id = 2};
    struct trial *delta = xcalloc(3, sizeof *delta);
    for (size_t i = 0; i < 3; i++) {
        delta[i].id = (long long)i + 10;
        delta[i].candidate = (long long)i * 2;
        delta[i].lease_expired = i == 1;
    }
    histcache_merge(&c, delta, 3, NULL);
    free(delta);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.rows[0].id, 10);
    assert_int_equal(c.rows[1].id, 12);
    assert_int_equal(c.ok[0], 0);
    double cand_raw[5] = {0};
    struct history h = {0};
    history_taken_rows(c.rows, c.n, cand_raw, 5, &h);
    assert_int_equal(h.cand_used[0], 1);
    assert_int_equal(h.cand_used[2], 0); /* its lease expired */
    assert_int_equal(h.cand_used[4], 1);
    history_clear(&h);
    histcache_reset(&c);
}

/* One trial row as a refresh reads it (x: its params; owned strings). */
static void
row_make(struct trial *t, long long id, int state, int expired, double x)
{
    char p[64];
    memset(t, 0, sizeof *t);
    t->id = id;
    t->state = (enum trial_state)state;
    t->candidate = -1;
    t->train_to = -1;
    t->resume_from_step = -1;
    t->lease_expired = expired;
    snprintf(p, sizeof p, "{\"x\":%.17g}", x);
    t->params = xstrdup(p);
}

/*
 * Refreshes that only update cached rows and append new ids (the usual
 * case, merged in place, growing the arrays), then one that brings an id
 * below the last cached one (a trial whose insert committed late) and one
 * that expires a cached row (both merged by copying): after each, the
 * rows equal the reference, in id order, with their params parsed.
 */
static void
test_merge_in_place(void **unused)
{
    (void)unused;
    enum { N = 400, HOLE = 57 };
    struct study_def d;
    struct hcache c = {.study_id = 3};
    int state[N + 1] = {0}, live[N + 1] = {0};
    long long next = 1;
    def_make(&d);
    srand(7);
    for (int round = 0; round < 150 && next < N - 4; round++) {
        struct trial delta[16];
        size_t nd = 0;
        for (long long id = 1; id < next && nd < 8; id++)
            if (live[id] && rand() % 20 == 0) {
                state[id] = rand() % 2 ? TRIAL_COMPLETED : TRIAL_RUNNING;
                row_make(&delta[nd++], id, state[id], 0, (double)id / N);
            }
        for (int a = rand() % 4; a > 0; a--, next++) {
            if (next == HOLE)
                continue; /* its insert commits late (below) */
            int expired = rand() % 10 == 0; /* never seen live */
            live[next] = !expired;
            state[next] = expired ? TRIAL_FAILED : TRIAL_PENDING;
            row_make(&delta[nd++], next, state[next], expired,
                     (double)next / N);
        }
        histcache_merge(&c, delta, nd, &d);
        if (round == 100 || round == 120) {
            struct trial late;
            long long id = round == 100 ? HOLE : 3;
            live[id] = round == 100; /* the hole arrives; trial 3 expires */
            state[id] = round == 100 ? TRIAL_PENDING : TRIAL_FAILED;
            row_make(&late, id, state[id], round == 120, (double)id / N);
            histcache_merge(&c, &late, 1, &d);
        }
        size_t k = 0;
        for (long long id = 1; id < next; id++) {
            if (!live[id])
                continue;
            assert_true(k < c.n);
            assert_int_equal(c.rows[k].id, id);
            assert_int_equal(c.rows[k].state, state[id]);
            assert_int_equal(c.ok[k], 1);
            assert_true(c.raw[k] == (double)id / N);
            k++;
        }
        assert_int_equal(c.n, k);
        assert_true(c.cap >= c.n);
    }
    assert_true(next > 200);
    histcache_reset(&c);
    def_clear(&d);
}

/* The process table: take, put back, take again gives the same entry;
 * put with keep = 0 destroys it. */
static void
test_table(void **unused)
{
    (void)unused;
    struct hcache *a = histcache_take(7);
    snprintf(a->xmin, sizeof a->xmin, "123");
    histcache_put(a, 1);
    struct hcache *b = histcache_take(7);
    assert_ptr_equal(a, b);
    assert_string_equal(b->xmin, "123");
    struct hcache *other = histcache_take(7); /* taken: a new, empty one */
    assert_ptr_not_equal(other, b);
    assert_string_equal(other->xmin, "");
    histcache_put(other, 1);
    histcache_put(b, 0); /* not committed: dropped */
    struct hcache *d = histcache_take(7);
    assert_string_equal(d->xmin, "");
    histcache_put(d, 1);
    modelcache_clear();
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_equals_full_read),
        cmocka_unit_test(test_merge_candidates_only),
        cmocka_unit_test(test_merge_in_place),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
