/*
 * server/token_cli.h - the `hpod token` subcommand (server/token_cli.c).
 */
#ifndef HPOD_TOKEN_CLI_H
#define HPOD_TOKEN_CLI_H

#include "store/db.h"

/* token_cli - runs `hpod token ...` with argv after "token"; returns the
 * process exit code (0 ok, 1 failure, 2 usage). */
int token_cli(const char *database_url, const struct db_opts *opts, int argc,
              char **argv);

#endif
