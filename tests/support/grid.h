/*
 * tests/support/grid.h - the 5 × 10 lookup table the replay tests share
 * (test_simulate.c, test_decoupled.c): x0 in {1,2,4,8,16} (log scale),
 * x1 in 0.3 + 0.7·j; y has a single maximum at (4, 3.1), row 2·10 + 4 =
 * 24, and small ties broken by 0.01·(r mod 7); the constraint c grows with
 * x0, with a rugged factor a GP cannot predict well.
 */
#ifndef HPOD_TEST_GRID_H
#define HPOD_TEST_GRID_H

#include <math.h>

#include "core/space.h"
#include "tests/support/check.h"

#define GRID_ROWS 50
#define GRID_PARAMS 2

/* Fills sp (initialized here), raw (GRID_ROWS × GRID_PARAMS), y and, when
 * not NULL, c (GRID_ROWS each). */
static inline void
grid_make(struct space *sp, double *raw, double *y, double *c)
{
    double v0[5] = {1, 2, 4, 8, 16}, v1[10];
    for (int j = 0; j < 10; j++)
        v1[j] = 0.3 + 0.7 * j;
    space_init(sp);
    assert_int_equal(space_add_values(sp, PARAM_INT, v0, 5, 1), HPOD_OK);
    assert_int_equal(space_add_values(sp, PARAM_FLOAT, v1, 10, 0), HPOD_OK);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 10; j++) {
            int r = i * 10 + j;
            raw[r * GRID_PARAMS] = v0[i];
            raw[r * GRID_PARAMS + 1] = v1[j];
            double a = log2(v0[i]) - 2.0, b = v1[j] - 3.1;
            y[r] = 20.385 - 1.3 * a * a - 0.41 * b * b + 0.01 * (r % 7);
            if (c)
                c[r] = v0[i] * (1 + 0.1 * v1[j]) * (1 + 0.25 * ((r * 7) % 5));
        }
}

#endif
