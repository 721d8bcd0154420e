/*
 * cli/token.h - the `hpod token` subcommand (cli/token.c).
 */
#ifndef HPOD_CLI_TOKEN_H
#define HPOD_CLI_TOKEN_H

#include "store/db.h"

/* token_run - runs `hpod token ...` with argv after "token"; returns the
 * process exit code (0 ok, 1 failure, 2 usage). */
int token_run(const char *database_url, const struct db_opts *opts, int argc,
              char **argv);

#endif
