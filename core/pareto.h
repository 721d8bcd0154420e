/*
 * core/pareto.h - Pareto dominance, non-dominated sorting, hypervolume,
 * crowding distance and the default reference point, for any number m of
 * objectives with mixed goals.
 *
 * Pure numerics: no I/O, no globals. Objective values are n×m row-major
 * doubles; sense[k] gives the goal of objective k: a negative value means
 * minimize, anything else (normally +1) means maximize. Every array
 * argument is borrowed for the duration of the call only. Scratch memory
 * comes from xmalloc (common/mem.h); nothing here can fail on input, so the
 * functions return values rather than statuses.
 *
 * NaN values make every comparison that involves them false: a point with
 * a NaN neither dominates nor is dominated, and contributes no hypervolume.
 *
 * The answer of /v1/studies/{id}/pareto (study/pareto.c) and the EHVI
 * acquisition (core/ehvi.c) build on this module.
 */
#ifndef HPOD_PARETO_H
#define HPOD_PARETO_H

#include <stddef.h>

/*
 * pareto_dominates - 1 if a dominates b (a is at least as good as b in all
 * m objectives and strictly better in at least one), else 0. Identical
 * points do not dominate each other.
 */
int pareto_dominates(const double *a, const double *b, size_t m,
                     const int *sense);

/*
 * pareto_rank - non-dominated sorting (Deb et al. 2002): rank[i] = 0 for
 * the points no other point dominates, 1 for those dominated only by rank-0
 * points, and so on. Identical points share a rank. O(n² m) time, O(n)
 * scratch. rank has n entries, written by the call.
 */
void pareto_rank(const double *y, size_t n, size_t m, const int *sense,
                 int *rank);

/*
 * pareto_front - writes to idx (n entries of room) the indices of the
 * rank-0 points in increasing index order and returns how many there are.
 * Duplicates of a non-dominated point are all listed.
 */
size_t pareto_front(const double *y, size_t n, size_t m, const int *sense,
                    size_t *idx);

/*
 * pareto_hypervolume - exact volume of the region dominated by the points
 * and bounded by the reference point ref (m entries):
 *   HV = vol( ∪_i { z : z between y_i and ref in every objective } ).
 * Only points strictly better than ref in every objective contribute; the
 * others (dominated by ref, equal to it in one objective, NaN) add nothing.
 * m = 1: the length of the best improvement; m = 2: sort and sweep,
 * O(n log n); m >= 3: WFG (While, Bradstreet & Barone 2012, "A fast way of
 * calculating exact hypervolumes", IEEE TEVC 16(1)) on the non-dominated
 * subset. Returns 0 when n == 0 or m == 0; +Inf if a contributing
 * coordinate is infinite.
 */
double pareto_hypervolume(const double *y, size_t n, size_t m, const int *sense,
                          const double *ref);

/*
 * A reusable hypervolume workspace for m objectives, for callers that
 * compute many volumes (Monte Carlo EHVI, hypervolume contributions):
 * pareto_hv_volume() then allocates only when n exceeds every earlier n.
 * pareto_hv_create returns a new workspace (never NULL); pareto_hv_free
 * accepts NULL. A workspace is not safe for concurrent use.
 */
struct pareto_hv;

struct pareto_hv *pareto_hv_create(size_t m);
void pareto_hv_free(struct pareto_hv *w);

/* pareto_hypervolume() with the workspace's m. */
double pareto_hv_volume(struct pareto_hv *w, const double *y, size_t n,
                        const int *sense, const double *ref);

/*
 * pareto_crowding - crowding distance (Deb et al. 2002, NSGA-II) of the k
 * points y[idx[j]] (rows of the m-column array y), written to dist[j]. For
 * each objective the points are sorted by value (ties by position j); the
 * first and last get +Inf, an inner point adds
 * (f[next] - f[prev]) / (f_max - f_min). An objective whose values are all
 * equal (or that holds a non-finite value) adds nothing, not even the +Inf
 * of its ends, so k identical points all get 0. With k <= 2 every distance
 * is +Inf. Goals do not matter (the distance is symmetric), so no sense.
 */
void pareto_crowding(const double *y, const size_t *idx, size_t k, size_t m,
                     double *dist);

/*
 * pareto_complete_rows - copies the rows of y (n × m) whose m values are
 * all finite (observations that reported every objective), in order, to
 * out (room for n rows); returns how many.
 */
size_t pareto_complete_rows(const double *y, size_t n, size_t m, double *out);

/* The margin of the default reference point, a study's (study/pareto.c)
 * and a simulated run's (core/simulate.c) alike. */
#define PARETO_REF_MARGIN 0.1

/*
 * pareto_reference - the default hypervolume reference point, written to
 * ref (m entries): per objective, the worst finite observed value w (the
 * minimum for a maximized objective, the maximum for a minimized one)
 * moved further in the worse direction by
 *   margin × d,  d = max − min of the finite values if that is > 0,
 *               else |w| if that is > 0, else 1.
 * So ref = w − margin·d when maximizing, w + margin·d when minimizing; with
 * margin > 0 every observed point lies strictly inside and counts.
 * Non-finite values are ignored; an objective without any finite value gets
 * ref = −margin (maximize) or +margin (minimize), as if w = 0. The reference
 * is always finite: a move past ±DBL_MAX stops at ±DBL_MAX.
 */
void pareto_reference(const double *y, size_t n, size_t m, const int *sense,
                      double margin, double *ref);

#endif
