/*
 * cli/healthcheck.h - `hpod healthcheck`, the container's HEALTHCHECK.
 *
 * GET /healthz with the command line's HTTP client (cli/httpc.h) on the
 * address and port `hpod serve` listens on (HPOD_LISTEN_ADDR, with
 * 0.0.0.0 checked on 127.0.0.1; HPOD_PORT), one deadline for the whole
 * exchange.
 */
#ifndef HPOD_CLI_HEALTHCHECK_H
#define HPOD_CLI_HEALTHCHECK_H

#include "server/config.h"

/* Whole exchange: connect, send, read the answer to its end. */
#define HEALTHCHECK_TIMEOUT_MS 3000L

/*
 * healthcheck_run - 0 when /healthz answers 200 with "status": "ok";
 * otherwise 1 with one line on stderr saying why (never 2: Docker
 * reserves that exit status). Prints nothing on success.
 */
int healthcheck_run(const struct config *cfg);

#endif
