/*
 * study/algo.c - the "algorithm" section of a study definition: which
 * sampler proposes configurations and its settings, validated and
 * normalized (every default written out); see algo.h.
 */
#include "study/algo.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/json.h"
#include "core/gp.h"
#include "core/kernels.h"

static const char *const kernels[] = {"matern52", "rbf", NULL};
static const char *const acq_gp[] = {"ei", "pi", "ucb", "nei", NULL};
static const char *const acq_graph[] = {"ei", "eif", NULL};

static unsigned long long
fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Below 2^53 so it survives a round trip through any JSON client. */
    return ((unsigned long long)ts.tv_nsec * 2654435761ULL ^
            (unsigned long long)ts.tv_sec ^
            ((unsigned long long)getpid() << 20)) &
           ((1ULL << 53) - 1);
}

static enum hpod_status
pick(const char *value, const char *const *options, const char *field, int *out,
     struct hpod_err *err)
{
    for (int i = 0; options[i]; i++)
        if (strcmp(value, options[i]) == 0) {
            *out = i;
            return HPOD_OK;
        }
    return hpod_fail(err, HPOD_EUNPROC, field, "unknown %s \"%.40s\"", field,
                     value);
}

/*
 * parse_base - the sampler that proposes new configurations under asha and
 * multistage: base (random|gp|graph), its kernel and acquisition; the
 * returned strings are the normalized names (static or borrowed from a).
 */
static enum hpod_status
parse_base(json_t *a, struct algo_def *al, const char **base,
           const char **kernel, const char **acq, struct hpod_err *err)
{
    static const char *const bases[] = {"random", "gp", "graph", NULL};
    enum hpod_status st;

    *base = *kernel = *acq = NULL;
    if ((st = hj_get_string(a, "algorithm", "base", 0, base, err)) != HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "kernel", 0, kernel, err)) !=
            HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "acquisition", 0, acq, err)) !=
            HPOD_OK)
        return st;
    *base = *base ? *base : "random";
    *kernel = *kernel ? *kernel : "matern52";
    if ((st = pick(*base, bases, "algorithm.base", &al->base, err)) !=
            HPOD_OK ||
        (st = pick(*kernel, kernels, "algorithm.kernel", &al->kernel, err)) !=
            HPOD_OK)
        return st;
    *acq = *acq ? *acq : al->base == ALGO_GRAPH ? "eif" : "ei";
    if ((st = pick(*acq, al->base == ALGO_GRAPH ? acq_graph : acq_gp,
                   "algorithm.acquisition", &al->acquisition, err)) != HPOD_OK)
        return st;
    al->kernel = al->kernel == 0 ? KERNEL_MATERN52 : KERNEL_RBF;
    return HPOD_OK;
}

/* A required key of the object at path is missing: 400 naming it. */
static enum hpod_status
fail_missing(const char *path, const char *key, struct hpod_err *err)
{
    char f[96];
    snprintf(f, sizeof f, "%s.%s", path, key);
    return hpod_fail(err, HPOD_EINVAL, f, "%s is required", f);
}

/*
 * parse_stages - multistage's "stages": [{"steps": s, "trials": n}, ...]
 * (1 to MODEL_MAX_STAGES, steps strictly increasing) and "k" (default 3,
 * the paper's), into al; *out receives the normalized array.
 */
static enum hpod_status
parse_stages(json_t *a, struct algo_def *al, json_t **out, struct hpod_err *err)
{
    static const char *const keys[] = {"steps", "trials", NULL};
    json_t *arr = json_object_get(a, "stages");
    long long k = 3;
    int has;
    enum hpod_status st;

    *out = NULL;
    if (!arr)
        return hpod_fail(err, HPOD_EINVAL, "algorithm.stages",
                         "algorithm.stages is required: [{\"steps\": s, "
                         "\"trials\": n}, ...]");
    if (!json_is_array(arr))
        return hpod_fail(err, HPOD_EINVAL, "algorithm.stages",
                         "algorithm.stages must be an array");
    if (json_array_size(arr) == 0 || json_array_size(arr) > MODEL_MAX_STAGES)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.stages",
                         "algorithm.stages must hold 1 to %d stages",
                         MODEL_MAX_STAGES);
    if ((st = hj_get_int(a, "algorithm", "k", 1, 1000, &k, &has, err)) !=
        HPOD_OK)
        return st;
    al->ms_k = k;
    al->ms_n = json_array_size(arr);
    for (size_t i = 0; i < al->ms_n; i++) {
        json_t *e = json_array_get(arr, i);
        char path[48];
        snprintf(path, sizeof path, "algorithm.stages[%zu]", i);
        if (!json_is_object(e))
            return hpod_fail(err, HPOD_EINVAL, path,
                             "%s must be {\"steps\": s, \"trials\": n}", path);
        if ((st = hj_check_keys(e, keys, path, err)) != HPOD_OK ||
            (st = hj_get_int(e, path, "steps", 1, 10000000, &al->ms_steps[i],
                             &has, err)) != HPOD_OK)
            return st;
        if (!has)
            return fail_missing(path, "steps", err);
        if ((st = hj_get_int(e, path, "trials", 1, STUDY_MAX_BUDGET,
                             &al->ms_trials[i], &has, err)) != HPOD_OK)
            return st;
        if (!has)
            return fail_missing(path, "trials", err);
        if (i > 0 && al->ms_steps[i] <= al->ms_steps[i - 1]) {
            char f[64];
            snprintf(f, sizeof f, "%s.steps", path);
            return hpod_fail(err, HPOD_EUNPROC, f,
                             "stage steps must increase strictly (%lld after "
                             "%lld)",
                             al->ms_steps[i], al->ms_steps[i - 1]);
        }
    }
    *out = json_array();
    for (size_t i = 0; i < al->ms_n; i++)
        json_array_append_new(
            *out, json_pack("{s:I, s:I}", "steps", (json_int_t)al->ms_steps[i],
                            "trials", (json_int_t)al->ms_trials[i]));
    return HPOD_OK;
}

/*
 * Asynchronous successive halving (Li et al. 2020) over a base sampler for
 * new configurations; core/asha keeps the rungs.
 */
static enum hpod_status
parse_asha(json_t *a, struct algo_def *al, const char *name, json_t **norm,
           struct hpod_err *err)
{
    static const char *const modes[] = {"promotion", "stopping", NULL};
    const char *base, *mode = NULL, *kernel, *acq;
    long long v;
    int has;
    enum hpod_status st;

    if ((st = parse_base(a, al, &base, &kernel, &acq, err)) != HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "mode", 0, &mode, err)) != HPOD_OK)
        return st;
    mode = mode ? mode : "promotion";
    if ((st = pick(mode, modes, "algorithm.mode", &al->asha_mode, err)) !=
        HPOD_OK)
        return st;
    struct {
        const char *key;
        long long lo, hi, dflt, *out;
    } ints[] = {{"r", 1, 1000000, 1, &al->asha_r},
                {"u", 1, 1000000, 1, &al->asha_u},
                {"R", 1, 10000000, 0, &al->asha_R},
                {"p", 2, 1000, 2, &al->asha_p},
                {"keep", 0, 1000, 2, &al->asha_keep}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        v = ints[i].dflt;
        if ((st = hj_get_int(a, "algorithm", ints[i].key, ints[i].lo,
                             ints[i].hi, &v, &has, err)) != HPOD_OK)
            return st;
        *ints[i].out = v;
    }
    if (!json_object_get(a, "R"))
        return hpod_fail(err, HPOD_EINVAL, "algorithm.R",
                         "algorithm.R (the full training length in "
                         "steps) is required");
    if (al->asha_R < al->asha_r)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.R",
                         "algorithm.R must be >= r");
    *norm = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s, "
        "s:s, s:s, s:i}",
        "name", name, "seed", (json_int_t)al->seed, "r", (json_int_t)al->asha_r,
        "u", (json_int_t)al->asha_u, "R", (json_int_t)al->asha_R, "p",
        (json_int_t)al->asha_p, "keep", (json_int_t)al->asha_keep, "base", base,
        "mode", mode, "kernel", kernel, "acquisition", acq, "init", al->init);
    return HPOD_OK;
}

static enum hpod_status
parse_multistage(json_t *a, struct algo_def *al, const char *name,
                 json_t **norm, struct hpod_err *err)
{
    const char *base, *kernel, *acq;
    json_t *stages;
    enum hpod_status st;

    if ((st = parse_base(a, al, &base, &kernel, &acq, err)) != HPOD_OK ||
        (st = parse_stages(a, al, &stages, err)) != HPOD_OK)
        return st;
    *norm = json_pack("{s:s, s:I, s:o, s:I, s:s, s:s, s:s, s:i}", "name", name,
                      "seed", (json_int_t)al->seed, "stages", stages, "k",
                      (json_int_t)al->ms_k, "base", base, "kernel", kernel,
                      "acquisition", acq, "init", al->init);
    return HPOD_OK;
}

/*
 * ehvi's "trust_shape" (enum mobo_trust_shape's order): the shape of its
 * trust region, which only exists with trust_region > 0; written back into
 * norm when sent (absent: nearest, as before the option).
 */
static enum hpod_status
parse_ehvi_shape(json_t *a, struct algo_def *al, json_t *norm,
                 struct hpod_err *err)
{
    static const char *const shapes[] = {"nearest", "steps", NULL};
    const char *sh = NULL;
    enum hpod_status st;

    if ((st = hj_get_string(a, "algorithm", "trust_shape", 0, &sh, err)) !=
            HPOD_OK ||
        (st = pick(sh ? sh : "nearest", shapes, "algorithm.trust_shape",
                   &al->ehvi_trust_shape, err)) != HPOD_OK)
        return st;
    if (al->ehvi_trust_shape != 0 && al->ehvi_trust <= 0)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.trust_shape",
                         "algorithm.trust_shape steps needs trust_region > 0 "
                         "(it sets the region's stall rule)");
    if (sh)
        json_object_set_new(norm, "trust_shape",
                            json_string(shapes[al->ehvi_trust_shape]));
    return HPOD_OK;
}

/*
 * ehvi's removed values (docs/auto.md, "What no case would use"): 422
 * naming what replaced them. "log_objectives": false (what definitions
 * stored before its removal carry) is accepted and no longer written.
 */
static enum hpod_status
check_ehvi_removed(json_t *a, const char *blend, struct hpod_err *err)
{
    json_t *lg = a ? json_object_get(a, "log_objectives") : NULL;

    if (lg && !json_is_boolean(lg))
        return hpod_fail(err, HPOD_EINVAL, "algorithm.log_objectives",
                         "algorithm.log_objectives must be a boolean");
    if (json_is_true(lg))
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.log_objectives",
                         "algorithm.log_objectives was removed (it lost on "
                         "every table): omit it (docs/auto.md)");
    if (blend && strcmp(blend, "all") == 0)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.gp_blend",
                         "algorithm.gp_blend \"all\" was removed: use "
                         "\"first\", the GP blended into the first "
                         "objective (docs/auto.md)");
    return HPOD_OK;
}

/*
 * One surrogate per objective (gp or graph), expected hypervolume
 * improvement across them (Emmerich et al. 2011).
 */
static enum hpod_status
parse_ehvi(json_t *a, struct algo_def *al, const char *name, json_t **norm,
           struct hpod_err *err)
{
    static const char *const surrogates[] = {"gp", "graph", NULL};
    /* gp_blend: enum mobo_blend's order. */
    static const char *const blends[] = {"none", "first", NULL};
    const char *kernel = NULL, *sur = NULL, *bl = NULL;
    long long tr = 0;
    double fr = 0.0;
    int has;
    enum hpod_status st;

    if ((st = hj_get_string(a, "algorithm", "kernel", 0, &kernel, err)) !=
            HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "surrogate", 0, &sur, err)) !=
            HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "gp_blend", 0, &bl, err)) !=
            HPOD_OK ||
        (st = hj_get_int(a, "algorithm", "trust_region", 0, 100000, &tr, &has,
                         err)) != HPOD_OK ||
        (st = check_ehvi_removed(a, bl, err)) != HPOD_OK)
        return st;
    al->ehvi_trust = tr;
    if ((st = hj_get_number(a, "algorithm", "front_reference", &fr, &has,
                            err)) != HPOD_OK)
        return st;
    if (!has)
        fr = 0.0;
    else if (!(fr >= 0.0 && fr <= ALGO_FRONT_REF_MAX))
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.front_reference",
                         "algorithm.front_reference must be >= 0 and <= %g",
                         ALGO_FRONT_REF_MAX);
    al->ehvi_front_ref = fr;
    kernel = kernel ? kernel : "matern52";
    sur = sur ? sur : "gp";
    if ((st = pick(kernel, kernels, "algorithm.kernel", &al->kernel, err)) !=
            HPOD_OK ||
        (st = pick(sur, surrogates, "algorithm.surrogate", &al->surrogate,
                   err)) != HPOD_OK ||
        (st = pick(bl ? bl : "none", blends, "algorithm.gp_blend",
                   &al->ehvi_gp_blend, err)) != HPOD_OK)
        return st;
    al->kernel = al->kernel == 0 ? KERNEL_MATERN52 : KERNEL_RBF;
    if (al->ehvi_gp_blend != 0 && al->surrogate != 1 /* graph */)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.gp_blend",
                         "algorithm.gp_blend needs surrogate graph (it "
                         "blends a GP into the graph's predictions)");
    *norm = json_pack("{s:s, s:I, s:s, s:s, s:i, s:I}", "name", name, "seed",
                      (json_int_t)al->seed, "kernel", kernel, "surrogate", sur,
                      "init", al->init, "trust_region", (json_int_t)tr);
    json_object_set_new(*norm, "front_reference", json_real(fr));
    /* Written back when sent (absent: off, as before the option). */
    if (bl)
        json_object_set_new(*norm, "gp_blend",
                            json_string(blends[al->ehvi_gp_blend]));
    return parse_ehvi_shape(a, al, *norm, err);
}

/*
 * gp's "lengthscale_min": the lower bound of the fitted lengthscales in
 * the encoded unit cube, 0 < v <= the upper bound (gp.h's default 0.01 to
 * 10); written out into norm.
 */
static enum hpod_status
parse_ls_min(json_t *a, struct algo_def *al, json_t *norm, struct hpod_err *err)
{
    struct gp_fit_options o;
    double v;
    int has = 0;
    enum hpod_status st;

    gp_fit_options_default(&o);
    if ((st = hj_get_number(a, "algorithm", "lengthscale_min", &v, &has,
                            err)) != HPOD_OK)
        return st;
    if (!has)
        v = o.ls_min;
    else if (!(v > 0.0 && v <= o.ls_max))
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.lengthscale_min",
                         "algorithm.lengthscale_min must be > 0 and <= %g",
                         o.ls_max);
    al->ls_min = v;
    json_object_set_new(norm, "lengthscale_min", json_real(v));
    return HPOD_OK;
}

/*
 * gp's "hedge_judge" ("gp", only with "hedge": true; written back as
 * given, absent when not given, which means "gp"). "observed" was removed
 * (docs/auto.md, "What no case would use"): 422 naming its replacement.
 */
static enum hpod_status
parse_hedge_judge(json_t *a, struct algo_def *al, json_t *norm,
                  struct hpod_err *err)
{
    json_t *hj = a ? json_object_get(a, "hedge_judge") : NULL;
    const char *v = hj ? json_string_value(hj) : NULL;

    if (!hj)
        return HPOD_OK;
    if (v && strcmp(v, "observed") == 0)
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.hedge_judge",
                         "algorithm.hedge_judge \"observed\" was removed: "
                         "the GP judge, the default, replaced it; omit "
                         "hedge_judge (docs/auto.md)");
    if (!v || strcmp(v, "gp") != 0)
        return hpod_fail(err, HPOD_EINVAL, "algorithm.hedge_judge",
                         "algorithm.hedge_judge must be \"gp\" (the "
                         "default)");
    if (!al->gp_hedge)
        return hpod_fail(err, HPOD_EINVAL, "algorithm.hedge_judge",
                         "algorithm.hedge_judge needs \"hedge\": true");
    json_object_set_new(norm, "hedge_judge", json_string(v));
    return HPOD_OK;
}

/*
 * gp's "trust_region" (integer d, 0..100000: the argmax among the n/d
 * candidates nearest the best trial, core/trust_region.h; 0 off)
 * and "lengthscale_prior" (0 < median <= the lengthscales' upper bound:
 * MAP under a log-normal prior); each written into norm when set. And
 * "hedge" (boolean: GP-Hedge over this GP and graph EI, SAMPLER_V_HEDGE),
 * written back only when true.
 */
static enum hpod_status
parse_gp_local(json_t *a, struct algo_def *al, json_t *norm,
               struct hpod_err *err)
{
    struct gp_fit_options o;
    json_t *hg = a ? json_object_get(a, "hedge") : NULL;
    long long tr = 0;
    double v = 0.0;
    int has_tr = 0, has_p = 0;
    enum hpod_status st;

    gp_fit_options_default(&o);
    if (hg && !json_is_boolean(hg))
        return hpod_fail(err, HPOD_EINVAL, "algorithm.hedge",
                         "algorithm.hedge must be a boolean");
    al->gp_hedge = hg && json_is_true(hg);
    if (al->gp_hedge)
        json_object_set_new(norm, "hedge", json_true());
    if ((st = parse_hedge_judge(a, al, norm, err)) != HPOD_OK)
        return st;
    if ((st = hj_get_int(a, "algorithm", "trust_region", 0, 100000, &tr,
                         &has_tr, err)) != HPOD_OK ||
        (st = hj_get_number(a, "algorithm", "lengthscale_prior", &v, &has_p,
                            err)) != HPOD_OK)
        return st;
    if (has_p && !(v > 0.0 && v <= o.ls_max))
        return hpod_fail(err, HPOD_EUNPROC, "algorithm.lengthscale_prior",
                         "algorithm.lengthscale_prior must be > 0 and <= %g",
                         o.ls_max);
    al->gp_trust = has_tr ? tr : 0;
    al->ls_prior = has_p ? v : 0.0;
    if (al->gp_trust > 0)
        json_object_set_new(norm, "trust_region",
                            json_integer((json_int_t)al->gp_trust));
    if (has_p)
        json_object_set_new(norm, "lengthscale_prior", json_real(v));
    return HPOD_OK;
}

/* gp and graph: one model, its kernel and acquisition. */
static enum hpod_status
parse_model(json_t *a, struct algo_def *al, const char *name, json_t **norm,
            struct hpod_err *err)
{
    const char *kernel = NULL, *acq = NULL;
    enum hpod_status st;

    if ((st = hj_get_string(a, "algorithm", "kernel", 0, &kernel, err)) !=
            HPOD_OK ||
        (st = hj_get_string(a, "algorithm", "acquisition", 0, &acq, err)) !=
            HPOD_OK)
        return st;
    if (!kernel)
        kernel = "matern52";
    if (!acq)
        acq = al->name == ALGO_GP ? "ei" : "eif";
    if ((st = pick(kernel, kernels, "algorithm.kernel", &al->kernel, err)) !=
            HPOD_OK ||
        (st = pick(acq, al->name == ALGO_GP ? acq_gp : acq_graph,
                   "algorithm.acquisition", &al->acquisition, err)) != HPOD_OK)
        return st;
    al->kernel = al->kernel == 0 ? KERNEL_MATERN52 : KERNEL_RBF;
    *norm = json_pack("{s:s, s:I, s:s, s:s, s:i}", "name", name, "seed",
                      (json_int_t)al->seed, "kernel", kernel, "acquisition",
                      acq, "init", al->init);
    if (al->name == ALGO_GP &&
        (st = parse_ls_min(a, al, *norm, err)) == HPOD_OK)
        st = parse_gp_local(a, al, *norm, err);
    return st;
}

/* By enum algo_name. */
static const char *const names[] = {"random", "gp",   "graph",      "greedy",
                                    "ehvi",   "asha", "multistage", NULL};

const char *
algo_label(enum algo_name n)
{
    return (size_t)n < sizeof names / sizeof names[0] - 1 ? names[n] : "other";
}

enum hpod_status
algo_from_json(json_t *a, struct algo_def *al, json_t **norm,
               struct hpod_err *err)
{
    static const char *const k_asha[] = {
        "name", "seed", "kernel", "acquisition", "init", "r", "u",
        "R",    "p",    "keep",   "base",        "mode", NULL};
    static const char *const k_ms[] = {"name",        "seed", "kernel",
                                       "acquisition", "init", "stages",
                                       "k",           "base", NULL};
    static const char *const k_ehvi[] = {"name",
                                         "seed",
                                         "kernel",
                                         "surrogate",
                                         "init",
                                         "log_objectives",
                                         "trust_region",
                                         "front_reference",
                                         "gp_blend",
                                         "trust_shape",
                                         NULL};
    static const char *const k_random[] = {"name", "seed", NULL};
    static const char *const k_model[] = {"name",        "seed", "kernel",
                                          "acquisition", "init", NULL};
    static const char *const k_gp[] = {"name",
                                       "seed",
                                       "kernel",
                                       "acquisition",
                                       "init",
                                       "lengthscale_min",
                                       "trust_region",
                                       "lengthscale_prior",
                                       "hedge",
                                       "hedge_judge",
                                       NULL};
    static const char *const k_greedy[] = {"name", "seed", "init", NULL};
    const char *name = NULL;
    long long seed = 0, init = 3;
    int has = 0, n = 0;
    enum hpod_status st;

    memset(al, 0, sizeof *al);
    if (!a) {
        al->name = ALGO_RANDOM;
        al->seed = fresh_seed();
        *norm = json_pack("{s:s, s:I}", "name", "random", "seed",
                          (json_int_t)al->seed);
        return HPOD_OK;
    }
    if (!json_is_object(a))
        return hpod_fail(err, HPOD_EINVAL, "algorithm",
                         "algorithm must be an object");
    if ((st = hj_get_string(a, "algorithm", "name", 1, &name, err)) !=
            HPOD_OK ||
        (st = pick(name, names, "algorithm.name", &n, err)) != HPOD_OK)
        return st;
    al->name = (enum algo_name)n;
    st = hj_check_keys(a,
                       n == ALGO_RANDOM       ? k_random
                       : n == ALGO_GREEDY     ? k_greedy
                       : n == ALGO_EHVI       ? k_ehvi
                       : n == ALGO_ASHA       ? k_asha
                       : n == ALGO_MULTISTAGE ? k_ms
                       : n == ALGO_GP         ? k_gp
                                              : k_model,
                       "algorithm", err);
    if (st != HPOD_OK ||
        (st = hj_get_int(a, "algorithm", "seed", 0, (1LL << 53) - 1, &seed,
                         &has, err)) != HPOD_OK)
        return st;
    al->seed = has ? (unsigned long long)seed : fresh_seed();
    if ((st = hj_get_int(a, "algorithm", "init", 1, 1000, &init, &has, err)) !=
        HPOD_OK)
        return st;
    al->init = (int)init;
    switch (al->name) {
    case ALGO_RANDOM:
        *norm =
            json_pack("{s:s, s:I}", "name", name, "seed", (json_int_t)al->seed);
        return HPOD_OK;
    case ALGO_GREEDY:
        *norm = json_pack("{s:s, s:I, s:i}", "name", name, "seed",
                          (json_int_t)al->seed, "init", al->init);
        return HPOD_OK;
    case ALGO_ASHA:
        return parse_asha(a, al, name, norm, err);
    case ALGO_MULTISTAGE:
        return parse_multistage(a, al, name, norm, err);
    case ALGO_EHVI:
        return parse_ehvi(a, al, name, norm, err);
    default:
        return parse_model(a, al, name, norm, err);
    }
}
