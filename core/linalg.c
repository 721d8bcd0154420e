/*
 * core/linalg.c - thin, checked wrappers over OpenBLAS/LAPACKE.
 *
 * LAPACKE's info < 0 means we passed a bad argument (a bug: HPOD_EINTERNAL);
 * info > 0 from dpotrf means the matrix is not positive definite, which for
 * kernel matrices is usually round-off: we retry with growing diagonal
 * jitter (Rasmussen & Williams §A.4 and common GP practice).
 */
#include "core/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

enum hpod_status
linalg_cholesky(double *a, size_t n, double *work, double *jitter)
{
    double mean_diag = 0.0, add = 0.0;
    lapack_int info;

    if (jitter)
        *jitter = 0.0;
    if (n == 0)
        return HPOD_EINVAL;
    memcpy(work, a, n * n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        mean_diag += a[i * n + i];
    mean_diag /= (double)n;
    if (!(mean_diag > 0.0) || !isfinite(mean_diag))
        mean_diag = 1.0;

    for (int attempt = 0; attempt <= 7; attempt++) {
        if (attempt > 0) {
            add = mean_diag * pow(10.0, -11 + attempt);
            memcpy(a, work, n * n * sizeof(double));
            for (size_t i = 0; i < n; i++)
                a[i * n + i] += add;
        }
        info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, a,
                              (lapack_int)n);
        if (info < 0)
            return HPOD_EINTERNAL;
        if (info == 0) {
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                    a[i * n + j] = 0.0;
            if (jitter)
                *jitter = add;
            return HPOD_OK;
        }
    }
    memcpy(a, work, n * n * sizeof(double));
    return HPOD_ENUMERIC;
}

enum hpod_status
linalg_chol_append(double *a, size_t n, size_t k, size_t ld)
{
    double *b = a + n * ld, *c = b + n;
    lapack_int info;

    if (k == 0 || ld < n + k)
        return HPOD_EINVAL;
    if (n > 0) {
        /* L21 Lᵀ = B, then C - L21 L21ᵀ (lower triangle). */
        cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans,
                    CblasNonUnit, (blasint)k, (blasint)n, 1.0, a, (blasint)ld,
                    b, (blasint)ld);
        cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (blasint)k,
                    (blasint)n, -1.0, b, (blasint)ld, 1.0, c, (blasint)ld);
    }
    info =
        LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)k, c, (lapack_int)ld);
    if (info < 0)
        return HPOD_EINTERNAL;
    if (info > 0)
        return HPOD_ENUMERIC;
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++)
            c[i * ld + j] = 0.0;
    return HPOD_OK;
}

void
linalg_trsv_lower(const double *l, size_t n, double *b, int trans)
{
    cblas_dtrsv(CblasRowMajor, CblasLower, trans ? CblasTrans : CblasNoTrans,
                CblasNonUnit, (blasint)n, l, (blasint)n, b, 1);
}

void
linalg_trsm_lower(const double *l, size_t n, double *b, size_t m, int trans)
{
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower,
                trans ? CblasTrans : CblasNoTrans, CblasNonUnit, (blasint)n,
                (blasint)m, 1.0, l, (blasint)n, b, (blasint)m);
}

void
linalg_trsm_lower_tail(const double *l, size_t n, size_t p, double *b, size_t m)
{
    size_t k = n - p;

    if (p >= n || m == 0)
        return;
    if (p > 0)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)k,
                    (blasint)m, (blasint)p, -1.0, l + p * n, (blasint)n, b,
                    (blasint)m, 1.0, b + p * m, (blasint)m);
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans,
                CblasNonUnit, (blasint)k, (blasint)m, 1.0, l + p * n + p,
                (blasint)n, b + p * m, (blasint)m);
}

void
linalg_chol_solve(const double *l, size_t n, double *b)
{
    linalg_trsv_lower(l, n, b, 0);
    linalg_trsv_lower(l, n, b, 1);
}

double
linalg_chol_logdet(const double *l, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += log(l[i * n + i]);
    return 2.0 * s;
}

enum hpod_status
linalg_chol_inverse(double *l, size_t n)
{
    lapack_int info =
        LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, l, (lapack_int)n);
    if (info < 0)
        return HPOD_EINTERNAL;
    if (info > 0)
        return HPOD_ENUMERIC;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            l[i * n + j] = l[j * n + i];
    return HPOD_OK;
}

void
linalg_gemv(int trans, size_t m, size_t n, double alpha, const double *a,
            const double *x, double beta, double *y)
{
    cblas_dgemv(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, (blasint)m,
                (blasint)n, alpha, a, (blasint)n, x, 1, beta, y, 1);
}

void
linalg_gemm(int trans_a, int trans_b, size_t m, size_t n, size_t k,
            double alpha, const double *a, const double *b, double beta,
            double *c)
{
    cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n,
                (blasint)k, alpha, a, trans_a ? (blasint)m : (blasint)k, b,
                trans_b ? (blasint)k : (blasint)n, beta, c, (blasint)n);
}

double
linalg_dot(size_t n, const double *x, const double *y)
{
    return cblas_ddot((blasint)n, x, 1, y, 1);
}

void
linalg_set_threads(int n)
{
    openblas_set_num_threads(n);
}
