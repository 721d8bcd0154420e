/*
 * tests/unit/test_config.c - defaults, overrides and bounds of the HPOD_*
 * configuration table, through a fake environment.
 */
#include "tests/support/check.h"

#include <string.h>

#include "server/config.h"

static const char *const *fake_env;

static const char *
fake_getenv(const char *name)
{
    for (size_t i = 0; fake_env && fake_env[i]; i += 2)
        if (strcmp(fake_env[i], name) == 0)
            return fake_env[i + 1];
    return NULL;
}

static void
test_defaults(void **state)
{
    (void)state;
    struct config c;
    struct hpod_err err = {0};
    fake_env = NULL;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.port, 8080);
    assert_string_equal(c.listen_addr, "127.0.0.1");
    assert_int_equal(c.max_body, 1048576);
    assert_non_null(strstr(c.database_url, "/.pgdata"));
    assert_string_equal(c.log_level, "info");
}

static void
test_overrides_and_bounds(void **state)
{
    (void)state;
    struct config c;
    struct hpod_err err = {0};
    const char *ok[] = {
        "HPOD_PORT",       "9001", "HPOD_MAX_BODY", "2048", "HPOD_DATABASE_URL",
        "postgresql:///x", NULL};
    fake_env = ok;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.port, 9001);
    assert_int_equal(c.max_body, 2048);
    assert_string_equal(c.database_url, "postgresql:///x");

    const char *bad_port[] = {"HPOD_PORT", "70000", NULL};
    fake_env = bad_port;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "HPOD_PORT");
    const char *junk[] = {"HPOD_THREADS", "4x", NULL};
    fake_env = junk;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "HPOD_THREADS");
    const char *level[] = {"HPOD_LOG_LEVEL", "loud", NULL};
    fake_env = level;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "HPOD_LOG_LEVEL");
}

/* The database deadlines: defaults, overrides, bounds, and in --help. */
static void
test_db_timeouts(void **state)
{
    (void)state;
    struct config c;
    struct hpod_err err = {0};
    fake_env = NULL;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.db_connect_timeout_ms, 5000);
    assert_int_equal(c.db_statement_timeout_ms, 30000);
    const char *set[] = {"HPOD_DB_CONNECT_TIMEOUT_MS", "1000",
                         "HPOD_DB_STATEMENT_TIMEOUT_MS", "2500", NULL};
    fake_env = set;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.db_connect_timeout_ms, 1000);
    assert_int_equal(c.db_statement_timeout_ms, 2500);
    const char *zero[] = {"HPOD_DB_STATEMENT_TIMEOUT_MS", "0", NULL};
    fake_env = zero;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "HPOD_DB_STATEMENT_TIMEOUT_MS");
    const char *port0[] = {"HPOD_PORT", "0", NULL};
    fake_env = port0;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.port, 0);

    char buf[8192] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    config_print_help(f);
    fclose(f);
    assert_non_null(strstr(buf, "HPOD_DB_CONNECT_TIMEOUT_MS"));
    assert_non_null(strstr(buf, "HPOD_DB_STATEMENT_TIMEOUT_MS"));
}

/* The limits of the HTTP front: defaults, 0 turns the rate off, bounds. */
static void
test_front_limits(void **state)
{
    (void)state;
    struct config c;
    struct hpod_err err = {0};
    fake_env = NULL;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.max_connections, 1000);
    assert_int_equal(c.conn_per_addr, 128);
    assert_int_equal(c.header_timeout_ms, 10000);
    assert_int_equal(c.body_timeout_ms, 60000);
    assert_int_equal(c.rate_per_token, 200);
    assert_int_equal(c.rate_burst, 400);
    const char *off[] = {"HPOD_RATE_PER_TOKEN", "0", "HPOD_CONN_PER_ADDR", "1",
                         NULL};
    fake_env = off;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.rate_per_token, 0);
    assert_int_equal(c.conn_per_addr, 1);
    const char *bad[][3] = {{"HPOD_RATE_PER_TOKEN", "-1", NULL},
                            {"HPOD_RATE_BURST", "0", NULL},
                            {"HPOD_CONN_PER_ADDR", "0", NULL},
                            {"HPOD_HEADER_TIMEOUT_MS", "99", NULL},
                            {"HPOD_BODY_TIMEOUT_MS", "3600001", NULL},
                            {"HPOD_MAX_CONNECTIONS", "15", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fake_env = bad[i];
        assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
        assert_string_equal(err.field, bad[i][0]);
    }
}

/* The start-up wait for the database: 60 s, 0 turns it off, bounded. */
static void
test_db_wait(void **state)
{
    (void)state;
    struct config c;
    struct hpod_err err = {0};
    fake_env = NULL;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.db_wait_seconds, 60);
    const char *off[] = {"HPOD_DB_WAIT_SECONDS", "0", NULL};
    fake_env = off;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_int_equal(c.db_wait_seconds, 0);
    const char *neg[] = {"HPOD_DB_WAIT_SECONDS", "-1", NULL};
    fake_env = neg;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "HPOD_DB_WAIT_SECONDS");
    const char *big[] = {"HPOD_DB_WAIT_SECONDS", "3601", NULL};
    fake_env = big;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "HPOD_DB_WAIT_SECONDS");
}

/* The simulation workers' cgroup: none by default, a directory as given,
 * and one that does not fit is refused, not cut. */
static void
test_sim_cgroup(void **state)
{
    (void)state;
    struct config c;
    struct hpod_err err = {0};
    fake_env = NULL;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_string_equal(c.sim_cgroup, "");
    const char *set[] = {"HPOD_SIM_CGROUP", "/sys/fs/cgroup/cpu/sims", NULL};
    fake_env = set;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_string_equal(c.sim_cgroup, "/sys/fs/cgroup/cpu/sims");
    char longdir[sizeof c.sim_cgroup + 1];
    memset(longdir, 'a', sizeof longdir - 1);
    longdir[sizeof longdir - 1] = '\0';
    const char *toolong[] = {"HPOD_SIM_CGROUP", longdir, NULL};
    fake_env = toolong;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "HPOD_SIM_CGROUP");
}

/* The database URLs beside HPOD_DATABASE_URL: each defaults to it. */
static void
test_database_urls(void **state)
{
    (void)state;
    struct config c;
    struct hpod_err err = {0};
    const char *one[] = {"HPOD_DATABASE_URL", "postgresql://pool/hpod", NULL};
    fake_env = one;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_string_equal(c.migrate_database_url, "postgresql://pool/hpod");
    const char *two[] = {"HPOD_DATABASE_URL", "postgresql://pool/hpod",
                         "HPOD_MIGRATE_DATABASE_URL", "postgresql://db/hpod",
                         NULL};
    fake_env = two;
    assert_int_equal(config_load(&c, fake_getenv, &err), HPOD_OK);
    assert_string_equal(c.database_url, "postgresql://pool/hpod");
    assert_string_equal(c.migrate_database_url, "postgresql://db/hpod");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_overrides_and_bounds),
        cmocka_unit_test(test_db_timeouts),
        cmocka_unit_test(test_front_limits),
        cmocka_unit_test(test_db_wait),
        cmocka_unit_test(test_sim_cgroup),
        cmocka_unit_test(test_database_urls),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
