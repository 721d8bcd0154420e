/*
 * study/defcache.h - one parsed study definition per study version, kept
 * in the process (under the model-memory budget, study/modelcache.h).
 *
 * A study's stored definition goes through the one parser (study/def.h)
 * once per version, not once per request. The version is what the store
 * reads beside the study row (store/study_store.h STUDY_VERSION_MAX:
 * the transaction that last wrote the row and the definition's stored
 * size), so any change of the row, by any process, is a new version and
 * is parsed again. A reader passes the version it holds to the store,
 * which then leaves the definition's text out when it is still that one:
 * the text travels and is parsed only when it changed.
 *
 * Entries are shared and immutable: any number of requests read one
 * parsed definition at once (jansson's reference counts are atomic).
 */
#ifndef HPOD_STUDY_DEFCACHE_H
#define HPOD_STUDY_DEFCACHE_H

#include "common/status.h"
#include "store/study_store.h"
#include "study/def.h"

struct modelcache_entry;

/* A pinned definition: d and version are valid until defcache_release. */
struct defcache_ref {
    long long study_id;        /* 0 when none held */
    const struct study_def *d; /* NULL: none held */
    const char *version;       /* "" when none held */
    struct modelcache_entry *entry;
};

/* defcache_find - pins study_id's cached definition into ref (ref->d NULL
 * and version "" when there is none). */
void defcache_find(long long study_id, struct defcache_ref *ref);

/*
 * defcache_resolve - after a read of study_id's row that returned version
 * and text (text NULL: the store left it out because the version was
 * ref's): keeps ref when it holds version, else parses text and caches it
 * as the study's current definition, releasing what ref held. Parse
 * errors are the parser's (a stored definition that no longer parses is
 * HPOD_EINTERNAL); text NULL with another version is HPOD_EINTERNAL too.
 */
enum hpod_status defcache_resolve(long long study_id, const char *version,
                                  const char *text, struct defcache_ref *ref,
                                  struct hpod_err *err);

void defcache_release(struct defcache_ref *ref);

#endif
