/*
 * cli/main.c - the hpod program: reads the configuration (server/config.h)
 * and runs one subcommand. `serve` is the HTTP server (server/serve.h);
 * every other subcommand lives here in cli/ (docs/ARCHITECTURE.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/healthcheck.h"
#include "cli/studycmd.h"
#include "cli/token.h"
#include "cli/watch.h"
#include "cli/worker.h"
#include "common/log.h"
#include "core/linalg.h"
#include "server/config.h"
#include "server/serve.h"
#include "store/migrate.h"

static const char *
env_lookup(const char *name)
{
    return getenv(name);
}

static void
usage(FILE *out)
{
    fprintf(out, "usage: hpod serve | hpod worker | hpod migrate | "
                 "hpod token ... | hpod healthcheck | hpod study ... | "
                 "hpod trials ID | hpod best ID | hpod watch ID | "
                 "hpod --help\n"
                 "  serve        apply migrations, then serve the REST API\n"
                 "  worker       apply migrations, then run simulation jobs "
                 "and recover lapsed leases, without HTTP\n"
                 "  migrate      apply pending migrations and exit "
                 "(idempotent)\n"
                 "  token        create, list or revoke API tokens "
                 "(`hpod token` for usage)\n"
                 "  healthcheck  exit 0 if the local `hpod serve` answers "
                 "GET /healthz with status ok, else 1\n"
                 "  study        create (from a YAML or JSON file), list, "
                 "show, pause, resume, finish studies (`hpod study` for "
                 "usage)\n"
                 "  trials       a study's trials, as a table or CSV\n"
                 "  best         a study's best trial (or Pareto front)\n"
                 "  watch        a study's progress, redrawn until it is "
                 "done\n"
                 "  (study, trials, best and watch talk to a running server "
                 "over HTTP: HPOD_URL, HPOD_TOKEN)\n"
                 "(the benchmark reports are a separate program, "
                 "hpod-bench)\n");
    config_print_help(out);
}

int
main(int argc, char **argv)
{
    struct config cfg;
    struct hpod_err err = {0};

    if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (config_load(&cfg, env_lookup, &err) != HPOD_OK) {
        fprintf(stderr, "hpod: %s\n", err.msg);
        /* Docker reserves a health check's exit status 2. */
        return strcmp(argv[1], "healthcheck") == 0 ? 1 : 2;
    }
    hpod_log_set_level(strcmp(cfg.log_level, "debug") == 0   ? HPOD_LOG_DEBUG
                       : strcmp(cfg.log_level, "warn") == 0  ? HPOD_LOG_WARN
                       : strcmp(cfg.log_level, "error") == 0 ? HPOD_LOG_ERROR
                                                             : HPOD_LOG_INFO);
    /* BLAS threads would fight the HTTP threads for the two cores, and one
     * thread gives reproducible bits (STYLE.md B.7). */
    linalg_set_threads(1);
    struct db_opts opts = config_db_opts(&cfg);
    if (strcmp(argv[1], "migrate") == 0)
        return migrate_run(cfg.migrate_database_url, &opts, cfg.db_wait_seconds,
                           cfg.migrations);
    if (strcmp(argv[1], "token") == 0)
        return token_run(cfg.database_url, &opts, argc - 2, argv + 2);
    if (strcmp(argv[1], "serve") == 0)
        return serve_run(&cfg);
    if (strcmp(argv[1], "worker") == 0)
        return worker_run(&cfg);
    if (strcmp(argv[1], "healthcheck") == 0)
        return healthcheck_run(&cfg);
    if (strcmp(argv[1], "study") == 0 || strcmp(argv[1], "trials") == 0 ||
        strcmp(argv[1], "best") == 0)
        return studycmd_run(&cfg, argv[1], argc - 2, argv + 2);
    if (strcmp(argv[1], "watch") == 0)
        return watch_run(&cfg, argc - 2, argv + 2);
    fprintf(stderr, "hpod: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
}
