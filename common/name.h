/*
 * common/name.h - the one rule for names hpod accepts from clients.
 *
 * Study parameters, metrics, benchmark table names (each segment of
 * "nmthpo/zh-en"), table columns and request ids are all made of the
 * characters [A-Za-z0-9_.-]. Keeping the rule in one place keeps the
 * router, the parsers and the store agreeing on it; store/ relies on it to
 * put names inside quoted JSON keys without escaping.
 */
#ifndef HPOD_NAME_H
#define HPOD_NAME_H

#include <stddef.h>

/* Length of the longest prefix of s made of name characters. */
size_t hpod_name_span(const char *s);

/* 1 when s[0..n) is 1 to max name characters (s may go on after n). */
int hpod_name_ok_n(const char *s, size_t n, size_t max);

/* 1 when the whole string s is 1 to max name characters. */
int hpod_name_ok(const char *s, size_t max);

#endif
