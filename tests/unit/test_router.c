/*
 * tests/unit/test_router.c - route matching, 404 vs 405, id parsing, and
 * the status -> HTTP mapping (the one place it is done).
 */
#include "tests/support/check.h"

#include <string.h>

#include "server/http.h"
#include "server/router.h"

static char nm[160];
#define RM(m, p, r, id) router_match(m, p, r, id, nm, sizeof nm)

static void
test_match(void **state)
{
    (void)state;
    const struct route *r;
    long long id;
    assert_int_equal(RM("POST", "/v1/studies", &r, &id), HPOD_OK);
    assert_ptr_equal(r->handler, handle_study_create);
    assert_int_equal(RM("GET", "/v1/studies/42", &r, &id), HPOD_OK);
    assert_ptr_equal(r->handler, handle_study_get);
    assert_int_equal(id, 42);
    assert_int_equal(RM("POST", "/v1/trials/7/report", &r, &id), HPOD_OK);
    assert_ptr_equal(r->handler, handle_trial_report);
    assert_int_equal(id, 7);
    assert_int_equal(RM("GET", "/v1/studies/42/", &r, &id), HPOD_OK);
    assert_int_equal(RM("GET", "/v1/studies/999999999999999999", &r, &id),
                     HPOD_OK);
    assert_true(id == 999999999999999999LL);
    assert_int_equal(RM("DELETE", "/v1/studies/3", &r, &id), HPOD_OK);
    assert_ptr_equal(r->handler, handle_study_delete);
}

static void
test_names(void **state)
{
    (void)state;
    const struct route *r;
    long long id;
    assert_int_equal(RM("GET", "/v1/benchmarks/nmthpo/zh-en", &r, &id),
                     HPOD_OK);
    assert_ptr_equal(r->handler, handle_benchmark_get);
    assert_string_equal(nm, "nmthpo/zh-en");
    assert_int_equal(
        RM("POST", "/v1/benchmarks/nmthpo/zh-en/evaluate", &r, &id), HPOD_OK);
    assert_ptr_equal(r->handler, handle_benchmark_evaluate);
    assert_string_equal(nm, "nmthpo/zh-en");
    assert_int_equal(RM("POST", "/v1/benchmarks/solo/simulate", &r, &id),
                     HPOD_OK);
    assert_ptr_equal(r->handler, handle_benchmark_simulate);
    assert_string_equal(nm, "solo");
    assert_int_equal(RM("GET", "/v1/benchmarks/a/b/c", &r, &id),
                     HPOD_ENOTFOUND);
    assert_int_equal(RM("GET", "/v1/benchmarks/a b", &r, &id), HPOD_ENOTFOUND);
    assert_int_equal(RM("GET", "/v1/simulations/12", &r, &id), HPOD_OK);
    assert_int_equal(id, 12);
}

static void
test_no_match(void **state)
{
    (void)state;
    const struct route *r;
    long long id;
    const char *paths[] = {"/v1/studies/abc",
                           "/v1/studies/0",
                           "/v1/studies/-1",
                           "/v1/studies/1x",
                           "/v1/studies/12345678901234567890",
                           "/v1/studies/9999999999999999999",
                           "/v1/trials/99999999999999999999999/report",
                           "/v1/nothing",
                           "/web/",
                           "/web/a/b/c",
                           "/v1/studies/1/suggest/x",
                           ""};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        assert_int_equal(RM("GET", paths[i], &r, &id), HPOD_ENOTFOUND);
    assert_int_equal(RM("PUT", "/v1/studies/1", &r, &id), HPOD_EMETHOD);
    assert_int_equal(RM("GET", "/v1/studies/1/suggest", &r, &id), HPOD_EMETHOD);
    assert_null(r);
}

/* The dashboard: / and one or two name segments under /web/, open to all;
 * which names exist is handlers/web.c's business (404 there). */
static void
test_dashboard(void **state)
{
    (void)state;
    const struct route *r;
    long long id;
    assert_int_equal(RM("GET", "/", &r, &id), HPOD_OK);
    assert_ptr_equal(r->handler, handle_dashboard);
    assert_int_equal(r->role, ROLE_NONE);
    assert_int_equal(r->needs_db, 0);
    assert_int_equal(RM("GET", "/web/app.js", &r, &id), HPOD_OK);
    assert_ptr_equal(r->handler, handle_web_asset);
    assert_string_equal(nm, "app.js");
    assert_int_equal(r->role, ROLE_NONE);
    assert_int_equal(RM("GET", "/web/../Makefile", &r, &id), HPOD_OK);
    assert_string_equal(nm, "../Makefile");
    assert_false(router_query_ok(r, "x"));
    assert_int_equal(RM("POST", "/", &r, &id), HPOD_EMETHOD);
}

static void
test_table_sane(void **state)
{
    (void)state;
    size_t n;
    const struct route *t = router_routes(&n);
    assert_true(n >= 15);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_false(strcmp(t[i].method, t[j].method) == 0 &&
                         strcmp(t[i].pattern, t[j].pattern) == 0);
}

static void
test_allow(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(router_allow("/v1/studies/3", buf, sizeof buf), 3);
    assert_string_equal(buf, "GET, PATCH, DELETE");
    assert_int_equal(router_allow("/v1/studies", buf, sizeof buf), 2);
    assert_string_equal(buf, "POST, GET");
    assert_int_equal(
        router_allow("/v1/benchmarks/a/b/simulate", buf, sizeof buf), 1);
    assert_string_equal(buf, "POST");
    assert_int_equal(router_allow("/v1/nothing", buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

static void
test_query_params(void **state)
{
    (void)state;
    const struct route *r;
    long long id;
    assert_int_equal(RM("GET", "/v1/studies/1/trials", &r, &id), HPOD_OK);
    assert_true(router_query_ok(r, "state"));
    assert_true(router_query_ok(r, "limit"));
    assert_true(router_query_ok(r, "offset"));
    assert_false(router_query_ok(r, "off"));
    assert_false(router_query_ok(r, "offsets"));
    assert_false(router_query_ok(r, ""));
    assert_false(router_query_ok(r, "limit,offset"));
    assert_int_equal(RM("GET", "/healthz", &r, &id), HPOD_OK);
    assert_false(router_query_ok(r, "limit"));
}

static void
test_status_codes(void **state)
{
    (void)state;
    assert_int_equal(http_status_code(HPOD_OK), 200);
    assert_int_equal(http_status_code(HPOD_EINVAL), 400);
    assert_int_equal(http_status_code(HPOD_EUNPROC), 422);
    assert_int_equal(http_status_code(HPOD_ENOTFOUND), 404);
    assert_int_equal(http_status_code(HPOD_ECONFLICT), 409);
    assert_int_equal(http_status_code(HPOD_ETOOLARGE), 413);
    assert_int_equal(http_status_code(HPOD_EMEDIA), 415);
    assert_int_equal(http_status_code(HPOD_EMETHOD), 405);
    assert_int_equal(http_status_code(HPOD_EDB), 503);
    assert_string_equal(hpod_status_str(HPOD_EINVAL), "invalid_argument");
    assert_string_equal(hpod_status_str(HPOD_ENOTFOUND), "not_found");
    assert_string_equal(hpod_status_str(HPOD_EDB), "unavailable");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),        cmocka_unit_test(test_names),
        cmocka_unit_test(test_no_match),     cmocka_unit_test(test_table_sane),
        cmocka_unit_test(test_status_codes), cmocka_unit_test(test_allow),
        cmocka_unit_test(test_query_params), cmocka_unit_test(test_dashboard),
    };
    return cmocka_run_group_tests_name("router", tests, NULL, NULL);
}
