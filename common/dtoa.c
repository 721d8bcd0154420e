/*
 * common/dtoa.c - shortest round-trip formatting of doubles; see dtoa.h.
 *
 * printf's "%.Ng" gives the decimal of N significant digits nearest to x,
 * so the first N whose text strtod reads back as x is the shortest length
 * at which any text round-trips, and that text is the nearest of that
 * length. A normal double carries 53 bits, so every text of at most 15
 * digits that reads back as x is also what "%.15g" prints (DBL_DIG = 15:
 * x lies closer to it than half a unit of the 15th digit), trailing zeros
 * stripped; the search can start at 15. Subnormals carry fewer bits
 * (5e-324 is one bit), so for them it starts at one digit.
 */
#include "common/dtoa.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

size_t
hpod_dtoa(double x, char *buf)
{
    int n = 0;
    if (isnan(x))
        n = snprintf(buf, HPOD_DTOA_SIZE, "nan");
    else if (isinf(x))
        n = snprintf(buf, HPOD_DTOA_SIZE, "%s", x < 0 ? "-inf" : "inf");
    else {
        int p = x == 0 || fabs(x) >= DBL_MIN ? DBL_DIG : 1;
        for (; p <= DBL_DECIMAL_DIG; p++) {
            n = snprintf(buf, HPOD_DTOA_SIZE, "%.*g", p, x);
            /* 17 digits always round-trip: no need to check the last. */
            if (p == DBL_DECIMAL_DIG || same_bits(strtod(buf, NULL), x))
                break;
        }
    }
    return n > 0 ? (size_t)n : 0;
}
