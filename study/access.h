/*
 * study/access.h - who may do what: labs, tokens and roles.
 *
 * A request carries a principal: the role of its token and the lab the
 * token is scoped to ("" for every lab). With no token in the database
 * (and HPOD_AUTH not "on") the server is open and every request is an
 * admin of every lab. server/auth.c authenticates requests; handlers use
 * the principal to default and check labs; the token calls here are what
 * POST/GET/DELETE /v1/tokens and `hpod token create` run.
 */
#ifndef HPOD_STUDY_ACCESS_H
#define HPOD_STUDY_ACCESS_H

#include <stddef.h>

#include "common/status.h"
#include "store/access_store.h"
#include "store/db.h"

enum access_role {
    ROLE_NONE = 0, /* no token (open routes only) */
    ROLE_READ,     /* GET */
    ROLE_WRITE,    /* + create studies, suggest, report, import */
    ROLE_ADMIN     /* + delete studies, manage tokens */
};

#define ACCESS_LAB_MAX 64
#define ACCESS_DEFAULT_LAB "default"

struct principal {
    enum access_role role;
    char lab[ACCESS_LAB_MAX + 1]; /* "" = every lab */
    long long token_id;           /* 0 when the server is open */
};

/* The token id of a principal for the audit log (study/audit.h): 0 for
 * none (NULL, an open server). */
static inline long long
access_token_of(const struct principal *p)
{
    return p ? p->token_id : 0;
}

/* Token secrets: "hpod_" and 64 hex digits (256 random bits). */
#define ACCESS_TOKEN_PREFIX "hpod_"
#define ACCESS_TOKEN_LEN (sizeof ACCESS_TOKEN_PREFIX - 1 + 64)
/* The longest expiry a token may have: ten years, in seconds. */
#define ACCESS_MAX_EXPIRES 315360000LL

/* "admin", "write", "read" ("none" for ROLE_NONE). */
const char *access_role_name(enum access_role r);
/* The role named s, or ROLE_NONE for anything else. */
enum access_role access_role_parse(const char *s);

/*
 * access_lab_name_ok - a lab name: 1 to 64 of [A-Za-z0-9_.-], and not a
 * namespace of the built-in tables ("nmthpo", "nmtlc"), which every lab
 * reads.
 */
int access_lab_name_ok(const char *lab);

/* access_sees_lab - whether who may see what lab owns ("" never). */
int access_sees_lab(const struct principal *who, const char *lab);

/*
 * access_sees_table - whether who may see the table name ("ns/x" or
 * "x"): a built-in namespace (nmthpo, nmtlc) or a one-part name, or an
 * imported table of who's lab (its namespace), or who is of every lab.
 */
int access_sees_table(const struct principal *who, const char *name);

/*
 * access_parse_duration - "90", "90s", "15m", "12h", "30d" as seconds in
 * 1..ACCESS_MAX_EXPIRES. Returns 0 on success, -1 otherwise.
 */
int access_parse_duration(const char *s, long long *seconds);

/* A token just created: its row and its secret (shown once). */
struct access_new_token {
    struct token_row row;
    char secret[ACCESS_TOKEN_LEN + 1];
};

/*
 * access_token_create - a new token of role for lab (NULL: by's lab, or
 * every lab when by is of every lab), expiring after expires_in seconds
 * (<= 0: never). by is the admin creating it (NULL: the command line,
 * which may do anything); a lab-scoped admin creates tokens of its own
 * lab only (HPOD_EDENIED otherwise). if_none: create only when no token
 * exists yet (*created = 0 otherwise), race-free across processes. One
 * transaction, which records a new token in the audit log (token.create:
 * its role, lab, note and expiry, never its secret).
 */
enum hpod_status access_token_create(struct db *db, const struct principal *by,
                                     enum access_role role, const char *lab,
                                     const char *note, long long expires_in,
                                     int if_none, struct access_new_token *out,
                                     int *created, struct hpod_err *err);

/* access_token_list - the tokens who may see (every lab's, or its lab's). */
enum hpod_status access_token_list(struct db *db, const struct principal *who,
                                   struct token_row **out, size_t *n,
                                   struct hpod_err *err);

/* access_token_revoke - revokes token id; HPOD_ENOTFOUND when who may
 * not see it. Revoking a revoked token changes nothing. A revocation is
 * recorded in the audit log (token.revoke) in its transaction, as who's,
 * or with no token and "via": "command line" when via_cli. */
enum hpod_status access_token_revoke(struct db *db, const struct principal *who,
                                     long long id, int via_cli,
                                     struct token_row *out,
                                     struct hpod_err *err);

/*
 * access_authenticate - the principal of a presented secret. HPOD_EUNAUTH
 * with the reason (malformed, unknown, expired, revoked) otherwise.
 */
enum hpod_status access_authenticate(struct db *db, const char *secret,
                                     struct principal *out,
                                     struct hpod_err *err);

/* access_tokens_exist - whether any token was ever created (auth on). */
enum hpod_status access_tokens_exist(struct db *db, int *exist,
                                     struct hpod_err *err);

/*
 * access_check_owner - HPOD_OK when who may see resource id of kind;
 * HPOD_ENOTFOUND (the same answer as for an id that does not exist, so
 * ids of other labs do not leak) otherwise.
 */
enum hpod_status access_check_owner(struct db *db, const struct principal *who,
                                    enum access_kind kind, long long id,
                                    struct hpod_err *err);

#endif
