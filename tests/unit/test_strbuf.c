/*
 * tests/unit/test_strbuf.c - the growing string against a reference
 * built by hand: many appends of every length 0..40 (NULs included),
 * the terminator after each, and a zeroed buffer as the empty string.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

static void
test_appends_match_reference(void **state)
{
    (void)state;
    struct strbuf b = {0};
    char ref[4096], piece[41];
    size_t len = 0;
    unsigned x = 12345;

    for (size_t k = 0; len + 40 < sizeof ref; k++) {
        size_t n = k % 41;
        for (size_t i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            piece[i] = (char)(x >> 16); /* any byte, NUL included */
        }
        strbuf_put(&b, piece, n);
        memcpy(ref + len, piece, n);
        len += n;
        assert_int_equal(b.len, len);
        assert_true(b.cap > b.len);
        assert_int_equal(b.p[b.len], '\0');
        assert_memory_equal(b.p, ref, len);
    }
    free(b.p);
}

static void
test_empty_append_terminates(void **state)
{
    (void)state;
    struct strbuf b = {0};
    strbuf_put(&b, "", 0);
    assert_non_null(b.p);
    assert_string_equal(b.p, "");
    strbuf_put(&b, "ab", 2);
    strbuf_put(&b, "c", 1);
    assert_string_equal(b.p, "abc");
    free(b.p);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends_match_reference),
        cmocka_unit_test(test_empty_append_terminates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
