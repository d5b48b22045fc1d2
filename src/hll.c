/* hll: the HyperLogLog value format of Redis, bit for bit, so a value can
 * be copied between cairn and Redis (GET/SET, replication, snapshots) and
 * PFADD with the same elements produces the same bytes on both. Pure
 * functions over sds values (see hll.h for ownership); the PF* commands in
 * hyperloglog.c call them.
 *
 * The format (all of it is fixed by compatibility):
 *
 *   +------+---+-----+----------+--------------------------------+
 *   | HYLL | E | N/U | Cardin.  | registers                      |
 *   +------+---+-----+----------+--------------------------------+
 *    4 B    1 B  3 B   8 B        dense: 16384 x 6 bits; sparse: opcodes
 *
 * E is the encoding: 0 dense, 1 sparse. The cached cardinality is little
 * endian; the most significant bit of its last byte set means "stale".
 *
 * Dense registers are 6 bits each, packed from the least significant bit of
 * each byte: register i starts at bit i*6, its low bits in the low bits of
 * byte i*6/8.
 *
 * The sparse form is a run-length code of the 16384 registers:
 *   ZERO  00xxxxxx            xxxxxx+1 (1..64) zero registers
 *   XZERO 01xxxxxx yyyyyyyy   14-bit length + 1 (1..16384) zero registers
 *   VAL   1vvvvvxx            xx+1 (1..4) registers of value vvvvv+1 (1..32)
 * A new HyperLogLog is sparse: the header plus one XZERO of 16384. It turns
 * dense when a register needs a value above 32 or when an update would make
 * it longer than hll-sparse-max-bytes (header included). The way an update
 * splits and then re-merges opcodes decides the exact bytes, so it follows
 * Redis' order of operations exactly.
 *
 * Elements are hashed with MurmurHash64A (seed 0xadc83b19): the low 14 bits
 * pick the register, the count of trailing zeros of the rest (plus one) is
 * the candidate value. The cardinality estimate is Otmar Ertl's improved
 * estimator ("New cardinality estimation algorithms for HyperLogLog
 * sketches", 2017) computed from the histogram of register values, with
 * the same floating point steps as Redis 7.0 so cached values agree. */
#include "hll.h"

#include <math.h>
#include <string.h>

#define HLL_P_MASK (HLL_REGISTERS - 1)
#define HLL_ALPHA_INF 0.721347520444481703680 /* 0.5 / ln(2) */

#define HLL_SPARSE_VAL_MAX_VALUE 32
#define HLL_SPARSE_VAL_MAX_LEN 4
#define HLL_SPARSE_ZERO_MAX_LEN 64
#define HLL_SPARSE_XZERO_MAX_LEN 16384

/* ---- the sparse opcodes ---- */

static inline void hllPutVal(uint8_t *p, int val, int len) {
    p[0] = (uint8_t)(0x80 | ((val - 1) << 2) | (len - 1));
}

/* A run of len zero registers as ZERO (up to 64) or XZERO; returns bytes. */
static int hllPutZeros(uint8_t *p, long len) {
    if (len <= HLL_SPARSE_ZERO_MAX_LEN) {
        p[0] = (uint8_t)(len - 1);
        return 1;
    }
    len--;
    p[0] = (uint8_t)(0x40 | (len >> 8));
    p[1] = (uint8_t)(len & 0xff);
    return 2;
}

/* ---- dense registers ---- */

unsigned hllDenseGet(const uint8_t *regs, long i) {
    size_t bit = (size_t)i * HLL_BITS, byte = bit >> 3;
    unsigned fb = bit & 7;
    unsigned v = regs[byte] >> fb;
    /* Only offsets 4 and 6 spill into the next byte; never reading it
     * otherwise keeps the last register inside the array. */
    if (fb > 2) v |= (unsigned)regs[byte + 1] << (8 - fb);
    return v & 63;
}

void hllDensePut(uint8_t *regs, long i, unsigned val) {
    size_t bit = (size_t)i * HLL_BITS, byte = bit >> 3;
    unsigned fb = bit & 7;
    regs[byte] = (uint8_t)((regs[byte] & ~(63u << fb)) | (val << fb));
    if (fb > 2)
        regs[byte + 1] = (uint8_t)((regs[byte + 1] & ~(63u >> (8 - fb))) | (val >> (8 - fb)));
}

/* Raise register i to count if it is lower; 1 if it changed. */
static int hllDenseSetMax(uint8_t *regs, long i, int count) {
    if ((int)hllDenseGet(regs, i) >= count) return 0;
    hllDensePut(regs, i, (unsigned)count);
    return 1;
}

/* ---- hashing ---- */

/* MurmurHash64A (Austin Appleby, public domain), little-endian reads so the
 * result is the same on every platform. */
static uint64_t hllMurmur64A(const unsigned char *data, size_t len, uint64_t seed) {
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    const int r = 47;
    uint64_t h = seed ^ ((uint64_t)len * m);
    size_t blocks = len / 8;
    for (size_t i = 0; i < blocks; i++, data += 8) {
        uint64_t k = (uint64_t)data[0] | (uint64_t)data[1] << 8 | (uint64_t)data[2] << 16 |
                     (uint64_t)data[3] << 24 | (uint64_t)data[4] << 32 | (uint64_t)data[5] << 40 |
                     (uint64_t)data[6] << 48 | (uint64_t)data[7] << 56;
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    size_t rest = len & 7;
    if (rest) {
        for (size_t i = rest; i > 0; i--) h ^= (uint64_t)data[i - 1] << (8 * (i - 1));
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

/* Register index and value for an element: the value is the position of the
 * first 1 bit in the 50 hash bits above the index, counting from 1. */
static int hllPatLen(const unsigned char *ele, size_t len, long *reg) {
    uint64_t hash = hllMurmur64A(ele, len, 0xadc83b19ULL);
    *reg = (long)(hash & HLL_P_MASK);
    hash >>= HLL_P;
    hash |= (uint64_t)1 << HLL_Q; /* bounds the count to Q+1 */
    return __builtin_ctzll(hash) + 1;
}

/* ---- the value as a whole ---- */

sds hllNew(void) {
    sds s = sdsnewlen(NULL, HLL_HDR_SIZE + 2);
    uint8_t *p = (uint8_t *)s;
    memcpy(p, "HYLL", 4);
    p[HLL_ENC_OFFSET] = HLL_SPARSE;
    hllPutZeros(p + HLL_HDR_SIZE, HLL_REGISTERS);
    return s;
}

int hllHeaderValid(const uint8_t *h, size_t len) {
    if (len < HLL_HDR_SIZE || memcmp(h, "HYLL", 4) != 0) return 0;
    if (h[HLL_ENC_OFFSET] > HLL_MAX_ENCODING) return 0;
    return h[HLL_ENC_OFFSET] != HLL_DENSE || len == HLL_DENSE_SIZE;
}

/* Little endian, whatever the host. */
uint64_t hllCacheGet(const uint8_t *h) {
    uint64_t card = 0;
    for (int j = 7; j >= 0; j--) card = (card << 8) | h[HLL_CARD_OFFSET + j];
    return card;
}

void hllCacheSet(uint8_t *h, uint64_t card) {
    for (int j = 0; j < 8; j++) h[HLL_CARD_OFFSET + j] = (uint8_t)(card >> (8 * j));
}

/* Calls fn(ctx, first, run, val) for each VAL opcode of the sparse body
 * [p, end), registers first .. first+run-1 in order. -1 if the opcodes are
 * corrupt: a VAL past the last register is corrupt on its own (even right
 * after a complete run); zero runs past it show in the final count. */
static int hllSparseForEachVal(const uint8_t *p, const uint8_t *end,
                               void (*fn)(void *ctx, long first, long run, int val), void *ctx) {
    long idx = 0, run;
    int val;
    while (p < end) {
        if (hllSparseNext(&p, &run, &val) == HLL_OPCODE_VAL) {
            if (idx + run > HLL_REGISTERS) return -1;
            fn(ctx, idx, run, val);
        }
        idx += run;
    }
    return idx == HLL_REGISTERS ? 0 : -1;
}

static void hllPutRun(void *regs, long first, long run, int val) {
    while (run--) hllDensePut(regs, first++, (unsigned)val);
}

int hllToDense(sds *sp) {
    uint8_t *s = (uint8_t *)*sp;
    if (s[HLL_ENC_OFFSET] == HLL_DENSE) return 0;
    sds dense = sdsnewlen(NULL, HLL_DENSE_SIZE);
    uint8_t *d = (uint8_t *)dense;
    memcpy(d, s, HLL_HDR_SIZE);
    d[HLL_ENC_OFFSET] = HLL_DENSE;
    if (hllSparseForEachVal(s + HLL_HDR_SIZE, s + sdslen(*sp), hllPutRun, d + HLL_HDR_SIZE) != 0) {
        sdsfree(dense);
        return -1;
    }
    sdsfree(*sp);
    *sp = dense;
    return 0;
}

/* The sparse case of hllSetRegister: edits the opcodes in place, or
 * promotes the value to dense when needed. */
static int hllSparseSet(sds *sp, long index, int count, size_t sparse_max) {
    if (count > HLL_SPARSE_VAL_MAX_VALUE) goto promote;

    /* The worst case grows the value by 3 bytes (XZERO -> XZERO VAL XZERO):
     * reserve it now so the pointers below stay valid. */
    *sp = sdsMakeRoomFor(*sp, 3);
    uint8_t *sparse = (uint8_t *)*sp + HLL_HDR_SIZE;
    uint8_t *end = (uint8_t *)*sp + sdslen(*sp);

    /* Find the opcode covering the register: p, its first register, span. */
    uint8_t *p = sparse, *prev = NULL;
    long first = 0, span = 0;
    int oplen = 1;
    while (p < end) {
        oplen = 1;
        if (HLL_OP_IS_ZERO(p)) {
            span = HLL_ZERO_LEN(p);
        } else if (HLL_OP_IS_VAL(p)) {
            span = HLL_VAL_LEN(p);
        } else {
            span = HLL_XZERO_LEN(p);
            oplen = 2;
        }
        if (index <= first + span - 1) break;
        prev = p;
        p += oplen;
        first += span;
    }
    if (span == 0 || p >= end) return -1;

    int is_val = HLL_OP_IS_VAL(p), is_xzero = HLL_OP_IS_XZERO(p);
    if (is_val) {
        if (HLL_VAL_VALUE(p) >= count) return 0;
        if (span == 1) { /* our register alone: rewrite in place */
            hllPutVal(p, count, 1);
            goto updated;
        }
    } else if (!is_xzero && span == 1) { /* ZERO of one register */
        hllPutVal(p, count, 1);
        goto updated;
    }

    /* Split the run into (before) VAL (after): at most XZERO VAL XZERO. */
    uint8_t seq[5];
    int n = 0;
    long last = first + span - 1;
    if (is_val) {
        int cur = HLL_VAL_VALUE(p);
        if (index != first) hllPutVal(seq + n++, cur, (int)(index - first));
        hllPutVal(seq + n++, count, 1);
        if (index != last) hllPutVal(seq + n++, cur, (int)(last - index));
    } else {
        if (index != first) n += hllPutZeros(seq + n, index - first);
        hllPutVal(seq + n++, count, 1);
        if (index != last) n += hllPutZeros(seq + n, last - index);
    }
    int delta = n - oplen;
    if (delta > 0 && sdslen(*sp) + (size_t)delta > sparse_max) goto promote;
    uint8_t *next = p + oplen;
    if (delta != 0 && next < end) memmove(next + delta, next, (size_t)(end - next));
    sdsIncrLen(*sp, delta);
    memcpy(p, seq, (size_t)n);
    end += delta;

updated:
    /* Merge neighbouring VALs of equal value: look at up to five opcodes
     * starting from the one before the change. */
    p = prev ? prev : sparse;
    for (int scan = 0; scan < 5 && p < end; scan++) {
        if (HLL_OP_IS_XZERO(p)) {
            p += 2;
            continue;
        }
        if (HLL_OP_IS_ZERO(p)) {
            p++;
            continue;
        }
        if (p + 1 < end && HLL_OP_IS_VAL(p + 1) && HLL_VAL_VALUE(p) == HLL_VAL_VALUE(p + 1)) {
            int len = HLL_VAL_LEN(p) + HLL_VAL_LEN(p + 1);
            if (len <= HLL_SPARSE_VAL_MAX_LEN) {
                hllPutVal(p + 1, HLL_VAL_VALUE(p), len);
                memmove(p, p + 1, (size_t)(end - p - 1));
                sdsIncrLen(*sp, -1);
                end--;
                continue; /* the merged VAL may merge again with its right */
            }
        }
        p++;
    }
    hllInvalidateCache((uint8_t *)*sp);
    return 1;

promote:
    if (hllToDense(sp) != 0) return -1;
    /* The register needed an update, so the dense set always changes it. */
    hllDenseSetMax((uint8_t *)*sp + HLL_HDR_SIZE, index, count);
    return 1;
}

int hllSetRegister(sds *s, long index, int count, size_t sparse_max) {
    switch (hllEncodingOf((const uint8_t *)*s)) {
    case HLL_DENSE: return hllDenseSetMax((uint8_t *)*s + HLL_HDR_SIZE, index, count);
    case HLL_SPARSE: return hllSparseSet(s, index, count, sparse_max);
    default: return -1;
    }
}

int hllAdd(sds *s, const unsigned char *ele, size_t len, size_t sparse_max) {
    long index;
    int count = hllPatLen(ele, len, &index);
    return hllSetRegister(s, index, count, sparse_max);
}

static void hllMaxRun(void *max, long first, long run, int val) {
    uint8_t *m = (uint8_t *)max + first;
    for (; run; run--, m++)
        if (val > *m) *m = (uint8_t)val;
}

int hllMergeMax(uint8_t *max, const uint8_t *h, size_t len) {
    if (h[HLL_ENC_OFFSET] == HLL_DENSE) {
        const uint8_t *regs = h + HLL_HDR_SIZE;
        for (long i = 0; i < HLL_REGISTERS; i++) {
            uint8_t v = (uint8_t)hllDenseGet(regs, i);
            if (v > max[i]) max[i] = v;
        }
        return 0;
    }
    return hllSparseForEachVal(h + HLL_HDR_SIZE, h + len, hllMaxRun, max);
}

/* ---- the estimator ---- */

/* Ertl's sigma and tau series, iterated until the sum stops changing. The
 * operations and their order are the ones Redis uses: the cached
 * cardinality must come out identical. */
static double hllSigma(double x) {
    if (x == 1.) return INFINITY;
    double zPrime, y = 1, z = x;
    do {
        x *= x;
        zPrime = z;
        z += x * y;
        y += y;
    } while (zPrime != z);
    return z;
}

static double hllTau(double x) {
    if (x == 0. || x == 1.) return 0.;
    double zPrime, y = 1.0, z = 1 - x;
    do {
        x = sqrt(x);
        zPrime = z;
        y *= 0.5;
        double d = 1 - x;
        z -= d * d * y;
    } while (zPrime != z);
    return z / 3;
}

/* Histogram of register values. Dense registers are decoded four at a time
 * from each group of three bytes. */
static void hllHistogram(const uint8_t *h, size_t len, int enc, int *histo, int *invalid) {
    const uint8_t *regs = h + HLL_HDR_SIZE;
    if (enc == HLL_DENSE) {
        for (long i = 0; i < HLL_REGISTERS / 4; i++, regs += 3) {
            histo[regs[0] & 63]++;
            histo[(regs[0] >> 6) | ((regs[1] & 15) << 2)]++;
            histo[(regs[1] >> 4) | ((regs[2] & 3) << 4)]++;
            histo[regs[2] >> 2]++;
        }
    } else if (enc == HLL_RAW) {
        for (long i = 0; i < HLL_REGISTERS; i++) histo[regs[i] & 63]++;
    } else {
        const uint8_t *p = regs, *end = h + len;
        long idx = 0, run;
        int val;
        while (p < end) {
            hllSparseNext(&p, &run, &val);
            histo[val] += (int)run;
            idx += run;
        }
        if (idx != HLL_REGISTERS && invalid) *invalid = 1;
    }
}

uint64_t hllCount(const uint8_t *h, size_t len, int enc, int *invalid) {
    int histo[64] = {0};
    hllHistogram(h, len, enc, histo, invalid);
    double m = HLL_REGISTERS;
    double z = m * hllTau((m - histo[HLL_Q + 1]) / m);
    for (int j = HLL_Q; j >= 1; --j) {
        z += histo[j];
        z *= 0.5;
    }
    z += m * hllSigma(histo[0] / m);
    double e = (double)llroundl(HLL_ALPHA_INF * m * m / z);
    return (uint64_t)e;
}
