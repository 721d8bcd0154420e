/*
 * study/defcache.c - parsed study definitions by version; see defcache.h.
 */
#include "study/defcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "study/modelcache.h"

struct def_obj {
    struct study_def d;
    char version[STUDY_VERSION_MAX];
};

static void
def_obj_free(void *p)
{
    struct def_obj *o = p;
    def_clear(&o->d);
    free(o);
}

/* What a parsed definition holds: its JSON tree (about six times its
 * text, measured with jansson 2.14), the space and the name arrays. */
static size_t
def_bytes(const char *text, const struct study_def *d)
{
    return sizeof(struct def_obj) + 6 * strlen(text) +
           d->space.n_params * (sizeof(struct param) + 2 * sizeof(void *));
}

static void
ref_set(struct defcache_ref *ref, long long study_id,
        struct modelcache_entry *e, struct def_obj *o)
{
    ref->study_id = o ? study_id : 0;
    ref->entry = e;
    ref->d = o ? &o->d : NULL;
    ref->version = o ? o->version : "";
}

void
defcache_find(long long study_id, struct defcache_ref *ref)
{
    void *obj;
    struct modelcache_entry *e =
        modelcache_get(MODELCACHE_DEF, study_id, "", &obj);
    ref_set(ref, study_id, e, obj);
}

enum hpod_status
defcache_resolve(long long study_id, const char *version, const char *text,
                 struct defcache_ref *ref, struct hpod_err *err)
{
    struct def_obj *o;
    enum hpod_status st;

    if (ref->d && ref->study_id == study_id &&
        strcmp(ref->version, version) == 0)
        return HPOD_OK;
    if (!text)
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "study %lld was read without its definition",
                         study_id);
    o = xcalloc(1, sizeof *o);
    if ((st = def_from_text(text, &o->d, err)) != HPOD_OK) {
        free(o);
        return st;
    }
    snprintf(o->version, sizeof o->version, "%s", version);
    defcache_release(ref);
    ref_set(ref, study_id,
            modelcache_add(MODELCACHE_DEF, study_id, "", o,
                           def_bytes(text, &o->d), def_obj_free),
            o);
    return HPOD_OK;
}

void
defcache_release(struct defcache_ref *ref)
{
    if (!ref)
        return;
    if (ref->entry)
        modelcache_put(ref->entry, 1);
    ref_set(ref, 0, NULL, NULL);
}
