/* tracking: server-assisted client-side caching (CLIENT TRACKING and
 * friends) and the invalidation messages it sends.
 *
 * In the default mode the server remembers which clients read which keys
 * (the tracking table: key -> reader ids, filled after read-only commands
 * of tracking clients) and, when a key changes (signalModifiedKey, expiry,
 * eviction), tells each reader once and forgets them; past
 * tracking-table-max-keys, random keys are invalidated that way until the
 * table fits again. In BCAST mode clients register key prefixes instead;
 * changed keys are collected per prefix and broadcast before the loop
 * sleeps. Invalidations leave as RESP3 pushes
 * ("invalidate") or, for RESP2 clients, through a redirect client that
 * subscribed to __redis__:invalidate. A client's own reply always comes
 * before the invalidations its command caused (they are queued while it
 * runs). The table owns its key copies and id arrays. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "reply.h"
#include "script.h"
#include "sds.h"
#include "server_state.h"
#include "tracking.h"
#include "util.h"
#include "zmalloc.h"

#include <stdlib.h>

#define TRACKING_CHANNEL "__redis__:invalidate"

typedef struct idArray {
    uint64_t *v;
    int len, cap;
} idArray;

/* Returns 1 if id was added, 0 if it was there already. */
static int idArrayAdd(idArray *a, uint64_t id) {
    for (int j = 0; j < a->len; j++)
        if (a->v[j] == id) return 0;
    if (a->len == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 4;
        a->v = zrealloc(a->v, sizeof(uint64_t) * a->cap);
    }
    a->v[a->len++] = id;
    return 1;
}

static void idArrayRemove(idArray *a, uint64_t id) {
    for (int j = 0; j < a->len; j++)
        if (a->v[j] == id) {
            a->v[j] = a->v[--a->len];
            return;
        }
}

static void idArrayFree(dict *d, void *val) {
    (void)d;
    idArray *a = val;
    zfree(a->v);
    zfree(a);
}

/* A BCAST prefix: its clients and the keys changed since the last broadcast
 * (key -> id of the client that changed it, for NOLOOP). */
typedef struct bcastPrefix {
    idArray clients;
    dict *keys;
} bcastPrefix;

static void bcastPrefixFree(dict *d, void *val) {
    (void)d;
    bcastPrefix *p = val;
    zfree(p->clients.v);
    if (p->keys) dictRelease(p->keys);
    zfree(p);
}

static dictType trackingTableType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare,
                                     dictSdsDestructor, idArrayFree, NULL};
static dictType prefixTableType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor,
                                   bcastPrefixFree, NULL};
static dictType pendingKeysType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor,
                                   NULL, NULL};

static dict *tracking_table;  /* sds key -> idArray of readers */
static dict *prefix_table;    /* sds prefix -> bcastPrefix */
static unsigned long tracking_clients;
static unsigned long tracking_items; /* (key, reader) pairs in tracking_table */
/* Invalidations for the client running the current command wait until its
 * reply is written: (client id, key or NULL for "everything"). */
typedef struct pendingInval {
    uint64_t id;
    robj *key;
    struct pendingInval *next;
} pendingInval;
static pendingInval *pending_head, *pending_tail;

unsigned long trackingClientsCount(void) { return tracking_clients; }
unsigned long trackingTotalKeys(void) { return tracking_table ? dictSize(tracking_table) : 0; }
unsigned long trackingTotalItems(void) { return tracking_items; }
unsigned long trackingTotalPrefixes(void) { return prefix_table ? dictSize(prefix_table) : 0; }

/* Who receives c's invalidations: c itself or its redirect target. */
static client *trackingTarget(client *c) {
    if (!c->tracking_redirect) return c;
    client *t = clientLookupById(c->tracking_redirect);
    if (!t && !(c->flags & CLIENT_TRACKING_BROKEN_REDIR)) {
        c->flags |= CLIENT_TRACKING_BROKEN_REDIR;
        if (c->resp >= 3) {
            replyBegin(c);
            replyPushLen(c, 2);
            replyBulkCString(c, "tracking-redir-broken");
            replyLongLong(c, (long long)c->tracking_redirect);
        }
    }
    return t;
}

static int trackingSubscribed(client *t) {
    static sds channel; /* the dict wants a real sds to hash */
    if (!channel) channel = sdsnew(TRACKING_CHANNEL);
    return dictFind(t->pubsub_channels, channel) != NULL;
}

/* Send one invalidation (keys[0..n), or n == -1 for "all keys"). */
static void trackingSend(client *c, robj **keys, long n) {
    client *t = trackingTarget(c);
    if (!t || (t->flags & CLIENT_CLOSE_ASAP)) return;
    if (t->resp >= 3) {
        replyBegin(t);
        replyPushLen(t, 2);
        replyBulkCString(t, "invalidate");
    } else if (t->pubsub_channels && trackingSubscribed(t)) {
        replyBegin(t);
        replyPushLen(t, 3);
        replyBulkCString(t, "message");
        replyBulkCString(t, TRACKING_CHANNEL);
    } else {
        return; /* a RESP2 client without a redirect cannot receive pushes */
    }
    if (n < 0) {
        replyNull(t);
    } else {
        replyArrayLen(t, n);
        for (long j = 0; j < n; j++) replyBulk(t, keys[j]);
    }
}

static void trackingSendOrQueue(client *c, robj *key) {
    if (c == server.current_client && (c->flags & CLIENT_EXECUTING_COMMAND)) {
        pendingInval *p = zmalloc(sizeof(*p));
        p->id = c->id;
        p->key = key;
        if (key) incrRefCount(key);
        p->next = NULL;
        if (pending_tail) pending_tail->next = p;
        else pending_head = p;
        pending_tail = p;
        return;
    }
    trackingSend(c, key ? &key : NULL, key ? 1 : -1);
}

/* After a command: deliver what was queued for its client. */
void trackingHandlePending(void) {
    while (pending_head) {
        pendingInval *p = pending_head;
        pending_head = p->next;
        if (!pending_head) pending_tail = NULL;
        client *c = clientLookupById(p->id);
        if (c) trackingSend(c, p->key ? &p->key : NULL, p->key ? 1 : -1);
        if (p->key) decrRefCount(p->key);
        zfree(p);
    }
}

/* ---- remembering reads ---- */

void trackingRememberKeys(client *c) {
    uint64_t f = c->flags;
    if ((f & CLIENT_TRACKING_OPTIN) && !(f & CLIENT_TRACKING_CACHING)) return;
    if ((f & CLIENT_TRACKING_OPTOUT) && (f & CLIENT_TRACKING_CACHING)) return;
    /* A command has at most argc keys: every one of them is remembered. */
    int stack_keys[64];
    int *keys = c->argc <= 64 ? stack_keys : zmalloc(sizeof(int) * c->argc);
    int n = commandGetKeys(c->cmd, c->argv, c->argc, keys, c->argc);
    if (n && !tracking_table) tracking_table = dictCreate(&trackingTableType);
    for (int j = 0; j < n; j++) {
        sds key = c->argv[keys[j]]->ptr;
        dictEntry *de = dictFind(tracking_table, key);
        idArray *a;
        if (!de) {
            a = zcalloc(sizeof(*a));
            dictAdd(tracking_table, sdsdup(key), a);
        } else {
            a = dictGetVal(de);
        }
        tracking_items += idArrayAdd(a, c->id);
    }
    if (keys != stack_keys) zfree(keys);
}

/* ---- invalidation ---- */

static void trackingBcastRecord(robj *key, client *modifier) {
    dictIterator di;
    dictInitIterator(&di, prefix_table);
    dictEntry *de;
    while ((de = dictNext(&di)) != NULL) {
        sds prefix = dictGetKey(de);
        size_t plen = sdslen(prefix);
        if (sdslen(key->ptr) < plen || memcmp(key->ptr, prefix, plen) != 0) continue;
        bcastPrefix *p = dictGetVal(de);
        if (!p->keys) p->keys = dictCreate(&pendingKeysType);
        dictEntry *ke = dictFind(p->keys, key->ptr);
        if (!ke) ke = dictAddRaw(p->keys, sdsdup(key->ptr), NULL);
        /* The last client to change the key, as Redis records it: a NOLOOP
         * client is spared a key whose last change was its own. */
        ke->v.u64 = modifier ? modifier->id : 0;
    }
    dictResetIterator(&di);
}

/* Tell the readers of key it changed and forget them. */
static void trackingInvalidateReaders(client *modifier, robj *key) {
    if (!tracking_table) return;
    dictEntry *de = dictFind(tracking_table, key->ptr);
    if (!de) return;
    idArray *a = dictGetVal(de);
    for (int j = 0; j < a->len; j++) {
        client *c = clientLookupById(a->v[j]);
        if (!c || !(c->flags & CLIENT_TRACKING) || (c->flags & CLIENT_TRACKING_BCAST)) continue;
        if (c == modifier && (c->flags & CLIENT_TRACKING_NOLOOP)) continue;
        trackingSendOrQueue(c, key);
    }
    tracking_items -= a->len;
    dictDelete(tracking_table, key->ptr);
}

void trackingInvalidateKey(client *modifier, robj *key) {
    /* A script's write is its caller's, for NOLOOP. */
    if (modifier && (modifier->flags & CLIENT_SCRIPT)) modifier = scriptCaller();
    if (prefix_table && dictSize(prefix_table)) trackingBcastRecord(key, modifier);
    trackingInvalidateReaders(modifier, key);
}

/* tracking-table-max-keys: over the limit, invalidate random keys (their
 * readers drop them as if they had changed) until back under it. The work
 * per call is bounded and grows while the table stays over the limit, so a
 * big overshoot (CONFIG SET lowering it) is paid off over several calls. */
static void trackingLimitUsedSlots(void) {
    static int over_calls = 0;
    unsigned long long max = cfg.tracking_table_max_keys;
    if (!tracking_table || max == 0 || dictSize(tracking_table) <= max) {
        over_calls = 0;
        return;
    }
    int effort = 100 * (over_calls + 1);
    while (effort-- > 0 && dictSize(tracking_table) > max) {
        sds k = dictGetKey(dictGetRandomKey(tracking_table));
        robj *key = createStringObject(k, sdslen(k));
        trackingInvalidateReaders(NULL, key);
        decrRefCount(key);
    }
    if (dictSize(tracking_table) > max) over_calls++;
    else over_calls = 0;
}

/* FLUSHDB/FLUSHALL: every tracking client drops its whole cache, and the
 * table is emptied even when nobody tracks any more (entries of clients
 * that turned tracking off stay until then, as in Redis). */
void trackingInvalidateAll(void) {
    if (tracking_clients)
        for (client *c = server.clients; c; c = c->next)
            if (c->flags & CLIENT_TRACKING) trackingSendOrQueue(c, NULL);
    if (tracking_table) dictEmpty(tracking_table, NULL);
    tracking_items = 0;
}

static int entryCompareByKey(const void *a, const void *b) {
    return sdscmp(dictGetKey(*(dictEntry *const *)a), dictGetKey(*(dictEntry *const *)b));
}

/* The entries of d sorted by key (caller frees the array). Redis keeps
 * prefixes and pending keys in radix trees, so clients see them in
 * lexicographic order; we sort to give the same messages. */
static dictEntry **sortedEntries(dict *d, unsigned long *n) {
    *n = dictSize(d);
    dictEntry **v = zmalloc(sizeof(dictEntry *) * (*n ? *n : 1));
    unsigned long i = 0;
    dictIterator di;
    dictInitIterator(&di, d);
    dictEntry *de;
    while ((de = dictNext(&di)) != NULL) v[i++] = de;
    dictResetIterator(&di);
    qsort(v, *n, sizeof(dictEntry *), entryCompareByKey);
    return v;
}

/* Before sleeping (after every batch of commands, and after each cron
 * tick, so a CONFIG SET of the limit takes effect on an idle server too):
 * trim the tracking table to its limit, then send one message per BCAST
 * client per prefix with changes. */
void trackingBroadcast(void) {
    if (tracking_clients) trackingLimitUsedSlots();
    if (!prefix_table || dictSize(prefix_table) == 0) return;
    unsigned long nprefixes;
    dictEntry **prefixes = sortedEntries(prefix_table, &nprefixes);
    for (unsigned long pi = 0; pi < nprefixes; pi++) {
        bcastPrefix *p = dictGetVal(prefixes[pi]);
        if (!p->keys || dictSize(p->keys) == 0) continue;
        unsigned long nkeys;
        dictEntry **kes = sortedEntries(p->keys, &nkeys);
        robj **keys = zmalloc(sizeof(robj *) * nkeys);
        uint64_t *by = zmalloc(sizeof(uint64_t) * nkeys);
        unsigned long i;
        for (i = 0; i < nkeys; i++) {
            sds k = dictGetKey(kes[i]);
            keys[i] = createStringObject(k, sdslen(k));
            by[i] = kes[i]->v.u64;
        }
        zfree(kes);
        for (int j = 0; j < p->clients.len; j++) {
            client *c = clientLookupById(p->clients.v[j]);
            if (!c) continue;
            if (c->flags & CLIENT_TRACKING_NOLOOP) {
                /* Leave out the keys this client changed itself. */
                robj **mine = zmalloc(sizeof(robj *) * nkeys);
                long m = 0;
                for (unsigned long k = 0; k < nkeys; k++)
                    if (by[k] != c->id) mine[m++] = keys[k];
                if (m) trackingSend(c, mine, m);
                zfree(mine);
            } else {
                trackingSend(c, keys, (long)nkeys);
            }
        }
        for (i = 0; i < nkeys; i++) decrRefCount(keys[i]);
        zfree(keys);
        zfree(by);
        dictEmpty(p->keys, NULL);
    }
    zfree(prefixes);
}

/* ---- enabling / disabling ---- */

static void trackingRemovePrefixes(client *c) {
    for (int j = 0; j < c->tracking_nprefixes; j++) {
        dictEntry *de = prefix_table ? dictFind(prefix_table, c->tracking_prefixes[j]) : NULL;
        if (de) {
            bcastPrefix *p = dictGetVal(de);
            idArrayRemove(&p->clients, c->id);
            if (p->clients.len == 0) dictDelete(prefix_table, c->tracking_prefixes[j]);
        }
        sdsfree(c->tracking_prefixes[j]);
    }
    zfree(c->tracking_prefixes);
    c->tracking_prefixes = NULL;
    c->tracking_nprefixes = 0;
}

void trackingDisable(client *c) {
    if (!(c->flags & CLIENT_TRACKING)) return;
    trackingRemovePrefixes(c);
    c->flags &= ~(CLIENT_TRACKING | CLIENT_TRACKING_BCAST | CLIENT_TRACKING_OPTIN |
                  CLIENT_TRACKING_OPTOUT | CLIENT_TRACKING_CACHING | CLIENT_TRACKING_NOLOOP |
                  CLIENT_TRACKING_BROKEN_REDIR);
    c->tracking_redirect = 0;
    tracking_clients--;
}

/* Does a new prefix overlap (one is a prefix of the other) one in list? */
size_t trackingClientMemory(client *c) {
    size_t mem = (size_t)c->tracking_nprefixes * sizeof(sds);
    for (int j = 0; j < c->tracking_nprefixes; j++) mem += sdsAllocSize(c->tracking_prefixes[j]);
    return mem;
}

static int prefixesOverlap(const char *a, size_t al, const char *b, size_t bl) {
    size_t n = al < bl ? al : bl;
    return memcmp(a, b, n) == 0;
}

static void trackingAddPrefix(client *c, sds prefix) {
    for (int j = 0; j < c->tracking_nprefixes; j++)
        if (sdscmp(c->tracking_prefixes[j], prefix) == 0) return;
    c->tracking_prefixes =
        zrealloc(c->tracking_prefixes, sizeof(sds) * (c->tracking_nprefixes + 1));
    c->tracking_prefixes[c->tracking_nprefixes++] = sdsdup(prefix);
    if (!prefix_table) prefix_table = dictCreate(&prefixTableType);
    dictEntry *de = dictFind(prefix_table, prefix);
    bcastPrefix *p;
    if (!de) {
        p = zcalloc(sizeof(*p));
        dictAdd(prefix_table, sdsdup(prefix), p);
    } else {
        p = dictGetVal(de);
    }
    idArrayAdd(&p->clients, c->id);
}

/* CLIENT TRACKING on|off [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
 * [OPTOUT] [NOLOOP] */
void trackingCommand(client *c) {
    int on;
    if (argEq(c->argv[2], "on")) on = 1;
    else if (argEq(c->argv[2], "off")) on = 0;
    else {
        replyErrorSyntax(c);
        return;
    }
    uint64_t options = 0;
    long long redir = 0;
    int nprefix = 0;
    sds *prefixes = zmalloc(sizeof(sds) * c->argc);
    for (int j = 3; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (argEq(c->argv[j], "redirect") && more) {
            j++;
            if (redir) {
                replyError(c, "ERR A client can only redirect to a single other client");
                goto done;
            }
            if (getLongLongFromObjectOrReply(c, c->argv[j], &redir, NULL) != C_OK) goto done;
            if (redir != (long long)c->id && !clientLookupById((uint64_t)redir)) {
                replyError(c, "ERR The client ID you want redirect to does not exist");
                goto done;
            }
        } else if (argEq(c->argv[j], "bcast")) {
            options |= CLIENT_TRACKING_BCAST;
        } else if (argEq(c->argv[j], "optin")) {
            options |= CLIENT_TRACKING_OPTIN;
        } else if (argEq(c->argv[j], "optout")) {
            options |= CLIENT_TRACKING_OPTOUT;
        } else if (argEq(c->argv[j], "noloop")) {
            options |= CLIENT_TRACKING_NOLOOP;
        } else if (argEq(c->argv[j], "prefix") && more) {
            j++;
            prefixes[nprefix++] = c->argv[j]->ptr;
        } else {
            replyErrorSyntax(c);
            goto done;
        }
    }
    if (!on) {
        trackingDisable(c);
        replyOk(c);
        goto done;
    }
    if (!(options & CLIENT_TRACKING_BCAST) && nprefix) {
        replyError(c, "ERR PREFIX option requires BCAST mode to be enabled");
        goto done;
    }
    if (c->flags & CLIENT_TRACKING) {
        if ((options & CLIENT_TRACKING_BCAST) != (c->flags & CLIENT_TRACKING_BCAST)) {
            replyError(c, "ERR You can't switch BCAST mode on/off before disabling tracking for "
                          "this client, and then re-enabling it with a different mode.");
            goto done;
        }
        if (((options & CLIENT_TRACKING_OPTIN) && (c->flags & CLIENT_TRACKING_OPTOUT)) ||
            ((options & CLIENT_TRACKING_OPTOUT) && (c->flags & CLIENT_TRACKING_OPTIN))) {
            replyError(c, "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for "
                          "this client, and then re-enabling it with a different mode.");
            goto done;
        }
    }
    if ((options & CLIENT_TRACKING_OPTIN) && (options & CLIENT_TRACKING_OPTOUT)) {
        replyError(c, "ERR You can't specify both OPTIN mode and OPTOUT mode");
        goto done;
    }
    if ((options & CLIENT_TRACKING_BCAST) &&
        (options & (CLIENT_TRACKING_OPTIN | CLIENT_TRACKING_OPTOUT))) {
        replyError(c, "ERR OPTIN and OPTOUT are not compatible with BCAST");
        goto done;
    }
    /* Prefixes of one client must not overlap, among themselves or with
     * those it already has. */
    for (int i = 0; i < nprefix; i++) {
        for (int j = 0; j < c->tracking_nprefixes; j++) {
            sds old = c->tracking_prefixes[j];
            if (sdscmp(old, prefixes[i]) != 0 &&
                prefixesOverlap(old, sdslen(old), prefixes[i], sdslen(prefixes[i]))) {
                replyErrorFormat(c, "ERR Prefix '%s' overlaps with an existing prefix '%s'. "
                                    "Prefixes for a single client must not overlap.",
                                 prefixes[i], old);
                goto done;
            }
        }
        for (int j = i + 1; j < nprefix; j++) {
            if (prefixesOverlap(prefixes[i], sdslen(prefixes[i]), prefixes[j], sdslen(prefixes[j]))) {
                replyErrorFormat(c, "ERR Prefix '%s' overlaps with another provided prefix '%s'. "
                                    "Prefixes for a single client must not overlap.",
                                 prefixes[i], prefixes[j]);
                goto done;
            }
        }
    }
    if (!(c->flags & CLIENT_TRACKING)) tracking_clients++;
    c->flags &= ~(CLIENT_TRACKING_NOLOOP | CLIENT_TRACKING_BROKEN_REDIR);
    c->flags |= CLIENT_TRACKING | options;
    c->tracking_redirect = (uint64_t)redir;
    if (options & CLIENT_TRACKING_BCAST) {
        if (nprefix == 0 && c->tracking_nprefixes == 0) {
            /* A literal is no sds (no header for sdslen): make a real one. */
            sds all = sdsempty();
            trackingAddPrefix(c, all);
            sdsfree(all);
        }
        for (int i = 0; i < nprefix; i++) trackingAddPrefix(c, prefixes[i]);
    }
    replyOk(c);
done:
    zfree(prefixes);
}

void trackingCachingCommand(client *c) {
    uint64_t f = c->flags;
    if (!(f & CLIENT_TRACKING)) {
        replyError(c, "ERR CLIENT CACHING can be called only when the client is in tracking mode "
                      "with OPTIN or OPTOUT mode enabled");
        return;
    }
    if (argEq(c->argv[2], "yes")) {
        if (!(f & CLIENT_TRACKING_OPTIN)) {
            replyError(c, "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
            return;
        }
    } else if (argEq(c->argv[2], "no")) {
        if (!(f & CLIENT_TRACKING_OPTOUT)) {
            replyError(c, "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
            return;
        }
    } else {
        replyErrorSyntax(c);
        return;
    }
    /* The flag lasts for the next command only (cleared in clientReset). */
    c->flags |= CLIENT_TRACKING_CACHING;
    replyOk(c);
}

void trackingGetRedirCommand(client *c) {
    if (c->flags & CLIENT_TRACKING) replyLongLong(c, (long long)c->tracking_redirect);
    else replyLongLong(c, -1);
}

void trackingInfoCommand(client *c) {
    replyMapLen(c, 3);
    replyBulkCString(c, "flags");
    uint64_t f = c->flags;
    const char *names[8];
    int n = 0;
    if (!(f & CLIENT_TRACKING)) names[n++] = "off";
    else {
        names[n++] = "on";
        if (f & CLIENT_TRACKING_BCAST) names[n++] = "bcast";
        if (f & CLIENT_TRACKING_OPTIN) {
            names[n++] = "optin";
            if (f & CLIENT_TRACKING_CACHING) names[n++] = "caching-yes";
        }
        if (f & CLIENT_TRACKING_OPTOUT) {
            names[n++] = "optout";
            if (f & CLIENT_TRACKING_CACHING) names[n++] = "caching-no";
        }
        if (f & CLIENT_TRACKING_NOLOOP) names[n++] = "noloop";
        if (f & CLIENT_TRACKING_BROKEN_REDIR) names[n++] = "broken_redirect";
    }
    replySetLen(c, n);
    for (int j = 0; j < n; j++) replyBulkCString(c, names[j]);
    replyBulkCString(c, "redirect");
    if (!(f & CLIENT_TRACKING)) replyLongLong(c, -1);
    else replyLongLong(c, (long long)c->tracking_redirect);
    replyBulkCString(c, "prefixes");
    /* Sorted, as Redis lists them. */
    int np = c->tracking_nprefixes;
    sds *sorted = zmalloc(sizeof(sds) * (np ? np : 1));
    if (np) memcpy(sorted, c->tracking_prefixes, sizeof(sds) * np);
    for (int i = 1; i < np; i++)
        for (int j = i; j > 0 && sdscmp(sorted[j - 1], sorted[j]) > 0; j--) {
            sds tmp = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = tmp;
        }
    replyArrayLen(c, np);
    for (int j = 0; j < np; j++) replyBulkBuf(c, sorted[j], sdslen(sorted[j]));
    zfree(sorted);
}
