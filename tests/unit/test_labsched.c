/*
 * tests/unit/test_labsched.c - model work admitted per lab: a lab runs
 * at most its slots while another lab's work runs at once on the units
 * left, a lab's waiters past its queue are refused (429 with
 * Retry-After), a freed unit goes to the waiting lab with the fewest
 * running units before an earlier waiter of a busier lab, and the
 * default slots are half the units and half the CPUs, whichever is fewer.
 */
#include "tests/support/check.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "study/labsched.h"

struct waiter_arg {
    const char *lab;
    size_t units;
    struct labsched_ticket t;
    enum hpod_status st;
    int done;
    int order; /* admission order among the waiters */
};

static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;
static int next_order;

static void *
waiter(void *p)
{
    struct waiter_arg *a = p;
    struct hpod_err err = {0};
    a->st = labsched_enter(a->units, a->lab, &a->t, &err);
    pthread_mutex_lock(&order_mu);
    a->order = ++next_order;
    a->done = 1;
    pthread_mutex_unlock(&order_mu);
    return NULL;
}

/* Waits until the scheduler holds `waiting` waiters. */
static void
until_waiting(size_t waiting)
{
    struct labsched_stats s;
    for (int i = 0; i < 2000; i++) {
        labsched_stats(&s);
        if (s.waiting == waiting)
            return;
        usleep(1000);
    }
    fail_msg("never %zu waiters", waiting);
}

static int
is_done(struct waiter_arg *a)
{
    pthread_mutex_lock(&order_mu);
    int d = a->done;
    pthread_mutex_unlock(&order_mu);
    return d;
}

static void
test_slots_queue_and_other_lab(void **unused)
{
    (void)unused;
    struct labsched_ticket a1, a2, b1, a4;
    struct hpod_err err = {0};
    struct labsched_stats s;
    struct waiter_arg w3 = {.lab = "a", .units = 4};
    pthread_t th;

    labsched_configure(2, 1, 0);
    assert_int_equal(labsched_enter(4, "a", &a1, &err), HPOD_OK);
    assert_int_equal(labsched_enter(4, "a", &a2, &err), HPOD_OK);
    /* Lab a is at its 2 slots: a third call waits, a fourth is past the
     * queue of 1. */
    pthread_create(&th, NULL, waiter, &w3);
    until_waiting(1);
    assert_int_equal(labsched_enter(4, "a", &a4, &err), HPOD_ELIMIT);
    assert_int_equal(err.retry_after, LABSCHED_RETRY_SECONDS);
    assert_non_null(strstr(err.msg, "HPOD_LAB_QUEUE"));
    assert_false(a4.held);
    /* Lab b runs at once on the units a does not hold. */
    assert_int_equal(labsched_enter(4, "b", &b1, &err), HPOD_OK);
    assert_false(is_done(&w3));
    labsched_stats(&s);
    assert_int_equal(s.running, 3);
    assert_int_equal(s.waiting, 1);
    assert_int_equal(s.labs, 2);
    assert_int_equal(s.refused, 1);
    /* A slot of a freed: the waiter runs. */
    labsched_leave(&a1);
    pthread_join(th, NULL);
    assert_int_equal(w3.st, HPOD_OK);
    labsched_leave(&a2);
    labsched_leave(&w3.t);
    labsched_leave(&b1);
    labsched_leave(&b1); /* a ticket that holds nothing: no-op */
    labsched_stats(&s);
    assert_int_equal(s.running, 0);
    assert_int_equal(s.waiting, 0);
    assert_int_equal(s.labs, 0);
}

static void
test_fewest_running_first(void **unused)
{
    (void)unused;
    struct labsched_ticket a1, a2;
    struct hpod_err err = {0};
    struct waiter_arg wa = {.lab = "a", .units = 2},
                      wb = {.lab = "b", .units = 2};
    pthread_t ta, tb;

    /* Two units, each lab may take both: a does, then a waits, then b. */
    labsched_configure(2, 8, 0);
    next_order = 0;
    assert_int_equal(labsched_enter(2, "a", &a1, &err), HPOD_OK);
    assert_int_equal(labsched_enter(2, "a", &a2, &err), HPOD_OK);
    pthread_create(&ta, NULL, waiter, &wa);
    until_waiting(1);
    pthread_create(&tb, NULL, waiter, &wb);
    until_waiting(2);
    /* The freed unit goes to b (no unit running), not the earlier a. */
    labsched_leave(&a1);
    pthread_join(tb, NULL);
    assert_int_equal(wb.order, 1);
    assert_false(is_done(&wa));
    labsched_leave(&a2);
    pthread_join(ta, NULL);
    assert_int_equal(wa.order, 2);
    labsched_leave(&wa.t);
    labsched_leave(&wb.t);
}

static void
test_default_slots(void **unused)
{
    (void)unused;
    struct labsched_ticket t[4];
    struct hpod_err err = {0};

    /* 0: half the units and half the CPUs, whichever is fewer. With 6
     * units and 16 CPUs (or CPUs unknown) a lab runs 3 and its queue of 0
     * refuses the fourth; with 6 units and 2 CPUs it runs 1; with 1 unit
     * or 1 CPU a lab still runs one. */
    static const struct {
        long cpus;
        size_t units;
        int runs;
    } cases[] = {{16, 6, 3}, {0, 6, 3},  {2, 6, 1},
                 {4, 6, 2},  {16, 1, 1}, {1, 6, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        labsched_configure(0, 0, cases[k].cpus);
        for (int i = 0; i < cases[k].runs; i++)
            assert_int_equal(labsched_enter(cases[k].units, "", &t[i], &err),
                             HPOD_OK);
        assert_int_equal(
            labsched_enter(cases[k].units, "", &t[cases[k].runs], &err),
            HPOD_ELIMIT);
        for (int i = 0; i < cases[k].runs; i++)
            labsched_leave(&t[i]);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_queue_and_other_lab),
        cmocka_unit_test(test_fewest_running_first),
        cmocka_unit_test(test_default_slots),
    };
    return cmocka_run_group_tests_name("labsched", tests, NULL, NULL);
}
