/* hyperloglog: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST on string values
 * holding Redis' HyperLogLog format, bit for bit, so a value can be copied
 * between cairn and Redis (GET/SET, replication, snapshots) and PFADD with
 * the same elements produces the same bytes on both.
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
 * the same floating point steps as Redis 7.0 so cached values agree.
 *
 * Writes look the key up once (dbFindForWrite) and modify a private raw copy
 * of the value (dbUnshareStringValue). PFCOUNT of one key stores the
 * recomputed cardinality back into the value, which counts as a change
 * (dirty, propagation) exactly when the cache was stale. As in Redis 7.0,
 * keyspace notifications and invalidations come before the reply, which is
 * then built from values on the stack. */
#include "server.h"
#include "t_bits.h"

#include <math.h>

#define HLL_P 14
#define HLL_Q (64 - HLL_P)
#define HLL_REGISTERS (1 << HLL_P)
#define HLL_P_MASK (HLL_REGISTERS - 1)
#define HLL_BITS 6
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + (HLL_REGISTERS * HLL_BITS + 7) / 8)
#define HLL_DENSE 0
#define HLL_SPARSE 1
#define HLL_RAW 255 /* internal only: one byte per register */
#define HLL_MAX_ENCODING 1
#define HLL_ENC_OFFSET 4
#define HLL_CARD_OFFSET 8
#define HLL_ALPHA_INF 0.721347520444481703680 /* 0.5 / ln(2) */

#define HLL_SPARSE_VAL_MAX_VALUE 32
#define HLL_SPARSE_VAL_MAX_LEN 4
#define HLL_SPARSE_ZERO_MAX_LEN 64
#define HLL_SPARSE_XZERO_MAX_LEN 16384

#define HLL_INVALID_ERR "INVALIDOBJ Corrupted HLL object detected"

/* ---- the sparse opcodes ---- */

#define HLL_OP_IS_ZERO(p) (((p)[0] & 0xc0) == 0x00)
#define HLL_OP_IS_XZERO(p) (((p)[0] & 0xc0) == 0x40)
#define HLL_OP_IS_VAL(p) (((p)[0] & 0x80) != 0)
#define HLL_ZERO_LEN(p) (((p)[0] & 0x3f) + 1)
/* An XZERO cut off at the very end reads the sds terminator as its second
 * byte, as Redis does; the NUL is always there. */
#define HLL_XZERO_LEN(p) (((((p)[0] & 0x3f) << 8) | (p)[1]) + 1)
#define HLL_VAL_VALUE(p) ((((p)[0] >> 2) & 0x1f) + 1)
#define HLL_VAL_LEN(p) (((p)[0] & 0x3) + 1)

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

static inline unsigned hllDenseGet(const uint8_t *regs, long i) {
    size_t bit = (size_t)i * HLL_BITS, byte = bit >> 3;
    unsigned fb = bit & 7;
    unsigned v = regs[byte] >> fb;
    /* Only offsets 4 and 6 spill into the next byte; never reading it
     * otherwise keeps the last register inside the array. */
    if (fb > 2) v |= (unsigned)regs[byte + 1] << (8 - fb);
    return v & 63;
}

static inline void hllDensePut(uint8_t *regs, long i, unsigned val) {
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

static inline int hllEncoding(const robj *o) { return ((const uint8_t *)o->ptr)[HLL_ENC_OFFSET]; }
static inline void hllInvalidateCache(uint8_t *h) { h[HLL_CARD_OFFSET + 7] |= 0x80; }
static inline int hllCacheValid(const uint8_t *h) { return !(h[HLL_CARD_OFFSET + 7] & 0x80); }

/* An empty HyperLogLog: sparse, one XZERO covering every register. */
static robj *hllCreate(void) {
    sds s = sdsnewlen(NULL, HLL_HDR_SIZE + 2);
    uint8_t *p = (uint8_t *)s;
    memcpy(p, "HYLL", 4);
    p[HLL_ENC_OFFSET] = HLL_SPARSE;
    hllPutZeros(p + HLL_HDR_SIZE, HLL_REGISTERS);
    return createObject(OBJ_STRING, s);
}

/* The checks every PF command makes on an existing key: a string, with the
 * magic, a known encoding, and the exact length when dense. The sparse body
 * is only checked when it is walked. */
static int hllCheckOrReply(client *c, robj *o) {
    if (o->type != OBJ_STRING) {
        replyErrorWrongType(c);
        return C_ERR;
    }
    if (!sdsEncodedObject(o)) goto invalid;
    size_t len = sdslen(o->ptr);
    const uint8_t *h = o->ptr;
    if (len < HLL_HDR_SIZE || memcmp(h, "HYLL", 4) != 0) goto invalid;
    if (h[HLL_ENC_OFFSET] > HLL_MAX_ENCODING) goto invalid;
    if (h[HLL_ENC_OFFSET] == HLL_DENSE && len != HLL_DENSE_SIZE) goto invalid;
    return C_OK;
invalid:
    replyError(c, "WRONGTYPE Key is not a valid HyperLogLog string value.");
    return C_ERR;
}

/* Replace a sparse value by its dense form (header copied, cache
 * included). C_ERR if the opcodes do not describe exactly 16384 registers. */
static int hllSparseToDense(robj *o) {
    uint8_t *s = o->ptr;
    if (s[HLL_ENC_OFFSET] == HLL_DENSE) return C_OK;
    uint8_t *p = s + HLL_HDR_SIZE, *end = s + sdslen(o->ptr);
    sds dense = sdsnewlen(NULL, HLL_DENSE_SIZE);
    uint8_t *d = (uint8_t *)dense;
    memcpy(d, s, HLL_HDR_SIZE);
    d[HLL_ENC_OFFSET] = HLL_DENSE;
    /* A VAL past the last register is corrupt on its own (even right after
     * a complete run); zero runs past it show in the final count. */
    long idx = 0;
    while (p < end) {
        if (HLL_OP_IS_ZERO(p)) {
            idx += HLL_ZERO_LEN(p);
            p++;
        } else if (HLL_OP_IS_XZERO(p)) {
            idx += HLL_XZERO_LEN(p);
            p += 2;
        } else {
            long run = HLL_VAL_LEN(p);
            int val = HLL_VAL_VALUE(p);
            if (idx + run > HLL_REGISTERS) {
                idx = -1;
                break;
            }
            while (run--) hllDensePut(d + HLL_HDR_SIZE, idx++, (unsigned)val);
            p++;
        }
    }
    if (idx != HLL_REGISTERS) {
        sdsfree(dense);
        return C_ERR;
    }
    sdsfree(o->ptr);
    o->ptr = dense;
    return C_OK;
}

/* Raise register index of a sparse value to count, editing the opcodes in
 * place: 1 if it changed, 0 if it already was >= count, -1 if the opcodes
 * are corrupt. Promotes the value to dense when needed (the caller
 * re-reads o->ptr). */
static int hllSparseSet(robj *o, long index, int count) {
    if (count > HLL_SPARSE_VAL_MAX_VALUE) goto promote;

    /* The worst case grows the value by 3 bytes (XZERO -> XZERO VAL XZERO):
     * reserve it now so the pointers below stay valid. */
    o->ptr = sdsMakeRoomFor(o->ptr, 3);
    uint8_t *sparse = (uint8_t *)o->ptr + HLL_HDR_SIZE;
    uint8_t *end = (uint8_t *)o->ptr + sdslen(o->ptr);

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
    if (delta > 0 && (long long)sdslen(o->ptr) + delta > cfg.hll_sparse_max_bytes) goto promote;
    uint8_t *next = p + oplen;
    if (delta != 0 && next < end) memmove(next + delta, next, (size_t)(end - next));
    sdsIncrLen(o->ptr, delta);
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
                sdsIncrLen(o->ptr, -1);
                end--;
                continue; /* the merged VAL may merge again with its right */
            }
        }
        p++;
    }
    hllInvalidateCache(o->ptr);
    return 1;

promote:
    if (hllSparseToDense(o) != C_OK) return -1;
    /* The register needed an update, so the dense set always changes it. */
    hllDenseSetMax((uint8_t *)o->ptr + HLL_HDR_SIZE, index, count);
    return 1;
}

/* Add one element: 1 if a register changed, 0 if not, -1 if corrupt. */
static int hllAdd(robj *o, const unsigned char *ele, size_t len) {
    long index;
    int count = hllPatLen(ele, len, &index);
    switch (hllEncoding(o)) {
    case HLL_DENSE: return hllDenseSetMax((uint8_t *)o->ptr + HLL_HDR_SIZE, index, count);
    case HLL_SPARSE: return hllSparseSet(o, index, count);
    default: return -1;
    }
}

/* max[i] = MAX(max[i], register i of the value h (len bytes)). C_ERR if a
 * sparse value does not cover exactly 16384 registers. */
static int hllMerge(uint8_t *max, const uint8_t *h, size_t len) {
    if (h[HLL_ENC_OFFSET] == HLL_DENSE) {
        const uint8_t *regs = h + HLL_HDR_SIZE;
        for (long i = 0; i < HLL_REGISTERS; i++) {
            uint8_t v = (uint8_t)hllDenseGet(regs, i);
            if (v > max[i]) max[i] = v;
        }
        return C_OK;
    }
    const uint8_t *p = h + HLL_HDR_SIZE, *end = h + len;
    long i = 0;
    while (p < end) {
        if (HLL_OP_IS_ZERO(p)) {
            i += HLL_ZERO_LEN(p);
            p++;
        } else if (HLL_OP_IS_XZERO(p)) {
            i += HLL_XZERO_LEN(p);
            p += 2;
        } else {
            long run = HLL_VAL_LEN(p);
            uint8_t val = (uint8_t)HLL_VAL_VALUE(p);
            if (i + run > HLL_REGISTERS) return C_ERR; /* corrupt, see hllSparseToDense */
            for (; run; run--, i++)
                if (val > max[i]) max[i] = val;
            p++;
        }
    }
    return i == HLL_REGISTERS ? C_OK : C_ERR;
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
        long idx = 0;
        while (p < end) {
            long run;
            if (HLL_OP_IS_ZERO(p)) {
                run = HLL_ZERO_LEN(p);
                histo[0] += (int)run;
                p++;
            } else if (HLL_OP_IS_XZERO(p)) {
                run = HLL_XZERO_LEN(p);
                histo[0] += (int)run;
                p += 2;
            } else {
                run = HLL_VAL_LEN(p);
                histo[HLL_VAL_VALUE(p)] += (int)run;
                p++;
            }
            idx += run;
        }
        if (idx != HLL_REGISTERS && invalid) *invalid = 1;
    }
}

/* Cardinality estimate of the HyperLogLog at h (len bytes, encoding enc). */
static uint64_t hllCount(const uint8_t *h, size_t len, int enc, int *invalid) {
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

/* ---- commands ---- */

/* PFADD key [element ...]: 1 if the key was created or any register
 * changed. */
void pfaddCommand(client *c) {
    keyRef ref;
    robj *o;
    long long updated = 0;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (!ref.de) {
        o = hllCreate();
        dbSetValue(&ref, o);
        updated++;
    } else {
        if (hllCheckOrReply(c, dictGetVal(ref.de)) != C_OK) return;
        o = dbUnshareStringValue(&ref);
    }
    for (int j = 2; j < c->argc; j++) {
        int r = hllAdd(o, c->argv[j]->ptr, sdslen(c->argv[j]->ptr));
        if (r < 0) {
            replyError(c, HLL_INVALID_ERR);
            return;
        }
        updated += r;
    }
    if (!updated) {
        replyConst(c, ":0\r\n");
        return;
    }
    hllInvalidateCache(o->ptr);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "pfadd", c->argv[1], c->db->id);
    server.dirty += updated;
    replyConst(c, ":1\r\n");
}

/* PFCOUNT key [key ...]. One key: the cached value, or a fresh estimate
 * written back into the value (a change). Several keys: the estimate of
 * their union, built in a temporary one-byte-per-register buffer. */
void pfcountCommand(client *c) {
    if (c->argc > 2) {
        uint8_t *buf = zcalloc(HLL_HDR_SIZE + HLL_REGISTERS);
        buf[HLL_ENC_OFFSET] = HLL_RAW;
        for (int j = 1; j < c->argc; j++) {
            robj *o = dbLookupRead(c->db, c->argv[j]);
            if (!o) continue; /* a missing key is an empty set */
            if (hllCheckOrReply(c, o) != C_OK) goto done;
            if (hllMerge(buf + HLL_HDR_SIZE, o->ptr, sdslen(o->ptr)) != C_OK) {
                replyError(c, HLL_INVALID_ERR);
                goto done;
            }
        }
        replyLongLong(c, (long long)hllCount(buf, HLL_HDR_SIZE + HLL_REGISTERS, HLL_RAW, NULL));
    done:
        zfree(buf);
        return;
    }

    /* Single key: a read as far as statistics go, but the cache may be
     * rewritten, so the value is looked up once for writing. */
    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (!ref.de) {
        server.stat_keyspace_misses++;
        notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", c->argv[1], c->db->id);
        replyConst(c, ":0\r\n");
        return;
    }
    server.stat_keyspace_hits++;
    robj *o = dictGetVal(ref.de);
    o->lru = lruClock();
    if (hllCheckOrReply(c, o) != C_OK) return;
    o = dbUnshareStringValue(&ref);
    uint8_t *h = o->ptr;
    uint64_t card = 0;
    if (hllCacheValid(h)) {
        for (int j = 7; j >= 0; j--) card = (card << 8) | h[HLL_CARD_OFFSET + j];
        replyLongLong(c, (long long)card);
        return;
    }
    int invalid = 0;
    card = hllCount(h, sdslen(o->ptr), h[HLL_ENC_OFFSET], &invalid);
    if (invalid) {
        replyError(c, HLL_INVALID_ERR);
        return;
    }
    for (int j = 0; j < 8; j++) h[HLL_CARD_OFFSET + j] = (uint8_t)(card >> (8 * j));
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty++;
    replyLongLong(c, (long long)card);
}

/* PFMERGE destkey [sourcekey ...]: the destination (itself one of the
 * inputs) gets the register-wise maximum. It turns dense if any input is
 * dense; otherwise the registers are raised one by one in sparse form. */
void pfmergeCommand(client *c) {
    uint8_t *max = zcalloc(HLL_REGISTERS);
    int use_dense = 0;
    for (int j = 1; j < c->argc; j++) {
        robj *o = dbLookupRead(c->db, c->argv[j]);
        if (!o) continue;
        if (hllCheckOrReply(c, o) != C_OK) goto done;
        if (hllEncoding(o) == HLL_DENSE) use_dense = 1;
        if (hllMerge(max, o->ptr, sdslen(o->ptr)) != C_OK) {
            replyError(c, HLL_INVALID_ERR);
            goto done;
        }
    }
    keyRef ref;
    robj *o;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (!ref.de) {
        o = hllCreate();
        dbSetValue(&ref, o);
    } else {
        o = dbUnshareStringValue(&ref); /* checked above as the first input */
    }
    if (use_dense && hllSparseToDense(o) != C_OK) {
        replyError(c, HLL_INVALID_ERR);
        goto done;
    }
    for (long j = 0; j < HLL_REGISTERS; j++) {
        if (max[j] == 0) continue;
        /* Re-read the encoding: a sparse update may promote the value. */
        if (hllEncoding(o) == HLL_DENSE) hllDenseSetMax((uint8_t *)o->ptr + HLL_HDR_SIZE, j, max[j]);
        else hllSparseSet(o, j, max[j]);
    }
    hllInvalidateCache(o->ptr);
    signalModifiedKey(c, c->db, c->argv[1]);
    /* PFMERGE announces itself as "pfadd", like Redis. */
    notifyKeyspaceEvent(NOTIFY_STRING, "pfadd", c->argv[1], c->db->id);
    server.dirty++;
    replyOk(c);
done:
    zfree(max);
}

/* PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. GETREG and TODENSE convert a
 * sparse value to dense, which is a change. */
void pfdebugCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    keyRef ref;
    dbFindForWrite(c->db, c->argv[2], &ref);
    if (!ref.de) {
        replyError(c, "ERR The specified key does not exist");
        return;
    }
    if (hllCheckOrReply(c, dictGetVal(ref.de)) != C_OK) return;
    robj *o = dbUnshareStringValue(&ref);

    if (!strcasecmp(sub, "getreg") || !strcasecmp(sub, "todense")) {
        int converted = 0;
        if (hllEncoding(o) == HLL_SPARSE) {
            if (hllSparseToDense(o) != C_OK) {
                replyError(c, HLL_INVALID_ERR);
                return;
            }
            converted = 1;
            server.dirty++; /* propagate the encoding change */
        }
        if (!strcasecmp(sub, "todense")) {
            replyLongLong(c, converted);
            return;
        }
        const uint8_t *regs = (const uint8_t *)o->ptr + HLL_HDR_SIZE;
        replyArrayLen(c, HLL_REGISTERS);
        for (long j = 0; j < HLL_REGISTERS; j++) replyLongLong(c, hllDenseGet(regs, j));
    } else if (!strcasecmp(sub, "decode")) {
        if (hllEncoding(o) != HLL_SPARSE) {
            replyError(c, "ERR HLL encoding is not sparse");
            return;
        }
        const uint8_t *p = (const uint8_t *)o->ptr + HLL_HDR_SIZE;
        const uint8_t *end = (const uint8_t *)o->ptr + sdslen(o->ptr);
        sds out = sdsempty();
        while (p < end) {
            if (HLL_OP_IS_ZERO(p)) {
                out = sdscatprintf(out, "z:%d ", HLL_ZERO_LEN(p));
                p++;
            } else if (HLL_OP_IS_XZERO(p)) {
                out = sdscatprintf(out, "Z:%d ", HLL_XZERO_LEN(p));
                p += 2;
            } else {
                out = sdscatprintf(out, "v:%d,%d ", HLL_VAL_VALUE(p), HLL_VAL_LEN(p));
                p++;
            }
        }
        out = sdstrim(out, " ");
        replyBulkSds(c, out);
    } else if (!strcasecmp(sub, "encoding")) {
        if (hllEncoding(o) == HLL_DENSE) replyConst(c, "+dense\r\n");
        else replyConst(c, "+sparse\r\n");
    } else {
        replyErrorFormat(c, "ERR Unknown PFDEBUG subcommand '%s'", sub);
    }
}

/* PFSELFTEST: a quick consistency check of the implementation.
 *  1. every dense register stores and returns every 6-bit value without
 *     disturbing its neighbours;
 *  2. the same elements added to a sparse and to a dense HyperLogLog give
 *     the same registers and the same estimate, which stays within five
 *     standard errors (1.04 / sqrt(16384)) of the true count. */
void pfselftestCommand(client *c) {
    uint8_t *regs = zcalloc(HLL_DENSE_SIZE - HLL_HDR_SIZE + 1);
    uint8_t *shadow = zmalloc(HLL_REGISTERS);
    uint32_t rnd = 0x9e3779b9;
    robj *sparse = NULL, *dense = NULL;
    const char *fail = NULL;
    long failat = 0;

    for (int round = 0; round < 4 && !fail; round++) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            rnd ^= rnd << 13;
            rnd ^= rnd >> 17;
            rnd ^= rnd << 5;
            shadow[i] = (uint8_t)(rnd & 63);
            hllDensePut(regs, i, shadow[i]);
        }
        for (long i = 0; i < HLL_REGISTERS; i++) {
            if (hllDenseGet(regs, i) != shadow[i]) {
                fail = "Register error at";
                failat = i;
                break;
            }
        }
    }

    sparse = hllCreate();
    dense = hllCreate();
    if (!fail && hllSparseToDense(dense) != C_OK) fail = "TODENSE failed at";
    const double maxerr = 5 * 1.04 / sqrt(HLL_REGISTERS);
    long checkpoint = 10;
    for (long n = 1; n <= 100000 && !fail; n++) {
        unsigned char ele[16];
        int len = ll2string((char *)ele, sizeof(ele), n * 7919);
        int a = hllAdd(sparse, ele, (size_t)len);
        int b = hllAdd(dense, ele, (size_t)len);
        if (a < 0 || b < 0 || a != b) {
            fail = "Sparse and dense updates differ at";
            failat = n;
            break;
        }
        if (n != checkpoint) continue;
        checkpoint = checkpoint * 3 / 2 + 1;
        uint64_t cs = hllCount(sparse->ptr, sdslen(sparse->ptr), hllEncoding(sparse), NULL);
        uint64_t cd = hllCount(dense->ptr, sdslen(dense->ptr), HLL_DENSE, NULL);
        double err = fabs((double)cd - (double)n) / (double)n;
        if (cs != cd) {
            fail = "Sparse and dense estimates differ at";
            failat = n;
        } else if (n >= 1000 && err > maxerr) {
            fail = "Estimate out of range at";
            failat = n;
        }
    }
    if (fail) replyErrorFormat(c, "ERR TESTFAILED %s %ld", fail, failat);
    else replyOk(c);
    decrRefCount(sparse);
    decrRefCount(dense);
    zfree(regs);
    zfree(shadow);
}
