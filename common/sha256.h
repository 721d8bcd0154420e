/*
 * common/sha256.h - SHA-256 (FIPS 180-4) and the random bytes of secrets.
 *
 * hpod stores only the SHA-256 of each API token (study/access.h): the
 * tokens are 256-bit random secrets, so a fast hash loses nothing to
 * guessing (there is no dictionary to try) and lets a request be looked
 * up by its hash in one indexed query.
 */
#ifndef HPOD_SHA256_H
#define HPOD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

/* hpod_sha256 - the digest of data[0..n) into out. */
void hpod_sha256(const void *data, size_t n, uint8_t out[SHA256_LEN]);

/*
 * hpod_random_bytes - n bytes from the kernel's CSPRNG (getrandom(2)).
 * Returns 0, or -1 when the kernel gives none (the caller fails).
 */
int hpod_random_bytes(void *out, size_t n);

/* hpod_hex - lower-case hex of data[0..n) into out (2n + 1 bytes). */
void hpod_hex(const uint8_t *data, size_t n, char *out);

#endif
