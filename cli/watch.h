/*
 * cli/watch.h - `hpod watch ID`: a study's progress in the terminal,
 * redrawn every interval until the study is done or finished (then drawn
 * once more and left on screen): its state and algorithm, its trials by
 * state as bars, the best so far (single objective: value, trial and
 * params; several: the size of the Pareto front) and the last reports
 * (the trials updated last, with their values or last intermediate
 * step). Over HTTP like `hpod study` (cli/remote.h). On a terminal each
 * frame replaces the last; otherwise frames follow one another.
 */
#ifndef HPOD_CLI_WATCH_H
#define HPOD_CLI_WATCH_H

#include "server/config.h"

/* Rows of "last reports" and the default seconds between frames. */
#define WATCH_LAST 8
#define WATCH_INTERVAL_S 2.0

/* watch_run - `hpod watch ID [--interval SECONDS] [--once]`; the exit
 * status (0 once the study is done, 1 on an error, 2 on usage). */
int watch_run(const struct config *cfg, int argc, char **argv);

#endif
