/*
 * tests/unit/test_sha256.c - SHA-256 against FIPS 180-4's examples and
 * against digests of 'a' repeated at every padding boundary (lengths 55,
 * 56, 63, 64, 65, 119, 120, 128: one or two final blocks), computed with
 * Python's hashlib; the random bytes are not all zero and differ.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "common/sha256.h"

static void
hex_of(const void *data, size_t n, char out[2 * SHA256_LEN + 1])
{
    uint8_t d[SHA256_LEN];
    hpod_sha256(data, n, d);
    hpod_hex(d, SHA256_LEN, out);
}

static void
test_fips_examples(void **state)
{
    (void)state;
    char h[2 * SHA256_LEN + 1];
    hex_of("", 0, h);
    assert_string_equal(
        h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of("abc", 3, h);
    assert_string_equal(
        h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two =
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(two, strlen(two), h);
    assert_string_equal(
        h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    assert_non_null(million);
    memset(million, 'a', 1000000);
    hex_of(million, 1000000, h);
    free(million);
    assert_string_equal(
        h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void
test_padding_boundaries(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        const char *hex;
    } cases[] = {
        {55,
         "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56,
         "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {63,
         "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
        {64,
         "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
        {65,
         "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
        {119,
         "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
        {120,
         "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
        {128,
         "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
    };
    char buf[128], h[2 * SHA256_LEN + 1];
    memset(buf, 'a', sizeof buf);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hex_of(buf, cases[i].n, h);
        assert_string_equal(h, cases[i].hex);
    }
}

static void
test_random_bytes(void **state)
{
    (void)state;
    uint8_t a[32], b[32], zero[32] = {0};
    assert_int_equal(hpod_random_bytes(a, sizeof a), 0);
    assert_int_equal(hpod_random_bytes(b, sizeof b), 0);
    /* 2^-256 chance of a false failure each. */
    assert_true(memcmp(a, zero, sizeof a) != 0);
    assert_true(memcmp(a, b, sizeof a) != 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips_examples),
        cmocka_unit_test(test_padding_boundaries),
        cmocka_unit_test(test_random_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
