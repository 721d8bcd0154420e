/*
 * core/kernels.h - stationary covariance kernels with per-dimension
 * (ARD) lengthscales: Matérn-5/2 and RBF (squared exponential).
 *
 * Pure numerics. Both are functions of the scaled squared distance
 *   r² = Σ_d ((x_d - x'_d) / ℓ_d)²
 * times a signal variance σ_f²; see Rasmussen & Williams (2006) eq. 4.9
 * (RBF) and eq. 4.17 with ν = 5/2 (Matérn).
 */
#ifndef HPOD_KERNELS_H
#define HPOD_KERNELS_H

#include <stddef.h>

enum kernel_kind { KERNEL_MATERN52 = 0, KERNEL_RBF = 1 };

/* Unit-variance correlation as a function of r² (>= 0): value in (0, 1]. */
double kernel_corr(enum kernel_kind kind, double r2);

/*
 * kernel_r2 - scaled squared distance between x and y (dim entries each)
 * with lengthscales ls (dim entries, > 0).
 */
double kernel_r2(const double *x, const double *y, const double *ls,
                 size_t dim);

#endif
