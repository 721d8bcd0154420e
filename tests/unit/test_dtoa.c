/*
 * tests/unit/test_dtoa.c - hpod_dtoa: known texts, and over many random
 * bit patterns (normal, subnormal, integers held as doubles) the text reads
 * back bit for bit and is the shortest that does.
 */
#include "tests/support/check.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "common/dtoa.h"

static double
from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static int
same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/*
 * canon - a decimal text as sign, significant digits (no leading or
 * trailing zeros) and the decimal exponent of the first digit, so that
 * "737261733514120" and "7.3726173351412e+14" compare equal.
 */
static void
canon(const char *s, char *out, size_t n)
{
    char digits[64];
    size_t nd = 0;
    int neg = *s == '-', point = -1, lead = 0, exp10 = 0;
    const char *p = s + neg;
    for (; *p && *p != 'e'; p++) {
        if (*p == '.') {
            point = (int)(nd + (size_t)lead);
            continue;
        }
        if (nd == 0 && *p == '0') {
            lead++;
            continue;
        }
        digits[nd++] = *p;
    }
    int total = (int)nd + lead; /* digits before any exponent */
    if (point < 0)
        point = total;
    if (*p == 'e')
        exp10 = atoi(p + 1);
    while (nd > 0 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    snprintf(out, n, "%s0.%se%d", neg ? "-" : "", nd ? digits : "0",
             nd ? point - lead + exp10 : 0);
}

/* The first %.Ng (N = 1..17) that reads back as x: the brute force. */
static void
shortest_brute(double x, char *buf)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, HPOD_DTOA_SIZE, "%.*g", p, x);
        if (same_bits(strtod(buf, NULL), x))
            return;
    }
    fail_msg("%.17g has no round-trip text", x);
}

/*
 * x's text reads back as x and is the brute force's shortest decimal (the
 * same digits; %g may write it with or without an exponent).
 */
static void
check_one(double x)
{
    char buf[HPOD_DTOA_SIZE], want[HPOD_DTOA_SIZE], a[80], b[80];
    size_t n = hpod_dtoa(x, buf);
    assert_int_equal(n, strlen(buf));
    if (!same_bits(strtod(buf, NULL), x))
        fail_msg("%a printed as %s, which reads back as %a", x, buf,
                 strtod(buf, NULL));
    shortest_brute(x, want);
    canon(buf, a, sizeof a);
    canon(want, b, sizeof b);
    if (strcmp(a, b) != 0)
        fail_msg("%a printed as %s (%s), the shortest is %s (%s)", x, buf, a,
                 want, b);
}

static void
test_known(void **state)
{
    (void)state;
    static const struct {
        double x;
        const char *text;
    } cases[] = {
        {14.2, "14.2"},
        {0.1, "0.1"},
        {0.1 + 0.2, "0.30000000000000004"},
        {14.199999999999999, "14.2"},
        {14.200000000000001, "14.200000000000001"},
        {5e-324, "5e-324"},
        {1e19, "1e+19"},
        {2e19, "2e+19"},
        {-DBL_MAX, "-1.7976931348623157e+308"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {0.0, "0"},
        {-0.0, "-0"},
        {3.0, "3"},
        {-42.0, "-42"},
        {9007199254740992.0, "9007199254740992"},
        {9223372036854775808.0, "9.223372036854776e+18"},
        {123456789012345680.0, "1.2345678901234568e+17"},
        {1e21, "1e+21"},
        {1e-7, "1e-07"},
        {0.001, "0.001"},
        {1.0 / 3.0, "0.3333333333333333"},
        {2.0 / 3.0, "0.6666666666666666"},
    };
    char buf[HPOD_DTOA_SIZE];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hpod_dtoa(cases[i].x, buf);
        if (strcmp(buf, cases[i].text) != 0)
            fail_msg("case %zu: %a printed as %s, expected %s", i, cases[i].x,
                     buf, cases[i].text);
        check_one(cases[i].x);
    }
    hpod_dtoa(NAN, buf);
    assert_string_equal(buf, "nan");
    hpod_dtoa(INFINITY, buf);
    assert_string_equal(buf, "inf");
    hpod_dtoa(-INFINITY, buf);
    assert_string_equal(buf, "-inf");
}

static void
test_random_bits(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 20261124);
    for (int i = 0; i < 50000; i++) {
        double x = from_bits(rng_next(&r));
        if (isfinite(x))
            check_one(x);
    }
}

static void
test_subnormals_and_edges(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 7);
    /* Subnormals: exponent bits zero, any mantissa, either sign. */
    for (int i = 0; i < 20000; i++) {
        uint64_t u = rng_next(&r) & ((UINT64_C(1) << 52) - 1);
        if (i & 1)
            u |= UINT64_C(1) << 63;
        check_one(from_bits(u));
    }
    /* The smallest few and the largest few of each kind. */
    for (uint64_t k = 0; k < 64; k++) {
        check_one(from_bits(k));
        check_one(from_bits((UINT64_C(1) << 52) - 1 - k)); /* top subnormals */
        check_one(from_bits((UINT64_C(1) << 52) + k));     /* DBL_MIN up */
        check_one(from_bits(UINT64_C(0x7fefffffffffffff) - k)); /* DBL_MAX */
        check_one(-from_bits(UINT64_C(0x7fefffffffffffff) - k));
    }
    /* Powers of ten and their neighbours. */
    for (int e = -320; e <= 308; e++) {
        double x = strtod("1", NULL) * pow(10.0, e);
        check_one(x);
        check_one(nextafter(x, 0.0));
        check_one(nextafter(x, INFINITY));
    }
}

static void
test_integers(void **state)
{
    (void)state;
    struct rng r;
    char buf[HPOD_DTOA_SIZE], want[32];
    rng_seed(&r, 99);
    for (int i = 0; i < 20000; i++) {
        /* Below 1e15 an integer prints as itself, without exponent. */
        long long v = (long long)rng_below(&r, 1000000000000000ULL);
        if (i & 1)
            v = -v;
        hpod_dtoa((double)v, buf);
        snprintf(want, sizeof want, "%lld", v);
        assert_string_equal(buf, want);
        /* Any 53-bit integer, and integers far beyond: round trip. */
        check_one((double)(int64_t)(rng_next(&r) >> 11));
        check_one((double)(int64_t)rng_next(&r));
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known),
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_subnormals_and_edges),
        cmocka_unit_test(test_integers),
    };
    return cmocka_run_group_tests_name("dtoa", tests, NULL, NULL);
}
