/*
 * cli/studycmd.h - `hpod study create|list|show|pause|resume|finish`,
 * `hpod trials ID [--csv]` and `hpod best ID`: the API's study operations
 * from a shell, over HTTP (cli/remote.h: HPOD_URL, HPOD_TOKEN). A study
 * file is YAML or JSON (cli/yamljson.h); an error the server names a
 * field of is reported at that field's line and column in the file.
 */
#ifndef HPOD_CLI_STUDYCMD_H
#define HPOD_CLI_STUDYCMD_H

#include "server/config.h"

/*
 * studycmd_run - cmd is "study", "trials" or "best", argv its arguments.
 * Returns the exit status: 0, 1 (the server or the file said no), 2
 * (usage).
 */
int studycmd_run(const struct config *cfg, const char *cmd, int argc,
                 char **argv);

#endif
