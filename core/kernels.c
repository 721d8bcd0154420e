/*
 * core/kernels.c - Matérn-5/2 and RBF kernels (see kernels.h).
 */
#include "core/kernels.h"

#include <math.h>

double
kernel_corr(enum kernel_kind kind, double r2)
{
    if (r2 < 0.0)
        r2 = 0.0;
    if (kind == KERNEL_RBF)
        return exp(-0.5 * r2);
    /* Matérn-5/2: (1 + √5 r + 5r²/3) exp(-√5 r), R&W eq. 4.17. */
    double s = sqrt(5.0 * r2);
    return (1.0 + s + 5.0 * r2 / 3.0) * exp(-s);
}

double
kernel_r2(const double *x, const double *y, const double *ls, size_t dim)
{
    double s = 0.0;
    for (size_t d = 0; d < dim; d++) {
        double t = (x[d] - y[d]) / ls[d];
        s += t * t;
    }
    return s;
}
