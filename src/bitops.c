/* bitops: the bitmap commands on string values: SETBIT GETBIT BITCOUNT
 * BITPOS BITOP BITFIELD BITFIELD_RO.
 *
 * A bitmap is an ordinary string value; bit 0 is the most significant bit
 * of byte 0. Reads accept every string encoding (an integer-encoded value is
 * read through its decimal text, formatted on the stack). Writes look their
 * key up once with dbFindForWrite, turn the value into a private raw sds with
 * dbUnshareStringValue and grow it with zero bytes as far as the highest bit
 * written.
 *
 * Like Redis 7.0, SETBIT and BITFIELD count as a change (server.dirty, the
 * "setbit" event, propagation) only when a bit actually changed or the
 * string was created or grown: a SETBIT that rewrites the same bit is not
 * propagated. BITOP stores a raw string (dropping any TTL) or deletes the
 * destination when the result is empty.
 *
 * Keyspace notifications fire in the same order relative to the reply as in
 * Redis 7.0 (SETBIT and BITOP notify before replying, BITFIELD after its
 * array); replies that follow a notification are built from values on the
 * stack. */
#include "args.h"
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "t_bits.h"

#define BITS_OFFSET_ERR "bit offset is not an integer or out of range"
#define BITS_VALUE_ERR "bit is not an integer or out of range"

/* ---- counting and searching ---- */

/* Bits set in n bytes at p: eight bytes at a time with a popcount of the
 * whole word. memcpy keeps the loads legal at any alignment and compiles to
 * plain moves. Inlined into two callers: one compiled for the popcnt
 * instruction, one for CPUs without it (bit arithmetic). */
static inline __attribute__((always_inline)) long long bitsPopcountBody(const unsigned char *p,
                                                                       size_t n) {
    long long count = 0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, sizeof(w));
        count += __builtin_popcountll(w[0]) + __builtin_popcountll(w[1]) +
                 __builtin_popcountll(w[2]) + __builtin_popcountll(w[3]);
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof(w));
        count += __builtin_popcountll(w);
    }
    for (; i < n; i++) count += __builtin_popcount(p[i]);
    return count;
}

__attribute__((target("popcnt"))) static long long bitsPopcountHw(const unsigned char *p, size_t n) {
    return bitsPopcountBody(p, n);
}

static long long bitsPopcountSw(const unsigned char *p, size_t n) { return bitsPopcountBody(p, n); }

static long long bitsPopcount(const unsigned char *p, size_t n) {
    static int hw = -1;
    if (hw < 0) {
        __builtin_cpu_init();
        hw = __builtin_cpu_supports("popcnt") ? 1 : 0;
    }
    return hw ? bitsPopcountHw(p, n) : bitsPopcountSw(p, n);
}

/* Set bits between bit positions from and to (inclusive, from <= to). The
 * partial first and last bytes are masked; whole bytes in between go
 * through bitsPopcount. */
static long long bitsCountRange(const unsigned char *p, uint64_t from, uint64_t to) {
    uint64_t fb = from >> 3, lb = to >> 3;
    unsigned char head = 0xff >> (from & 7);                 /* bits at or after `from` */
    unsigned char tail = (unsigned char)(0xff << (7 - (to & 7))); /* bits up to `to` */
    if (fb == lb) return __builtin_popcount(p[fb] & head & tail);
    return __builtin_popcount(p[fb] & head) + __builtin_popcount(p[lb] & tail) +
           bitsPopcount(p + fb + 1, lb - fb - 1);
}

/* Position of the first bit equal to `bit` between bit positions from and
 * to (inclusive), or -1. Whole words that cannot contain it are skipped. */
static long long bitsFindBit(const unsigned char *p, uint64_t from, uint64_t to, int bit) {
    const unsigned char skipbyte = bit ? 0x00 : 0xff;
    const uint64_t skipword = bit ? 0 : UINT64_MAX;
    uint64_t i = from;
    while (i <= to) {
        if ((i & 7) == 0) {
            if (to - i >= 63) {
                uint64_t w;
                memcpy(&w, p + (i >> 3), sizeof(w));
                if (w == skipword) {
                    i += 64;
                    continue;
                }
            }
            if (to - i >= 7) {
                unsigned char b = p[i >> 3];
                if (b == skipbyte) {
                    i += 8;
                    continue;
                }
                /* The wanted bit is in this byte: the first one, MSB first. */
                unsigned x = bit ? b : (unsigned char)~b;
                return (long long)(i + (unsigned)(__builtin_clz(x) - 24));
            }
        }
        if (((p[i >> 3] >> (7 - (i & 7))) & 1) == bit) return (long long)i;
        i++;
    }
    return -1;
}

/* ---- argument parsing and lookups ---- */

/* A bit offset argument. With hash set, "#N" means N fields of `bits` bits;
 * the multiplication wraps in 64 bits as Redis' does, so an absurd "#N" that
 * wraps to a small positive offset is accepted exactly as there. Offsets
 * whose byte lies at or past proto-max-bulk-len are rejected. */
static int bitsParseOffsetOrReply(client *c, robj *arg, int hash, int bits, uint64_t *offset) {
    const char *p = arg->ptr;
    size_t len = sdslen(arg->ptr);
    int usehash = hash && len > 1 && p[0] == '#';
    long long v;
    if (!string2ll(p + usehash, len - usehash, &v)) goto err;
    if (usehash) v = (long long)((unsigned long long)v * (unsigned long long)bits);
    if (v < 0 || (v >> 3) >= cfg.proto_max_bulk_len) goto err;
    *offset = (uint64_t)v;
    return C_OK;
err:
    replyError(c, "ERR " BITS_OFFSET_ERR);
    return C_ERR;
}

/* The value of a bit write: the key's string as a private raw sds at least
 * maxbit / 8 + 1 bytes long, the key created if missing. *grown is set when
 * the key was created or the string got longer (both count as a change).
 * Returns NULL after replying WRONGTYPE. One keyspace lookup. */
static robj *bitsStringForWrite(client *c, keyRef *ref, uint64_t maxbit, int *grown) {
    size_t need = (size_t)(maxbit >> 3) + 1;
    dbFindForWrite(c->db, c->argv[1], ref);
    if (!ref->de) {
        robj *o = createObject(OBJ_STRING, sdsnewlen(NULL, need));
        dbSetValue(ref, o);
        *grown = 1;
        return o;
    }
    if (((robj *)dictGetVal(ref->de))->type != OBJ_STRING) {
        replyErrorWrongType(c);
        return NULL;
    }
    robj *o = dbUnshareStringValue(ref);
    size_t oldlen = sdslen(o->ptr);
    o->ptr = sdsgrowzero(o->ptr, need);
    *grown = sdslen(o->ptr) != oldlen;
    return o;
}

/* Normalise a [start, end] range the way GETRANGE-style commands do:
 * negative values count from total, then clamp to [0, total - 1]. The
 * result may have start > end (an empty range). */
static void bitsNormalizeRange(long long total, long long *start, long long *end) {
    if (*start < 0) *start += total;
    if (*end < 0) *end += total;
    if (*start < 0) *start = 0;
    if (*end < 0) *end = 0;
    if (*end >= total) *end = total - 1;
}

/* BIT / BYTE unit argument: 1 for BIT, 0 for BYTE, -1 (after replying a
 * syntax error) otherwise. */
static int bitsParseUnitOrReply(client *c, robj *arg) {
    if (!strcasecmp(arg->ptr, "bit")) return 1;
    if (!strcasecmp(arg->ptr, "byte")) return 0;
    replyErrorSyntax(c);
    return -1;
}

/* ---- SETBIT / GETBIT ---- */

void setbitCommand(client *c) {
    uint64_t offset;
    long on;
    if (bitsParseOffsetOrReply(c, c->argv[2], 0, 0, &offset) != C_OK) return;
    if (getLongFromObjectOrReply(c, c->argv[3], &on, BITS_VALUE_ERR) != C_OK) return;
    if (on & ~1L) {
        replyError(c, "ERR " BITS_VALUE_ERR);
        return;
    }
    keyRef ref;
    int grown;
    robj *o = bitsStringForWrite(c, &ref, offset, &grown);
    if (!o) return;
    unsigned char *byte = (unsigned char *)o->ptr + (offset >> 3);
    int shift = 7 - (int)(offset & 7);
    int old = (*byte >> shift) & 1;
    if (!grown && old == on) {
        replyLongLong(c, old);
        return;
    }
    *byte = (unsigned char)((*byte & ~(1 << shift)) | (on << shift));
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "setbit", c->argv[1], c->db->id);
    server.dirty++;
    replyLongLong(c, old);
}

void getbitCommand(client *c) {
    uint64_t offset;
    if (bitsParseOffsetOrReply(c, c->argv[2], 0, 0, &offset) != C_OK) return;
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    if (checkType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = (const unsigned char *)stringObjectPtr(o, buf, &len);
    int bit = 0;
    if ((offset >> 3) < len) bit = (p[offset >> 3] >> (7 - (offset & 7))) & 1;
    replyLongLong(c, bit);
}

/* ---- BITCOUNT / BITPOS ---- */

/* BITCOUNT key [start end [BYTE|BIT]]. As in Redis 7.0 the key is looked
 * up before the range is parsed: a missing key answers 0 whatever follows. */
void bitcountCommand(client *c) {
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    if (checkType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = (const unsigned char *)stringObjectPtr(o, buf, &len);
    long long start, end;
    int isbit = 0;
    if (c->argc == 4 || c->argc == 5) {
        if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK) return;
        if (getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK) return;
        /* Both negative and reversed: empty before the unit is even read. */
        if (start < 0 && end < 0 && start > end) {
            replyConst(c, ":0\r\n");
            return;
        }
        if (c->argc == 5 && (isbit = bitsParseUnitOrReply(c, c->argv[4])) < 0) return;
        bitsNormalizeRange(isbit ? (long long)len * 8 : (long long)len, &start, &end);
    } else if (c->argc == 2) {
        start = 0;
        end = (long long)len - 1;
    } else {
        replyErrorSyntax(c);
        return;
    }
    if (start > end) {
        replyConst(c, ":0\r\n");
        return;
    }
    if (isbit) replyLongLong(c, bitsCountRange(p, (uint64_t)start, (uint64_t)end));
    else replyLongLong(c, bitsPopcount(p + start, (size_t)(end - start + 1)));
}

/* BITPOS key bit [start [end [BYTE|BIT]]]. Looking for a 0 without an
 * explicit end treats the string as followed by zero bytes, so a string of
 * all ones answers its length in bits; with an end given, or looking for a
 * 1, "not found" is -1. */
void bitposCommand(client *c) {
    long bit;
    if (getLongFromObjectOrReply(c, c->argv[2], &bit, NULL) != C_OK) return;
    if (bit != 0 && bit != 1) {
        replyError(c, "ERR The bit argument must be 1 or 0.");
        return;
    }
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        /* A missing key is an endless run of zeros. */
        replyLongLong(c, bit ? -1 : 0);
        return;
    }
    if (checkType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = (const unsigned char *)stringObjectPtr(o, buf, &len);
    long long start, end;
    int isbit = 0, end_given = 0;
    if (c->argc >= 4 && c->argc <= 6) {
        if (getLongLongFromObjectOrReply(c, c->argv[3], &start, NULL) != C_OK) return;
        if (c->argc == 6 && (isbit = bitsParseUnitOrReply(c, c->argv[5])) < 0) return;
        if (c->argc >= 5) {
            if (getLongLongFromObjectOrReply(c, c->argv[4], &end, NULL) != C_OK) return;
            end_given = 1;
        } else {
            end = (long long)len - 1;
        }
        bitsNormalizeRange(isbit ? (long long)len * 8 : (long long)len, &start, &end);
    } else if (c->argc == 3) {
        start = 0;
        end = (long long)len - 1;
    } else {
        replyErrorSyntax(c);
        return;
    }
    if (start > end) {
        replyConst(c, ":-1\r\n");
        return;
    }
    uint64_t from = isbit ? (uint64_t)start : (uint64_t)start * 8;
    uint64_t to = isbit ? (uint64_t)end : (uint64_t)end * 8 + 7;
    long long pos = bitsFindBit(p, from, to, (int)bit);
    if (pos < 0 && bit == 0 && !end_given) pos = (long long)to + 1;
    replyLongLong(c, pos);
}

/* ---- BITOP ---- */

#define BITOP_AND 0
#define BITOP_OR  1
#define BITOP_XOR 2
#define BITOP_NOT 3

/* Combine src (len bytes, zero beyond) into res (reslen bytes), eight bytes
 * at a time while both have them. */
static void bitopCombine(int op, unsigned char *res, size_t reslen, const unsigned char *src, size_t len) {
    size_t n = len < reslen ? len : reslen, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, res + i, 8);
        memcpy(&b, src + i, 8);
        a = op == BITOP_AND ? (a & b) : op == BITOP_OR ? (a | b) : (a ^ b);
        memcpy(res + i, &a, 8);
    }
    for (; i < n; i++) {
        if (op == BITOP_AND) res[i] &= src[i];
        else if (op == BITOP_OR) res[i] |= src[i];
        else res[i] ^= src[i];
    }
    /* Past the end of a shorter source its bytes are zero: only AND cares. */
    if (op == BITOP_AND && n < reslen) memset(res + n, 0, reslen - n);
}

/* BITOP op destkey key [key ...]. Missing sources are empty strings; the
 * result is as long as the longest source. */
void bitopCommand(client *c) {
    const char *opname = c->argv[1]->ptr;
    int op;
    if (!strcasecmp(opname, "and")) op = BITOP_AND;
    else if (!strcasecmp(opname, "or")) op = BITOP_OR;
    else if (!strcasecmp(opname, "xor")) op = BITOP_XOR;
    else if (!strcasecmp(opname, "not")) op = BITOP_NOT;
    else {
        replyErrorSyntax(c);
        return;
    }
    if (op == BITOP_NOT && c->argc != 4) {
        replyError(c, "ERR BITOP NOT must be called with a single source key.");
        return;
    }
    int numkeys = c->argc - 3;
    /* Decoded references: the destination may be one of the sources and is
     * about to be replaced, so the inputs are pinned until the end. */
    robj **src = zcalloc(sizeof(robj *) * numkeys);
    size_t maxlen = 0;
    for (int j = 0; j < numkeys; j++) {
        robj *o = dbLookupRead(c->db, c->argv[j + 3]);
        if (!o) continue;
        if (o->type != OBJ_STRING) {
            replyErrorWrongType(c);
            for (int k = 0; k < j; k++)
                if (src[k]) decrRefCount(src[k]);
            zfree(src);
            return;
        }
        src[j] = getDecodedObject(o);
        if (sdslen(src[j]->ptr) > maxlen) maxlen = sdslen(src[j]->ptr);
    }
    sds res = NULL;
    if (maxlen) {
        res = sdsnewlen(NULL, maxlen);
        unsigned char *r = (unsigned char *)res;
        const unsigned char *s0 = src[0] ? src[0]->ptr : NULL;
        size_t l0 = src[0] ? sdslen(src[0]->ptr) : 0;
        if (l0) memcpy(r, s0, l0);
        if (op == BITOP_NOT) {
            for (size_t i = 0; i < maxlen; i++) r[i] = (unsigned char)~r[i];
        } else {
            for (int j = 1; j < numkeys; j++) {
                size_t lj = src[j] ? sdslen(src[j]->ptr) : 0;
                bitopCombine(op, r, maxlen, src[j] ? src[j]->ptr : NULL, lj);
            }
        }
    }
    for (int j = 0; j < numkeys; j++)
        if (src[j]) decrRefCount(src[j]);
    zfree(src);

    robj *dest = c->argv[2];
    if (maxlen) {
        keyRef ref;
        dbFindForWrite(c->db, dest, &ref);
        int existed = ref.de != NULL;
        dbSetValue(&ref, createObject(OBJ_STRING, res));
        if (existed) dbRemoveExpireEntry(c->db, ref.de);
        signalModifiedKey(c, c->db, dest);
        notifyKeyspaceEvent(NOTIFY_STRING, "set", dest, c->db->id);
        server.dirty++;
        replyLongLong(c, (long long)maxlen);
    } else if (dbDelete(c->db, dest)) {
        signalModifiedKey(c, c->db, dest);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dest, c->db->id);
        server.dirty++;
        replyConst(c, ":0\r\n");
    } else {
        replyConst(c, ":0\r\n");
    }
}

/* ---- BITFIELD ---- */

#define BF_GET    0
#define BF_SET    1
#define BF_INCRBY 2

#define BF_WRAP 0
#define BF_SAT  1
#define BF_FAIL 2

typedef struct bitfieldOp {
    uint64_t offset;
    long long value; /* SET value or INCRBY increment */
    int opcode;
    int overflow;    /* the OVERFLOW mode in effect when the op was parsed */
    int bits;
    int sign;
} bitfieldOp;

/* "i1".."i64" or "u1".."u63" (lower case only, as in Redis). */
static int bitfieldParseTypeOrReply(client *c, robj *arg, int *sign, int *bits) {
    const char *p = arg->ptr;
    long long n;
    if (p[0] == 'i') *sign = 1;
    else if (p[0] == 'u') *sign = 0;
    else goto err;
    /* strlen, not sdslen: the width ends at the first NUL, like Redis. */
    if (!string2ll(p + 1, strlen(p + 1), &n) || n < 1 || n > (*sign ? 64 : 63)) goto err;
    *bits = (int)n;
    return C_OK;
err:
    replyError(c, "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.");
    return C_ERR;
}

/* The bits-wide field at bit offset of p, MSB first, as an unsigned number. */
static uint64_t bitfieldGet(const unsigned char *p, uint64_t offset, int bits) {
    uint64_t v = 0;
    for (int j = 0; j < bits; j++, offset++)
        v = (v << 1) | ((p[offset >> 3] >> (7 - (offset & 7))) & 1);
    return v;
}

/* Store the low `bits` bits of v at bit offset of p. */
static void bitfieldSet(unsigned char *p, uint64_t offset, int bits, uint64_t v) {
    for (int j = bits - 1; j >= 0; j--, offset++) {
        unsigned char mask = (unsigned char)(1 << (7 - (offset & 7)));
        if ((v >> j) & 1) p[offset >> 3] |= mask;
        else p[offset >> 3] &= (unsigned char)~mask;
    }
}

/* Sign-extend a bits-wide two's complement field. */
static int64_t bitfieldSignExtend(uint64_t v, int bits) {
    if (bits < 64 && (v >> (bits - 1)) & 1) v |= UINT64_MAX << bits;
    return (int64_t)v;
}

/* Read a field from a string that may be shorter than the field (or NULL):
 * up to nine bytes are copied into a zeroed buffer first, enough for any
 * 64-bit field at any bit alignment. */
static uint64_t bitfieldGetPadded(const unsigned char *p, size_t len, uint64_t offset, int bits) {
    unsigned char buf[9] = {0};
    uint64_t byte = offset >> 3;
    for (int i = 0; i < 9 && p && byte + i < len; i++) buf[i] = p[byte + i];
    return bitfieldGet(buf, offset & 7, bits);
}

/* value + incr in the field's range. Returns 1 on overflow; *out is what
 * gets stored (unless the mode is FAIL): the exact sum, the saturated bound,
 * or the sum truncated to the field width (two's complement for signed
 * fields). Unsigned SET passes the value reinterpreted as unsigned, so a
 * negative value overflows "upwards" (SAT stores the maximum), as in Redis. */
static int bitfieldAdd(int sign, int bits, __int128 value, __int128 incr, int mode, uint64_t *out) {
    __int128 max, min;
    if (sign) {
        max = ((__int128)1 << (bits - 1)) - 1;
        min = -max - 1;
    } else {
        max = ((__int128)1 << bits) - 1;
        min = 0;
    }
    __int128 sum = value + incr;
    int dir = sum > max ? 1 : (sum < min ? -1 : 0);
    /* Redis computes max - value in 64 bits: a signed SET of a value so
     * negative that this wraps is judged an overflow upwards, so SAT stores
     * the maximum. Reproduced for compatibility. */
    if (sign && bits < 64 && incr == 0 && max - value > INT64_MAX) dir = 1;
    if (dir == 0) {
        *out = (uint64_t)sum;
        return 0;
    }
    if (mode == BF_SAT) {
        *out = (uint64_t)(dir > 0 ? max : min);
    } else {
        uint64_t t = (uint64_t)sum;
        if (bits < 64) t &= (UINT64_C(1) << bits) - 1;
        *out = sign ? (uint64_t)bitfieldSignExtend(t, bits) : t;
    }
    return 1;
}

/* Parse every operation first (any error aborts the whole command before
 * anything is touched), then look the key up once, then run them in order. */
static void bitfieldGeneric(client *c, int readonly_cmd) {
    bitfieldOp *ops = zmalloc(sizeof(bitfieldOp) * (size_t)c->argc);
    int numops = 0, mode = BF_WRAP, writes = 0;
    uint64_t highest = 0;
    for (int j = 2; j < c->argc; j++) {
        int remaining = c->argc - j - 1;
        const char *sub = c->argv[j]->ptr;
        bitfieldOp *op = &ops[numops];
        if (!strcasecmp(sub, "get") && remaining >= 2) {
            op->opcode = BF_GET;
        } else if (!strcasecmp(sub, "set") && remaining >= 3) {
            op->opcode = BF_SET;
        } else if (!strcasecmp(sub, "incrby") && remaining >= 3) {
            op->opcode = BF_INCRBY;
        } else if (!strcasecmp(sub, "overflow") && remaining >= 1) {
            const char *m = c->argv[++j]->ptr;
            if (!strcasecmp(m, "wrap")) mode = BF_WRAP;
            else if (!strcasecmp(m, "sat")) mode = BF_SAT;
            else if (!strcasecmp(m, "fail")) mode = BF_FAIL;
            else {
                replyError(c, "ERR Invalid OVERFLOW type specified");
                goto done;
            }
            continue;
        } else {
            replyErrorSyntax(c);
            goto done;
        }
        if (bitfieldParseTypeOrReply(c, c->argv[j + 1], &op->sign, &op->bits) != C_OK) goto done;
        if (bitsParseOffsetOrReply(c, c->argv[j + 2], 1, op->bits, &op->offset) != C_OK) goto done;
        op->value = 0;
        if (op->opcode != BF_GET) {
            writes = 1;
            if (op->offset + op->bits - 1 > highest) highest = op->offset + op->bits - 1;
            if (getLongLongFromObjectOrReply(c, c->argv[j + 3], &op->value, NULL) != C_OK) goto done;
        }
        op->overflow = mode;
        numops++;
        j += op->opcode == BF_GET ? 2 : 3;
    }

    robj *o;
    keyRef ref;
    int grown = 0;
    if (!writes) {
        o = dbLookupRead(c->db, c->argv[1]);
        if (checkType(c, o, OBJ_STRING)) goto done;
    } else {
        if (readonly_cmd) {
            replyError(c, "ERR BITFIELD_RO only supports the GET subcommand");
            goto done;
        }
        if ((o = bitsStringForWrite(c, &ref, highest, &grown)) == NULL) goto done;
    }

    long long changes = 0;
    replyArrayLen(c, numops);
    for (int j = 0; j < numops; j++) {
        bitfieldOp *op = &ops[j];
        if (op->opcode == BF_GET) {
            char buf[LONG_STR_SIZE];
            size_t len = 0;
            const unsigned char *p = o ? (const unsigned char *)stringObjectPtr(o, buf, &len) : NULL;
            uint64_t v = bitfieldGetPadded(p, len, op->offset, op->bits);
            replyLongLong(c, op->sign ? bitfieldSignExtend(v, op->bits) : (long long)v);
            continue;
        }
        unsigned char *p = o->ptr;
        uint64_t oldraw = bitfieldGet(p, op->offset, op->bits);
        __int128 oldval = op->sign ? (__int128)bitfieldSignExtend(oldraw, op->bits) : (__int128)oldraw;
        uint64_t newraw;
        int overflow;
        long long result;
        if (op->opcode == BF_INCRBY) {
            overflow = bitfieldAdd(op->sign, op->bits, oldval, op->value, op->overflow, &newraw);
            result = op->sign ? (long long)(int64_t)newraw : (long long)newraw;
        } else {
            __int128 v = op->sign ? (__int128)op->value : (__int128)(uint64_t)op->value;
            overflow = bitfieldAdd(op->sign, op->bits, v, 0, op->overflow, &newraw);
            result = op->sign ? (long long)bitfieldSignExtend(oldraw, op->bits) : (long long)oldraw;
        }
        if (overflow && op->overflow == BF_FAIL) {
            replyNull(c);
            continue;
        }
        replyLongLong(c, result);
        if (op->bits < 64) newraw &= (UINT64_C(1) << op->bits) - 1;
        bitfieldSet(p, op->offset, op->bits, newraw);
        if (grown || newraw != oldraw) changes++;
    }
    /* BITFIELD notifies after the whole reply, as Redis does. */
    if (changes) {
        server.dirty += changes;
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STRING, "setbit", c->argv[1], c->db->id);
    }
done:
    zfree(ops);
}

void bitfieldCommand(client *c) { bitfieldGeneric(c, 0); }
void bitfieldroCommand(client *c) { bitfieldGeneric(c, 1); }
