/*
 * study/auto.c - "algorithm": {"name": "auto"}: core/autoalgo's rule on a
 * study definition, and the sentence that records why; see auto.h.
 */
#include "study/auto.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "core/kernels.h"
#include "core/mobo.h"

int
auto_requested(const json_t *a)
{
    if (!a || json_is_null(a))
        return 1;
    json_t *name = json_is_object(a) ? json_object_get(a, "name") : NULL;
    return json_is_string(name) && strcmp(json_string_value(name), "auto") == 0;
}

/*
 * config_json - c as an "algorithm" object a client could send (seed
 * borrowed, NULL: drawn by algo_from_json), and its label
 * ("graph/matern52/ei") into label.
 */
static json_t *
config_json(const struct autoalgo_config *c, json_t *seed, char *label,
            size_t size)
{
    static const char *const methods[] = {"random", "greedy", "gp", "graph",
                                          "ehvi"};
    static const char *const acq_gp[] = {"ei", "pi", "ucb", "nei"};
    const char *name = methods[c->method];
    const char *kernel = c->kernel == KERNEL_RBF ? "rbf" : "matern52";
    const char *acq =
        c->method == AUTOALGO_GRAPH
            ? (c->acquisition ? "eif" : "ei")
            : acq_gp[c->acquisition >= 0 && c->acquisition < 4 ? c->acquisition
                                                               : 0];
    const char *sur = c->surrogate == MOBO_SURROGATE_GRAPH ? "graph" : "gp";
    json_t *o = json_pack("{s:s}", "name", name);

    if (seed)
        json_object_set(o, "seed", seed);
    switch (c->method) {
    case AUTOALGO_RANDOM:
        snprintf(label, size, "%s", name);
        break;
    case AUTOALGO_GREEDY:
        json_object_set_new(o, "init", json_integer(AUTO_INIT));
        snprintf(label, size, "%s", name);
        break;
    case AUTOALGO_EHVI:
        json_object_set_new(o, "kernel", json_string(kernel));
        json_object_set_new(o, "surrogate", json_string(sur));
        if (c->trust_region > 0)
            json_object_set_new(o, "trust_region",
                                json_integer(c->trust_region));
        if (c->front_reference > 0.0)
            json_object_set_new(o, "front_reference",
                                json_real(c->front_reference));
        if (c->gp_blend == MOBO_BLEND_FIRST)
            json_object_set_new(o, "gp_blend", json_string("first"));
        if (c->trust_shape == MOBO_TRUST_STEPS)
            json_object_set_new(o, "trust_shape", json_string("steps"));
        json_object_set_new(o, "init", json_integer(AUTO_INIT));
        snprintf(label, size, "%s/%s/%s", name, sur, kernel);
        break;
    default:
        json_object_set_new(o, "kernel", json_string(kernel));
        json_object_set_new(o, "acquisition", json_string(acq));
        json_object_set_new(o, "init", json_integer(AUTO_INIT));
        if (c->method == AUTOALGO_GP && c->lengthscale_min > 0.0)
            json_object_set_new(o, "lengthscale_min",
                                json_real(c->lengthscale_min));
        if (c->method == AUTOALGO_GP && c->trust_region > 0)
            json_object_set_new(o, "trust_region",
                                json_integer(c->trust_region));
        if (c->method == AUTOALGO_GP && c->lengthscale_prior > 0.0)
            json_object_set_new(o, "lengthscale_prior",
                                json_real(c->lengthscale_prior));
        if (c->method == AUTOALGO_GP && c->hedge)
            json_object_set_new(o, "hedge", json_true());
        snprintf(label, size, "%s/%s/%s%s", name, kernel, acq,
                 c->method == AUTOALGO_GP && c->hedge ? " with hedge" : "");
        break;
    }
    return o;
}

void
auto_reason(const struct autoalgo_features *f, enum autoalgo_case c,
            const char *label, char *buf, size_t size)
{
    char cons[64], space[96], budget[64];

    if (f->n_constraints == 0)
        snprintf(cons, sizeof cons, "no constraints");
    else
        snprintf(cons, sizeof cons, "%zu constraint%s%s", f->n_constraints,
                 f->n_constraints == 1 ? "" : "s",
                 f->decoupled ? " (decoupled)" : "");
    if (f->n_candidates > 0)
        snprintf(space, sizeof space,
                 "a finite space of %zu candidates (%s %d)", f->n_candidates,
                 f->n_candidates <= AUTOALGO_GRAPH_MAX ? "at most"
                                                       : "more than",
                 AUTOALGO_GRAPH_MAX);
    else
        snprintf(space, sizeof space, "a continuous space (no candidates)");
    if (f->budget >= 0)
        snprintf(budget, sizeof budget, "a budget of %lld trials (init %d)",
                 f->budget, f->init);
    else
        snprintf(budget, sizeof budget, "no budget");
    /* Two sentences: what was chosen for what, then why; the figures are
     * in docs/auto.md. */
    const char *why = autoalgo_rows[c].evidence;
    snprintf(buf, size,
             "auto chose %s for %zu objective%s, %s, %s over %zu "
             "parameter%s (%zu categorical) and %s. %c%s (details: "
             "docs/auto.md, case %s).",
             label, f->n_objectives, f->n_objectives == 1 ? "" : "s", cons,
             space, f->n_params, f->n_params == 1 ? "" : "s", f->n_categorical,
             budget, toupper((unsigned char)why[0]), why + 1,
             autoalgo_case_code(c));
}

/* Errors inside "chosen" come from algo_from_json as "algorithm.X": name
 * them "algorithm.chosen.X". */
static enum hpod_status
chosen_err(enum hpod_status st, struct hpod_err *err)
{
    char f[sizeof err->field];
    if (strncmp(err->field, "algorithm", 9) == 0 &&
        strncmp(err->field, "algorithm.chosen", 16) != 0) {
        snprintf(f, sizeof f, "algorithm.chosen%s", err->field + 9);
        memcpy(err->field, f, sizeof f);
    }
    return st;
}

/*
 * auto_readback - an auto object as hpod wrote it (a stored definition, or
 * one a client read back and sent again): its chosen algorithm, case and
 * reason stand as written; the rule is not run again.
 */
static enum hpod_status
auto_readback(json_t *a, struct algo_def *al, json_t **norm,
              struct hpod_err *err)
{
    static const char *const keys[] = {"name",   "seed", "chosen",
                                       "reason", "case", NULL};
    const char *reason = NULL, *code = NULL;
    long long seed = 0;
    int has = 0;
    json_t *chosen = json_object_get(a, "chosen"), *c = NULL, *nc = NULL;
    enum hpod_status st;

    if ((st = hj_check_keys(a, keys, "algorithm", err)) != HPOD_OK ||
        (st = hj_get_int(a, "algorithm", "seed", 0, (1LL << 53) - 1, &seed,
                         &has, err)) != HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "case", 1, &code, err)) !=
            HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "reason", 1, &reason, err)) !=
            HPOD_OK)
        return st;
    if (!json_is_object(chosen))
        return hpod_fail(err, HPOD_EINVAL, "algorithm.chosen",
                         "algorithm.chosen must be an object");
    if (strlen(code) == 0 || strlen(code) > 64 || strlen(reason) == 0 ||
        strlen(reason) > 2000)
        return hpod_fail(err, HPOD_EUNPROC,
                         strlen(code) == 0 || strlen(code) > 64
                             ? "algorithm.case"
                             : "algorithm.reason",
                         "algorithm.case must be 1 to 64 characters and "
                         "algorithm.reason 1 to 2000");
    json_t *cs = json_object_get(chosen, "seed");
    if (has && cs && !(json_is_integer(cs) && json_integer_value(cs) == seed))
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.chosen.seed",
                         "algorithm.chosen.seed must equal algorithm.seed");
    c = json_deep_copy(chosen);
    if (has && !cs)
        json_object_set_new(c, "seed", json_integer(seed));
    st = algo_from_json(c, al, &nc, err);
    json_decref(c);
    if (st != HPOD_OK) {
        json_decref(nc); /* algo_from_json may have begun it */
        return chosen_err(st, err);
    }
    *norm = json_pack("{s:s, s:I, s:o, s:s, s:s}", "name", "auto", "seed",
                      (json_int_t)al->seed, "chosen", nc, "case", code,
                      "reason", reason);
    return HPOD_OK;
}

enum hpod_status
auto_choose(json_t *a, const struct autoalgo_features *f, struct algo_def *al,
            json_t **norm, struct hpod_err *err)
{
    static const char *const keys[] = {"name", "seed", NULL};
    struct autoalgo_config cfg;
    char label[64], reason[1024];
    long long seed = 0;
    int has = 0;
    json_t *chosen, *nc = NULL, *js = NULL;
    enum hpod_status st;

    *norm = NULL;
    if (a && json_is_null(a))
        a = NULL;
    if (a && json_object_get(a, "chosen"))
        return auto_readback(a, al, norm, err);
    if (a && ((st = hj_check_keys(a, keys, "algorithm", err)) != HPOD_OK ||
              (st = hj_get_int(a, "algorithm", "seed", 0, (1LL << 53) - 1,
                               &seed, &has, err)) != HPOD_OK))
        return st;
    enum autoalgo_case c = autoalgo_choose(f, &cfg);
    if (has)
        js = json_integer(seed);
    chosen = config_json(&cfg, js, label, sizeof label);
    json_decref(js);
    st = algo_from_json(chosen, al, &nc, err);
    json_decref(chosen);
    if (st != HPOD_OK) {
        json_decref(nc);
        return st;
    }
    auto_reason(f, c, label, reason, sizeof reason);
    *norm = json_pack("{s:s, s:I, s:o, s:s, s:s}", "name", "auto", "seed",
                      (json_int_t)al->seed, "chosen", nc, "case",
                      autoalgo_case_code(c), "reason", reason);
    return HPOD_OK;
}
