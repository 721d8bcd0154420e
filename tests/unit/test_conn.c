/*
 * tests/unit/test_conn.c - server/conn.c's deadlines on a socket pair:
 * the watchdog shuts down a connection whose headers (or body) are not in
 * by their deadline, counted from the request's start, and leaves alone
 * one whose request is in (liveness bounds only: a deadline of 100 ms
 * must have cut within 1.5 s); and the unescaping of paths and queries,
 * which flags control characters, escaped or not.
 */
#include "tests/support/check.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server/conn.h"

static atomic_int cuts[2];

static void
on_cut(int body)
{
    atomic_fetch_add(&cuts[body ? 1 : 0], 1);
}

static void
sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* 1 when the peer of sv[1] (sv[0]) was shut down: sv[1] reads EOF. */
static int
shut(int fd)
{
    char c;
    return recv(fd, &c, 1, MSG_DONTWAIT) == 0;
}

/* Waits up to 1.5 s for fd's peer to be shut down. */
static int
cut_within(int fd)
{
    for (int i = 0; i < 150; i++) {
        if (shut(fd))
            return 1;
        sleep_ms(10);
    }
    return 0;
}

static void
pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

/* Closes c, the pair and the guard. */
static void
done(struct conn_guard *g, struct conn *c, int sv[2])
{
    conn_close(c);
    close(sv[0]);
    close(sv[1]);
    conn_guard_free(g);
}

static void
test_headers_due(void **state)
{
    (void)state;
    int sv[2];
    struct conn_guard *g = conn_guard_create(100, 10000, on_cut);
    atomic_store(&cuts[0], 0);
    atomic_store(&cuts[1], 0);
    pair(sv);
    struct conn *c = conn_open(g, sv[0]);
    assert_false(shut(sv[1]));
    assert_true(cut_within(sv[1]));
    assert_true(conn_late(c));
    assert_int_equal(atomic_load(&cuts[0]), 1);
    assert_int_equal(atomic_load(&cuts[1]), 0);
    done(g, c, sv);
}

static void
test_body_due_from_the_start(void **state)
{
    (void)state;
    int sv[2];
    struct conn_guard *g = conn_guard_create(10000, 100, on_cut);
    atomic_store(&cuts[1], 0);
    pair(sv);
    struct conn *c = conn_open(g, sv[0]);
    conn_headers_in(c);
    assert_true(cut_within(sv[1]));
    assert_int_equal(atomic_load(&cuts[1]), 1);
    done(g, c, sv);
}

static void
test_no_deadline_while_answering(void **state)
{
    (void)state;
    int sv[2];
    struct conn_guard *g = conn_guard_create(100, 100, on_cut);
    pair(sv);
    struct conn *c = conn_open(g, sv[0]);
    conn_headers_in(c);
    conn_request_in(c);
    sleep_ms(400);
    assert_false(shut(sv[1]));
    assert_false(conn_late(c));
    /* The answer is sent: the next request's headers are due. */
    conn_answered(c);
    assert_true(cut_within(sv[1]));
    done(g, c, sv);
}

static void
test_many_and_free(void **state)
{
    (void)state;
    int sv[8][2];
    struct conn *c[8];
    struct conn_guard *g = conn_guard_create(100, 100, NULL);
    for (int i = 0; i < 8; i++) {
        pair(sv[i]);
        c[i] = conn_open(g, sv[i][0]);
    }
    /* Every other one finished its request: only the rest are cut. */
    for (int i = 0; i < 8; i += 2)
        conn_request_in(c[i]);
    for (int i = 1; i < 8; i += 2)
        assert_true(cut_within(sv[i][1]));
    for (int i = 0; i < 8; i += 2)
        assert_false(shut(sv[i][1]));
    conn_close(c[0]);
    conn_close(NULL);
    conn_headers_in(NULL);
    assert_false(conn_late(NULL));
    assert_false(conn_bad_target(NULL));
    conn_guard_free(g); /* frees the seven still tracked */
    for (int i = 0; i < 8; i++) {
        close(sv[i][0]);
        close(sv[i][1]);
    }
    conn_guard_free(NULL);
}

static void
unescaped(const char *in, const char *want, size_t want_len, int want_control)
{
    char buf[128];
    int control = 0;
    snprintf(buf, sizeof buf, "%s", in);
    assert_int_equal(conn_unescape(buf, &control), want_len);
    assert_memory_equal(buf, want, want_len + 1);
    assert_int_equal(control, want_control);
}

static void
test_unescape(void **state)
{
    (void)state;
    unescaped("/v1/studies", "/v1/studies", 11, 0);
    unescaped("%41%62c%2F", "Abc/", 4, 0);
    unescaped("a%20b%7e", "a b~", 4, 0);
    /* Not an escape: kept as it is. */
    unescaped("%zz%4%", "%zz%4%", 6, 0);
    unescaped("%\x10"
              "0",
              "%\x10"
              "0",
              3, 1);
    unescaped("%e2%80%ae", "\xe2\x80\xae", 3, 0);
    /* NUL, other controls and DEL, escaped or raw. */
    unescaped("/web/app.js%00.png", "/web/app.js\0.png", 16, 1);
    unescaped("a%0Ab", "a\nb", 3, 1);
    unescaped("a%7Fb",
              "a\x7f"
              "b",
              3, 1);
    unescaped("a\tb", "a\tb", 3, 1);
    unescaped("a%1fb",
              "a\x1f"
              "b",
              3, 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_due),
        cmocka_unit_test(test_body_due_from_the_start),
        cmocka_unit_test(test_no_deadline_while_answering),
        cmocka_unit_test(test_many_and_free),
        cmocka_unit_test(test_unescape),
    };
    return cmocka_run_group_tests_name("conn", tests, NULL, NULL);
}
