/*
 * handlers/web.c - the dashboard: GET / (web/index.html) and GET
 * /web/{name} (its scripts, styles and the vendored chart library with
 * its licence), from the files compiled into the binary
 * (handlers/web_files.h). Served to everyone (role none, like
 * /openapi.json): the page holds no data; it asks for a token when the
 * /v1 API it reads answers 401.
 *
 * A name is looked up exactly in the table, never on the file system, so
 * no path can reach another file. Every answer carries an ETag and
 * "Cache-Control: no-cache" (the names carry no version: a browser keeps
 * its copy but revalidates it, and If-None-Match with the same ETag is a
 * 304 without a body).
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/etag.h"
#include "common/mem.h"
#include "handlers/handlers.h"
#include "handlers/web_files.h"

static const struct web_file *
web_find(const char *name)
{
    for (unsigned long i = 0; i < hpod_web_nfiles; i++)
        if (strcmp(hpod_web_files[i].name, name) == 0)
            return &hpod_web_files[i];
    return NULL;
}

static enum hpod_status
serve(struct req *rq, const struct web_file *f)
{
    const char *inm = rq->header ? rq->header(rq, "If-None-Match") : NULL;
    rq->etag = f->etag;
    rq->cache_control = "no-cache";
    if (inm && etag_listed(inm, f->etag)) {
        rq->status = 304;
        return HPOD_OK;
    }
    char *text = xmalloc(f->len + 1);
    memcpy(text, f->data, f->len);
    text[f->len] = '\0';
    rq->status = 200;
    rq->reply_text = text;
    rq->content_type = f->content_type;
    return HPOD_OK;
}

/* handle_dashboard - GET /: the page (web/index.html). */
enum hpod_status
handle_dashboard(struct req *rq)
{
    const struct web_file *f = web_find("index.html");
    if (!f)
        return hpod_fail(&rq->err, HPOD_EINTERNAL, "",
                         "the dashboard was not built into this binary");
    return serve(rq, f);
}

/* handle_web_asset - GET /web/{name}: one of the page's files, else 404. */
enum hpod_status
handle_web_asset(struct req *rq)
{
    const struct web_file *f = web_find(rq->name);
    if (!f)
        return hpod_fail(&rq->err, HPOD_ENOTFOUND, "",
                         "no dashboard file named \"%s\"", rq->name);
    return serve(rq, f);
}
