/*
 * study/deadline.c - a suggest's compute budget as a deadline; see
 * deadline.h.
 */
#include "study/deadline.h"

#include <stdatomic.h>
#include <stddef.h>

#include "common/clock.h"

static atomic_long suggest_ms = DEADLINE_SUGGEST_MS;

void
deadline_set_suggest_ms(long ms)
{
    atomic_store(&suggest_ms, ms > 0 ? ms : 0);
}

static int
expired(void *ctx)
{
    const struct deadline *d = ctx;
    return d->end_ms > 0 && hpod_now_ms() >= d->end_ms;
}

void
deadline_start(struct deadline *d, struct compute_budget *b)
{
    long ms = atomic_load(&suggest_ms);
    d->end_ms = ms > 0 ? hpod_now_ms() + ms : 0;
    b->expired = ms > 0 ? expired : NULL;
    b->ctx = d;
    b->cuts = 0;
}
