/*
 * cli/studycmd.c - `hpod study ...`, `hpod trials`, `hpod best`; see
 * studycmd.h.
 */
#include "cli/studycmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/remote.h"
#include "cli/yamljson.h"
#include "common/json.h"
#include "common/mem.h"

/* The largest study file read. */
#define FILE_MAX (16UL << 20)

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: hpod study create -f FILE [--json]   (YAML, or JSON when "
            "FILE ends in .json; - reads stdin)\n"
            "       hpod study list [--lab LAB] [--name NAME] [--json]\n"
            "       hpod study show ID [--json]\n"
            "       hpod study pause|resume|finish ID\n"
            "       hpod trials ID [--csv] [--state STATE] [--json]\n"
            "       hpod best ID [--json]\n"
            "  over HTTP: HPOD_URL (default http://127.0.0.1:HPOD_PORT), "
            "HPOD_TOKEN\n");
}

static void
print_json(const json_t *v)
{
    char *text = hj_dump(v, JSON_INDENT(2));
    printf("%s\n", text ? text : "null");
    free(text);
}

/* v as short text: a string as it is, anything else as compact JSON. */
static char *
text_of(const json_t *v)
{
    if (json_is_string(v))
        return xstrdup(json_string_value(v));
    char *t = v ? hj_dump(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    return t ? t : xstrdup("-");
}

/* head, then t's values (padded to width) and params, on one line. */
static void
print_row(const char *head, const json_t *t, int width)
{
    char *vals = text_of(json_object_get(t, "values"));
    char *params = text_of(json_object_get(t, "params"));
    printf("%s%-*s %s\n", head, width, vals, params);
    free(vals);
    free(params);
}

/* Percent-encodes s for a query value. */
static void
url_escape(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (; *s && k + 4 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
            c == '~')
            out[k++] = (char)c;
        else
            k += (size_t)snprintf(out + k, cap - k, "%%%02X", c);
    }
    out[k] = '\0';
}

/* A study id argument: a positive integer. */
static int
parse_id(const char *s, long long *id)
{
    char *end;
    errno = 0;
    *id = s ? strtoll(s, &end, 10) : 0;
    return s && !errno && end != s && !*end && *id > 0;
}

/* ---- create ---- */

static char *
read_file(const char *path, size_t *len, char *why, size_t cap)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char *buf;
    size_t n = 0, got;

    if (!f) {
        snprintf(why, cap, "%s", strerror(errno));
        return NULL;
    }
    buf = xmalloc(FILE_MAX + 1);
    while ((got = fread(buf + n, 1, FILE_MAX + 1 - n, f)) > 0 &&
           n + got <= FILE_MAX)
        n += got;
    if (f != stdin)
        fclose(f);
    if (got > 0) {
        snprintf(why, cap, "larger than %lu bytes", FILE_MAX);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int
is_json_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}

/* The server refused the file: its message at the named field's place. */
static int
create_refused(const char *path, const struct yamljson_doc *doc,
               const struct remote_answer *a)
{
    char msg[1200];
    const char *field;
    int line = 0, col = 0;
    remote_error(a, msg, sizeof msg, &field);
    if (field[0] && yamljson_where(doc, field, &line, &col))
        fprintf(stderr, "%s:%d:%d: %s (field %s)\n", path, line, col, msg,
                field);
    else if (field[0])
        fprintf(stderr, "%s: %s (field %s)\n", path, msg, field);
    else
        fprintf(stderr, "%s: %s\n", path, msg);
    return 1;
}

static int
studies_create(const struct remote *r, const char *path, int as_json)
{
    struct yamljson_doc doc;
    struct remote_answer a;
    char why[512];
    size_t len = 0;
    int line = 0, col = 0, rc = 1;
    char *text = read_file(path, &len, why, sizeof why);

    if (!text) {
        fprintf(stderr, "hpod study create: %s: %s\n", path, why);
        return 1;
    }
    if (yamljson_parse(text, len, is_json_name(path), &doc, why, sizeof why,
                       &line, &col) != 0) {
        if (line > 0)
            fprintf(stderr, "%s:%d:%d: %s\n", path, line, col, why);
        else
            fprintf(stderr, "%s: %s\n", path, why);
        free(text);
        return 1;
    }
    free(text);
    if (remote_call(r, "POST", "/v1/studies", doc.root, NULL, &a, why,
                    sizeof why) != 0) {
        fprintf(stderr, "hpod study create: POST %s/v1/studies: %s\n", r->url,
                why);
        goto out;
    }
    if (a.status != 200 && a.status != 201) {
        rc = create_refused(path, &doc, &a);
    } else if (as_json) {
        print_json(a.json);
        rc = 0;
    } else {
        char alg[80];
        printf("study %lld %s: %s (lab %s, %s)\n",
               (long long)json_integer_value(json_object_get(a.json, "id")),
               a.status == 201 ? "created" : "exists",
               json_string_value(json_object_get(a.json, "name")),
               json_string_value(json_object_get(a.json, "lab")),
               remote_algorithm(a.json, alg, sizeof alg));
        rc = 0;
    }
    remote_answer_clear(&a);
out:
    yamljson_clear(&doc);
    return rc;
}

/* ---- list, show ---- */

static long long
trial_total(const json_t *s)
{
    const char *k;
    json_t *v;
    long long n = 0;
    json_object_foreach(json_object_get(s, "trial_counts"), k, v)
    {
        (void)k;
        n += json_integer_value(v);
    }
    return n;
}

static int
studies_list(const struct remote *r, const char *lab, const char *name,
             int as_json)
{
    char q[1024], l[200] = "", n[600] = "";
    json_t *all;

    if (lab)
        url_escape(lab, l, sizeof l);
    if (name)
        url_escape(name, n, sizeof n);
    snprintf(q, sizeof q, "/v1/studies%s%s%s%s%s%s", lab || name ? "?" : "",
             lab ? "lab=" : "", l, lab && name ? "&" : "", name ? "name=" : "",
             n);
    if (remote_list(r, "study list", q, "studies", 1000, &all) != 0)
        return 1;
    if (as_json) {
        print_json(all);
    } else {
        size_t i;
        json_t *s;
        char alg[80];
        printf("%-6s %-32s %-12s %-9s %-12s %7s %7s\n", "ID", "NAME", "LAB",
               "STATE", "ALGORITHM", "DONE", "TRIALS");
        json_array_foreach(all, i, s)
        {
            printf("%-6lld %-32.32s %-12.12s %-9s %-12s %7lld %7lld\n",
                   (long long)json_integer_value(json_object_get(s, "id")),
                   json_string_value(json_object_get(s, "name")),
                   json_string_value(json_object_get(s, "lab")),
                   json_string_value(json_object_get(s, "state")),
                   remote_algorithm(s, alg, sizeof alg),
                   (long long)json_integer_value(json_object_get(
                       json_object_get(s, "trial_counts"), "completed")),
                   trial_total(s));
        }
    }
    json_decref(all);
    return 0;
}

/* One space entry as "name  type [low, high] log" or its values. */
static void
print_param(const json_t *p, const char *lead)
{
    char *range = NULL;
    json_t *v;
    if ((v = json_object_get(p, "choices")) ||
        (v = json_object_get(p, "values")))
        range = text_of(v);
    else {
        char *lo = text_of(json_object_get(p, "low"));
        char *hi = text_of(json_object_get(p, "high"));
        size_t cap = strlen(lo) + strlen(hi) + 8;
        range = xmalloc(cap);
        snprintf(range, cap, "[%s, %s]", lo, hi);
        free(lo);
        free(hi);
    }
    printf("%-11s %-16s %-12s %s%s\n", lead,
           json_string_value(json_object_get(p, "name")),
           json_string_value(json_object_get(p, "type")), range,
           json_is_true(json_object_get(p, "log")) ? " log" : "");
    free(range);
}

/* "bleu 24.5 (trial #7, id 123)" for a single-objective study. */
static void
print_best(const struct remote *r, long long id, const json_t *s)
{
    char path[64];
    json_t *b = NULL, *objs = json_object_get(s, "objectives");
    if (json_array_size(objs) != 1)
        return;
    snprintf(path, sizeof path, "/v1/studies/%lld/best", id);
    if (remote_json(r, "study show", "GET", path, NULL, &b) != 0)
        return;
    json_t *t = json_object_get(b, "trial");
    const char *obj =
        json_string_value(json_object_get(json_array_get(objs, 0), "name"));
    if (json_is_object(t)) {
        char *v = text_of(json_object_get(json_object_get(t, "values"), obj));
        char *params = text_of(json_object_get(t, "params"));
        printf("%-11s %s %s (trial #%lld, id %lld) %s\n", "best", obj, v,
               (long long)json_integer_value(json_object_get(t, "number")),
               (long long)json_integer_value(json_object_get(t, "id")), params);
        free(v);
        free(params);
    } else {
        printf("%-11s no completed trial yet\n", "best");
    }
    json_decref(b);
}

static int
study_show(const struct remote *r, long long id, int as_json)
{
    char path[64], alg[80];
    json_t *s, *v;
    size_t i;
    const char *k;

    snprintf(path, sizeof path, "/v1/studies/%lld", id);
    if (remote_json(r, "study show", "GET", path, NULL, &s) != 0)
        return 1;
    if (as_json) {
        print_json(s);
        json_decref(s);
        return 0;
    }
    json_t *by = json_object_get(s, "created_by");
    printf("study %lld   %s\n", id,
           json_string_value(json_object_get(s, "name")));
    printf("%-11s %s\n%-11s %s\n%-11s %s\n", "lab",
           json_string_value(json_object_get(s, "lab")), "state",
           json_string_value(json_object_get(s, "state")), "created",
           json_string_value(json_object_get(s, "created_at")));
    if (json_is_object(by))
        printf("%-11s %s (token %lld)\n", "created by",
               json_string_value(json_object_get(by, "note")),
               (long long)json_integer_value(json_object_get(by, "id")));
    printf("%-11s %s\n", "algorithm", remote_algorithm(s, alg, sizeof alg));
    json_array_foreach(json_object_get(s, "objectives"), i, v)
        printf("%-11s %s (%s)\n", i ? "" : "objectives",
               json_string_value(json_object_get(v, "name")),
               json_string_value(json_object_get(v, "goal")));
    json_array_foreach(json_object_get(s, "space"), i, v)
        print_param(v, i ? "" : "space");
    printf("%-11s", "trials");
    json_object_foreach(json_object_get(s, "trial_counts"), k,
                        v) if (json_integer_value(v))
        printf(" %s %lld", k, (long long)json_integer_value(v));
    json_t *budget = json_object_get(s, "budget");
    if (json_is_integer(budget))
        printf(" (budget %lld)", (long long)json_integer_value(budget));
    printf("\n");
    print_best(r, id, s);
    json_decref(s);
    return 0;
}

static int
study_state(const struct remote *r, long long id, const char *verb)
{
    const char *state = strcmp(verb, "pause") == 0    ? "paused"
                        : strcmp(verb, "resume") == 0 ? "active"
                                                      : "finished";
    char path[64];
    json_t *body = json_pack("{s:s}", "state", state), *s;
    int rc;

    snprintf(path, sizeof path, "/v1/studies/%lld", id);
    rc = remote_json(r, verb, "PATCH", path, body, &s);
    json_decref(body);
    if (rc == 0)
        printf("study %lld: %s\n", id,
               json_string_value(json_object_get(s, "state")));
    json_decref(s);
    return rc;
}

/* ---- trials, best ---- */

static int
trials_csv(const struct remote *r, long long id, const char *state)
{
    char path[160], why[512], st[40] = "";
    const char *field;
    struct remote_answer a;
    if (state)
        url_escape(state, st, sizeof st);
    snprintf(path, sizeof path, "/v1/studies/%lld/trials%s%s", id,
             state ? "?state=" : "", st);
    if (remote_call(r, "GET", path, NULL, "text/csv", &a, why, sizeof why) !=
        0) {
        fprintf(stderr, "hpod trials: GET %s%s: %s\n", r->url, path, why);
        return 1;
    }
    if (a.status != 200) {
        fprintf(stderr, "hpod trials: %s\n",
                remote_error(&a, why, sizeof why, &field));
        remote_answer_clear(&a);
        return 1;
    }
    fwrite(a.raw.body, 1, a.raw.body_len, stdout);
    remote_answer_clear(&a);
    return 0;
}

static int
trials_table(const struct remote *r, long long id, const char *state,
             int as_json)
{
    char path[160], st[40] = "";
    json_t *all, *t;
    size_t i;

    if (state)
        url_escape(state, st, sizeof st);
    snprintf(path, sizeof path, "/v1/studies/%lld/trials%s%s", id,
             state ? "?state=" : "", st);
    if (remote_list(r, "trials", path, "trials", 10000, &all) != 0)
        return 1;
    if (as_json) {
        print_json(all);
        json_decref(all);
        return 0;
    }
    printf("%-6s %-8s %-10s %-30s %s\n", "NUMBER", "ID", "STATE", "VALUES",
           "PARAMS");
    json_array_foreach(all, i, t)
    {
        char head[80];
        snprintf(head, sizeof head, "%-6lld %-8lld %-10s ",
                 (long long)json_integer_value(json_object_get(t, "number")),
                 (long long)json_integer_value(json_object_get(t, "id")),
                 json_string_value(json_object_get(t, "state")));
        print_row(head, t, 30);
    }
    json_decref(all);
    return 0;
}

/* Several objectives: the Pareto front, one trial a line. */
static int
best_front(const struct remote *r, long long id, int as_json)
{
    char path[64];
    json_t *p, *pt;
    size_t i;
    snprintf(path, sizeof path, "/v1/studies/%lld/pareto", id);
    if (remote_json(r, "best", "GET", path, NULL, &p) != 0)
        return 1;
    if (as_json) {
        print_json(p);
    } else {
        printf("Pareto front: %zu trials\n",
               json_array_size(json_object_get(p, "front")));
        json_array_foreach(json_object_get(p, "front"), i, pt)
        {
            char head[48];
            snprintf(
                head, sizeof head, "  trial %lld  ",
                (long long)json_integer_value(json_object_get(pt, "trial")));
            print_row(head, pt, 0);
        }
    }
    json_decref(p);
    return 0;
}

static int
best(const struct remote *r, long long id, int as_json)
{
    char path[64];
    json_t *s, *b;
    snprintf(path, sizeof path, "/v1/studies/%lld", id);
    if (remote_json(r, "best", "GET", path, NULL, &s) != 0)
        return 1;
    size_t nobj = json_array_size(json_object_get(s, "objectives"));
    json_decref(s);
    if (nobj != 1)
        return best_front(r, id, as_json);
    snprintf(path, sizeof path, "/v1/studies/%lld/best", id);
    if (remote_json(r, "best", "GET", path, NULL, &b) != 0)
        return 1;
    json_t *t = json_object_get(b, "trial");
    if (as_json) {
        print_json(b);
    } else if (!json_is_object(t)) {
        printf("no completed trial yet\n");
    } else {
        char head[80];
        snprintf(head, sizeof head, "trial #%lld (id %lld)  ",
                 (long long)json_integer_value(json_object_get(t, "number")),
                 (long long)json_integer_value(json_object_get(t, "id")));
        print_row(head, t, 0);
    }
    json_decref(b);
    return 0;
}

/* ---- arguments ---- */

struct args {
    const char *verb, *file, *lab, *name, *state;
    long long id;
    int json, csv, bad;
};

static void
parse_args(int argc, char **argv, int has_verb, struct args *a)
{
    int i = 0;
    memset(a, 0, sizeof *a);
    if (has_verb)
        a->verb = i < argc ? argv[i++] : NULL;
    for (; i < argc; i++) {
        const char *o = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--json") == 0)
            a->json = 1;
        else if (strcmp(o, "--csv") == 0)
            a->csv = 1;
        else if ((strcmp(o, "-f") == 0 || strcmp(o, "--file") == 0) && next)
            a->file = argv[++i];
        else if (strcmp(o, "--lab") == 0 && next)
            a->lab = argv[++i];
        else if (strcmp(o, "--name") == 0 && next)
            a->name = argv[++i];
        else if (strcmp(o, "--state") == 0 && next)
            a->state = argv[++i];
        else if (!a->id && parse_id(o, &a->id))
            continue;
        else
            a->bad = 1;
    }
}

static int
study_verb(const struct remote *r, const struct args *a)
{
    const char *v = a->verb ? a->verb : "";
    if (strcmp(v, "create") == 0 && a->file && !a->id)
        return studies_create(r, a->file, a->json);
    if (strcmp(v, "list") == 0 && !a->id)
        return studies_list(r, a->lab, a->name, a->json);
    if (strcmp(v, "show") == 0 && a->id)
        return study_show(r, a->id, a->json);
    if ((strcmp(v, "pause") == 0 || strcmp(v, "resume") == 0 ||
         strcmp(v, "finish") == 0) &&
        a->id)
        return study_state(r, a->id, v);
    usage(stderr);
    return 2;
}

int
studycmd_run(const struct config *cfg, const char *cmd, int argc, char **argv)
{
    struct remote r;
    struct args a;
    char why[512];

    if (argc > 0 &&
        (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    parse_args(argc, argv, strcmp(cmd, "study") == 0, &a);
    if (a.bad || (strcmp(cmd, "study") != 0 && !a.id)) {
        usage(stderr);
        return 2;
    }
    if (remote_init(&r, cfg, why, sizeof why) != 0) {
        fprintf(stderr, "hpod %s: %s\n", cmd, why);
        return 2;
    }
    if (strcmp(cmd, "study") == 0)
        return study_verb(&r, &a);
    if (strcmp(cmd, "trials") == 0)
        return a.csv ? trials_csv(&r, a.id, a.state)
                     : trials_table(&r, a.id, a.state, a.json);
    return best(&r, a.id, a.json);
}
