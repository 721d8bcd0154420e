/*
 * study/algometrics.c - per-algorithm suggest and model times; see
 * algometrics.h.
 */
#include "study/algometrics.h"

#include <stdio.h>
#include <string.h>

#include "common/histogram.h"

static const struct histogram_bounds bounds = {
    15,
    {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
     10.0, 30.0, 60.0}};

/* [ALGO_COUNT]: an algorithm this file does not know (none today). */
static struct histogram suggest_h[ALGO_COUNT + 1], model_h[ALGO_COUNT + 1];

static size_t
slot(enum algo_name a)
{
    return (size_t)a < ALGO_COUNT ? (size_t)a : ALGO_COUNT;
}

void
algometrics_suggest(enum algo_name a, double sec)
{
    histogram_observe(&suggest_h[slot(a)], &bounds, sec);
}

void
algometrics_model(enum algo_name a, double sec)
{
    histogram_observe(&model_h[slot(a)], &bounds, sec);
}

static void
family(struct strbuf *b, const char *name, const char *help,
       const struct histogram *h)
{
    char labels[64];
    strbuf_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (size_t k = 0; k <= ALGO_COUNT; k++) {
        if (histogram_total(&h[k], &bounds) == 0)
            continue;
        /* The names are [a-z]: nothing to escape. */
        snprintf(labels, sizeof labels, "algorithm=\"%s\"",
                 algo_label((enum algo_name)k));
        histogram_text(b, name, labels, &h[k], &bounds);
    }
}

void
algometrics_text(struct strbuf *b)
{
    family(b, "hpod_suggest_duration_seconds",
           "Suggest calls by the study's algorithm, from the call to its "
           "answer.",
           suggest_h);
    family(b, "hpod_model_fit_seconds",
           "Time a model took for one configuration it chose (surrogate fit "
           "and acquisition search), by algorithm.",
           model_h);
}
