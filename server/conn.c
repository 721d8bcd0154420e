/*
 * server/conn.c - one open connection: its request's deadlines and its
 * request line; see conn.h.
 */
#include "server/conn.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "common/clock.h"
#include "common/mem.h"

struct conn {
    struct conn *prev, *next;
    struct conn_guard *g;
    int fd;
    long long begun_ms;    /* when the current request could begin */
    long long deadline_ms; /* 0: none */
    int body;              /* the deadline is the body's */
    int cut;               /* shut down by the watchdog */
    int bad_target;        /* only the connection's own thread uses it */
};

struct conn_guard {
    pthread_mutex_t mu;
    pthread_t thread;
    atomic_int stop; /* conn_guard_free waits a tick at most */
    long header_ms, body_ms, tick_ms;
    void (*on_cut)(int body);
    struct conn head; /* sentinel of a circular list */
};

/* Shuts down every connection past its deadline (under g->mu). */
static void
sweep(struct conn_guard *g, long long now)
{
    for (struct conn *c = g->head.next; c != &g->head; c = c->next) {
        if (c->cut || c->deadline_ms == 0 || now < c->deadline_ms)
            continue;
        c->cut = 1;
        shutdown(c->fd, SHUT_RDWR);
        if (g->on_cut)
            g->on_cut(c->body);
    }
}

static void *
watchdog(void *arg)
{
    struct conn_guard *g = arg;
    struct timespec tick = {g->tick_ms / 1000, (g->tick_ms % 1000) * 1000000L};
    while (!atomic_load(&g->stop)) {
        pthread_mutex_lock(&g->mu);
        sweep(g, hpod_now_ms());
        pthread_mutex_unlock(&g->mu);
        nanosleep(&tick, NULL);
    }
    return NULL;
}

struct conn_guard *
conn_guard_create(long header_ms, long body_ms, void (*on_cut)(int body))
{
    struct conn_guard *g = xcalloc(1, sizeof *g);
    long tick = (header_ms < body_ms ? header_ms : body_ms) / 10;
    pthread_mutex_init(&g->mu, NULL);
    g->header_ms = header_ms;
    g->body_ms = body_ms;
    /* A connection is cut at most a tenth of its allowance late, and at
     * most 200 ms. */
    g->tick_ms = tick < 5 ? 5 : tick > 200 ? 200 : tick;
    g->on_cut = on_cut;
    g->head.next = g->head.prev = &g->head;
    if (pthread_create(&g->thread, NULL, watchdog, g) != 0)
        abort(); /* as xmalloc does when out of memory */
    return g;
}

void
conn_guard_free(struct conn_guard *g)
{
    if (!g)
        return;
    atomic_store(&g->stop, 1);
    pthread_join(g->thread, NULL);
    while (g->head.next != &g->head)
        conn_close(g->head.next);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

struct conn *
conn_open(struct conn_guard *g, int fd)
{
    struct conn *c = xcalloc(1, sizeof *c);
    c->g = g;
    c->fd = fd;
    pthread_mutex_lock(&g->mu);
    c->begun_ms = hpod_now_ms();
    c->deadline_ms = c->begun_ms + g->header_ms;
    c->next = &g->head;
    c->prev = g->head.prev;
    g->head.prev->next = c;
    g->head.prev = c;
    pthread_mutex_unlock(&g->mu);
    return c;
}

void
conn_close(struct conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->g->mu);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    pthread_mutex_unlock(&c->g->mu);
    free(c);
}

/* Sets c's deadline: after begun_ms (0: none), the body's or the
 * headers'; restart: the request begins now. */
static void
set_deadline(struct conn *c, int restart, int body, int none)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->g->mu);
    if (restart)
        c->begun_ms = hpod_now_ms();
    c->body = body;
    c->deadline_ms =
        none ? 0 : c->begun_ms + (body ? c->g->body_ms : c->g->header_ms);
    pthread_mutex_unlock(&c->g->mu);
}

void
conn_headers_in(struct conn *c)
{
    set_deadline(c, 0, 1, 0);
}

void
conn_request_in(struct conn *c)
{
    set_deadline(c, 0, 1, 1);
}

void
conn_answered(struct conn *c)
{
    set_deadline(c, 1, 0, 0);
}

int
conn_late(const struct conn *c)
{
    int late;
    if (!c)
        return 0;
    pthread_mutex_lock(&c->g->mu);
    late = c->cut || (c->deadline_ms != 0 && hpod_now_ms() >= c->deadline_ms);
    pthread_mutex_unlock(&c->g->mu);
    return late;
}

int
conn_bad_target(const struct conn *c)
{
    return c ? c->bad_target : 0;
}

/* ---- libmicrohttpd's callbacks ---- */

struct conn *
conn_of(struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void
conn_on_notify(void *cls, struct MHD_Connection *mc, void **socket_context,
               enum MHD_ConnectionNotificationCode toe)
{
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = ci ? conn_open(cls, ci->connect_fd) : NULL;
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        conn_close(*socket_context);
        *socket_context = NULL;
    }
}

/* A new request line: nothing is known against it yet. */
void *
conn_on_uri(void *cls, const char *uri, struct MHD_Connection *mc)
{
    struct conn *c = conn_of(mc);
    (void)cls;
    (void)uri;
    if (c)
        c->bad_target = 0;
    return NULL; /* the request's state: made by server/http.c */
}

/* The value of hex digit d, or -1. */
static int
hex_value(char d)
{
    if (d >= '0' && d <= '9')
        return d - '0';
    if (d >= 'a' && d <= 'f')
        return d - 'a' + 10;
    if (d >= 'A' && d <= 'F')
        return d - 'A' + 10;
    return -1;
}

size_t
conn_unescape(char *s, int *control)
{
    char *r = s, *w = s;
    while (*r) {
        int hi = r[0] == '%' ? hex_value(r[1]) : -1;
        int lo = hi >= 0 ? hex_value(r[2]) : -1;
        if (lo >= 0) {
            *w = (char)(hi << 4 | lo);
            r += 3;
        } else {
            *w = *r++;
        }
        if ((unsigned char)*w < 0x20 || *w == 0x7f)
            *control = 1;
        w++;
    }
    *w = '\0';
    return (size_t)(w - s);
}

size_t
conn_on_unescape(void *cls, struct MHD_Connection *mc, char *s)
{
    struct conn *c = conn_of(mc);
    int control = 0;
    size_t n = conn_unescape(s, &control);
    (void)cls;
    if (control && c)
        c->bad_target = 1;
    return n;
}
