/*
 * cli/watch.c - `hpod watch`; see watch.h.
 */
#include "cli/watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/remote.h"
#include "common/json.h"
#include "common/mem.h"
#include "common/strbuf.h"

static const char *const STATES[] = {"completed", "running", "pending",
                                     "waiting",   "paused",  "failed",
                                     "pruned",    NULL};

static char *
compact(const json_t *v)
{
    char *t = v ? hj_dump(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    return t ? t : xstrdup("-");
}

static void
bars(struct strbuf *b, const json_t *counts, int width)
{
    long long most = 1;
    int room = width - 24;
    if (room < 10)
        room = 10;
    for (int i = 0; STATES[i]; i++) {
        long long n = json_integer_value(json_object_get(counts, STATES[i]));
        if (n > most)
            most = n;
    }
    for (int i = 0; STATES[i]; i++) {
        long long n = json_integer_value(json_object_get(counts, STATES[i]));
        int len = (int)((n * room + most - 1) / most);
        strbuf_printf(b, "  %-10s %6lld ", STATES[i], n);
        for (int k = 0; k < len; k++)
            strbuf_put(b, "#", 1);
        strbuf_put(b, "\n", 1);
    }
}

static void
best_line(const struct remote *r, long long id, const json_t *s,
          struct strbuf *b)
{
    char path[64];
    json_t *objs = json_object_get(s, "objectives"), *x = NULL;
    if (json_array_size(objs) != 1) {
        snprintf(path, sizeof path, "/v1/studies/%lld/pareto", id);
        if (remote_json(r, "watch", "GET", path, NULL, &x) == 0)
            strbuf_printf(b, "Pareto front: %zu trials\n",
                          json_array_size(json_object_get(x, "front")));
        json_decref(x);
        return;
    }
    const json_t *o = json_array_get(objs, 0);
    const char *name = json_string_value(json_object_get(o, "name"));
    snprintf(path, sizeof path, "/v1/studies/%lld/best", id);
    if (remote_json(r, "watch", "GET", path, NULL, &x) != 0)
        return;
    json_t *t = json_object_get(x, "trial");
    if (json_is_object(t)) {
        char *v = compact(json_object_get(json_object_get(t, "values"), name));
        char *p = compact(json_object_get(t, "params"));
        strbuf_printf(
            b, "best %s (%s): %s  trial #%lld  %s\n", name,
            json_string_value(json_object_get(o, "goal")), v,
            (long long)json_integer_value(json_object_get(t, "number")), p);
        free(v);
        free(p);
    } else {
        strbuf_printf(b, "best %s: no completed trial yet\n", name);
    }
    json_decref(x);
}

static int
by_update(const void *a, const void *b)
{
    const char *x =
        json_string_value(json_object_get(*(json_t *const *)a, "updated_at"));
    const char *y =
        json_string_value(json_object_get(*(json_t *const *)b, "updated_at"));
    int c = strcmp(y ? y : "", x ? x : "");
    long long i =
        json_integer_value(json_object_get(*(json_t *const *)a, "id"));
    long long j =
        json_integer_value(json_object_get(*(json_t *const *)b, "id"));
    if (c)
        return c;
    return (j > i) - (j < i);
}

/* The trials updated last that carry values or intermediate steps. */
static void
last_reports(const json_t *trials, struct strbuf *b)
{
    size_t n = 0, i;
    json_t *t, **rows = xcalloc(json_array_size(trials) + 1, sizeof *rows);
    json_array_foreach(
        trials, i, t) if (json_object_size(json_object_get(t, "values")) ||
                          json_array_size(json_object_get(t, "intermediate")))
        rows[n++] = t;
    qsort(rows, n, sizeof *rows, by_update);
    strbuf_printf(b, "last reports\n");
    if (n == 0)
        strbuf_printf(b, "  none yet\n");
    for (i = 0; i < n && i < WATCH_LAST; i++) {
        json_t *steps = json_object_get(rows[i], "intermediate");
        json_t *last = json_array_get(steps, json_array_size(steps) - 1);
        json_t *vals = json_object_get(rows[i], "values");
        char *v = compact(
            json_object_size(vals) ? vals : json_object_get(last, "values"));
        const char *at =
            json_string_value(json_object_get(rows[i], "updated_at"));
        char step[32] = "";
        if (!json_object_size(vals) && last)
            snprintf(
                step, sizeof step, "step %lld",
                (long long)json_integer_value(json_object_get(last, "step")));
        strbuf_printf(
            b, "  #%-5lld %-10s %-10s %s  %.8s\n",
            (long long)json_integer_value(json_object_get(rows[i], "number")),
            json_string_value(json_object_get(rows[i], "state")), step, v,
            at && strlen(at) >= 19 ? at + 11 : "");
        free(v);
    }
    free(rows);
}

/* One frame into b; *over: the study will issue nothing more. */
static int
frame(const struct remote *r, long long id, double interval, int width,
      struct strbuf *b, int *over)
{
    char path[64];
    json_t *s, *trials;
    snprintf(path, sizeof path, "/v1/studies/%lld", id);
    if (remote_json(r, "watch", "GET", path, NULL, &s) != 0)
        return 1;
    snprintf(path, sizeof path, "/v1/studies/%lld/trials", id);
    if (remote_list(r, "watch", path, "trials", 10000, &trials) != 0) {
        json_decref(s);
        return 1;
    }
    char alg[80];
    const char *state = json_string_value(json_object_get(s, "state"));
    json_t *budget = json_object_get(s, "budget");
    *over =
        state && (strcmp(state, "done") == 0 || strcmp(state, "finished") == 0);
    strbuf_printf(b, "hpod watch: study %lld \"%s\"  lab %s  %s\n", id,
                  json_string_value(json_object_get(s, "name")),
                  json_string_value(json_object_get(s, "lab")),
                  remote_algorithm(s, alg, sizeof alg));
    strbuf_printf(b, "state %s   trials %zu", state ? state : "?",
                  json_array_size(trials));
    if (json_is_integer(budget))
        strbuf_printf(b, " (budget %lld)",
                      (long long)json_integer_value(budget));
    strbuf_printf(b, "\n\n");
    bars(b, json_object_get(s, "trial_counts"), width);
    strbuf_printf(b, "\n");
    best_line(r, id, s, b);
    strbuf_printf(b, "\n");
    last_reports(trials, b);
    if (*over)
        strbuf_printf(b, "\nstudy %lld is %s\n", id, state);
    else
        strbuf_printf(b, "\nevery %g s; Ctrl-C to stop\n", interval);
    json_decref(s);
    json_decref(trials);
    return 0;
}

static void
pause_for(double seconds)
{
    struct timespec t = {(time_t)seconds,
                         (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

int
watch_run(const struct config *cfg, int argc, char **argv)
{
    struct remote r;
    char why[512], *end;
    long long id = 0;
    double interval = WATCH_INTERVAL_S;
    int once = 0, tty = isatty(STDOUT_FILENO), width = 80;
    struct winsize ws;

    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--once") == 0) {
            once = 1;
        } else if (strcmp(argv[i], "--interval") == 0 && i + 1 < argc) {
            interval = strtod(argv[++i], &end);
            if (*end || !(interval >= 0.1 && interval <= 3600))
                id = -1;
        } else if (id == 0) {
            id = strtoll(argv[i], &end, 10);
            if (*end || id <= 0)
                id = -1;
        } else {
            id = -1;
        }
    }
    if (id <= 0) {
        fprintf(stderr, "usage: hpod watch ID [--interval SECONDS (0.1 to "
                        "3600, default 2)] [--once]\n");
        return 2;
    }
    if (remote_init(&r, cfg, why, sizeof why) != 0) {
        fprintf(stderr, "hpod watch: %s\n", why);
        return 2;
    }
    if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        width = ws.ws_col;
    for (;;) {
        struct strbuf b = {0};
        int over = 0;
        strbuf_put(&b, "", 0);
        if (frame(&r, id, interval, width, &b, &over) != 0) {
            free(b.p);
            return 1;
        }
        /* Home and clear, then the frame: it replaces the last. */
        if (tty)
            fputs("\033[H\033[2J", stdout);
        fputs(b.p, stdout);
        if (!tty)
            fputs("\n", stdout);
        fflush(stdout);
        free(b.p);
        if (over || once)
            return 0;
        pause_for(interval);
    }
}
