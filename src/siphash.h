/* siphash: keyed 64-bit hash (SipHash-1-2) used by dict to defeat collision
 * flooding. The key is 16 bytes; callers keep it secret and per-process. */
#ifndef CAIRN_SIPHASH_H
#define CAIRN_SIPHASH_H
#include <stddef.h>
#include <stdint.h>

uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k);
/* Same, but ASCII A-Z hash as a-z, so keys that compare equal ignoring case
 * land in the same bucket. */
uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t *k);

#endif
