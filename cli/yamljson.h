/*
 * cli/yamljson.h - a study file (YAML or JSON) as the JSON value the API
 * takes, and where in the file each of its values is.
 *
 * YAML is read with libyaml (one document; anchors and aliases are
 * copied). A plain scalar is resolved as YAML 1.2's core schema does:
 * null (~, null, empty), true/false, an integer, a finite float; anything
 * else, and every quoted or block scalar, is a string (quote a value to
 * keep it a string). Mapping keys are strings; a key given twice is an
 * error. A .json file is read by jansson (its syntax errors and numbers
 * are JSON's) and by libyaml for the positions only (JSON is YAML's flow
 * style). Positions are 1-based line and column; values are found by the
 * field path the server's errors name ("space[1].low", "algorithm.name").
 */
#ifndef HPOD_CLI_YAMLJSON_H
#define HPOD_CLI_YAMLJSON_H

#include <jansson.h>
#include <stddef.h>

/* Deepest nesting and most values a file may produce (aliases count
 * each time they are copied): a bound on what a file can make us build. */
#define YAMLJSON_MAX_DEPTH 64
#define YAMLJSON_MAX_VALUES 1000000

struct yamljson_mark {
    char *path; /* "" for the document, "space[1]", "space[1].low" */
    int line, column;
};

struct yamljson_doc {
    json_t *root; /* owned */
    struct yamljson_mark *marks;
    size_t n, cap;
};

/*
 * yamljson_parse - text (len bytes; is_json: JSON, else YAML) into *out
 * (yamljson_clear). Returns 0, or -1 with why (one line) and *line,
 * *column where the problem is (0 when unknown).
 */
int yamljson_parse(const char *text, size_t len, int is_json,
                   struct yamljson_doc *out, char *why, size_t whycap,
                   int *line, int *column);

/* Frees what yamljson_parse filled in; safe on a zeroed doc. */
void yamljson_clear(struct yamljson_doc *d);

/*
 * yamljson_where - the position of field (a path as the server names it)
 * in d: its own, else its nearest enclosing value's ("space[1].x" absent:
 * "space[1]"). Returns 1 when some value of the path was found, 0 when
 * not (nor "" given).
 */
int yamljson_where(const struct yamljson_doc *d, const char *field, int *line,
                   int *column);

#endif
