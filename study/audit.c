/*
 * study/audit.c - the audit log; see audit.h.
 */
#include "study/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"

static const char *const actions[] = {
    "study.create",     "study.patch",       "study.delete",
    "study.copy",       "trial.enqueue",     "trial.add",
    "trial.fail",       "trial.patch",       "trial.exclude",
    "trial.restore",    "token.create",      "token.revoke",
    "benchmark.import", "simulation.create", "simulation.cancel",
};

int
audit_action_ok(const char *s)
{
    for (size_t i = 0; s && i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(s, actions[i]) == 0)
            return 1;
    return 0;
}

const char *
audit_actions_text(void)
{
    return "study.create, study.patch, study.delete, study.copy, "
           "trial.enqueue, "
           "trial.add, trial.fail, trial.patch, trial.exclude, trial.restore, "
           "token.create, token.revoke, "
           "benchmark.import, simulation.create, simulation.cancel";
}

enum hpod_status
audit_record(struct db *db, long long by_token, const char *action,
             const char *lab, long long study_id, const char *target,
             json_t *detail, struct hpod_err *err)
{
    char *text;
    struct audit_row_in in = {.token_id = by_token,
                              .lab = lab,
                              .action = action,
                              .target = target,
                              .study_id = study_id};
    enum hpod_status st;

    if (!detail)
        detail = json_object();
    in.detail = text = hj_dump(detail, 0);
    if (!text)
        st = hpod_fail(err, HPOD_ENOMEM, "", "could not encode an event");
    else
        st = audit_store_insert(db, &in, err);
    free(text);
    json_decref(detail);
    return st;
}

/* n digits at s into *v; 1 on success. */
static int
digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        *v = *v * 10 + (s[i] - '0');
    }
    return 1;
}

static int
days_in(int year, int month)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

int
audit_since_ok(const char *s)
{
    int y, mo, d, h, mi, sec, oh, om;
    size_t k = 19;

    if (!s || strlen(s) < 20 || !digits(s, 4, &y) || s[4] != '-' ||
        !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &d) ||
        (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) ||
        s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
        !digits(s + 17, 2, &sec))
        return 0;
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > days_in(y, mo) || h > 23 ||
        mi > 59 || sec > 59)
        return 0;
    if (s[k] == '.') {
        size_t f = 0;
        while (s[k + 1 + f] >= '0' && s[k + 1 + f] <= '9')
            f++;
        if (f == 0 || f > 9)
            return 0;
        k += 1 + f;
    }
    if ((s[k] == 'Z' || s[k] == 'z') && s[k + 1] == '\0')
        return 1;
    return (s[k] == '+' || s[k] == '-') && digits(s + k + 1, 2, &oh) &&
           s[k + 3] == ':' && digits(s + k + 4, 2, &om) && s[k + 6] == '\0' &&
           oh <= 23 && om <= 59;
}

enum hpod_status
audit_list(struct db *db, const char *who_lab, struct audit_filter *f,
           struct audit_row **rows, size_t *n, int *more, struct hpod_err *err)
{
    enum hpod_status st;

    *rows = NULL;
    *n = 0;
    *more = 0;
    if (f->action && !audit_action_ok(f->action))
        return hpod_fail(err, HPOD_EINVAL, "action",
                         "unknown action \"%.60s\": one of %s", f->action,
                         audit_actions_text());
    if (f->since && !audit_since_ok(f->since))
        return hpod_fail(err, HPOD_EINVAL, "since",
                         "since must be an RFC 3339 timestamp, e.g. "
                         "2025-01-31T12:00:00Z");
    if (who_lab && who_lab[0]) {
        if (f->lab && strcmp(f->lab, who_lab) != 0)
            return hpod_fail(err, HPOD_EDENIED, "lab",
                             "this token may only read the events of lab %s",
                             who_lab);
        f->lab = who_lab;
    }
    f->limit++;
    st = audit_store_list(db, f, rows, n, err);
    f->limit--;
    if (st == HPOD_OK && *n > (size_t)f->limit) {
        *more = 1;
        (*n)--;
        audit_row_clear(&(*rows)[*n]); /* it only said that there is more */
    }
    return st;
}
