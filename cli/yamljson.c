/*
 * cli/yamljson.c - a YAML or JSON study file as JSON; see yamljson.h.
 */
#include "cli/yamljson.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/mem.h"

struct conv {
    yaml_document_t *doc;
    struct yamljson_doc *out;
    size_t values;
    char *why;
    size_t whycap;
    int line, column;
};

static int
fail_at(struct conv *c, const yaml_mark_t *m, const char *msg)
{
    snprintf(c->why, c->whycap, "%s", msg);
    c->line = m ? (int)m->line + 1 : 0;
    c->column = m ? (int)m->column + 1 : 0;
    return -1;
}

static void
mark_add(struct yamljson_doc *d, const char *path, const yaml_mark_t *m)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->marks = xrealloc(d->marks, d->cap * sizeof *d->marks);
    }
    d->marks[d->n].path = xstrdup(path);
    d->marks[d->n].line = (int)m->line + 1;
    d->marks[d->n].column = (int)m->column + 1;
    d->n++;
}

/* s (n bytes) matches [-+]?[0-9]+ */
static int
is_int(const char *s, size_t n)
{
    size_t i = (n > 0 && (s[0] == '-' || s[0] == '+'));
    if (i == n)
        return 0;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* s matches [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static int
is_float(const char *s, size_t n)
{
    size_t i = (n > 0 && (s[0] == '-' || s[0] == '+')), d = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, d++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, d++;
    }
    if (d == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = 0;
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, e++;
        if (e == 0)
            return 0;
    }
    return i == n;
}

static int
one_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(s, *words) == 0)
            return 1;
    return 0;
}

/* A scalar node as JSON (*v), or -1 (c->why). */
static int
scalar(struct conv *c, yaml_node_t *node, json_t **v)
{
    static const char *const nulls[] = {"~", "null", "Null", "NULL", "", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    static const char *const odd[] = {".inf",  ".Inf",  ".INF",  "-.inf",
                                      "-.Inf", "-.INF", "+.inf", ".nan",
                                      ".NaN",  ".NAN",  NULL};
    const char *s = (const char *)node->data.scalar.value;
    size_t n = node->data.scalar.length;

    if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
        *v = json_stringn(s, n);
    } else if (one_of(s, nulls)) {
        *v = json_null();
    } else if (one_of(s, trues) || one_of(s, falses)) {
        *v = json_boolean(one_of(s, trues));
    } else if (one_of(s, odd)) {
        return fail_at(c, &node->start_mark,
                       "infinities and NaN have no JSON form");
    } else if (is_int(s, n)) {
        errno = 0;
        long long x = strtoll(s, NULL, 10);
        if (errno)
            return fail_at(c, &node->start_mark,
                           "integer out of range (quote it to send text)");
        *v = json_integer(x);
    } else if (is_float(s, n)) {
        double x = strtod(s, NULL);
        if (!isfinite(x))
            return fail_at(c, &node->start_mark, "number out of range");
        *v = json_real(x);
    } else {
        *v = json_stringn(s, n);
    }
    if (!*v)
        return fail_at(c, &node->start_mark, "text is not valid UTF-8");
    return 0;
}

static int convert(struct conv *c, yaml_node_t *node, const char *path,
                   int depth, json_t **v);

static int
sequence(struct conv *c, yaml_node_t *node, const char *path, int depth,
         json_t *arr)
{
    size_t i = 0;
    for (yaml_node_item_t *it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++, i++) {
        yaml_node_t *kid = yaml_document_get_node(c->doc, *it);
        size_t cap = strlen(path) + 24;
        char *p = xmalloc(cap);
        json_t *v = NULL;
        snprintf(p, cap, "%s[%zu]", path, i);
        mark_add(c->out, p, &kid->start_mark);
        int rc = convert(c, kid, p, depth + 1, &v);
        free(p);
        if (rc != 0)
            return -1;
        json_array_append_new(arr, v);
    }
    return 0;
}

static int
mapping(struct conv *c, yaml_node_t *node, const char *path, int depth,
        json_t *obj)
{
    for (yaml_node_pair_t *pr = node->data.mapping.pairs.start;
         pr < node->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *kid = yaml_document_get_node(c->doc, pr->value);
        const char *key;
        json_t *v = NULL;

        if (k->type != YAML_SCALAR_NODE)
            return fail_at(c, &k->start_mark, "a key must be a plain name");
        key = (const char *)k->data.scalar.value;
        if (memchr(key, '\0', k->data.scalar.length))
            return fail_at(c, &k->start_mark, "a key holds a NUL character");
        if (json_object_get(obj, key)) {
            char msg[200];
            snprintf(msg, sizeof msg, "key \"%.60s\" given twice", key);
            return fail_at(c, &k->start_mark, msg);
        }
        size_t cap = strlen(path) + strlen(key) + 2;
        char *p = xmalloc(cap);
        snprintf(p, cap, "%s%s%s", path, path[0] ? "." : "", key);
        mark_add(c->out, p, &k->start_mark);
        int rc = convert(c, kid, p, depth + 1, &v);
        free(p);
        if (rc != 0)
            return -1;
        if (json_object_set_new(obj, key, v) != 0)
            return fail_at(c, &k->start_mark, "a key is not valid UTF-8");
    }
    return 0;
}

static int
convert(struct conv *c, yaml_node_t *node, const char *path, int depth,
        json_t **v)
{
    int rc = 0;
    *v = NULL;
    if (depth > YAMLJSON_MAX_DEPTH)
        return fail_at(c, &node->start_mark, "nested too deeply");
    if (++c->values > YAMLJSON_MAX_VALUES)
        return fail_at(c, &node->start_mark,
                       "too many values (aliases copied too often?)");
    switch (node->type) {
    case YAML_SCALAR_NODE:
        return scalar(c, node, v);
    case YAML_SEQUENCE_NODE:
        *v = json_array();
        rc = sequence(c, node, path, depth, *v);
        break;
    case YAML_MAPPING_NODE:
        *v = json_object();
        rc = mapping(c, node, path, depth, *v);
        break;
    default:
        return fail_at(c, &node->start_mark, "an empty node");
    }
    if (rc != 0) {
        json_decref(*v);
        *v = NULL;
    }
    return rc;
}

/* libyaml's problem, one line, at its mark. */
static int
yaml_problem(struct conv *c, const yaml_parser_t *p)
{
    char msg[300];
    snprintf(msg, sizeof msg, "%s%s%s",
             p->problem ? p->problem : "cannot be read", p->context ? " " : "",
             p->context ? p->context : "");
    return fail_at(c, &p->problem_mark, msg);
}

/* The one document of text into c (values, when want_value, and marks). */
static int
load(struct conv *c, const char *text, size_t len, int want_value)
{
    yaml_parser_t p;
    yaml_document_t doc, more;
    int rc = 0;

    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    if (!yaml_parser_load(&p, &doc)) {
        rc = yaml_problem(c, &p);
        yaml_parser_delete(&p);
        return rc;
    }
    c->doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        rc = fail_at(c, NULL, "the file is empty");
    } else {
        json_t *v = NULL;
        mark_add(c->out, "", &root->start_mark);
        rc = convert(c, root, "", 0, &v);
        if (rc == 0 && !json_is_object(v))
            rc = fail_at(c, &root->start_mark,
                         "the file must hold one mapping (a JSON object)");
        if (rc == 0 && want_value)
            c->out->root = json_incref(v);
        json_decref(v);
    }
    yaml_document_delete(&doc);
    if (rc == 0) {
        if (!yaml_parser_load(&p, &more)) {
            rc = yaml_problem(c, &p);
        } else {
            if (yaml_document_get_root_node(&more))
                rc = fail_at(c, &more.start_mark,
                             "one document per file: a second one starts "
                             "here");
            yaml_document_delete(&more);
        }
    }
    yaml_parser_delete(&p);
    return rc;
}

int
yamljson_parse(const char *text, size_t len, int is_json,
               struct yamljson_doc *out, char *why, size_t whycap, int *line,
               int *column)
{
    struct conv c = {.out = out, .why = why, .whycap = whycap};
    int rc;

    memset(out, 0, sizeof *out);
    if (is_json) {
        json_error_t jerr;
        out->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!out->root) {
            snprintf(why, whycap, "%s", jerr.text);
            *line = jerr.line > 0 ? jerr.line : 0;
            *column = jerr.column > 0 ? jerr.column : 0;
            return -1;
        }
        if (!json_is_object(out->root)) {
            snprintf(why, whycap, "the file must hold one JSON object");
            *line = *column = 1;
            yamljson_clear(out);
            return -1;
        }
        /* Positions only: a file libyaml cannot read keeps none. */
        if (load(&c, text, len, 0) != 0) {
            for (size_t i = 0; i < out->n; i++)
                free(out->marks[i].path);
            out->n = 0;
        }
        return 0;
    }
    rc = load(&c, text, len, 1);
    *line = c.line;
    *column = c.column;
    if (rc != 0)
        yamljson_clear(out);
    return rc;
}

void
yamljson_clear(struct yamljson_doc *d)
{
    if (!d)
        return;
    json_decref(d->root);
    for (size_t i = 0; i < d->n; i++)
        free(d->marks[i].path);
    free(d->marks);
    memset(d, 0, sizeof *d);
}

int
yamljson_where(const struct yamljson_doc *d, const char *field, int *line,
               int *column)
{
    char *p = xstrdup(field ? field : "");
    int found = 0;

    while (p[0] && !found) {
        for (size_t i = 0; i < d->n && !found; i++)
            if (strcmp(d->marks[i].path, p) == 0) {
                *line = d->marks[i].line;
                *column = d->marks[i].column;
                found = 1;
            }
        /* The enclosing value: drop the last ".key" or "[i]". */
        char *dot = strrchr(p, '.'), *br = strrchr(p, '[');
        char *cut = dot > br ? dot : br;
        if (cut)
            *cut = '\0';
        else
            p[0] = '\0';
    }
    free(p);
    return found;
}
