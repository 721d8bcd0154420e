/*
 * common/etag.h - the one reading of an If-None-Match header: whether it
 * lists an entity tag (RFC 9110 13.1.2, weak comparison: a W/ prefix is
 * ignored; "*" lists every tag). Used by the dashboard's files
 * (handlers/web.c) and the importance answer (study/importance.c).
 */
#ifndef HPOD_ETAG_H
#define HPOD_ETAG_H

/* etag_listed - 1 if header (may be NULL) lists etag (quoted, as sent). */
int etag_listed(const char *header, const char *etag);

#endif
