/*
 * tests/support/check.h - helpers shared by the cmocka unit tests.
 *
 * cmocka 1.1.5 has no assert_double_equal; assert_close compares doubles
 * with a relative and an absolute tolerance (|a-e| <= atol + rtol*|e|), in
 * the spirit of GSL's gsl_test_rel, and prints both values on failure.
 */
#ifndef HPOD_TEST_CHECK_H
#define HPOD_TEST_CHECK_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#define assert_close(actual, expected, rtol, atol)                             \
    do {                                                                       \
        double a_ = (actual), e_ = (expected);                                 \
        double tol_ = (atol) + (rtol)*fabs(e_);                                \
        if (!(fabs(a_ - e_) <= tol_) && !(a_ == e_)) {                         \
            print_error("%s = %.17g, expected %.17g (tol %.3g)\n", #actual,    \
                        a_, e_, tol_);                                         \
            fail();                                                            \
        }                                                                      \
    } while (0)

#endif
