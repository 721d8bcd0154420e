/*
 * common/dtoa.h - the shortest decimal text of a double that reads back as
 * the same double.
 *
 * One formatter for every number hpod prints: JSON answers and stored JSON
 * text (common/json.c), error messages and log lines. A client that
 * sends 14.2 must read back 14.2, not 14.199999999999999, and no printed
 * number may lose a bit. Lives in store/ because every layer above core/
 * may use it (core/ does not format text); it knows nothing of JSON.
 */
#ifndef HPOD_DTOA_H
#define HPOD_DTOA_H

#include <stddef.h>

/* Enough for "-1.2345678901234567e-308" and its NUL, with room to spare. */
#define HPOD_DTOA_SIZE 32

/*
 * hpod_dtoa - writes into buf (HPOD_DTOA_SIZE bytes) the shortest %g-style
 * text that strtod reads back as x, bit for bit, and returns its length:
 * "14.2", "0.1", "3" (no point: JSON callers add ".0"), "-0", "1e+19",
 * "5e-324", "-1.7976931348623157e+308". Among texts of that length it is
 * the one nearest to x. Non-finite values, which JSON cannot hold, give
 * "nan", "inf" and "-inf". Depends on LC_NUMERIC being "C" (hpod never
 * calls setlocale).
 */
size_t hpod_dtoa(double x, char *buf);

#endif
