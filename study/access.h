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

#endif
