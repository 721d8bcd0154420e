/*
 * tests/unit/test_http.c - the access log's remote address: IPv4, IPv6
 * and anything else.
 */
#include "tests/support/check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/un.h>

#include "server/http.h"

static void
test_format_addr(void **state)
{
    (void)state;
    char out[INET6_ADDRSTRLEN];
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr_un un;

    memset(&v4, 0, sizeof v4);
    v4.sin_family = AF_INET;
    v4.sin_port = htons(4321);
    assert_int_equal(inet_pton(AF_INET, "192.0.2.7", &v4.sin_addr), 1);
    http_format_addr((struct sockaddr *)&v4, out, sizeof out);
    assert_string_equal(out, "192.0.2.7");

    memset(&v6, 0, sizeof v6);
    v6.sin6_family = AF_INET6;
    assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr), 1);
    http_format_addr((struct sockaddr *)&v6, out, sizeof out);
    assert_string_equal(out, "2001:db8::1");
    assert_int_equal(inet_pton(AF_INET6, "::ffff:127.0.0.1", &v6.sin6_addr), 1);
    http_format_addr((struct sockaddr *)&v6, out, sizeof out);
    assert_string_equal(out, "::ffff:127.0.0.1");

    memset(&un, 0, sizeof un);
    un.sun_family = AF_UNIX;
    http_format_addr((struct sockaddr *)&un, out, sizeof out);
    assert_string_equal(out, "");
    http_format_addr(NULL, out, sizeof out);
    assert_string_equal(out, "");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_addr),
    };
    return cmocka_run_group_tests_name("http", tests, NULL, NULL);
}
