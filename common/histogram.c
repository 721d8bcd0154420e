/*
 * common/histogram.c - latency histograms for /metrics; see histogram.h.
 */
#include "common/histogram.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
histogram_observe(struct histogram *h, const struct histogram_bounds *b,
                  double sec)
{
    size_t k = 0;
    while (k < b->n && !(sec <= b->le[k]))
        k++;
    if (isnan(sec))
        k = 0;
    atomic_fetch_add(&h->count[k], 1);
    if (sec > 0 && sec < 1e9)
        atomic_fetch_add(&h->sum_us, llround(sec * 1e6));
}

long long
histogram_total(const struct histogram *h, const struct histogram_bounds *b)
{
    long long n = 0;
    for (size_t k = 0; k <= b->n; k++)
        n += atomic_load(&h->count[k]);
    return n;
}

/* One line "name_suffix{labels[,]extra} value" into out. */
static void
line(struct strbuf *out, const char *name, const char *suffix,
     const char *labels, const char *extra, const char *value)
{
    int braces = labels[0] || extra[0];
    strbuf_printf(out, "%s%s%s%s%s%s%s %s\n", name, suffix, braces ? "{" : "",
                  labels, labels[0] && extra[0] ? "," : "", extra,
                  braces ? "}" : "", value);
}

void
histogram_text(struct strbuf *out, const char *name, const char *labels,
               const struct histogram *h, const struct histogram_bounds *b)
{
    long long v[HISTOGRAM_MAX_BOUNDS + 1], acc = 0;
    char le[48], num[48];

    /* One snapshot: the buckets, their sum and the count agree. */
    for (size_t k = 0; k <= b->n; k++)
        v[k] = atomic_load(&h->count[k]);
    for (size_t k = 0; k <= b->n; k++) {
        acc += v[k];
        if (k < b->n)
            snprintf(le, sizeof le, "le=\"%g\"", b->le[k]);
        else
            snprintf(le, sizeof le, "le=\"+Inf\"");
        snprintf(num, sizeof num, "%lld", acc);
        line(out, name, "_bucket", labels, le, num);
    }
    snprintf(num, sizeof num, "%.6f", (double)atomic_load(&h->sum_us) / 1e6);
    line(out, name, "_sum", labels, "", num);
    snprintf(num, sizeof num, "%lld", acc);
    line(out, name, "_count", labels, "", num);
}

char *
histogram_escape(const char *in, char *out, size_t cap)
{
    size_t k = 0;
    if (cap == 0)
        return out;
    for (; in && *in; in++) {
        const char *rep = *in == '\\'   ? "\\\\"
                          : *in == '"'  ? "\\\""
                          : *in == '\n' ? "\\n"
                                        : NULL;
        size_t n = rep ? 2 : 1;
        if (k + n >= cap)
            break;
        if (rep)
            memcpy(out + k, rep, 2);
        else
            out[k] = *in;
        k += n;
    }
    out[k] = '\0';
    return out;
}
