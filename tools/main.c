/*
 * tools/main.c - hpod-bench (hpod_bench.h): the options and the dispatch
 * to a report. What the reports share (the methods, the JSON output, the
 * curve sets) is tools/report.c; the reports themselves are
 * tools/table3.c, tools/lcurves.c (--sh, --asha), tools/mstage.c
 * (--multistage) and tools/mo.c (--mo).
 */
#include "tools/hpod_bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/tables.h"
#include "common/mem.h"
#include "core/kernels.h"
#include "core/linalg.h"

static void
usage(FILE *f)
{
    fprintf(
        f,
        "usage: hpod-bench [--tables zh-en,ru-en,...] "
        "[--methods rs,greedy,...|all]\n"
        "                  [--repeats 100] [--seed 0] [--init 3] "
        "[--threads 2]\n"
        "                  [--out FILE|-] [--dir DIR] [--sequences FILE]\n"
        "  Table 3 of Zhang & Duh (TACL 2020) by default; every figure "
        "goes to --out\n"
        "  as one JSON document (default -: stdout), which\n"
        "  tools/render_benchmarks.py renders into docs/benchmarks.md\n"
        "  (make bench-docs runs all five reports and renders them).\n"
        "  --dir: the benchmarks directory (default $HPOD_BENCHMARKS, "
        "else\n"
        "        ../shared/benchmarks if present)\n"
        "  --sequences: also writes every cell's runs to FILE, one JSON "
        "line per cell\n"
        "        {\"table\", \"method\", \"seed\", \"init\", "
        "\"sequences\": [[row, ...], ...]},\n"
        "        rows 0-based as in POST /v1/benchmarks/{name}/simulate\n"
        "       hpod-bench --sh [--tables sw-en,...] [--repeats 100] "
        "[--seed 0]\n"
        "                  [--configs 40] [--out FILE|-] [--dir DIR]\n"
        "  --sh: successive halving on the learning curves "
        "(dissertation Table 6.1)\n"
        "  --transfer: Table 3 from the most correlated other table "
        "(warm_start),\n"
        "        every prior-weight rule beside the same method without "
        "(gp methods)\n"
        "  --asha: ASHA (4 workers, r=5 u=2 R=25 p=2 keep=2) on the "
        "learning curves,\n"
        "        same options as --sh\n"
        "  --multistage: multi-stage BO (stages of 20, 8, 3 trials, "
        "k=3; base random,\n"
        "        gp, graph) beside ASHA on the same draws, like --asha\n"
        "  --mo: Table 4 (multi-objective, EHVI against random search) "
        "and\n"
        "        constrained runs, --repeats runs per cell on every table\n"
        "  --mo-methods rs,bo_m,bo_r,gb_m,gb_r,gb_m_tr4,con,...|all: the "
        "--mo cells\n"
        "        to run (con: the constrained runs; default: those; "
        "variants\n"
        "        bo_m_tr, gb_m_tr, gb_m_tr2, bo_m_tr2, bo_m_tr4, gb_m_fr03,\n"
        "        gb_m_tr4_fr03, gb_m_tr4_fr05, bo_m_tr4_fr03, bo_m_fr05, "
        "gb_r_fr05;\n"
        "        gp_blend first: gb_m_tr4_fr03_bl, gb_m_tr4_fr05_bl,\n"
        "        gb_m_tr2_fr05_bl, gb_m_tr8_fr05_bl, gb_m_fr05_bl;\n"
        "        trust_shape steps: gb_m_tr2s_fr03_bl (auto's))\n"
        "  --decoupled: constrained runs, random search and coupled "
        "constrained EI\n"
        "        against decoupled (GPU time probed apart) at equal "
        "cost\n"
        "methods:");
    for (size_t m = 0; m < HB_N_METHODS; m++)
        fprintf(f, " %s", hb_methods[m].key);
    fprintf(f, "\ntables: zh-en ru-en ja-en en-ja sw-en so-en\n");
}

/* Parses a positive size_t option value; 1 on success. */
static int
parse_size(const char *s, size_t lo, size_t hi, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || *s == '-' || v < lo || v > hi)
        return 0;
    *out = (size_t)v;
    return 1;
}

/* Splits a comma-separated list into o->tables (copies). */
static int
parse_tables(struct hb_opts *o, const char *list)
{
    char *dup = xstrdup(list), *save = NULL;
    int ok = 1;
    for (char *tok = strtok_r(dup, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (strncmp(tok, "nmthpo/", 7) == 0)
            tok += 7;
        if (o->n_tables == sizeof o->tables / sizeof o->tables[0] ||
            *tok == '\0') {
            ok = 0;
            break;
        }
        o->tables[o->n_tables++] = xstrdup(tok);
    }
    free(dup);
    return ok && o->n_tables > 0;
}

static int
parse_methods(struct hb_opts *o, const char *list)
{
    char *dup = xstrdup(list), *save = NULL;
    int ok = 1, any = 0;
    memset(o->use, 0, sizeof o->use);
    for (char *tok = strtok_r(dup, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (size_t m = 0; m < HB_N_METHODS; m++)
            if (strcmp(tok, "all") == 0 ||
                strcmp(tok, hb_methods[m].key) == 0) {
                o->use[m] = 1;
                found = any = 1;
            }
        if (!found) {
            fprintf(stderr, "hpod-bench: unknown method \"%s\"\n", tok);
            ok = 0;
        }
    }
    free(dup);
    return ok && any;
}

static void
opts_free(struct hb_opts *o)
{
    for (size_t k = 0; k < o->n_tables; k++)
        free(o->tables[k]);
}

/* The flags without a value; 1 if a is one of them. */
static int
parse_flag(struct hb_opts *o, const char *a)
{
    int *flag = strcmp(a, "--mo") == 0           ? &o->mo
                : strcmp(a, "--sh") == 0         ? &o->sh
                : strcmp(a, "--asha") == 0       ? &o->asha
                : strcmp(a, "--multistage") == 0 ? &o->multistage
                : strcmp(a, "--transfer") == 0   ? &o->transfer
                : strcmp(a, "--decoupled") == 0  ? &o->decoupled
                                                 : NULL;
    if (flag)
        *flag = 1;
    return flag != NULL;
}

/* One "--name value"; 1 if the value is good, 0 if not, -1 if unknown. */
static int
parse_value(struct hb_opts *o, const char *name, const char *val)
{
    if (strcmp(name, "--tables") == 0)
        return parse_tables(o, val);
    if (strcmp(name, "--methods") == 0)
        return parse_methods(o, val);
    if (strcmp(name, "--repeats") == 0)
        return parse_size(val, 1, 100000, &o->repeats);
    if (strcmp(name, "--init") == 0)
        return parse_size(val, 1, 1000, &o->init);
    if (strcmp(name, "--threads") == 0)
        return parse_size(val, 1, 64, &o->threads);
    if (strcmp(name, "--configs") == 0)
        return parse_size(val, 1, 100000, &o->configs);
    if (strcmp(name, "--seed") == 0) {
        size_t s;
        int ok = parse_size(val, 0, (size_t)-1, &s);
        o->seed = s;
        return ok;
    }
    if (strcmp(name, "--out") == 0)
        return (o->out = val)[0] != '\0';
    if (strcmp(name, "--dir") == 0)
        return (o->dir = val)[0] != '\0';
    if (strcmp(name, "--sequences") == 0)
        return (o->sequences = val)[0] != '\0';
    if (strcmp(name, "--mo-methods") == 0)
        return (o->mo_methods = val)[0] != '\0';
    return -1;
}

/* The benchmarks directory when --dir is not given, as `hpod serve`
 * finds it: HPOD_BENCHMARKS, else ../shared/benchmarks if present. */
static const char *
default_dir(void)
{
    const char *env = getenv("HPOD_BENCHMARKS");
    if (env && env[0])
        return env;
    return access("../shared/benchmarks", R_OK) == 0 ? "../shared/benchmarks"
                                                     : NULL;
}

/* Appends " a" to o->cmdline. */
static void
cmdline_add(struct hb_opts *o, const char *a)
{
    size_t used = strlen(o->cmdline);
    if (used < sizeof o->cmdline)
        snprintf(o->cmdline + used, sizeof o->cmdline - used, " %s", a);
}

/* Returns 0 on success, 2 on a usage error, -1 for --help. */
static int
parse_opts(int argc, char **argv, struct hb_opts *o)
{
    memset(o, 0, sizeof *o);
    for (size_t m = 0; m < HB_N_DEFAULT; m++)
        o->use[m] = 1;
    o->repeats = 100;
    o->init = 3;
    o->threads = 2;
    o->out = "-";
    o->dir = default_dir();
    o->configs = 40;
    snprintf(o->cmdline, sizeof o->cmdline, "hpod-bench");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[32];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return -1;
        if (parse_flag(o, a)) {
            cmdline_add(o, a);
            continue;
        }
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) != 0 || (eq && eq - a >= (long)sizeof name)) {
            fprintf(stderr, "hpod-bench: unexpected argument \"%s\"\n", a);
            return 2;
        }
        if (eq) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
            if (i + 1 >= argc) {
                fprintf(stderr, "hpod-bench: %s needs a value\n", a);
                return 2;
            }
            val = argv[++i];
        }
        int ok = parse_value(o, name, val);
        if (ok < 0) {
            fprintf(stderr, "hpod-bench: unknown option \"%s\"\n", name);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "hpod-bench: bad value \"%s\" for %s\n", val, name);
            return 2;
        }
        /* The command as the report names it: what makes the figures. */
        if (strcmp(name, "--out") != 0 && strcmp(name, "--sequences") != 0) {
            cmdline_add(o, name);
            cmdline_add(o, val);
        }
    }
    if (!o->dir || !o->dir[0]) {
        fprintf(stderr, "hpod-bench: no benchmarks directory (set "
                        "HPOD_BENCHMARKS or pass --dir)\n");
        return 2;
    }
    if (o->n_tables == 0)
        for (size_t k = 0; k < BENCH_N_DATASETS; k++)
            o->tables[o->n_tables++] = xstrdup(bench_datasets[k]);
    return 0;
}

int
main(int argc, char **argv)
{
    struct hb_opts o;
    int pr = parse_opts(argc, argv, &o);
    if (pr != 0) {
        usage(pr < 0 ? stdout : stderr);
        opts_free(&o);
        return pr < 0 ? 0 : 2;
    }
    /* One BLAS thread per worker: the runs are the parallelism, and one
     * thread gives reproducible bits. */
    linalg_set_threads(1);
    int rc = o.sh           ? hb_sh(&o)
             : o.asha       ? hb_asha(&o)
             : o.multistage ? hb_multistage(&o)
             : o.mo         ? hb_mo(&o)
             : o.transfer   ? hb_transfer(&o)
             : o.decoupled  ? hb_decoupled(&o)
                            : hb_table3(&o);
    opts_free(&o);
    return rc;
}
