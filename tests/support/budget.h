/*
 * tests/support/budget.h - a compute budget (core/compute_budget.h) driven
 * by a counter instead of a clock, for the tests of what yields to it:
 *   int left = k;
 *   struct compute_budget b = {budget_spent_after, &left, 0};
 * finds the budget unspent at its first k checks and spent from then on.
 */
#ifndef HPOD_TESTS_SUPPORT_BUDGET_H
#define HPOD_TESTS_SUPPORT_BUDGET_H

#include "core/compute_budget.h"

static inline int
budget_spent_after(void *ctx)
{
    int *left = ctx;
    return (*left)-- <= 0;
}

#endif
