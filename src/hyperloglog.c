/* hyperloglog: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST on string values
 * holding Redis' HyperLogLog format (hll.c owns the format; this file owns
 * keys, replies and the hll-sparse-max-bytes setting).
 *
 * Writes look the key up once (dbFindForWrite) and modify a private raw copy
 * of the value (dbUnshareStringValue). PFCOUNT of one key stores the
 * recomputed cardinality back into the value, which counts as a change
 * (dirty, propagation) exactly when the cache was stale. As in Redis 7.0,
 * keyspace notifications and invalidations come before the reply, which is
 * then built from values on the stack. */
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
#include "hll.h"
#include "t_bits.h"

#include <math.h>

#define HLL_INVALID_ERR "INVALIDOBJ Corrupted HLL object detected"

/* The checks every PF command makes on an existing key: a string, with the
 * magic, a known encoding, and the exact length when dense. The sparse body
 * is only checked when it is walked. */
static int hllCheckOrReply(client *c, robj *o) {
    if (o->type != OBJ_STRING) {
        replyErrorWrongType(c);
        return C_ERR;
    }
    if (sdsEncodedObject(o) && hllHeaderValid(o->ptr, sdslen(o->ptr))) return C_OK;
    replyError(c, "WRONGTYPE Key is not a valid HyperLogLog string value.");
    return C_ERR;
}

static int hllEncoding(const robj *o) { return hllEncodingOf(o->ptr); }

/* The value of a key, as an sds the hll functions may replace. */
static int hllAddTo(robj *o, const unsigned char *ele, size_t len) {
    return hllAdd((sds *)&o->ptr, ele, len, (size_t)cfg.hll_sparse_max_bytes);
}

static int hllSetIn(robj *o, long index, int count) {
    return hllSetRegister((sds *)&o->ptr, index, count, (size_t)cfg.hll_sparse_max_bytes);
}

static robj *hllCreate(void) { return createObject(OBJ_STRING, hllNew()); }

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
        int r = hllAddTo(o, c->argv[j]->ptr, sdslen(c->argv[j]->ptr));
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
            if (hllMergeMax(buf + HLL_HDR_SIZE, o->ptr, sdslen(o->ptr)) != 0) {
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
    if (hllCheckOrReply(c, o) != C_OK) return;
    o = dbUnshareStringValue(&ref);
    uint8_t *h = o->ptr;
    if (hllCacheValid(h)) {
        replyLongLong(c, (long long)hllCacheGet(h));
        return;
    }
    int invalid = 0;
    uint64_t card = hllCount(h, sdslen(o->ptr), h[HLL_ENC_OFFSET], &invalid);
    if (invalid) {
        replyError(c, HLL_INVALID_ERR);
        return;
    }
    hllCacheSet(h, card);
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
        if (hllMergeMax(max, o->ptr, sdslen(o->ptr)) != 0) {
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
    if (use_dense && hllToDense((sds *)&o->ptr) != 0) {
        replyError(c, HLL_INVALID_ERR);
        goto done;
    }
    for (long j = 0; j < HLL_REGISTERS; j++) {
        if (max[j] == 0) continue;
        /* Re-read the encoding: a sparse update may promote the value. */
        hllSetIn(o, j, max[j]);
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
            if (hllToDense((sds *)&o->ptr) != 0) {
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
        long run;
        int val;
        while (p < end) {
            switch (hllSparseNext(&p, &run, &val)) {
            case HLL_OPCODE_ZERO: out = sdscatprintf(out, "z:%ld ", run); break;
            case HLL_OPCODE_XZERO: out = sdscatprintf(out, "Z:%ld ", run); break;
            default: out = sdscatprintf(out, "v:%d,%ld ", val, run); break;
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
    if (!fail && hllToDense((sds *)&dense->ptr) != 0) fail = "TODENSE failed at";
    const double maxerr = 5 * 1.04 / sqrt(HLL_REGISTERS);
    long checkpoint = 10;
    for (long n = 1; n <= 100000 && !fail; n++) {
        unsigned char ele[16];
        int len = ll2string((char *)ele, sizeof(ele), n * 7919);
        int a = hllAddTo(sparse, ele, (size_t)len);
        int b = hllAddTo(dense, ele, (size_t)len);
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
