/*
 * common/status.c - names of the status codes.
 *
 * The names are the machine-readable "code" of the error JSON
 * (openapi/openapi.json, schema Error); clients switch on them, so they never
 * change.
 */
#include "common/status.h"

const char *
hpod_status_str(enum hpod_status st)
{
    switch (st) {
    case HPOD_OK:
        return "ok";
    case HPOD_EINVAL:
        return "invalid_argument";
    case HPOD_EUNPROC:
        return "invalid_argument";
    case HPOD_ENOTFOUND:
        return "not_found";
    case HPOD_ECONFLICT:
        return "conflict";
    case HPOD_ETOOLARGE:
        return "payload_too_large";
    case HPOD_EMEDIA:
        return "unsupported_media_type";
    case HPOD_EMETHOD:
        return "method_not_allowed";
    case HPOD_EUNAUTH:
        return "unauthenticated";
    case HPOD_EDENIED:
        return "permission_denied";
    case HPOD_ENUMERIC:
        return "numeric_error";
    case HPOD_EDB:
        return "unavailable";
    case HPOD_ENOMEM:
        return "out_of_memory";
    case HPOD_EINTERNAL:
        return "internal";
    case HPOD_ELIMIT:
        return "resource_exhausted";
    case HPOD_EBUSY:
        return "unavailable";
    }
    return "internal";
}
