/*
 * study/evolve.c - a study's space changed; see evolve.h.
 */
#include "study/evolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"

/* 1 when a and b are the same JSON value, numbers by value (1 is 1.0). */
static int
same_value(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    return json_equal(a, b);
}

/* The index of name among d's parameters, or n_params. */
static size_t
old_index(const struct study_def *d, const char *name)
{
    size_t i;
    for (i = 0; name && i < d->space.n_params; i++)
        if (strcmp(d->names[i], name) == 0)
            break;
    return i;
}

/*
 * Keys of the entry the study set (added_in, default): kept as stored
 * when absent from new entry e (its copy c), refused when changed.
 */
static enum hpod_status
keep_key(json_t *old, json_t *e, json_t *c, size_t k, const char *key,
         struct hpod_err *err)
{
    json_t *ov = json_object_get(old, key), *nv = json_object_get(e, key);
    char f[64];

    snprintf(f, sizeof f, "space[%zu].%s", k, key);
    if (nv && !(ov && same_value(ov, nv)))
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s is set when the parameter joins the study and "
                         "cannot change: leave it out",
                         f);
    if (ov)
        json_object_set(c, key, ov);
    return HPOD_OK;
}

/*
 * Entry k of the new space (e), merged with what the study holds: *out
 * (new reference) is what the definition parser then checks. next: the
 * new space version; trials: how many trials the study has.
 */
static enum hpod_status
merge_entry(const struct study_def *d, json_t *e, size_t k, long long next,
            long long trials, json_t **out, struct hpod_err *err)
{
    const char *name = json_string_value(json_object_get(e, "name"));
    size_t i = old_index(d, name);
    json_t *c;
    char f[64];
    enum hpod_status st;

    *out = NULL;
    if (!json_is_object(e) || !name) {
        *out = json_incref(e); /* the parser names what is wrong */
        return HPOD_OK;
    }
    c = json_deep_copy(e);
    if (i < d->space.n_params) {
        json_t *old = json_array_get(json_object_get(d->def, "space"), i);
        json_t *ot = json_object_get(old, "type"),
               *nt = json_object_get(e, "type");
        snprintf(f, sizeof f, "space[%zu].type", k);
        if (json_is_string(nt) && !json_equal(ot, nt))
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "%s: %s is a %s parameter and stays one (add a "
                           "parameter of another name instead)",
                           f, name, json_string_value(ot));
        else if ((st = keep_key(old, e, c, k, "added_in", err)) == HPOD_OK)
            st = keep_key(old, e, c, k, "default", err);
    } else if (json_object_get(e, "added_in")) {
        snprintf(f, sizeof f, "space[%zu].added_in", k);
        st = hpod_fail(err, HPOD_EUNPROC, f,
                       "%s is set by hpod when a parameter joins", f);
    } else {
        json_object_set_new(c, "added_in", json_integer(next));
        if (!json_object_get(c, "default") && json_object_get(c, "fixed"))
            json_object_set(c, "default", json_object_get(c, "fixed"));
        snprintf(f, sizeof f, "space[%zu].default", k);
        st = trials > 0 && !json_object_get(c, "default")
                 ? hpod_fail(err, HPOD_EUNPROC, f,
                             "%s is required: the study has %lld trials, "
                             "and default is the value of %s they are "
                             "taken to have had",
                             f, trials, name)
                 : HPOD_OK;
    }
    if (st != HPOD_OK) {
        json_decref(c);
        return st;
    }
    *out = c;
    return HPOD_OK;
}

/* Every parameter of d must still be in space (422 "space" otherwise). */
static enum hpod_status
check_kept(const struct study_def *d, json_t *space, struct hpod_err *err)
{
    for (size_t i = 0; i < d->space.n_params; i++) {
        size_t k, n = json_array_size(space);
        for (k = 0; k < n; k++) {
            const char *name = json_string_value(
                json_object_get(json_array_get(space, k), "name"));
            if (name && strcmp(name, d->names[i]) == 0)
                break;
        }
        if (k == n)
            return hpod_fail(err, HPOD_EUNPROC, "space",
                             "%s cannot be removed (earlier trials have it): "
                             "freeze it with \"fixed\" instead",
                             d->names[i]);
    }
    return HPOD_OK;
}

enum hpod_status
evolve_space(const struct study *s, const struct study_def *d, json_t *space,
             char **def_text, json_t **norm, struct hpod_err *err)
{
    struct study_def nd = {0};
    json_t *body = NULL, *merged = NULL, *e;
    long long trials = 0;
    size_t k;
    enum hpod_status st;

    *def_text = NULL;
    *norm = NULL;
    if (s->n_candidates >= 0 || d->benchmark)
        return hpod_fail(err, HPOD_ECONFLICT, "space",
                         "study %lld has a fixed space (its candidates or its "
                         "table): its space cannot change",
                         s->id);
    if (!json_is_array(space))
        return hpod_fail(err, HPOD_EINVAL, "space", "space must be an array");
    if ((st = check_kept(d, space, err)) != HPOD_OK)
        return st;
    for (int t = 0; t < TRIAL_NSTATES; t++)
        trials += s->counts[t];
    merged = json_array();
    json_array_foreach(space, k, e)
    {
        json_t *c = NULL;
        if ((st = merge_entry(d, e, k, d->space_version + 1, trials, &c,
                              err)) != HPOD_OK)
            goto out;
        json_array_append_new(merged, c);
    }
    body = json_deep_copy(d->def);
    json_object_set(body, "space", merged);
    json_object_set_new(body, "space_version",
                        json_integer(d->space_version + 1));
    if ((st = def_from_json(body, &nd, err)) != HPOD_OK)
        goto out;
    json_t *now = json_object_get(nd.def, "space");
    if (json_equal(now, json_object_get(d->def, "space")))
        goto out; /* the space it has: nothing to change */
    if (!(*def_text = hj_dump(nd.def, 0))) {
        st = hpod_fail(err, HPOD_ENOMEM, "", "could not encode the study");
        goto out;
    }
    *norm = json_incref(now);
out:
    json_decref(merged);
    json_decref(body);
    def_clear(&nd);
    return st;
}
