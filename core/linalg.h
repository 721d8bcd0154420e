/*
 * core/linalg.h - the one doorway to CBLAS and LAPACKE.
 *
 * Every matrix is a flat row-major array of doubles. Only linalg.c includes
 * cblas.h and lapacke.h, so a change of BLAS vendor touches one file.
 * No function here allocates except linalg_chol_inverse's LAPACK call,
 * which works in place.
 */
#ifndef HPOD_LINALG_H
#define HPOD_LINALG_H

#include <stddef.h>

#include "common/status.h"

/*
 * linalg_cholesky - lower Cholesky factor of the SPD n×n matrix a, in place
 * (the strict upper triangle is zeroed). When the factorization fails, the
 * original matrix (the caller's copy in a is restored from the lower
 * triangle, which dpotrf leaves intact up to the failing column... so the
 * function keeps its own copy in work) is retried with jitter
 * 1e-10, 1e-9, ..., 1e-4 times the mean diagonal added to the diagonal.
 * work: n*n doubles of scratch, owned by the caller.
 * *jitter (may be NULL) receives the absolute jitter added (0 if none).
 * Returns HPOD_OK, HPOD_ENUMERIC if still not SPD, HPOD_EINVAL on n == 0.
 */
enum hpod_status linalg_cholesky(double *a, size_t n, double *work,
                                 double *jitter);

/*
 * linalg_chol_append - extends a Cholesky factor by k rows (a rank-k step):
 * given L (n×n, row-major with leading dimension ld ≥ n + k, rows 0..n-1
 * of a) the factor of A, and in rows n..n+k-1 the new rows [B C] of
 *   [[A, Bᵀ], [B, C]]   (B k×n, C k×k, only C's lower triangle read),
 * overwrites those rows with [L21 L22], L21 = B L⁻ᵀ, L22 Lᵀ22 = C - L21
 * L21ᵀ (one dtrsm, one dsyrk, one dpotrf of k×k): O(n²k + nk² + k³)
 * instead of O((n+k)³). The leading n×n block of a factor is the factor
 * of A's leading block, so a caller may also truncate before appending.
 * C's strict upper triangle is zeroed. No jitter: HPOD_ENUMERIC if the
 * Schur complement is not positive definite (the caller refactorizes).
 * HPOD_EINVAL if k == 0 or ld < n + k.
 */
enum hpod_status linalg_chol_append(double *a, size_t n, size_t k, size_t ld);

/*
 * linalg_trsm_lower_tail - finishes X = L⁻¹B when its first p rows are
 * known: l is n×n lower (stride n), b n×m (stride m) holds X's rows
 * 0..p-1 and B's rows p..n-1; rows p..n-1 become X's:
 *   X2 = L22⁻¹ (B2 - L21 X1)   (one dgemm, one dtrsm: O(n p m + (n-p)² m)).
 * The forward substitution never changes a row once solved, so a caller
 * that appends rows to L (linalg_chol_append) extends X the same way.
 */
void linalg_trsm_lower_tail(const double *l, size_t n, size_t p, double *b,
                            size_t m);

/* Solves L x = b (trans == 0) or Lᵀ x = b (trans != 0) in place. */
void linalg_trsv_lower(const double *l, size_t n, double *b, int trans);

/*
 * Solves L X = B (trans == 0) or Lᵀ X = B in place, B n×m row-major.
 */
void linalg_trsm_lower(const double *l, size_t n, double *b, size_t m,
                       int trans);

/* Solves (L Lᵀ) x = b in place, given the Cholesky factor l. */
void linalg_chol_solve(const double *l, size_t n, double *b);

/* log det(L Lᵀ) = 2 Σ log L_ii. */
double linalg_chol_logdet(const double *l, size_t n);

/*
 * linalg_chol_inverse - overwrites the factor l with (L Lᵀ)⁻¹, full
 * symmetric. Returns HPOD_ENUMERIC if LAPACK reports a zero pivot.
 */
enum hpod_status linalg_chol_inverse(double *l, size_t n);

/* y = alpha·A·x + beta·y, A m×n row-major (trans: Aᵀ, then x has m). */
void linalg_gemv(int trans, size_t m, size_t n, double alpha, const double *a,
                 const double *x, double beta, double *y);

/* C = alpha·op(A)·op(B) + beta·C; op(A) m×k, op(B) k×n, all row-major. */
void linalg_gemm(int trans_a, int trans_b, size_t m, size_t n, size_t k,
                 double alpha, const double *a, const double *b, double beta,
                 double *c);

double linalg_dot(size_t n, const double *x, const double *y);

/*
 * Limits the BLAS thread pool (OpenBLAS reads OPENBLAS_NUM_THREADS only when
 * it is loaded, so the server calls this at start-up instead).
 */
void linalg_set_threads(int n);

#endif
