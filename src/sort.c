/* sort: SORT and SORT_RO, with Redis 7.0.15's options and results.
 *
 *   SORT key [BY pattern] [LIMIT offset count] [GET pattern ...]
 *        [ASC|DESC] [ALPHA] [STORE destination]
 *
 * Data flow: the elements of the list, set or sorted set at `key` are
 * copied into a vector of sds strings (the source is not read again, so
 * pattern lookups that expire keys cannot pull it from under us). Each
 * element gets a sort weight: itself, or the value of the key (or hash
 * field, "key->field") its BY pattern names. The vector is sorted, the
 * LIMIT window is cut out of it, and each element in the window is replied
 * (or pushed onto a new list for STORE) as itself or as the values its GET
 * patterns name ("#" is the element itself; a missing key or field reads as
 * nil, or "" in a stored list).
 *
 * Redis' observable choices are kept, because replies must match it byte for
 * byte:
 *  - BY with a pattern without '*' means "don't sort": lists and sorted sets
 *    keep their own order (DESC walks it backwards, LIMIT picks the window
 *    directly); a set keeps its iteration order, except that with STORE it
 *    is sorted ALPHA so the stored list does not depend on the encoding.
 *  - A sorted set is converted to the skiplist encoding first, as Redis 7.0
 *    does (visible in OBJECT ENCODING), also by SORT_RO.
 *  - Numeric weights are parsed with strtod (leading blanks, hex and "inf"
 *    accepted, anything after a NUL ignored, NaN and out-of-range values
 *    rejected); equal weights are ordered by the element bytes. ALPHA
 *    compares with strcoll (LC_COLLATE from the environment, set at start-up
 *    below as redis-server does) except with STORE, which compares bytes.
 *  - The whole vector is sorted with the C library's qsort (glibc: a stable
 *    merge sort), but BY plus a LIMIT window that is not the whole vector
 *    uses a partial quicksort that orders only the part of the vector that
 *    overlaps the window. Ties (ALPHA with BY) therefore come out in the
 *    same order as in Redis, whose partial sort this reproduces step by
 *    step (Bentley & McIlroy's median-of-three quicksort, insertion sort
 *    under 7 elements, recursing only into partitions that overlap the
 *    window).
 *  - Patterns are read as C strings where Redis does (the '*', "->" and the
 *    "#" test stop at a NUL byte; the bytes after the '*' are kept).
 *
 * STORE is a write: the destination is looked up once (dbFindForWrite) after
 * every pattern lookup is done, replaced by the new list (dropping its TTL),
 * or deleted when the result is empty (dbDelete, which like Redis' does not
 * look at the TTL). Keyspace events come in Redis 7.0's order relative to the
 * reply (a RESP3 client subscribed to its own keys sees it): "keymiss" of the
 * source and BY keys before the reply, of each GET key just before that
 * element's value inside the array; for STORE, "new"/"sortstore" (or "del")
 * and then the count, which comes from the stack. The command is propagated
 * as it came, since replaying it gives the same list. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "args.h"
#include "client.h"
#include "commands.h"
#include "db.h"
#include "dict.h"
#include "log.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "listpack.h"
#include "acl.h"
#include "quicklist.h"
#include "sort.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "zset.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>

/* redis-server calls setlocale(LC_COLLATE, "") first thing in main(); ALPHA
 * ordering depends on it, and nothing else in the server uses collation. */
__attribute__((constructor)) static void sortInitLocale(void) { setlocale(LC_COLLATE, ""); }

/* One element of the sort vector. The union is the weight: a number, or for
 * ALPHA with BY the string to compare (NULL when the BY key is missing). The
 * layout (16 bytes) is Redis' redisSortObject's, so the C library sort
 * takes the same path for the same vector. */
typedef struct sortItem {
    sds ele;
    union {
        double score;
        sds cmp;
    } u;
} sortItem;

typedef struct sortCtx {
    int desc, alpha, bypattern, store;
} sortCtx;

/* ---------------------------------------------------------------------------
 * Pattern lookups
 * ------------------------------------------------------------------------ */

/* The value of a hash field as a new sds, or NULL if the field is absent.
 * (t_hash.c keeps its finder private; this reads the two encodings the same
 * way: listpack field/value pairs, or the sds -> sds dict.) */
static sds sortHashGet(robj *o, const char *field, size_t flen) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        unsigned char *fp = lpFirst(lp);
        if (!fp) return NULL;
        fp = lpFind(lp, fp, (const unsigned char *)field, (uint32_t)flen, 1);
        if (!fp) return NULL;
        unsigned char *vp = lpNext(lp, fp);
        unsigned int vlen = 0;
        long long vll = 0;
        unsigned char *vs = lpGetValue(vp, &vlen, &vll);
        return vs ? sdsnewlen(vs, vlen) : sdsfromlonglong(vll);
    }
    sds f = sdsnewlen(field, flen);
    dictEntry *de = dictFind(o->ptr, f);
    sdsfree(f);
    if (!de) return NULL;
    sds v = dictGetVal(de);
    return sdsnewlen(v, sdslen(v));
}

/* Is the pattern "#", the element itself? Redis tests the first two bytes
 * as a C string, so "#\0..." counts too. */
static inline int sortPatternIsSelf(sds pat) { return pat[0] == '#' && pat[1] == '\0'; }

/* The value a BY/GET pattern names for element ele, as a new sds, or NULL:
 * no '*' in the pattern, a missing key, a key of the wrong type (a string is
 * needed, or a hash for "->field"), or a missing field. */
static sds sortLookup(serverDb *db, sds pat, const char *ele, size_t elelen) {
    if (sortPatternIsSelf(pat)) return sdsnewlen(ele, elelen);
    size_t patlen = sdslen(pat);
    const char *star = strchr(pat, '*');
    if (!star) return NULL;
    const char *arrow = strstr(star + 1, "->");
    const char *field = NULL;
    size_t fieldlen = 0;
    if (arrow && arrow[2] != '\0') {
        field = arrow + 2;
        fieldlen = patlen - (size_t)(field - pat);
    }
    size_t prefixlen = (size_t)(star - pat);
    size_t postfixlen = patlen - prefixlen - 1 - (field ? fieldlen + 2 : 0);
    sds k = sdsnewlenuninit(prefixlen + elelen + postfixlen);
    memcpy(k, pat, prefixlen);
    memcpy(k + prefixlen, ele, elelen);
    memcpy(k + prefixlen + elelen, star + 1, postfixlen);
    robj *keyobj = createObject(OBJ_STRING, k);
    robj *o = dbLookupRead(db, keyobj);
    decrRefCount(keyobj);
    if (!o) return NULL;
    if (field) return o->type == OBJ_HASH ? sortHashGet(o, field, fieldlen) : NULL;
    if (o->type != OBJ_STRING) return NULL;
    if (o->encoding == OBJ_ENCODING_INT) return sdsfromlonglong((long)o->ptr);
    return sdsnewlen(o->ptr, sdslen(o->ptr));
}

/* ---------------------------------------------------------------------------
 * Comparison and the two sorts
 * ------------------------------------------------------------------------ */

static inline int sortBinaryCompare(sds a, sds b) {
    size_t la = sdslen(a), lb = sdslen(b);
    int cmp = memcmp(a, b, la < lb ? la : lb);
    if (cmp == 0) return la < lb ? -1 : (la > lb ? 1 : 0);
    return cmp;
}

static int sortCompare(const void *p1, const void *p2, void *privdata) {
    const sortItem *a = p1, *b = p2;
    const sortCtx *ctx = privdata;
    int cmp;
    if (!ctx->alpha) {
        if (a->u.score > b->u.score) cmp = 1;
        else if (a->u.score < b->u.score) cmp = -1;
        else cmp = sortBinaryCompare(a->ele, b->ele); /* deterministic ties */
    } else if (ctx->bypattern) {
        if (!a->u.cmp || !b->u.cmp) {
            /* A missing weight sorts first; two missing ones are equal. */
            if (a->u.cmp == b->u.cmp) cmp = 0;
            else cmp = a->u.cmp == NULL ? -1 : 1;
        } else {
            cmp = ctx->store ? sortBinaryCompare(a->u.cmp, b->u.cmp) : strcoll(a->u.cmp, b->u.cmp);
        }
    } else {
        cmp = ctx->store ? sortBinaryCompare(a->ele, b->ele) : strcoll(a->ele, b->ele);
    }
    return ctx->desc ? -cmp : cmp;
}

static inline void sortSwap(sortItem *a, sortItem *b) {
    sortItem t = *a;
    *a = *b;
    *b = t;
}

static inline void sortVecSwap(sortItem *a, sortItem *b, long n) {
    for (long i = 0; i < n; i++) sortSwap(a + i, b + i);
}

static inline sortItem *sortMed3(sortItem *a, sortItem *b, sortItem *c, const sortCtx *ctx) {
    if (sortCompare(a, b, (void *)ctx) < 0) {
        if (sortCompare(b, c, (void *)ctx) < 0) return b;
        return sortCompare(a, c, (void *)ctx) < 0 ? c : a;
    }
    if (sortCompare(b, c, (void *)ctx) > 0) return b;
    return sortCompare(a, c, (void *)ctx) < 0 ? a : c;
}

/* Partial quicksort: afterwards v[lo..hi] (indexes into the original
 * vector `base`) hold the elements a full sort would put there, in order.
 * Partitions that do not overlap [lo, hi] are left unsorted. */
static void sortPartial(sortItem *base, sortItem *a, long n, long lo, long hi, const sortCtx *ctx) {
    for (;;) {
        if (n < 7) {
            for (long m = 1; m < n; m++)
                for (long l = m; l > 0 && sortCompare(a + l - 1, a + l, (void *)ctx) > 0; l--)
                    sortSwap(a + l, a + l - 1);
            return;
        }
        sortItem *pm = a + n / 2;
        if (n > 7) {
            sortItem *pl = a, *pn = a + n - 1;
            if (n > 40) {
                long d = n / 8;
                pl = sortMed3(pl, pl + d, pl + 2 * d, ctx);
                pm = sortMed3(pm - d, pm, pm + d, ctx);
                pn = sortMed3(pn - 2 * d, pn - d, pn, ctx);
            }
            pm = sortMed3(pl, pm, pn, ctx);
        }
        sortSwap(a, pm);
        /* Three-way partition around a[0]: elements equal to the pivot are
         * parked at both ends and swapped into the middle afterwards. */
        long pa = 1, pb = 1, pc = n - 1, pd = n - 1;
        for (;;) {
            int r;
            while (pb <= pc && (r = sortCompare(a + pb, a, (void *)ctx)) <= 0) {
                if (r == 0) sortSwap(a + pa++, a + pb);
                pb++;
            }
            while (pb <= pc && (r = sortCompare(a + pc, a, (void *)ctx)) >= 0) {
                if (r == 0) sortSwap(a + pc, a + pd--);
                pc--;
            }
            if (pb > pc) break;
            sortSwap(a + pb++, a + pc--);
        }
        long r = pa < pb - pa ? pa : pb - pa;
        sortVecSwap(a, a + pb - r, r);
        r = pd - pc < n - pd - 1 ? pd - pc : n - pd - 1;
        sortVecSwap(a + pb, a + n - r, r);
        /* Smaller than the pivot: a[0 .. pb-pa-1]; larger: the last pd-pc. */
        if ((r = pb - pa) > 1) {
            long s = a - base, e = s + r - 1;
            if (!((lo < s && hi < s) || (lo > e && hi > e))) sortPartial(base, a, r, lo, hi, ctx);
        }
        if ((r = pd - pc) > 1) {
            a = a + n - r;
            n = r;
            long s = a - base, e = s + r - 1;
            if (!((lo < s && hi < s) || (lo > e && hi > e))) continue;
        }
        return;
    }
}

/* ---------------------------------------------------------------------------
 * Loading the vector
 * ------------------------------------------------------------------------ */

static inline void sortItemSet(sortItem *it, sds ele) {
    it->ele = ele;
    it->u.cmp = NULL; /* weight 0 / no compare string */
}

static inline sds sortSdsFromQlEntry(const quicklistEntry *e) {
    return e->value ? sdsnewlen(e->value, e->sz) : sdsfromlonglong(e->longval);
}

/* Elements idx, idx+1 ... (desc: idx, idx-1 ...) of a list, n at most. */
static long sortLoadList(robj *o, sortItem *v, long idx, long n, int backwards) {
    quicklistIter it;
    quicklistEntry e;
    long j = 0;
    if (n <= 0) return 0;
    if (quicklistInitIteratorAtIdx(&it, o->ptr, backwards ? QUICKLIST_START_TAIL : QUICKLIST_START_HEAD, idx))
        while (j < n && quicklistNext(&it, &e)) sortItemSet(&v[j++], sortSdsFromQlEntry(&e));
    quicklistResetIterator(&it);
    return j;
}

static long sortLoadSet(robj *o, sortItem *v) {
    setTypeIterator si;
    const char *str;
    size_t len;
    long long ll;
    long j = 0;
    setTypeInitIterator(&si, o);
    while (setTypeNext(&si, &str, &len, &ll))
        sortItemSet(&v[j++], str ? sdsnewlen(str, len) : sdsfromlonglong(ll));
    setTypeResetIterator(&si);
    return j;
}

/* n members of a sorted set from rank `rank` (counted from the lowest
 * score), walking up, or down when reverse. */
static long sortLoadZset(robj *o, sortItem *v, unsigned long rank, long n, int reverse) {
    if (n <= 0) return 0;
    zsetIter it;
    zsetIterInitAtRank(&it, o, rank, reverse);
    long j = 0;
    while (j < n && zsetIterValid(&it)) {
        size_t len;
        const char *m = zsetIterMember(&it, &len);
        sortItemSet(&v[j++], sdsnewlen(m, len));
        zsetIterNext(&it);
    }
    return j;
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------ */

/* A numeric weight the way Redis reads it: strtod on the C string. Redis
 * does not clear errno first, so an ERANGE left by an earlier command (ZADD
 * 1e400 ...) fails its next numeric SORT of non-integer strings; that
 * depends on unrelated history and is deliberately not reproduced. */
static int sortParseScore(sds s, double *score) {
    char *eptr;
    errno = 0;
    *score = strtod(s, &eptr);
    return !(eptr[0] != '\0' || errno == ERANGE || isnan(*score));
}

static void sortGeneric(client *c, int readonly) {
    sortCtx ctx = {0, 0, 0, 0};
    long limit_start = 0, limit_count = -1;
    int dontsort = 0;
    robj *sortby = NULL, *storekey = NULL;
    robj **getops = zmalloc(sizeof(robj *) * (size_t)c->argc);
    long getop = 0;

    for (int j = 2; j < c->argc; j++) {
        int leftargs = c->argc - j - 1;
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "asc")) {
            ctx.desc = 0;
        } else if (!strcasecmp(opt, "desc")) {
            ctx.desc = 1;
        } else if (!strcasecmp(opt, "alpha")) {
            ctx.alpha = 1;
        } else if (!strcasecmp(opt, "limit") && leftargs >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &limit_start, NULL) != C_OK ||
                getLongFromObjectOrReply(c, c->argv[j + 2], &limit_count, NULL) != C_OK) {
                zfree(getops);
                return;
            }
            j += 2;
        } else if (!readonly && !strcasecmp(opt, "store") && leftargs >= 1) {
            storekey = c->argv[++j];
        } else if (!strcasecmp(opt, "by") && leftargs >= 1) {
            sortby = c->argv[++j];
            /* A pattern without '*' names no key: don't sort at all (and,
             * as in Redis, a later BY with a '*' does not undo that). */
            if (strchr(sortby->ptr, '*') == NULL) {
                dontsort = 1;
            } else if (!aclClientHasFullKeyAccess(c)) {
                /* the keys a pattern reaches are not known in advance:
                 * only a user that may read every key may use one */
                replyError(c, "ERR BY option of SORT denied due to insufficient ACL permissions.");
                zfree(getops);
                return;
            }
        } else if (!strcasecmp(opt, "get") && leftargs >= 1) {
            if (!aclClientHasFullKeyAccess(c)) {
                replyError(c, "ERR GET option of SORT denied due to insufficient ACL permissions.");
                zfree(getops);
                return;
            }
            getops[getop++] = c->argv[++j];
        } else {
            replyErrorSyntax(c);
            zfree(getops);
            return;
        }
    }

    robj *sortval = dbLookupRead(c->db, c->argv[1]);
    if (sortval && sortval->type != OBJ_SET && sortval->type != OBJ_LIST && sortval->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        zfree(getops);
        return;
    }
    int type = sortval ? (int)sortval->type : OBJ_LIST; /* missing: an empty list */

    /* An unsorted set would store (or hand a script) its encoding's order,
     * which replicas and the AOF need not share: sort it instead. */
    if (dontsort && type == OBJ_SET && (storekey || (c->flags & CLIENT_SCRIPT))) {
        dontsort = 0;
        ctx.alpha = 1;
        sortby = NULL;
    }
    if (type == OBJ_ZSET) zsetConvert(sortval, OBJ_ENCODING_SKIPLIST);

    long vectorlen = 0;
    if (sortval) {
        if (type == OBJ_LIST) vectorlen = (long)listTypeLength(sortval);
        else if (type == OBJ_SET) vectorlen = (long)setTypeSize(sortval);
        else vectorlen = (long)zsetLength(sortval);
    }

    /* The LIMIT window [start, end], clamped to the vector. */
    long start = limit_start < 0 ? 0 : limit_start;
    if (start > vectorlen) start = vectorlen;
    if (limit_count < -1) limit_count = -1;
    if (limit_count > vectorlen) limit_count = vectorlen;
    long end = limit_count < 0 ? vectorlen - 1 : start + limit_count - 1;
    if (start >= vectorlen) {
        start = vectorlen - 1;
        end = vectorlen - 2;
    }
    if (end >= vectorlen) end = vectorlen - 1;

    /* Lists and sorted sets in their own order: load just the window. */
    int direct = (type == OBJ_ZSET || type == OBJ_LIST) && dontsort;
    long fulllen = vectorlen;
    if (direct && (start != 0 || end != vectorlen - 1)) vectorlen = end - start + 1;
    if (vectorlen < 0) vectorlen = 0;

    sortItem *vector = zmalloc(sizeof(sortItem) * (size_t)(vectorlen ? vectorlen : 1));
    long loaded = 0;
    if (!sortval) {
        loaded = 0;
    } else if (type == OBJ_LIST && direct) {
        if (end >= start) {
            loaded = sortLoadList(sortval, vector, ctx.desc ? fulllen - start - 1 : start, vectorlen, ctx.desc);
            end -= start;
            start = 0;
        }
    } else if (type == OBJ_LIST) {
        loaded = sortLoadList(sortval, vector, 0, vectorlen, 0);
    } else if (type == OBJ_SET) {
        loaded = sortLoadSet(sortval, vector);
    } else if (direct) {
        if (vectorlen > 0)
            loaded = sortLoadZset(sortval, vector,
                                  (unsigned long)(ctx.desc ? fulllen - 1 - start : start), vectorlen, ctx.desc);
        end -= start;
        start = 0;
    } else {
        loaded = sortLoadZset(sortval, vector, 0, vectorlen, 0);
    }
    serverAssert(loaded == vectorlen);

    /* Weights, then the sort. */
    int int_conversion_error = 0;
    if (!dontsort) {
        for (long j = 0; j < vectorlen; j++) {
            sds byval = vector[j].ele;
            if (sortby) {
                byval = sortLookup(c->db, sortby->ptr, vector[j].ele, sdslen(vector[j].ele));
                if (!byval) continue;
            }
            if (ctx.alpha) {
                if (sortby) {
                    vector[j].u.cmp = byval;
                    byval = NULL;
                }
            } else if (!sortParseScore(byval, &vector[j].u.score)) {
                int_conversion_error = 1;
            }
            if (sortby && byval) sdsfree(byval);
        }
        ctx.bypattern = sortby != NULL;
        ctx.store = storekey != NULL;
        if (!int_conversion_error && vectorlen > 1) {
            if (sortby && (start != 0 || end != vectorlen - 1))
                sortPartial(vector, vector, vectorlen, start, end, &ctx);
            else
                qsort_r(vector, (size_t)vectorlen, sizeof(sortItem), sortCompare, &ctx);
        }
    }

    long long n = end - start + 1;
    long long outputlen = getop ? getop * n : n;
    if (int_conversion_error) {
        replyError(c, "ERR One or more scores can't be converted into double");
    } else if (!storekey) {
        replyArrayLen(c, (long)outputlen);
        for (long j = start; j <= end; j++) {
            sds ele = vector[j].ele;
            if (!getop) replyBulkBuf(c, ele, sdslen(ele));
            for (long g = 0; g < getop; g++) {
                sds val = sortLookup(c->db, getops[g]->ptr, ele, sdslen(ele));
                if (val) replyBulkSds(c, val);
                else replyNull(c);
            }
        }
    } else {
        robj *list = listTypeCreate();
        for (long j = start; j <= end; j++) {
            sds ele = vector[j].ele;
            if (!getop) listTypePush(list, ele, sdslen(ele), QUICKLIST_TAIL);
            for (long g = 0; g < getop; g++) {
                sds val = sortLookup(c->db, getops[g]->ptr, ele, sdslen(ele));
                if (val) {
                    listTypePush(list, val, sdslen(val), QUICKLIST_TAIL);
                    sdsfree(val);
                } else {
                    listTypePush(list, "", 0, QUICKLIST_TAIL);
                }
            }
        }
        if (outputlen) {
            keyRef ref;
            dbFindForWrite(c->db, storekey, &ref);
            int existed = ref.de != NULL;
            dbSetValue(&ref, list);
            if (existed) dbRemoveExpireEntry(c->db, ref.de);
            server.dirty += outputlen;
            signalModifiedKey(c, c->db, storekey);
            notifyKeyspaceEvent(NOTIFY_LIST, "sortstore", storekey, c->db->id);
        } else {
            decrRefCount(list);
            if (dbDelete(c->db, storekey)) {
                server.dirty++;
                signalModifiedKey(c, c->db, storekey);
                notifyKeyspaceEvent(NOTIFY_GENERIC, "del", storekey, c->db->id);
            }
        }
        replyLongLong(c, outputlen); /* after the events, as in Redis; a stack value */
    }

    for (long j = 0; j < vectorlen; j++) {
        sdsfree(vector[j].ele);
        if (ctx.alpha && sortby && !dontsort) sdsfree(vector[j].u.cmp);
    }
    zfree(vector);
    zfree(getops);
}

void sortCommand(client *c) { sortGeneric(c, 0); }

void sortroCommand(client *c) { sortGeneric(c, 1); }

/* COMMAND GETKEYS and friends: the sorted key, and the destination of the
 * last STORE (SORT keeps the last one too). Options that take arguments are
 * skipped with them, so a GET or BY pattern spelled "store" is not taken
 * for the option. BY and GET patterns name keys only once the data is
 * known, so they are not reported, as in Redis. */
int sortGetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    static const struct {
        const char *name;
        int skip;
    } withargs[] = {{"limit", 2}, {"get", 1}, {"by", 1}, {NULL, 0}};
    int found_store = 0;
    keys[0].pos = 1;
    keys[0].flags = CMD_KEY_RO | CMD_KEY_ACCESS;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i]->ptr;
        int j;
        for (j = 0; withargs[j].name; j++)
            if (!strcasecmp(arg, withargs[j].name)) break;
        if (withargs[j].name) {
            i += withargs[j].skip;
        } else if (!strcasecmp(arg, "store") && i + 1 < argc) {
            found_store = 1;
            keys[1].pos = i + 1;
            keys[1].flags = CMD_KEY_OW | CMD_KEY_UPDATE;
        }
    }
    return 1 + found_store;
}

int sortroGetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    (void)argv;
    (void)argc;
    keys[0].pos = 1;
    keys[0].flags = CMD_KEY_RO | CMD_KEY_ACCESS;
    return 1;
}
