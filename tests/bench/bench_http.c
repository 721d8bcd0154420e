/*
 * tests/bench/bench_http.c - HTTP load generator for a running hpod server.
 *
 *   bench_http URL[,URL...] CLIENTS SECONDS [STUDY_JSON_FILE [STUDIES]]
 *
 * URL may list several servers (replicas on one database), separated by
 * commas: client i then talks to URL number i mod n for its whole run
 * (round-robin per client, one keep-alive connection each), and the study
 * is created and counted through the first. Creates one study (default: the
 * random sampler on a 4-parameter mixed space, objective "loss" minimized; or
 * the StudyCreate body in STUDY_JSON_FILE), then runs CLIENTS threads, each
 * with its own libcurl easy handle (so its own keep-alive connection), looping
 *   POST /v1/studies/{id}/suggest {"worker": "bench-<i>"}
 *   POST /v1/trials/{trial}/report {"values": {<every objective>: synthetic}}
 * for 1 s of warm-up plus SECONDS of measurement. Every call's latency is
 * taken with CLOCK_MONOTONIC around curl_easy_perform, i.e. it includes the
 * client's request formatting and response reading, which is what a trainer
 * sees. Only pairs whose suggest started after the warm-up enter the
 * figures; the throughput divides them by the wall time from the end of the
 * warm-up to the moment the last thread finished its last pair (so a pair
 * in flight when the clock runs out is neither dropped nor free). A study
 * that runs out of trials (a finite one whose candidates are all taken)
 * is measured over its steady window only: from the end of the warm-up to
 * the start of the first suggest answered with no trial; the rate is then
 * the reports that ended in that window over its length, and the
 * latencies those of the calls started in it.
 *
 * STUDIES (default 1) runs that many fresh studies in turn, with the same
 * clients and servers, each created from the same body with " #k"
 * appended to its name for k >= 2, and each measured as above (warm-up,
 * window). A finite study of a few thousand candidates gives a window of
 * a fraction of a second, whose p99 is a handful of calls; the windows of
 * several studies are pooled into one: the rate is the cycles counted in
 * all windows over their summed length, the percentiles those of every
 * call in them. The first study alone is what one study measures, printed
 * beside the pooled figures (the "first_study_" result keys).
 *
 * Output: one line per call type (suggest, report) with clients, round
 * trips per second, p50/p99 latency in ms (nearest-rank percentiles over
 * every measured call), the number of calls and of non-2xx answers (warm-up
 * included: there must be none); then the connections libcurl opened
 * (equal to CLIENTS when keep-alive works), and the median latencies of the
 * first and last fifth of the window with the study's final trial count (a
 * cost that grows with the study shows up there). Last, the figures again as
 * "result KEY VALUE" lines (cycles_per_s, suggest_p50_ms, suggest_p99_ms,
 * report_p50_ms, report_p99_ms, empty_suggests; pooled when STUDIES > 1,
 * then also first_study_cycles_per_s, ... for the first study alone) for
 * run.sh to collect.
 * Non-2xx answers and transport errors are printed to stderr and make the
 * exit status 1.
 * Not a test: nothing about speed is asserted.
 */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_WARMUP_S 1.0
#define BENCH_MAX_CLIENTS 1024
#define BENCH_MAX_METRICS 8
#define BENCH_PRINT_ERRORS 5 /* per thread and call type */
#define BENCH_MAX_URLS 16

/* A printf format: %s is the study's name ((lab, name) is unique). */
static const char default_study[] =
    "{\"name\": \"%s\","
    " \"space\": ["
    "  {\"name\": \"lr\", \"type\": \"float\", \"low\": 1e-5, \"high\": 0.1,"
    "   \"log\": true},"
    "  {\"name\": \"layers\", \"type\": \"int\", \"low\": 1, \"high\": 12},"
    "  {\"name\": \"batch\", \"type\": \"int\", \"values\": [16, 32, 64, 128]},"
    "  {\"name\": \"opt\", \"type\": \"categorical\","
    "   \"choices\": [\"adam\", \"adamw\", \"sgd\"]}],"
    " \"objectives\": [{\"name\": \"loss\", \"goal\": \"minimize\"}],"
    " \"algorithm\": {\"name\": \"random\", \"seed\": 1}}";

/* A growable byte buffer (response bodies) or array of doubles. */
struct buf {
    char *p;
    size_t len, cap;
};

struct samples {
    double *v;  /* latencies, ms */
    double *at; /* when each call started, CLOCK_MONOTONIC seconds */
    size_t n, cap;
};

/* What every thread shares; read-only once the threads run. */
struct bench {
    const char *url; /* the first server: creates and counts the study */
    char *urls[BENCH_MAX_URLS];
    size_t n_urls;
    long long study_id;
    char metrics[BENCH_MAX_METRICS][65];
    size_t n_metrics;
    double t0, warm_end, end; /* CLOCK_MONOTONIC seconds */
    pthread_barrier_t start;
};

/* One client thread's handle and results. */
struct client {
    struct bench *b;
    int index;
    struct samples suggest_ms, report_ms;
    long long pairs;          /* measured suggest+report pairs */
    long long suggest_non2xx; /* warm-up included */
    long long report_non2xx;
    long long transport_errors;
    long long empty_suggests; /* answers with no trial (budget, finite) */
    long long connects;       /* new connections libcurl opened */
    double last_done;         /* when the last measured pair ended */
    double first_empty;       /* when the first empty suggest started, or 0 */
    struct samples done;      /* when each report ended (warm-up too) */
};

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *
xrealloc_or_die(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (q == NULL) {
        fprintf(stderr, "bench_http: out of memory\n");
        exit(2);
    }
    return q;
}

static void
samples_push(struct samples *s, double x, double at)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->v = xrealloc_or_die(s->v, s->cap * sizeof *s->v);
        s->at = xrealloc_or_die(s->at, s->cap * sizeof *s->at);
    }
    s->at[s->n] = at;
    s->v[s->n++] = x;
}

/* Appends from's samples that started before until (0: all of them). */
static void
samples_append(struct samples *to, const struct samples *from, double until)
{
    for (size_t k = 0; k < from->n; k++)
        if (until == 0 || from->at[k] < until)
            samples_push(to, from->v[k], from->at[k]);
}

static size_t
on_body(char *data, size_t size, size_t nmemb, void *user)
{
    struct buf *b = user;
    size_t n = size * nmemb;
    if (b->len + n + 1 > b->cap) {
        b->cap = 2 * (b->len + n + 1);
        b->p = xrealloc_or_die(b->p, b->cap);
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
    return n;
}

/*
 * POSTs body to base+path on handle h and leaves the answer in out.
 * Returns the HTTP status, or -1 on a transport error (message on stderr).
 * *connects grows by the number of new connections this call opened.
 */
static long
post(CURL *h, const char *base, const char *path, const char *body,
     struct buf *out, long long *connects)
{
    char url[1024];
    long status = 0, nconn = 0;
    CURLcode rc;

    snprintf(url, sizeof url, "%s%s", base, path);
    out->len = 0;
    if (out->p)
        out->p[0] = '\0';
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
    rc = curl_easy_perform(h);
    if (rc != CURLE_OK) {
        fprintf(stderr, "bench_http: POST %s: %s\n", path,
                curl_easy_strerror(rc));
        return -1;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &nconn);
    if (connects)
        *connects += nconn;
    return status;
}

/* Returns a new easy handle set up for JSON POSTs; *hdrs must be freed. */
static CURL *
handle_create(struct curl_slist **hdrs)
{
    CURL *h = curl_easy_init();
    if (h == NULL) {
        fprintf(stderr, "bench_http: curl_easy_init failed\n");
        exit(2);
    }
    *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
    /* Bodies are small; "Expect: 100-continue" would add a round trip. */
    *hdrs = curl_slist_append(*hdrs, "Expect:");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* required with threads */
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    return h;
}

/* A synthetic objective value in [0, 1): splitmix64 of (trial, metric). */
static double
synthetic_value(long long trial, size_t metric)
{
    uint64_t z = (uint64_t)trial * 0x9e3779b97f4a7c15ULL + metric + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static void
complain(const char *what, long status, const struct buf *body, long long count)
{
    if (count <= BENCH_PRINT_ERRORS)
        fprintf(stderr, "bench_http: %s answered %ld: %.300s\n", what, status,
                body->p ? body->p : "");
}

/*
 * Reads the first trial id out of a suggest answer. Returns 1 with *id set,
 * 0 when the answer holds no trial (*done and *retry_after then say why),
 * -1 when the answer is not what the contract promises.
 */
static int
parse_suggest(const char *text, long long *id, int *done, double *retry_after)
{
    json_error_t jerr;
    json_t *root = json_loads(text ? text : "", 0, &jerr);
    json_t *trials = json_object_get(root, "trials");
    json_t *first = json_array_get(trials, 0);
    json_t *jid = json_object_get(first, "id");
    int ret = -1;

    *done = json_is_true(json_object_get(root, "done"));
    *retry_after = json_number_value(json_object_get(root, "retry_after"));
    if (!json_is_array(trials))
        goto out;
    if (json_array_size(trials) == 0) {
        ret = 0;
        goto out;
    }
    if (json_is_integer(jid) && json_integer_value(jid) > 0) {
        *id = json_integer_value(jid);
        ret = 1;
    }
out:
    json_decref(root);
    return ret;
}

static void *
client_run(void *arg)
{
    struct client *c = arg;
    struct bench *b = c->b;
    struct curl_slist *hdrs = NULL;
    CURL *h = handle_create(&hdrs);
    struct buf resp = {0};
    char suggest_path[128], suggest_body[128], path[128];
    char report_body[64 + BENCH_MAX_METRICS * 96];

    const char *base = b->urls[(size_t)c->index % b->n_urls];

    snprintf(suggest_path, sizeof suggest_path, "/v1/studies/%lld/suggest",
             b->study_id);
    snprintf(suggest_body, sizeof suggest_body,
             "{\"worker\": \"bench-%d\", \"count\": 1}", c->index);
    pthread_barrier_wait(&b->start);

    for (;;) {
        double ta = now_s(), tb, tc, retry_after = 0;
        long long trial = 0;
        long status;
        int measured = ta >= b->warm_end, done = 0, got;
        size_t off;

        if (ta >= b->end)
            break;
        status = post(h, base, suggest_path, suggest_body, &resp, &c->connects);
        tb = now_s();
        if (measured)
            samples_push(&c->suggest_ms, (tb - ta) * 1e3, ta);
        if (status < 0) {
            c->transport_errors++;
            break;
        }
        if (status < 200 || status > 299) {
            complain("suggest", status, &resp, ++c->suggest_non2xx);
            continue;
        }
        got = parse_suggest(resp.p, &trial, &done, &retry_after);
        if (got < 0) {
            fprintf(stderr, "bench_http: bad suggest answer: %.300s\n",
                    resp.p ? resp.p : "");
            c->transport_errors++;
            break;
        }
        if (got == 0) { /* nothing to do now: budget or candidates used up */
            struct timespec ts = {1, 0};
            c->empty_suggests++;
            if (c->first_empty == 0)
                c->first_empty = ta;
            if (done)
                break;
            if (retry_after > 0 && retry_after < 1)
                ts.tv_sec = 0, ts.tv_nsec = (long)(retry_after * 1e9);
            nanosleep(&ts, NULL);
            continue;
        }

        off =
            (size_t)snprintf(report_body, sizeof report_body, "{\"values\": {");
        for (size_t m = 0; m < b->n_metrics; m++)
            off += (size_t)snprintf(report_body + off, sizeof report_body - off,
                                    "%s\"%s\": %.17g", m ? ", " : "",
                                    b->metrics[m], synthetic_value(trial, m));
        snprintf(report_body + off, sizeof report_body - off, "}}");
        snprintf(path, sizeof path, "/v1/trials/%lld/report", trial);
        status = post(h, base, path, report_body, &resp, &c->connects);
        tc = now_s();
        if (measured)
            samples_push(&c->report_ms, (tc - tb) * 1e3, tb);
        if (status < 0) {
            c->transport_errors++;
            break;
        }
        if (status < 200 || status > 299) {
            complain("report", status, &resp, ++c->report_non2xx);
            continue;
        }
        samples_push(&c->done, tc, tc);
        if (measured) {
            c->pairs++;
            c->last_done = tc;
        }
    }
    free(resp.p);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(h);
    return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array: the ceil(p n / 100)-th value. */
static double
percentile(const double *v, size_t n, double p)
{
    size_t k;
    if (n == 0)
        return NAN;
    k = (size_t)ceil(p / 100.0 * (double)n);
    return v[k ? k - 1 : 0];
}

static char *
read_file(const char *name)
{
    FILE *f = fopen(name, "rb");
    struct buf b = {0};
    char chunk[4096];
    size_t n;

    if (f == NULL) {
        fprintf(stderr, "bench_http: could not open %s: %s\n", name,
                strerror(errno));
        exit(2);
    }
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        on_body(chunk, 1, n, &b);
    fclose(f);
    if (b.p == NULL)
        on_body(chunk, 1, 0, &b);
    return b.p;
}

/* Creates the study; fills b->study_id and the objective metric names. */
static void
create_study(struct bench *b, const char *body)
{
    struct curl_slist *hdrs = NULL;
    CURL *h = handle_create(&hdrs);
    struct buf resp = {0};
    json_error_t jerr;
    json_t *root = NULL, *objs;
    long status = post(h, b->url, "/v1/studies", body, &resp, NULL);

    if (status != 201) {
        fprintf(stderr, "bench_http: POST /v1/studies answered %ld: %.500s\n",
                status, resp.p ? resp.p : "");
        exit(1);
    }
    root = json_loads(resp.p, 0, &jerr);
    b->study_id = json_integer_value(json_object_get(root, "id"));
    objs = json_object_get(root, "objectives");
    for (size_t i = 0; i < json_array_size(objs); i++) {
        const char *name =
            json_string_value(json_object_get(json_array_get(objs, i), "name"));
        if (name == NULL || i >= BENCH_MAX_METRICS ||
            strlen(name) >= sizeof b->metrics[0])
            break;
        strcpy(b->metrics[b->n_metrics++], name);
    }
    if (b->study_id <= 0 || b->n_metrics == 0 ||
        b->n_metrics != json_array_size(objs)) {
        fprintf(stderr, "bench_http: unexpected study answer: %.500s\n",
                resp.p);
        exit(1);
    }
    json_decref(root);
    free(resp.p);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(h);
}

/*
 * Medians of the calls started in the first and in the last fifth of the
 * measured window [from, to]: a latency that grows with the study's size
 * (a scan over all trials, say) shows up here and not in p50/p99.
 * Returns 0 when either fifth holds no call.
 */
static int
drift(const struct samples *s, double from, double to, double *first,
      double *last)
{
    double fifth = (to - from) / 5;
    struct samples a = {0}, z = {0};
    int ok;

    for (size_t i = 0; i < s->n; i++) {
        if (s->at[i] < from + fifth)
            samples_push(&a, s->v[i], s->at[i]);
        else if (s->at[i] >= to - fifth)
            samples_push(&z, s->v[i], s->at[i]);
    }
    ok = a.n > 0 && z.n > 0;
    if (ok) {
        qsort(a.v, a.n, sizeof *a.v, cmp_double);
        qsort(z.v, z.n, sizeof *z.v, cmp_double);
        *first = percentile(a.v, a.n, 50);
        *last = percentile(z.v, z.n, 50);
    }
    free(a.v);
    free(a.at);
    free(z.v);
    free(z.at);
    return ok;
}

/* The study's trial count from GET /v1/studies/{id}, or -1. */
static long long
count_trials(const struct bench *b)
{
    struct curl_slist *hdrs = NULL;
    CURL *h = handle_create(&hdrs);
    struct buf resp = {0};
    char url[1024];
    long status = 0;
    long long total = -1;

    snprintf(url, sizeof url, "%s/v1/studies/%lld", b->url, b->study_id);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp);
    if (curl_easy_perform(h) == CURLE_OK &&
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
        status == 200) {
        json_error_t jerr;
        json_t *root = json_loads(resp.p, 0, &jerr);
        json_t *counts = json_object_get(root, "trial_counts");
        const char *key;
        json_t *v;
        total = 0;
        json_object_foreach(counts, key, v)
        {
            total += json_integer_value(v);
        }
        json_decref(root);
    }
    free(resp.p);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(h);
    return total;
}

/*
 * Splits the comma-separated list into b->urls (copies the caller owns
 * through b). Returns 0, or -1 for an empty entry or too many.
 */
static int
split_urls(struct bench *b, const char *list)
{
    const char *p = list;

    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || b->n_urls == BENCH_MAX_URLS)
            return -1;
        b->urls[b->n_urls] = strndup(p, len);
        if (b->urls[b->n_urls] == NULL)
            return -1;
        b->n_urls++;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

static void
print_line(const char *what, int clients, double rate, struct samples *s,
           long long non2xx)
{
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    printf("%-8s clients=%-3d round_trips/s=%-8.1f p50=%.2f ms  p99=%.2f ms  "
           "calls=%zu  non2xx=%lld\n",
           what, clients, rate, percentile(s->v, s->n, 50),
           percentile(s->v, s->n, 99), s->n, non2xx);
}

/*
 * What one study's run measured, or several studies' runs pooled: the
 * calls of the window, its length and the cycles counted in it (the pairs
 * measured, or for a finite study the reports that ended in its steady
 * window), and the counts.
 */
struct run {
    struct samples sug, rep;
    double wall;
    long long counted, pairs, sug_bad, rep_bad, terr, empty, connects;
};

static void
run_add(struct run *to, const struct run *r)
{
    samples_append(&to->sug, &r->sug, 0);
    samples_append(&to->rep, &r->rep, 0);
    to->wall += r->wall;
    to->counted += r->counted;
    to->pairs += r->pairs;
    to->sug_bad += r->sug_bad;
    to->rep_bad += r->rep_bad;
    to->terr += r->terr;
    to->empty += r->empty;
    to->connects += r->connects;
}

static void
run_free(struct run *r)
{
    free(r->sug.v);
    free(r->sug.at);
    free(r->rep.v);
    free(r->rep.at);
}

static double
run_rate(const struct run *r)
{
    return r->wall > 0 ? (double)r->counted / r->wall : NAN;
}

/* "result PREFIXKEY VALUE" lines of r (sorts its samples). */
static void
print_results(const char *prefix, struct run *r)
{
    qsort(r->sug.v, r->sug.n, sizeof *r->sug.v, cmp_double);
    qsort(r->rep.v, r->rep.n, sizeof *r->rep.v, cmp_double);
    printf("result %scycles_per_s %.6g\nresult %ssuggest_p50_ms %.6g\n"
           "result %ssuggest_p99_ms %.6g\nresult %sreport_p50_ms %.6g\n"
           "result %sreport_p99_ms %.6g\nresult %sempty_suggests %lld\n",
           prefix, run_rate(r), prefix, percentile(r->sug.v, r->sug.n, 50),
           prefix, percentile(r->sug.v, r->sug.n, 99), prefix,
           percentile(r->rep.v, r->rep.n, 50), prefix,
           percentile(r->rep.v, r->rep.n, 99), prefix, r->empty);
}

/*
 * The end of a finite study's steady window: the start of the first
 * suggest answered with no trial, or 0 when none was.
 */
static double
first_empty_of(const struct client *cs, long clients)
{
    double exhausted = 0;
    for (long i = 0; i < clients; i++)
        if (cs[i].first_empty > 0 &&
            (exhausted == 0 || cs[i].first_empty < exhausted))
            exhausted = cs[i].first_empty;
    return exhausted;
}

/*
 * Moves the clients' measured calls into r. A finite study runs out of
 * candidates: from the first empty answer on, clients sleep and the last
 * trials drain, which is not the steady load the figures are about. The
 * window then ends there: the rate is the reports that ended inside it
 * (whenever their suggest started) over its length, and the latencies
 * are the calls started inside it.
 */
static void
collect(const struct bench *b, struct client *cs, long clients,
        double exhausted, double seconds, struct run *r)
{
    double last = 0;
    long long in_window = 0;

    for (long i = 0; i < clients; i++) {
        struct client *c = &cs[i];
        samples_append(&r->sug, &c->suggest_ms, exhausted);
        samples_append(&r->rep, &c->report_ms, exhausted);
        for (size_t k = 0; k < c->done.n; k++)
            in_window +=
                c->done.at[k] >= b->warm_end && c->done.at[k] <= exhausted;
        r->pairs += c->pairs;
        r->sug_bad += c->suggest_non2xx;
        r->rep_bad += c->report_non2xx;
        r->terr += c->transport_errors;
        r->empty += c->empty_suggests;
        r->connects += c->connects;
        if (c->last_done > last)
            last = c->last_done;
        free(c->done.v);
        free(c->done.at);
        free(c->suggest_ms.v);
        free(c->suggest_ms.at);
        free(c->report_ms.v);
        free(c->report_ms.at);
    }
    r->wall = last > b->warm_end ? last - b->warm_end : seconds;
    r->counted = r->pairs;
    if (exhausted > 0) {
        r->wall = exhausted - b->warm_end;
        r->counted = in_window;
    }
}

/* Prints one study's figures (sorts a copy of its samples). */
static void
print_run(const struct bench *b, long clients, double exhausted,
          const struct run *r)
{
    struct run s = {0};
    double drift_a, drift_b, drift_ra, drift_rb;
    int drift_s, drift_r;

    printf("bench_http: %s%s study %lld, %ld client%s over %zu server%s, "
           "%.1f s measured after %.1f s warm-up (warm-up excluded from "
           "rates and latencies)\n",
           b->url, b->n_urls > 1 ? ",..." : "", b->study_id, clients,
           clients == 1 ? "" : "s", b->n_urls, b->n_urls == 1 ? "" : "s",
           r->wall, BENCH_WARMUP_S);
    if (exhausted > 0)
        printf("bench_http: the study ran out of trials %.2f s after the "
               "warm-up; rate and latencies cover that steady window only "
               "(%lld reports ended in it)\n",
               r->wall, r->counted);
    drift_s = drift(&r->sug, b->warm_end, exhausted > 0 ? exhausted : b->end,
                    &drift_a, &drift_b);
    drift_r = drift(&r->rep, b->warm_end, exhausted > 0 ? exhausted : b->end,
                    &drift_ra, &drift_rb);
    run_add(&s, r);
    print_line("suggest", (int)clients, run_rate(r), &s.sug, r->sug_bad);
    print_line("report", (int)clients, run_rate(r), &s.rep, r->rep_bad);
    run_free(&s);
    printf("bench_http: %lld round trips (suggest+report pairs) measured; "
           "%lld connection%s opened for %ld client%s (keep-alive); "
           "%lld empty suggest%s; %lld transport error%s; non2xx counts "
           "include warm-up\n",
           r->pairs, r->connects, r->connects == 1 ? "" : "s", clients,
           clients == 1 ? "" : "s", r->empty, r->empty == 1 ? "" : "s", r->terr,
           r->terr == 1 ? "" : "s");
    if (drift_s && drift_r)
        printf("bench_http: p50 drift as the study grew: suggest %.2f -> %.2f "
               "ms, report %.2f -> %.2f ms (first vs last fifth of the "
               "window); study %lld ended with %lld trials\n",
               drift_a, drift_b, drift_ra, drift_rb, b->study_id,
               count_trials(b));
}

/*
 * Creates one study from body, runs the clients on it and fills r.
 * Returns 0, or -1 when a finite study ran out of trials during the
 * warm-up (nothing to measure).
 */
static int
run_study(struct bench *b, long clients, double seconds, const char *body,
          struct run *r)
{
    struct client *cs = calloc((size_t)clients, sizeof *cs);
    pthread_t *tids = calloc((size_t)clients, sizeof *tids);
    double exhausted;

    if (cs == NULL || tids == NULL) {
        fprintf(stderr, "bench_http: out of memory\n");
        exit(2);
    }
    b->n_metrics = 0;
    create_study(b, body);
    pthread_barrier_init(&b->start, NULL, (unsigned)clients + 1);
    for (long i = 0; i < clients; i++) {
        cs[i].b = b;
        cs[i].index = (int)i;
        if (pthread_create(&tids[i], NULL, client_run, &cs[i]) != 0) {
            fprintf(stderr, "bench_http: could not start thread %ld\n", i);
            exit(2);
        }
    }
    /* The clock starts when every thread is ready; the barrier publishes it.
     */
    b->t0 = now_s();
    b->warm_end = b->t0 + BENCH_WARMUP_S;
    b->end = b->warm_end + seconds;
    pthread_barrier_wait(&b->start);
    for (long i = 0; i < clients; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&b->start);

    exhausted = first_empty_of(cs, clients);
    collect(b, cs, clients, exhausted, seconds, r);
    free(cs);
    free(tids);
    if (exhausted > 0 && exhausted <= b->warm_end) {
        fprintf(stderr, "bench_http: the study ran out of trials during the "
                        "warm-up; nothing to measure\n");
        return -1;
    }
    print_run(b, clients, exhausted, r);
    return 0;
}

/*
 * The body of the k-th study (k >= 2) of a run: the first body with
 * " #k" appended to its name, since (lab, name) is unique. A body that
 * is not an object with a string name is returned as it is (copied).
 */
static char *
body_for(const char *first, long k)
{
    json_error_t jerr;
    json_t *root = json_loads(first, 0, &jerr);
    const char *name = json_string_value(json_object_get(root, "name"));
    char *out = NULL;

    if (k >= 2 && name != NULL) {
        size_t len = strlen(name) + 32;
        char *s = xrealloc_or_die(NULL, len);
        snprintf(s, len, "%s #%ld", name, k);
        json_object_set_new(root, "name", json_string(s));
        out = json_dumps(root, JSON_COMPACT);
        free(s);
    }
    json_decref(root);
    return out ? out : strdup(first);
}

int
main(int argc, char **argv)
{
    struct bench b = {0};
    struct run pooled = {0}, first = {0};
    char *study_body = NULL, *end = NULL;
    char default_body[sizeof default_study + 64], name[64];
    long clients, studies = 1;
    double seconds;
    int failed = 0;

    if (argc < 4 || argc > 6) {
        fprintf(stderr, "usage: bench_http URL[,URL...] CLIENTS SECONDS "
                        "[STUDY_JSON_FILE [STUDIES]]\n");
        return 2;
    }
    clients = strtol(argv[2], &end, 10);
    if (*end || clients < 1 || clients > BENCH_MAX_CLIENTS) {
        fprintf(stderr, "bench_http: CLIENTS must be 1..%d\n",
                BENCH_MAX_CLIENTS);
        return 2;
    }
    seconds = strtod(argv[3], &end);
    if (*end || !(seconds > 0) || seconds > 86400) {
        fprintf(stderr, "bench_http: SECONDS must be > 0\n");
        return 2;
    }
    if (argc == 6) {
        studies = strtol(argv[5], &end, 10);
        if (*end || studies < 1 || studies > 1000) {
            fprintf(stderr, "bench_http: STUDIES must be 1..1000\n");
            return 2;
        }
    }
    /* Last of the checks: the URL copies are freed on this path only. */
    if (split_urls(&b, argv[1]) != 0) {
        fprintf(stderr,
                "bench_http: URL must be 1..%d comma-separated "
                "non-empty URLs\n",
                BENCH_MAX_URLS);
        for (size_t i = 0; i < b.n_urls; i++)
            free(b.urls[i]);
        return 2;
    }
    b.url = b.urls[0];
    if (argc >= 5)
        study_body = read_file(argv[4]);

    curl_global_init(CURL_GLOBAL_DEFAULT); /* before any thread starts */
    if (study_body == NULL) {
        /* One name per run: several runs may share a database. */
        snprintf(name, sizeof name, "bench_http %ld clients %lld.%ld", clients,
                 (long long)time(NULL), (long)getpid());
        snprintf(default_body, sizeof default_body, default_study, name);
    }
    /* Several studies in turn (fresh ones, the same clients and servers):
     * each is measured as one, and their windows are pooled. */
    for (long k = 1; k <= studies; k++) {
        struct run r = {0};
        char *body = body_for(study_body ? study_body : default_body, k);
        if (studies > 1)
            printf("bench_http: study %ld of %ld\n", k, studies);
        if (run_study(&b, clients, seconds, body, &r) != 0)
            failed = 1;
        run_add(&pooled, &r);
        if (k == 1)
            run_add(&first, &r);
        run_free(&r);
        free(body);
        if (failed)
            break;
    }
    if (studies > 1 && !failed) {
        printf("bench_http: pooled over %ld studies: %.2f s of windows, "
               "%lld cycles counted in them\n",
               studies, pooled.wall, pooled.counted);
        print_line("pooled suggest", (int)clients, run_rate(&pooled),
                   &pooled.sug, pooled.sug_bad);
        print_line("pooled report", (int)clients, run_rate(&pooled),
                   &pooled.rep, pooled.rep_bad);
        /* The first study alone: the figure of one study, as before. */
        print_results("first_study_", &first);
    }
    if (!failed)
        print_results("", &pooled);
    run_free(&pooled);
    run_free(&first);
    free(study_body);
    for (size_t i = 0; i < b.n_urls; i++)
        free(b.urls[i]);
    curl_global_cleanup();
    if (failed)
        return 1;
    return (pooled.sug_bad || pooled.rep_bad || pooled.terr) ? 1 : 0;
}
