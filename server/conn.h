/*
 * server/conn.h - one open connection: the deadlines of the request it is
 * receiving, and what its request line held.
 *
 * libmicrohttpd 0.9.75 has an idle timeout only, which a client that
 * trickles its headers a few bytes at a time resets forever. A conn_guard
 * tracks the socket of every open connection and the deadline of the
 * request it is receiving, counted from when that request could begin
 * (the connection opened, or its previous answer was sent): its headers
 * must be in within header_ms, headers and body within body_ms. A
 * watchdog thread shuts down (shutdown(2)) the socket of a connection
 * past its deadline; libmicrohttpd then sees the connection end and
 * closes it as it closes any other. No deadline runs while the handler
 * works or the answer is sent (libmicrohttpd's idle timeout does).
 *
 * conn_on_notify (MHD_OPTION_NOTIFY_CONNECTION) opens a connection's
 * struct conn as libmicrohttpd accepts it, as its socket context, and
 * closes it when libmicrohttpd reports it closed, before the socket
 * itself is closed: the watchdog never touches a descriptor after that,
 * so never one reused by another connection. conn_on_unescape
 * (MHD_OPTION_UNESCAPE_CALLBACK) decodes the path and query and notes a
 * control character in them, which libmicrohttpd would let through (a
 * %00 cut the path short: "/web/app.js%00.png" served app.js).
 */
#ifndef HPOD_CONN_H
#define HPOD_CONN_H

#include <microhttpd.h>
#include <stddef.h>

struct conn_guard; /* opaque */
struct conn;       /* one open connection, owned by its guard */

/*
 * conn_guard_create - a guard and its watchdog thread. on_cut (may be
 * NULL) is called by the watchdog for each connection it closes, with
 * body 0 when the headers were due and 1 when the body was.
 */
struct conn_guard *conn_guard_create(long header_ms, long body_ms,
                                     void (*on_cut)(int body));

/* conn_guard_free - stops the watchdog and frees the guard and any
 * connection still tracked. Accepts NULL. */
void conn_guard_free(struct conn_guard *g);

/* conn_open - tracks socket fd, whose first request's headers are due
 * header_ms from now. */
struct conn *conn_open(struct conn_guard *g, int fd);

/* conn_close - stops tracking c (and frees it). */
void conn_close(struct conn *c);

/* conn_headers_in - c's request has its headers: the body is due
 * body_ms after the request began. */
void conn_headers_in(struct conn *c);

/* conn_request_in - c's request is all in (or answered early): no
 * deadline until conn_answered. */
void conn_request_in(struct conn *c);

/* conn_answered - c's answer was sent: the next request on it begins
 * now, its headers due header_ms from now. */
void conn_answered(struct conn *c);

/* conn_late - 1 when c is past its deadline (even if the watchdog has
 * not yet seen it), else 0: a check for each chunk of a body. */
int conn_late(const struct conn *c);

/* conn_bad_target - 1 when the request line of c's current request held
 * a byte below 0x20 or 0x7f (raw or %-escaped). */
int conn_bad_target(const struct conn *c);

/* Every function above but conn_guard_create and conn_open accepts a
 * NULL conn and does nothing (0). */

/* libmicrohttpd's callbacks; cls is the guard. */
void conn_on_notify(void *cls, struct MHD_Connection *mc, void **socket_context,
                    enum MHD_ConnectionNotificationCode toe);
void *conn_on_uri(void *cls, const char *uri, struct MHD_Connection *mc);
size_t conn_on_unescape(void *cls, struct MHD_Connection *mc, char *s);

/* The struct conn of libmicrohttpd's connection mc, or NULL. */
struct conn *conn_of(struct MHD_Connection *mc);

/*
 * conn_unescape - decodes every %HH of the NUL-terminated s in place (as
 * libmicrohttpd does) and sets *control when the result holds a byte
 * below 0x20 or 0x7f (left alone otherwise). Returns the new length.
 */
size_t conn_unescape(char *s, int *control);

#endif
