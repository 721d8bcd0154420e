/*
 * tests/unit/test_log.c - hpod_redact: no password of a database URL or
 * libpq conninfo survives into a log line, and nothing else is changed.
 */
#include "tests/support/check.h"

#include <string.h>

#include "common/log.h"

static void
expect_redacted(const char *in, const char *want)
{
    char out[512];
    size_t n = hpod_redact(out, sizeof out, in);
    if (strcmp(out, want) != 0)
        print_error("redact(\"%s\")\n   = \"%s\"\n want \"%s\"\n", in, out,
                    want);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void
test_urls(void **state)
{
    (void)state;
    expect_redacted("postgresql://hpod:s3cretpw@db.lab:5432/hpod",
                    "postgresql://hpod:***@db.lab:5432/hpod");
    expect_redacted("could not connect to postgres://u:pw@h/db: refused",
                    "could not connect to postgres://u:***@h/db: refused");
    /* percent-escapes in the password, and a raw '@' in it */
    expect_redacted("postgresql://u:p%40ss%3Aw@h/db?sslmode=off",
                    "postgresql://u:***@h/db?sslmode=off");
    expect_redacted("postgresql://u:p@ss@h/db", "postgresql://u:***@h/db");
    /* empty user, several hosts, no path */
    expect_redacted("postgresql://:pw@h1:1,h2:2",
                    "postgresql://:***@h1:1,h2:2");
    expect_redacted("postgresql://u:pw@h", "postgresql://u:***@h");
    /* a user but no password, no user at all: unchanged */
    expect_redacted("postgresql://hpod@h/db", "postgresql://hpod@h/db");
    expect_redacted("postgresql:///hpod?host=/tmp/x&user=postgres",
                    "postgresql:///hpod?host=/tmp/x&user=postgres");
    expect_redacted("hpod serving on http://127.0.0.1:8080",
                    "hpod serving on http://127.0.0.1:8080");
    /* two URLs in one message */
    expect_redacted("a=postgresql://a:1@x b=postgresql://b:2@y",
                    "a=postgresql://a:***@x b=postgresql://b:***@y");
}

static void
test_query_strings(void **state)
{
    (void)state;
    expect_redacted("postgresql:///hpod?host=/s&password=s3cret&user=u",
                    "postgresql:///hpod?host=/s&password=***&user=u");
    expect_redacted("postgresql:///hpod?password=s3cret",
                    "postgresql:///hpod?password=***");
    expect_redacted("postgresql:///hpod?PassWord=x#frag",
                    "postgresql:///hpod?PassWord=***#frag");
    /* libpq percent-decodes query keys */
    expect_redacted("postgresql:///hpod?pass%77ord=x&a=b",
                    "postgresql:///hpod?pass%77ord=***&a=b");
    expect_redacted("postgresql://u:pw@h/d?sslpassword=k",
                    "postgresql://u:***@h/d?sslpassword=***");
    /* both forms at once */
    expect_redacted("postgresql://u:a@h/d?password=b",
                    "postgresql://u:***@h/d?password=***");
}

static void
test_conninfo(void **state)
{
    (void)state;
    expect_redacted("host=db user=hpod password=s3cret dbname=hpod",
                    "host=db user=hpod password=*** dbname=hpod");
    expect_redacted("password = 'a b\\' c' host=x", "password = *** host=x");
    expect_redacted("host=x password=a&b", "host=x password=***");
    expect_redacted("error=\"password=x\"", "error=\"password=***\"");
    expect_redacted("PGPASSWORD=x psql", "PGPASSWORD=*** psql");
    /* not settings: unchanged */
    expect_redacted("password authentication failed for user \"hpod\"",
                    "password authentication failed for user \"hpod\"");
    expect_redacted("passwordless=1 passfile=/p", "passwordless=1 passfile=/p");
    expect_redacted("", "");
}

static void
test_truncation(void **state)
{
    (void)state;
    char out[16];
    size_t n = hpod_redact(out, sizeof out, "postgresql://u:secret@h/db");
    assert_int_equal(n, strlen(out));
    assert_true(n < sizeof out);
    assert_null(strstr(out, "secret"));
    assert_null(strstr(out, "sec"));
    n = hpod_redact(out, 1, "abc");
    assert_int_equal(n, 0);
    assert_string_equal(out, "");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_query_strings),
        cmocka_unit_test(test_conninfo),
        cmocka_unit_test(test_truncation),
    };
    return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
