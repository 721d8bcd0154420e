/*
 * tests/unit/test_text.c - common/text.c: names in NFC (two encodings of
 * one name are one name), and the characters that make look-alikes
 * refused with the code point named.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "common/text.h"

static void
accept(const char *in, const char *want)
{
    struct hpod_err err = {0};
    char *out = NULL;
    assert_int_equal(hpod_text_name(in, "name", &out, &err), HPOD_OK);
    assert_string_equal(out, want);
    free(out);
}

static void
refuse(const char *in, const char *cp)
{
    struct hpod_err err = {0};
    char *out = (char *)"x";
    assert_int_equal(hpod_text_name(in, "name", &out, &err), HPOD_EUNPROC);
    assert_null(out);
    assert_string_equal(err.field, "name");
    if (cp && !strstr(err.msg, cp))
        fail_msg("message %s does not name %s", err.msg, cp);
}

static void
test_nfc(void **state)
{
    (void)state;
    accept("caf\xc3\xa9", "caf\xc3\xa9");               /* U+00E9 */
    accept("cafe\xcc\x81", "caf\xc3\xa9");              /* e + U+0301 */
    accept("\xe1\x84\x80\xe1\x85\xa1", "\xea\xb0\x80"); /* Hangul jamo */
    accept("zh-en transformer 2", "zh-en transformer 2");
    accept("", "");
    /* An emoji with its presentation selector, CJK, Arabic letters. */
    accept("\xe2\x9d\xa4\xef\xb8\x8f run", "\xe2\x9d\xa4\xef\xb8\x8f run");
    accept("\xe4\xb8\xad\xe6\x96\x87", "\xe4\xb8\xad\xe6\x96\x87");
    accept("\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a",
           "\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a");
}

static void
test_refused(void **state)
{
    (void)state;
    refuse("ab\xe2\x80\x8b"
           "c",
           "U+200B"); /* zero-width space */
    refuse("ab\xe2\x80\x8d"
           "c",
           "U+200D"); /* zero-width joiner */
    refuse("\xe2\x80\xae"
           "cba",
           "U+202E"); /* right-to-left override */
    refuse("a\xe2\x81\xa6"
           "b",
           "U+2066"); /* left-to-right isolate */
    refuse("a\xd8\x9c"
           "b",
           "U+061C"); /* Arabic letter mark */
    refuse("a\xc2\xad"
           "b",
           "U+00AD"); /* soft hyphen */
    refuse("\xef\xbb\xbf"
           "abc",
           "U+FEFF"); /* byte order mark */
    refuse("a\tb", "U+0009");
    refuse("a\nb", "U+000A");
    refuse("a\x7f", "U+007F");
    refuse("a\xe2\x80\xa8"
           "b",
           "U+2028");                  /* line separator */
    refuse("a\xee\x80\x80", "U+E000"); /* private use */
    refuse("a\xcd\xb8", "U+0378");     /* unassigned */
    refuse("a\xe3\x85\xa4"
           "b",
           "U+3164"); /* Hangul filler */
    refuse("a\xcd\x8f"
           "b",
           "U+034F"); /* grapheme joiner */
    refuse("a\xff"
           "b",
           "UTF-8");
    refuse("a\xc3", "UTF-8");
}

static void
test_member(void **state)
{
    (void)state;
    struct hpod_err err = {0};
    json_t *o = json_pack("{s:s, s:i}", "name", "cafe\xcc\x81", "n", 3);
    assert_int_equal(hpod_text_member(o, "name", "name", &err), HPOD_OK);
    assert_string_equal(json_string_value(json_object_get(o, "name")),
                        "caf\xc3\xa9");
    /* Not a string, or absent: left for the caller's checks. */
    assert_int_equal(hpod_text_member(o, "n", "n", &err), HPOD_OK);
    assert_int_equal(hpod_text_member(o, "none", "none", &err), HPOD_OK);
    json_object_set_new(o, "note", json_stringn("a\0b", 3));
    assert_int_equal(hpod_text_member(o, "note", "note", &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "note");
    assert_non_null(strstr(err.msg, "U+0000"));
    json_object_set_new(o, "note",
                        json_string("\xe2\x80\xae"
                                    "x"));
    assert_int_equal(hpod_text_member(o, "note", "note", &err), HPOD_EUNPROC);
    json_decref(o);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nfc),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_member),
    };
    return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
