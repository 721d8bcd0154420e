/*
 * study/access.c - labs, tokens and roles; contract in study/access.h.
 */
#include "study/access.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/name.h"
#include "common/sha256.h"
#include "study/audit.h"

static const char *const role_names[] = {"none", "read", "write", "admin"};

const char *
access_role_name(enum access_role r)
{
    return r >= ROLE_NONE && r <= ROLE_ADMIN ? role_names[r] : "none";
}

enum access_role
access_role_parse(const char *s)
{
    for (int r = ROLE_READ; r <= ROLE_ADMIN; r++)
        if (s && strcmp(s, role_names[r]) == 0)
            return (enum access_role)r;
    return ROLE_NONE;
}

/* The namespaces of the tables read from files, which every lab sees. */
static int
builtin_namespace(const char *s, size_t n)
{
    return (n == 6 && strncmp(s, "nmthpo", 6) == 0) ||
           (n == 5 && strncmp(s, "nmtlc", 5) == 0);
}

int
access_lab_name_ok(const char *lab)
{
    return hpod_name_ok(lab, ACCESS_LAB_MAX) &&
           !builtin_namespace(lab, strlen(lab));
}

int
access_sees_lab(const struct principal *who, const char *lab)
{
    return who->lab[0] == '\0' || (lab && strcmp(who->lab, lab) == 0);
}

int
access_sees_table(const struct principal *who, const char *name)
{
    const char *slash = strchr(name, '/');
    size_t n = slash ? (size_t)(slash - name) : 0;
    if (who->lab[0] == '\0' || !slash || builtin_namespace(name, n))
        return 1;
    return strlen(who->lab) == n && strncmp(who->lab, name, n) == 0;
}

int
access_parse_duration(const char *s, long long *seconds)
{
    char *end;
    long long unit = 1, v;

    if (!s || !(*s >= '0' && *s <= '9'))
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s)
        return -1;
    if (*end && end[1] == '\0') {
        switch (*end) {
        case 's':
            unit = 1;
            break;
        case 'm':
            unit = 60;
            break;
        case 'h':
            unit = 3600;
            break;
        case 'd':
            unit = 86400;
            break;
        default:
            return -1;
        }
    } else if (*end) {
        return -1;
    }
    if (v < 1 || v > ACCESS_MAX_EXPIRES / unit)
        return -1;
    *seconds = v * unit;
    return 0;
}

/* The hex SHA-256 of a secret: what the tokens table keys on. */
static void
secret_hash(const char *secret, char hex[2 * SHA256_LEN + 1])
{
    uint8_t d[SHA256_LEN];
    hpod_sha256(secret, strlen(secret), d);
    hpod_hex(d, SHA256_LEN, hex);
}

/* The lab a new token gets, or HPOD_EDENIED. *lab_out NULL: every lab. */
static enum hpod_status
token_lab(const struct principal *by, const char *lab, const char **lab_out,
          struct hpod_err *err)
{
    *lab_out = lab;
    if (!by || by->lab[0] == '\0')
        return HPOD_OK;
    if (!lab) {
        *lab_out = by->lab;
        return HPOD_OK;
    }
    if (strcmp(lab, by->lab) != 0)
        return hpod_fail(err, HPOD_EDENIED, "lab",
                         "a token of lab \"%s\" cannot create tokens of "
                         "another lab",
                         by->lab);
    return HPOD_OK;
}

/* The audit event of a new token: what it may do, never its secret. */
static enum hpod_status
token_audit(struct db *db, const struct principal *by,
            const struct token_row *t, long long expires_in,
            struct hpod_err *err)
{
    char target[48];
    json_t *detail =
        json_pack("{s:s, s:s, s:o}", "role", t->role, "note", t->note, "lab",
                  t->lab[0] ? json_string(t->lab) : json_null());
    if (expires_in > 0)
        json_object_set_new(detail, "expires_in", json_integer(expires_in));
    /* The command line acts with no token. */
    if (!by)
        json_object_set_new(detail, "via", json_string("command line"));
    snprintf(target, sizeof target, "token/%lld", t->id);
    return audit_record(db, access_token_of(by), "token.create",
                        t->lab[0] ? t->lab : NULL, 0, target, detail, err);
}

enum hpod_status
access_token_create(struct db *db, const struct principal *by,
                    enum access_role role, const char *lab, const char *note,
                    long long expires_in, int if_none,
                    struct access_new_token *out, int *created,
                    struct hpod_err *err)
{
    uint8_t raw[32];
    char hex[2 * SHA256_LEN + 1];
    int exist = 0;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    *created = 0;
    if (role == ROLE_NONE)
        return hpod_fail(err, HPOD_EUNPROC, "role",
                         "role must be \"admin\", \"write\" or \"read\"");
    if (lab && !access_lab_name_ok(lab))
        return hpod_fail(err, HPOD_EUNPROC, "lab",
                         "lab must be 1 to 64 letters, digits, '_', '.' or "
                         "'-', and not nmthpo or nmtlc");
    if ((st = token_lab(by, lab, &lab, err)) != HPOD_OK)
        return st;
    if (hpod_random_bytes(raw, sizeof raw) != 0)
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "the kernel gave no random bytes");
    memcpy(out->secret, ACCESS_TOKEN_PREFIX, sizeof ACCESS_TOKEN_PREFIX - 1);
    hpod_hex(raw, sizeof raw, out->secret + sizeof ACCESS_TOKEN_PREFIX - 1);
    secret_hash(out->secret, hex);

    if ((st = db_begin(db, err)) != HPOD_OK)
        goto out;
    if (if_none &&
        ((st = access_store_token_lock(db, err)) != HPOD_OK ||
         (st = access_store_tokens_exist(db, &exist, err)) != HPOD_OK))
        goto out;
    if (!exist &&
        ((st = access_store_token_insert(db, hex, access_role_name(role), lab,
                                         note, expires_in, &out->row, err)) !=
             HPOD_OK ||
         (st = token_audit(db, by, &out->row, expires_in, err)) != HPOD_OK))
        goto out;
    if ((st = db_commit(db, err)) != HPOD_OK)
        goto out;
    *created = !exist;
out:
    if (st != HPOD_OK)
        db_rollback(db);
    if (!*created)
        memset(out, 0, sizeof *out);
    return st;
}

enum hpod_status
access_token_list(struct db *db, const struct principal *who,
                  struct token_row **out, size_t *n, struct hpod_err *err)
{
    return access_store_token_list(db, who->lab[0] ? who->lab : NULL, out, n,
                                   err);
}

enum hpod_status
access_token_revoke(struct db *db, const struct principal *who, long long id,
                    int via_cli, struct token_row *out, struct hpod_err *err)
{
    char target[48];
    int changed = 0;
    enum hpod_status st;

    if ((st = db_begin(db, err)) != HPOD_OK)
        return st;
    if ((st = access_store_token_revoke(db, id, who->lab[0] ? who->lab : NULL,
                                        out, &changed, err)) != HPOD_OK)
        goto out;
    snprintf(target, sizeof target, "token/%lld", id);
    if (changed &&
        (st = audit_record(
             db, access_token_of(via_cli ? NULL : who), "token.revoke",
             out->lab[0] ? out->lab : NULL, 0, target,
             via_cli ? json_pack("{s:s}", "via", "command line") : NULL,
             err)) != HPOD_OK)
        goto out;
    st = db_commit(db, err);
out:
    if (st != HPOD_OK)
        db_rollback(db);
    return st;
}

/* Well-formed: the prefix and 64 lower-case hex digits. */
static int
secret_well_formed(const char *s)
{
    size_t p = sizeof ACCESS_TOKEN_PREFIX - 1;
    if (strlen(s) != ACCESS_TOKEN_LEN ||
        strncmp(s, ACCESS_TOKEN_PREFIX, p) != 0)
        return 0;
    for (const char *c = s + p; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return 0;
    return 1;
}

enum hpod_status
access_authenticate(struct db *db, const char *secret, struct principal *out,
                    struct hpod_err *err)
{
    char hex[2 * SHA256_LEN + 1];
    struct token_row t;
    int found = 0;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if (!secret_well_formed(secret))
        return hpod_fail(err, HPOD_EUNAUTH, "",
                         "malformed token: expected hpod_ and 64 hex digits");
    secret_hash(secret, hex);
    if ((st = access_store_token_find(db, hex, &t, &found, err)) != HPOD_OK)
        return st;
    if (!found)
        return hpod_fail(err, HPOD_EUNAUTH, "", "unknown token");
    if (t.revoked_at[0])
        return hpod_fail(err, HPOD_EUNAUTH, "", "token %lld was revoked at %s",
                         t.id, t.revoked_at);
    if (!t.valid)
        return hpod_fail(err, HPOD_EUNAUTH, "", "token %lld expired at %s",
                         t.id, t.expires_at);
    out->role = access_role_parse(t.role);
    snprintf(out->lab, sizeof out->lab, "%s", t.lab);
    out->token_id = t.id;
    return HPOD_OK;
}

enum hpod_status
access_tokens_exist(struct db *db, int *exist, struct hpod_err *err)
{
    return access_store_tokens_exist(db, exist, err);
}

enum hpod_status
access_check_owner(struct db *db, const struct principal *who,
                   enum access_kind kind, long long id, struct hpod_err *err)
{
    static const char *const what[] = {"study", "trial", "simulation", "token"};
    char lab[ACCESS_LAB_MAX + 1];
    int found = 0;
    enum hpod_status st;

    if (who->lab[0] == '\0')
        return HPOD_OK; /* every lab: the handler answers 404 itself */
    if ((st = access_store_lab_of(db, kind, id, lab, sizeof lab, &found,
                                  err)) != HPOD_OK)
        return st;
    if (!found || strcmp(lab, who->lab) != 0)
        return hpod_fail(err, HPOD_ENOTFOUND, "", "%s %lld does not exist",
                         what[kind], id);
    return HPOD_OK;
}
