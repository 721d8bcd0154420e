/*
 * common/text.c - free-text names: NFC, look-alike characters refused;
 * see text.h.
 */
#include "common/text.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "common/err.h"

#define LOOKALIKE                                                              \
    "control, format (zero-width, text direction) and other invisible "        \
    "characters make names that look alike"

/* Whether code point c may appear in a name (text.h lists the others). */
static int
allowed(utf8proc_int32_t c)
{
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
        return 0;
    default:
        break;
    }
    return !utf8proc_get_property(c)->ignorable || c == 0xFE0E || c == 0xFE0F;
}

enum hpod_status
hpod_text_name(const char *s, const char *field, char **out,
               struct hpod_err *err)
{
    utf8proc_uint8_t *nfc = NULL;
    utf8proc_ssize_t n, i = 0;

    *out = NULL;
    n = utf8proc_map((const utf8proc_uint8_t *)s, 0, &nfc,
                     UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (n < 0)
        return hpod_fail(err, HPOD_EUNPROC, field, "%s must be UTF-8 text",
                         field);
    while (i < n) {
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate(nfc + i, n - i, &c);
        if (k <= 0 || !allowed(c)) {
            free(nfc);
            return hpod_fail(err, HPOD_EUNPROC, field,
                             "%s must not contain U+%04X: " LOOKALIKE, field,
                             k > 0 ? (unsigned)c : 0xFFFDu);
        }
        i += k;
    }
    *out = (char *)nfc;
    return HPOD_OK;
}

enum hpod_status
hpod_text_member(json_t *obj, const char *key, const char *field,
                 struct hpod_err *err)
{
    json_t *v = json_object_get(obj, key);
    char *nfc;
    enum hpod_status st;

    if (!json_is_string(v))
        return HPOD_OK;
    if (memchr(json_string_value(v), '\0', json_string_length(v)))
        return hpod_fail(err, HPOD_EUNPROC, field,
                         "%s must not contain U+0000: " LOOKALIKE, field);
    if ((st = hpod_text_name(json_string_value(v), field, &nfc, err)) !=
        HPOD_OK)
        return st;
    if (strcmp(nfc, json_string_value(v)) != 0)
        json_object_set_new(obj, key, json_string(nfc));
    free(nfc);
    return HPOD_OK;
}
