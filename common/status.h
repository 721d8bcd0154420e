/*
 * common/status.h - the status codes every layer returns.
 *
 * No dependencies; every layer may include it. Core functions return a
 * status only; the layers above attach a message and a JSON path through
 * struct hpod_err (server/http.c maps statuses to HTTP codes, once).
 */
#ifndef HPOD_STATUS_H
#define HPOD_STATUS_H

enum hpod_status {
    HPOD_OK = 0,
    HPOD_EINVAL,    /* malformed request (400) */
    HPOD_EUNPROC,   /* well-formed but violates a rule (422) */
    HPOD_ENOTFOUND, /* a named resource does not exist (404) */
    HPOD_ECONFLICT, /* state conflict or duplicate (409) */
    HPOD_ETOOLARGE, /* request body over the limit (413) */
    HPOD_EMEDIA,    /* unsupported content type (415) */
    HPOD_EMETHOD,   /* method not allowed on this path (405) */
    HPOD_EUNAUTH,   /* no valid token where one is required (401) */
    HPOD_EDENIED,   /* the token's role or lab does not allow it (403) */
    HPOD_ENUMERIC,  /* numeric failure, e.g. matrix not SPD */
    HPOD_EDB,       /* database unreachable or failed (503) */
    HPOD_ENOMEM,    /* out of memory (500) */
    HPOD_EINTERNAL, /* a bug (500) */
    HPOD_ELIMIT,    /* a limit of the shared server (429, Retry-After) */
    HPOD_EBUSY      /* busy now, e.g. no room in a memory budget (503,
                       Retry-After) */
};

/*
 * What went wrong, for the client: filled by hpod_fail() (common/err.c)
 * only when a status is not HPOD_OK. Core never fills it.
 */
struct hpod_err {
    char field[128]; /* JSON path of the bad input ("space[1].low"), or "" */
    char msg[256];   /* PostgreSQL style: lower case, no final period */
    int retry_after; /* seconds for Retry-After (429, 503), 0: none */
};

/* Returns the stable machine name of st ("invalid_argument", ...). */
const char *hpod_status_str(enum hpod_status st);

#endif
