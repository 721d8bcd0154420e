/*
 * handlers/web_files.h - the dashboard's static files (web/), compiled
 * into the binary: scripts/embed_web.sh generates the table at build time
 * ($(B)/server/web_blob.c), handlers/web.c serves it.
 */
#ifndef HPOD_WEB_FILES_H
#define HPOD_WEB_FILES_H

struct web_file {
    const char *name;         /* served as /web/<name> ("app.js") */
    const char *content_type; /* "text/javascript; charset=utf-8" */
    const char *etag;         /* quoted: "\"<32 hex digits>\"" */
    const unsigned char *data;
    unsigned long len;
};

extern const struct web_file hpod_web_files[];
extern const unsigned long hpod_web_nfiles;

#endif
