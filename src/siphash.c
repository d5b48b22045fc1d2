/* siphash: SipHash-1-2 with 64-bit output (one compression round per word,
 * two finalization rounds: the speed/strength trade-off Redis settled on for
 * hash-table keys). Bytes in, one uint64_t out; no state, no allocation.
 *
 * Words are read little-endian so the result is identical on every host. The
 * case-sensitive variant (every key lookup) reads each word with one unaligned
 * load: gcc does not fold a byte-by-byte assembly loop into a load, and that
 * loop made hashing a third of a ZADD's instructions. */
#include "siphash.h"

#include <string.h>

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

#define SIP_ROUND(v0, v1, v2, v3)                                                                  \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = ROTL64(v1, 13);                                                                       \
        v1 ^= v0;                                                                                  \
        v0 = ROTL64(v0, 32);                                                                       \
        v2 += v3;                                                                                  \
        v3 = ROTL64(v3, 16);                                                                       \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = ROTL64(v3, 21);                                                                       \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = ROTL64(v1, 17);                                                                       \
        v1 ^= v2;                                                                                  \
        v2 = ROTL64(v2, 32);                                                                       \
    } while (0)

static inline uint8_t lower_ascii(uint8_t c) {
    return (uint8_t)(c + ((uint8_t)(c - 'A') < 26 ? 32 : 0));
}

static inline uint64_t load_le64(const uint8_t *p, int nocase) {
    uint64_t w;
    if (!nocase) {
        memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        return w;
    }
    w = 0;
    for (int i = 7; i >= 0; i--) w = (w << 8) | lower_ascii(p[i]);
    return w;
}

/* The 0..7 bytes after the last whole word, little-endian, top bytes zero. */
static inline uint64_t load_tail(const uint8_t *p, size_t n, int nocase) {
    uint64_t b = 0;
    if (nocase) {
        for (size_t i = 0; i < n; i++) b |= (uint64_t)lower_ascii(p[i]) << (8 * i);
        return b;
    }
    switch (n) {
    case 7: b |= (uint64_t)p[6] << 48; /* fall through */
    case 6: b |= (uint64_t)p[5] << 40; /* fall through */
    case 5: b |= (uint64_t)p[4] << 32; /* fall through */
    case 4: {
        uint32_t lo;
        memcpy(&lo, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
#endif
        return b | lo;
    }
    case 3: b |= (uint64_t)p[2] << 16; /* fall through */
    case 2: b |= (uint64_t)p[1] << 8;  /* fall through */
    case 1: b |= p[0];
    }
    return b;
}

/* One body for both variants; nocase is a compile-time constant at each call
 * site, so the branch disappears after inlining. */
static inline __attribute__((always_inline)) uint64_t sip12(const uint8_t *in, size_t inlen,
                                                            const uint8_t *k, int nocase) {
    uint64_t k0 = load_le64(k, 0), k1 = load_le64(k + 8, 0);
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
    uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
    uint64_t v3 = k1 ^ 0x7465646279746573ULL;
    const uint8_t *end = in + (inlen & ~(size_t)7);

    for (; in != end; in += 8) {
        uint64_t m = load_le64(in, nocase);
        v3 ^= m;
        SIP_ROUND(v0, v1, v2, v3);
        v0 ^= m;
    }

    /* Final word: the 0..7 leftover bytes, with the length's low byte on top. */
    uint64_t b = ((uint64_t)inlen << 56) | load_tail(in, inlen & 7, nocase);
    v3 ^= b;
    SIP_ROUND(v0, v1, v2, v3);
    v0 ^= b;

    v2 ^= 0xff;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k) {
    return sip12(in, inlen, k, 0);
}

uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t *k) {
    return sip12(in, inlen, k, 1);
}
