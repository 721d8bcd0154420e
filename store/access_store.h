/*
 * store/access_store.h - SQL about tokens and about who owns what: the
 * lab of a study, a trial (through its study), a simulation or a token.
 * Tokens are stored by the SHA-256 of their secret (hex here, bytea in
 * the table); the secret itself never reaches the database.
 */
#ifndef HPOD_ACCESS_STORE_H
#define HPOD_ACCESS_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"

/* One token as stored (no secret, no hash). */
struct token_row {
    long long id;
    char role[8]; /* "admin", "write", "read" */
    char lab[65]; /* "" = every lab */
    char note[201];
    char created_at[40]; /* RFC 3339 UTC */
    char expires_at[40]; /* "" = never */
    char revoked_at[40]; /* "" = not revoked */
    int valid;           /* neither revoked nor expired now */
};

/*
 * access_store_token_insert - a new token with hash_hex (64 hex digits),
 * role, lab (NULL: every lab), note, and an expiry expires_in seconds
 * from now (<= 0: never); *out receives the stored row.
 */
enum hpod_status access_store_token_insert(struct db *db, const char *hash_hex,
                                           const char *role, const char *lab,
                                           const char *note,
                                           long long expires_in,
                                           struct token_row *out,
                                           struct hpod_err *err);

/*
 * access_store_token_lock - takes the transaction-scoped advisory lock
 * that serializes "create a token unless one exists" (call inside a
 * transaction): two servers starting at once create one first token.
 */
enum hpod_status access_store_token_lock(struct db *db, struct hpod_err *err);

/* access_store_token_find - the token whose hash is hash_hex (*found). */
enum hpod_status access_store_token_find(struct db *db, const char *hash_hex,
                                         struct token_row *out, int *found,
                                         struct hpod_err *err);

/* access_store_tokens_exist - whether any token was ever created. */
enum hpod_status access_store_tokens_exist(struct db *db, int *exist,
                                           struct hpod_err *err);

/* access_store_token_list - tokens in id order; lab non-NULL: that lab's
 * only. *out is a new array (free it). */
enum hpod_status access_store_token_list(struct db *db, const char *lab,
                                         struct token_row **out, size_t *n,
                                         struct hpod_err *err);

/*
 * access_store_token_revoke - marks token id revoked (kept if it already
 * was: *changed 0); lab non-NULL: only a token of that lab. *out receives
 * the row. HPOD_ENOTFOUND if there is no such token (of that lab).
 */
enum hpod_status access_store_token_revoke(struct db *db, long long id,
                                           const char *lab,
                                           struct token_row *out, int *changed,
                                           struct hpod_err *err);

/* What an {id} in a path names. */
enum access_kind {
    ACCESS_STUDY,
    ACCESS_TRIAL,
    ACCESS_SIMULATION,
    ACCESS_TOKEN
};

/*
 * access_store_lab_of - the lab owning the resource (lab_size bytes;
 * "" for a token or simulation of every lab). *found = 0 when it does
 * not exist.
 */
enum hpod_status access_store_lab_of(struct db *db, enum access_kind kind,
                                     long long id, char *lab, size_t lab_size,
                                     int *found, struct hpod_err *err);

#endif
