/*
 * cli/token.c - `hpod token create|list|revoke`: token management
 * from the command line, against the database of HPOD_DATABASE_URL (the
 * one `make run` uses by default), so the first admin token can be made
 * before any token exists. The secret is printed alone on the last line
 * of stdout; everything else goes to stderr.
 */
#include "cli/token.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/text.h"
#include "store/db.h"
#include "study/access.h"

struct token_args {
    const char *cmd;
    enum access_role role;
    const char *lab, *note;
    long long expires_in, id;
    int if_none;
};

static void
token_usage(FILE *out)
{
    fprintf(out,
            "usage: hpod token create --role admin|write|read [--lab L] "
            "[--expires 30d] [--note TEXT] [--if-none]\n"
            "       hpod token list\n"
            "       hpod token revoke ID\n"
            "  --expires   seconds, or a number with s, m, h or d\n"
            "  --if-none   create only if no token exists yet (first start)\n");
}

/* Parses argv (after "token"); 0 on success, 2 on a usage error. */
static int
parse_args(int argc, char **argv, struct token_args *a)
{
    memset(a, 0, sizeof a[0]);
    if (argc < 1)
        return 2;
    a->cmd = argv[0];
    if (strcmp(a->cmd, "revoke") == 0) {
        char *end;
        if (argc != 2)
            return 2;
        errno = 0;
        a->id = strtoll(argv[1], &end, 10);
        return errno || *end || a->id < 1 ? 2 : 0;
    }
    if (strcmp(a->cmd, "list") == 0)
        return argc == 1 ? 0 : 2;
    if (strcmp(a->cmd, "create") != 0)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(k, "--if-none") == 0) {
            a->if_none = 1;
            continue;
        }
        if (!v)
            return 2;
        i++;
        if (strcmp(k, "--role") == 0)
            a->role = access_role_parse(v);
        else if (strcmp(k, "--lab") == 0)
            a->lab = v;
        else if (strcmp(k, "--note") == 0)
            a->note = v;
        else if (strcmp(k, "--expires") == 0) {
            if (access_parse_duration(v, &a->expires_in) != 0) {
                fprintf(stderr, "hpod: --expires must be 1 s to 3650 d\n");
                return 2;
            }
        } else
            return 2;
    }
    if (a->role == ROLE_NONE) {
        fprintf(stderr, "hpod: --role must be admin, write or read\n");
        return 2;
    }
    if (a->lab && !access_lab_name_ok(a->lab)) {
        fprintf(stderr, "hpod: --lab must be 1 to 64 letters, digits, '_', "
                        "'.' or '-', and not nmthpo or nmtlc\n");
        return 2;
    }
    return 0;
}

static int
token_create(struct db *db, const struct token_args *a)
{
    struct access_new_token t;
    struct hpod_err err = {0};
    char *note = NULL;
    int created = 0;

    if (hpod_text_name(a->note ? a->note : "", "--note", &note, &err) !=
        HPOD_OK) {
        fprintf(stderr, "hpod: %s\n", err.msg);
        return 2;
    }
    if (access_token_create(db, NULL, a->role, a->lab, note, a->expires_in,
                            a->if_none, &t, &created, &err) != HPOD_OK) {
        fprintf(stderr, "hpod: could not create a token: %s\n", err.msg);
        free(note);
        return 1;
    }
    free(note);
    if (!created) {
        fprintf(stderr, "hpod: a token exists already; none created\n");
        return 0;
    }
    fprintf(stderr,
            "hpod: created token %lld (role %s, lab %s, expires %s); "
            "the secret is shown this once:\n",
            t.row.id, t.row.role, t.row.lab[0] ? t.row.lab : "every lab",
            t.row.expires_at[0] ? t.row.expires_at : "never");
    printf("%s\n", t.secret);
    fflush(stdout);
    memset(t.secret, 0, sizeof t.secret);
    return 0;
}

static int
token_list_or_revoke(struct db *db, const struct token_args *a)
{
    struct principal all = {ROLE_ADMIN, "", 0};
    struct token_row *rows = NULL, one;
    struct hpod_err err = {0};
    size_t n = 0;
    enum hpod_status st;

    if (strcmp(a->cmd, "revoke") == 0) {
        st = access_token_revoke(db, &all, a->id, 1, &one, &err);
        rows = &one;
        n = st == HPOD_OK;
    } else {
        st = access_token_list(db, &all, &rows, &n, &err);
    }
    if (st != HPOD_OK) {
        fprintf(stderr, "hpod: %s\n", err.msg);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        printf("%lld\t%s\t%s\t%s\t%s\t%s\n", rows[i].id, rows[i].role,
               rows[i].lab[0] ? rows[i].lab : "*",
               rows[i].revoked_at[0] ? "revoked"
               : rows[i].valid       ? "active"
                                     : "expired",
               rows[i].expires_at[0] ? rows[i].expires_at : "-", rows[i].note);
    if (rows != &one)
        free(rows);
    return 0;
}

int
token_run(const char *database_url, const struct db_opts *opts, int argc,
          char **argv)
{
    struct token_args a;
    struct db *db = NULL;
    struct hpod_err err = {0};
    int rc;

    if (parse_args(argc, argv, &a) != 0) {
        token_usage(stderr);
        return 2;
    }
    if (db_open(database_url, opts, &db, &err) != HPOD_OK) {
        hpod_log(HPOD_LOG_ERROR, "could not connect to %s: %s", database_url,
                 err.msg);
        return 1;
    }
    rc = strcmp(a.cmd, "create") == 0 ? token_create(db, &a)
                                      : token_list_or_revoke(db, &a);
    db_close(db);
    return rc;
}
