/*
 * core/related.h - how well one study's results predict another's
 * (GET /v1/studies/{id}/related, "warm_start": {"auto": true};
 * docs/guide.md, "Studies that evolve"): the configurations two studies
 * share, Spearman's rank correlation of their objective there, and the
 * order of the related studies. Pure: no I/O, no globals; arrays are
 * borrowed for the call.
 */
#ifndef HPOD_RELATED_H
#define HPOD_RELATED_H

#include <stddef.h>

/*
 * related_spearman - study a's rows (na × k raw values of the k shared
 * parameters, ya their objective) against study b's (nb × k, yb). A
 * configuration is shared when a row of a and a row of b have the same k
 * values (exactly; NaN equals nothing); a configuration a study holds
 * twice counts once, with its first row. *n_shared (may be NULL) gets how
 * many are shared. Returns Spearman's ρ of ya against yb over them
 * (core/rankcorr: average ranks), NaN when fewer than 2 are shared or
 * either side is constant. O((na + nb) log(na + nb) k).
 */
double related_spearman(const double *a, const double *ya, size_t na,
                        const double *b, const double *yb, size_t nb, size_t k,
                        size_t *n_shared);

/* One related study as related_rank orders them. */
struct related_score {
    double rho;     /* related_spearman, NaN: no correlation to rank by */
    double overlap; /* the share of the study's parameters it has */
    long long id;   /* the tie-break: smaller first */
};

/*
 * related_rank - order (n indices into s): first the studies with a
 * correlation, the largest ρ first; then the others, the largest overlap
 * first; ties by overlap (after ρ), then by id.
 */
void related_rank(const struct related_score *s, size_t n, size_t *order);

#endif
