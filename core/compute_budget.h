/*
 * core/compute_budget.h - how much work a choice may do: a callback the
 * caller provides (the service: a deadline from HPOD_SUGGEST_BUDGET_MS),
 * checked by the samplers between chunks of work, so that core stays pure
 * (no clock read here). A NULL budget is unbounded.
 *
 * What yields when the budget is spent (an "anytime" choice: the best
 * found so far, never a worse kind of answer):
 *   - a GP fit (core/gp.h) stops scoring random starts and ends its
 *     L-BFGS run, keeping the best hyperparameters evaluated (at least
 *     the default start is scored: never an unfitted model);
 *   - the acquisition optimizer (core/acqopt.h) scores its random points
 *     in chunks and refines while the budget lasts, answering the best
 *     point scored (at least one chunk);
 *   - EHVI scores candidates in chunks spread over the list
 *     (core/mobo_acq.h), the unscored ones ineligible;
 *   - GP-Hedge's replay of its arms' past nominees (core/hedge.h) stops,
 *     keeping what it replayed, and the GP arm chooses.
 * A choice that found its budget spent says so (sampler_explain.budget_cut).
 */
#ifndef HPOD_COMPUTE_BUDGET_H
#define HPOD_COMPUTE_BUDGET_H

struct compute_budget {
    /* 1 once the caller's budget is spent (it stays spent). */
    int (*expired)(void *ctx);
    void *ctx;
    /* Checks that found it spent (compute_budget_spent writes it). */
    unsigned cuts;
};

/*
 * compute_budget_spent - 1 if b's budget is spent (and counts the cut in
 * b->cuts), 0 if not or b is NULL (unbounded).
 */
int compute_budget_spent(struct compute_budget *b);

/* compute_budget_was_cut - 1 if a check on b found it spent. */
int compute_budget_was_cut(const struct compute_budget *b);

#endif
