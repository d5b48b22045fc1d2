/* blocked: clients waiting for keys (see blocked.h for the model).
 *
 * Waiters enter through blockForKeys (from a blocking command that found
 * nothing to serve) and are recorded per key in the database's
 * blocking_keys dict, in arrival order. signalKeyAsReady (from db.c, when a
 * key is created) queues the key; handleClientsBlockedOnKeys re-runs the
 * waiters' commands. Waiters leave when served, on timeout (the cron), on
 * CLIENT UNBLOCK, or when they disconnect. This module owns the waiter
 * arrays and the key copies in them; the clients own their bkeys refs.
 *
 * A client may also wait on no key (blockClientNoKeys, for WAITAOF): then
 * its owner module watches the condition and calls blockedServed; this
 * module still owns the timeout, CLIENT UNBLOCK and the disconnect. */
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "tracking.h"
#include "util.h"
#include "zmalloc.h"
#include "blocked.h"

#include <math.h>
#include <stdlib.h>

/* Waiters of one key, oldest first. */
typedef struct waiters {
    client **v;
    int len, cap;
} waiters;

/* dbid*2^0 keys: one dict per database, created on first use. */
static dict **blocking_keys;
/* Keys signalled ready since the last handleClientsBlockedOnKeys. */
typedef struct readyKey {
    serverDb *db;
    robj *key;
    struct readyKey *next;
} readyKey;
static readyKey *ready_head, *ready_tail;

static void waitersFree(dict *d, void *val) {
    (void)d;
    waiters *w = val;
    zfree(w->v);
    zfree(w);
}

static dictType blockingKeysDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare,
                                        dictSdsDestructor, waitersFree, NULL};

static dict *blockingDict(serverDb *db, int create) {
    if (!blocking_keys) {
        if (!create) return NULL;
        blocking_keys = zcalloc(sizeof(dict *) * cfg.dbnum);
    }
    if (!blocking_keys[db->id] && create) blocking_keys[db->id] = dictCreate(&blockingKeysDictType);
    return blocking_keys[db->id];
}

int getTimeoutFromObjectOrReply(client *c, robj *obj, long long *timeout) {
    long double ftval;
    if (getLongDoubleFromObject(obj, &ftval) != C_OK) {
        replyError(c, "ERR timeout is not a float or out of range");
        return C_ERR;
    }
    /* Redis 7.0.15 takes (long long)ceill(seconds * 1000): a result out of
     * the long long range (or infinite) converts to LLONG_MIN on x86, so it
     * is reported as negative; -0.0001 rounds up to 0 and blocks forever;
     * a deadline past LLONG_MAX never fires (0 here). */
    long double ms = ceill(ftval * 1000.0L);
    if (!(ms >= -9223372036854775808.0L && ms < 9223372036854775808.0L) || ms < 0) {
        replyError(c, "ERR timeout is negative");
        return C_ERR;
    }
    long long now = mstime();
    *timeout = ms > 0 && (long long)ms <= LLONG_MAX - now ? (long long)ms + now : 0;
    return C_OK;
}

static unsigned long nokey_blocked;

static void replyTimedOut(client *c) {
    replyBegin(c);
    if (c->btimeout_fn) c->btimeout_fn(c);
    else if (c->btimeout_reply == BLOCK_REPLY_NULL) replyNull(c);
    else replyNullArray(c);
}

/* What every kind of waiter records (the keys come after, if any). */
static void blockStart(client *c, int btype, long long timeout, void (*on_timeout)(client *c)) {
    c->flags |= CLIENT_BLOCKED;
    c->btype = btype;
    c->bdb = c->db;
    c->btimeout = timeout;
    c->btimeout_fn = on_timeout;
    c->bkeys = NULL;
    c->bnumkeys = 0;
    server.blocked_clients++;
}

void blockForKeys(client *c, int type, robj **keys, int numkeys, long long timeout,
                  int timeout_reply) {
    if (c->flags & CLIENT_DENY_BLOCKING) {
        /* Inside MULTI a blocking command behaves as if it timed out. */
        c->btimeout_reply = timeout_reply;
        if (timeout_reply == BLOCK_REPLY_NULL) replyNull(c);
        else replyNullArray(c);
        return;
    }
    if (c->flags & CLIENT_REEXECUTING) timeout = c->btimeout; /* keep the original deadline */
    blockStart(c, type, timeout, NULL);
    c->btimeout_reply = timeout_reply;
    c->bkeys = zmalloc(sizeof(robj *) * numkeys);
    dict *d = blockingDict(c->db, 1);
    for (int j = 0; j < numkeys; j++) {
        /* A key named twice is waited on once. */
        int dup = 0;
        for (int k = 0; k < c->bnumkeys; k++)
            if (equalStringObjects(c->bkeys[k], keys[j])) dup = 1;
        if (dup) continue;
        incrRefCount(keys[j]);
        c->bkeys[c->bnumkeys++] = keys[j];
        dictEntry *de = dictFind(d, keys[j]->ptr);
        waiters *w;
        if (!de) {
            w = zcalloc(sizeof(*w));
            dictAdd(d, sdsdup(keys[j]->ptr), w);
        } else {
            w = dictGetVal(de);
        }
        if (w->len == w->cap) {
            w->cap = w->cap ? w->cap * 2 : 4;
            w->v = zrealloc(w->v, sizeof(client *) * w->cap);
        }
        w->v[w->len++] = c;
    }
}

void blockClientNoKeys(client *c, int btype, long long timeout, void (*on_timeout)(client *c)) {
    blockStart(c, btype, timeout, on_timeout);
    nokey_blocked++;
}

unsigned long blockedNoKeysCount(void) { return nokey_blocked; }

/* Remove c from every key's waiters, without replying. */
void unblockClient(client *c) {
    if (!(c->flags & CLIENT_BLOCKED)) return;
    if (c->btimeout_fn) nokey_blocked--;
    dict *d = blockingDict(c->bdb, 0);
    for (int j = 0; j < c->bnumkeys; j++) {
        dictEntry *de = d ? dictFind(d, c->bkeys[j]->ptr) : NULL;
        if (de) {
            waiters *w = dictGetVal(de);
            for (int k = 0; k < w->len; k++) {
                if (w->v[k] == c) {
                    memmove(w->v + k, w->v + k + 1, sizeof(client *) * (w->len - k - 1));
                    w->len--;
                    break;
                }
            }
            if (w->len == 0) dictDelete(d, c->bkeys[j]->ptr);
        }
        decrRefCount(c->bkeys[j]);
    }
    zfree(c->bkeys);
    c->bkeys = NULL;
    c->bnumkeys = 0;
    c->flags &= ~CLIENT_BLOCKED;
    server.blocked_clients--;
}

/* After a waiter got its reply (served, timed out, unblocked): its command
 * is over, and input that arrived meanwhile is processed before sleeping. */
void blockedServed(client *c) {
    /* Its command ends now: clientsCron may run before the reply goes out,
     * and must not take a client that waited long on purpose for idle. */
    c->last_interaction = server.unixtime_ms;
    clientReset(c);
    blockedQueueInput(c);
}

void blockedQueueInput(client *c) {
    if (!(c->flags & CLIENT_UNBLOCKED)) {
        c->flags |= CLIENT_UNBLOCKED;
        c->unblocked_next = server.unblocked;
        server.unblocked = c;
    }
}

void signalKeyAsReady(serverDb *db, robj *key, int type) {
    (void)type;
    dict *d = blockingDict(db, 0);
    if (!d || !dictFind(d, key->ptr)) return;
    for (readyKey *r = ready_head; r; r = r->next)
        if (r->db == db && equalStringObjects(r->key, key)) return;
    readyKey *r = zmalloc(sizeof(*r));
    r->db = db;
    r->key = createStringObject(key->ptr, sdslen(key->ptr));
    r->next = NULL;
    if (ready_tail) ready_tail->next = r;
    else ready_head = r;
    ready_tail = r;
}

/* The ready key whose waiters are being re-run (blockedReadyKey). */
static robj *serving_key;

robj *blockedReadyKey(void) { return serving_key; }

/* Re-run the waiters of one ready key while the key has something for
 * them. A waiter that blocks again ends the pass: the key ran dry, and the
 * others keep their places. */
static void serveKey(serverDb *db, robj *key) {
    dict *d = blockingDict(db, 0);
    while (d) {
        dictEntry *de = dictFind(d, key->ptr);
        if (!de) return;
        waiters *w = dictGetVal(de);
        if (w->len == 0) return;
        /* The clock moves on after the command that made the key ready
         * (EXEC with a DEBUG SLEEP inside): a key that expired meanwhile
         * is deleted here, and its DEL propagated, rather than served. */
        server.cmd_time_snapshot = mstime();
        robj *o = dbLookupReadNoNotify(db, key);
        client *c = w->v[0];
        if (!o || o->type != c->btype) return;
        unblockClient(c);
        serverDb *saved = c->db;
        c->db = db;
        c->flags |= CLIENT_REEXECUTING;
        replyBegin(c);
        serving_key = key;
        commandCall(c);
        serving_key = NULL;
        c->flags &= ~CLIENT_REEXECUTING;
        /* Its own invalidations (BLMOVE into a key it tracks) follow the
         * reply it just got, as after any command. */
        trackingHandlePending();
        if (c->db == db) c->db = saved;
        if (c->flags & CLIENT_BLOCKED) return;
        blockedServed(c);
    }
}

void handleClientsBlockedOnKeys(void) {
    while (ready_head) {
        readyKey *list = ready_head;
        ready_head = ready_tail = NULL;
        while (list) {
            readyKey *r = list;
            list = r->next;
            serveKey(r->db, r->key);
            decrRefCount(r->key);
            zfree(r);
        }
    }
}

/* Clients released since the last call may have more commands waiting in
 * their query buffers. Run from beforeSleep, never from inside a command,
 * so one client's input is never processed in the middle of another's. */
void processUnblockedClients(void) {
    while (server.unblocked) {
        client *c = server.unblocked;
        server.unblocked = c->unblocked_next;
        c->flags &= ~CLIENT_UNBLOCKED;
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        server.current_client = c;
        clientProcessInput(c);
        server.current_client = NULL;
    }
}

void blockedCheckTimeouts(void) {
    if (server.blocked_clients == 0) return;
    long long now = mstime();
    for (client *c = server.clients; c; c = c->next) {
        if (!(c->flags & CLIENT_BLOCKED) || c->btimeout == 0 || c->btimeout > now) continue;
        unblockClient(c);
        replyTimedOut(c);
        blockedServed(c);
    }
}

int unblockClientById(unsigned long long id, int with_error) {
    client *c = clientLookupById(id);
    if (!c || !(c->flags & CLIENT_BLOCKED)) return 0;
    unblockClient(c);
    if (with_error) {
        replyBegin(c);
        replyError(c, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
    } else {
        replyTimedOut(c);
    }
    blockedServed(c);
    return 1;
}

unsigned long blockedClientsCount(void) { return server.blocked_clients; }
