/*
 * core/compute_budget.c - a choice's work budget; see compute_budget.h.
 */
#include "core/compute_budget.h"

#include <stddef.h>

int
compute_budget_spent(struct compute_budget *b)
{
    if (!b || !b->expired || !b->expired(b->ctx))
        return 0;
    b->cuts++;
    return 1;
}

int
compute_budget_was_cut(const struct compute_budget *b)
{
    return b && b->cuts > 0;
}
