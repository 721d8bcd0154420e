/*
 * core/kernels.h - stationary covariance kernels with per-dimension
 * (ARD) lengthscales: Matérn-5/2 and RBF (squared exponential).
 *
 * Pure numerics. Both are functions of the scaled squared distance
 *   r² = Σ_d (δ_d(x, x') / ℓ_d)²,  δ_d = space_diff (core/space.h):
 * x_d - x'_d for a real feature, the overlap 0/1 for a categorical one
 * (kinds: the space's feature kinds, NULL when every feature is real)
 * times a signal variance σ_f²; see Rasmussen & Williams (2006) eq. 4.9
 * (RBF) and eq. 4.17 with ν = 5/2 (Matérn):
 *   RBF       k = σ_f² exp(-r²/2)
 *   Matérn52  k = σ_f² (1 + √5 r + 5r²/3) exp(-√5 r)
 * Matrices are flat row-major arrays owned by the caller; nothing here
 * allocates. The GP (core/gp.c) builds on these; the graph sampler
 * (core/graph.c) uses kernel_corr/kernel_r2 only.
 */
#ifndef HPOD_KERNELS_H
#define HPOD_KERNELS_H

#include <stddef.h>

enum kernel_kind { KERNEL_MATERN52 = 0, KERNEL_RBF = 1 };

/* Unit-variance correlation as a function of r² (>= 0): value in (0, 1]. */
double kernel_corr(enum kernel_kind kind, double r2);

/*
 * kernel_r2 - scaled squared distance between x and y (dim entries each,
 * feature kinds kinds or NULL) with lengthscales ls (dim entries, > 0).
 */
double kernel_r2(const double *x, const double *y, const double *ls, size_t dim,
                 const unsigned char *kinds);

/*
 * kernel_dcorr_dr2 - derivative of kernel_corr with respect to r²
 * (<= 0; finite at r² = 0 for both kinds).
 */
double kernel_dcorr_dr2(enum kernel_kind kind, double r2);

/*
 * kernel_matrix - K[i][j] = sf2 · corr(r²(x_i, x_j)) for the n points x
 * (n×dim row-major), lengthscales ls (dim, > 0), signal variance sf2.
 * out: n×n, caller-owned, written in full (exactly symmetric, diagonal sf2).
 */
void kernel_matrix(enum kernel_kind kind, const double *x, size_t n, size_t dim,
                   const unsigned char *kinds, const double *ls, double sf2,
                   double *out);

/*
 * kernel_cross - K[i][j] = sf2 · corr(r²(xq_i, x_j)) between the m points
 * xq (m×dim) and the n points x (n×dim). out: m×n, caller-owned.
 */
void kernel_cross(enum kernel_kind kind, const double *xq, size_t m,
                  const double *x, size_t n, size_t dim,
                  const unsigned char *kinds, const double *ls, double sf2,
                  double *out);

/*
 * kernel_matrix_dlogls - the derivative of kernel_matrix with respect to
 * log ℓ_d (0 <= d < dim):
 *   ∂K_ij/∂log ℓ_d = -2 sf2 corr'(r²) · (δ_d(x_i, x_j)/ℓ_d)²
 * (since ∂r²/∂log ℓ_d = -2(δ_d/ℓ_d)²). out: n×n, caller-owned.
 * The derivative with respect to log sf2 is K itself.
 */
void kernel_matrix_dlogls(enum kernel_kind kind, const double *x, size_t n,
                          size_t dim, const unsigned char *kinds,
                          const double *ls, double sf2, size_t d, double *out);

/*
 * kernel_grad_contract - contracts the kernel-matrix derivatives with a
 * symmetric n×n weight matrix w (only its lower triangle and diagonal are
 * read), without forming any derivative matrix:
 *   g[d]   = Σ_ij w_ij ∂K_ij/∂log ℓ_d     for d < dim
 *   g[dim] = Σ_ij w_ij ∂K_ij/∂log sf2 = Σ_ij w_ij K_ij
 * g has dim + 1 entries, caller-owned. k is either NULL or the n×n matrix
 * kernel_matrix(kind, x, n, dim, ls, sf2) (its strict lower triangle is
 * read), which saves recomputing every exp. With w = ααᵀ - K_y⁻¹ and a
 * factor ½ this is the log marginal likelihood gradient (R&W eq. 5.9).
 * O(n² dim) time, no allocation.
 */
void kernel_grad_contract(enum kernel_kind kind, const double *x, size_t n,
                          size_t dim, const unsigned char *kinds,
                          const double *ls, double sf2, const double *k,
                          const double *w, double *g);

#endif
