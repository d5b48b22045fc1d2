/* multi: transactions (MULTI, EXEC, DISCARD) and optimistic locking (WATCH,
 * UNWATCH).
 *
 * Between MULTI and EXEC, commandProcess hands each command here instead of
 * running it: its argv moves into the client's queue (the queue owns it from
 * then on). EXEC runs the queue through commandCall with blocking denied;
 * the propagation stream gets MULTI before the first write and EXEC after
 * the last, so the AOF and replicas apply the transaction as one unit.
 *
 * WATCH records (db, key) pairs in a per-database dict of watchers; any
 * change to a watched key (signalModifiedKey, expiry, FLUSH*, SWAPDB) marks
 * its watchers dirty, and EXEC of a dirty client replies a null array.
 *
 * A key that was already logically expired when WATCHed counts as absent:
 * deleting it (lazily, by FLUSH* or by SWAPDB bringing in no key) is no
 * change, and neither is SWAPDB bringing in another expired key; only a
 * live value appearing is. This is Redis 7.0's rule. */
#include "acl.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "multi.h"
#include "script.h"
#include "object.h"
#include "propagate.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "zmalloc.h"

typedef struct multiCmd {
    robj **argv;
    int argc;
    cairnCommand *cmd;
} multiCmd;

typedef struct watchedKey {
    robj *key;
    serverDb *db;
    int expired; /* the key was already logically expired when watched */
} watchedKey;

/* One watcher of a key: the client and the index of the key in its
 * c->watched array (stable: keys are only appended, and all dropped at once
 * by unwatchAllKeys). */
typedef struct watcher {
    client *c;
    int idx;
} watcher;

typedef struct clientArray {
    watcher *v;
    int len, cap;
} clientArray;

static void clientArrayFree(dict *d, void *val) {
    (void)d;
    clientArray *a = val;
    zfree(a->v);
    zfree(a);
}

static dictType watchedKeysDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare,
                                       dictSdsDestructor, clientArrayFree, NULL};
static dict **watched_keys; /* per database, created lazily */
static long watching_clients;

static dict *watchedDict(serverDb *db, int create) {
    if (!watched_keys) {
        if (!create) return NULL;
        watched_keys = zcalloc(sizeof(dict *) * cfg.dbnum);
    }
    if (!watched_keys[db->id] && create) watched_keys[db->id] = dictCreate(&watchedKeysDictType);
    return watched_keys[db->id];
}

/* ---- queueing ---- */

void multiQueueCommand(client *c) {
    /* Once the transaction is doomed there is no point keeping commands. */
    if (!(c->flags & CLIENT_DIRTY_EXEC)) {
        if (c->mstate_len == c->mstate_cap) {
            c->mstate_cap = c->mstate_cap ? c->mstate_cap * 2 : 8;
            c->mstate = zrealloc(c->mstate, sizeof(multiCmd) * c->mstate_cap);
        }
        multiCmd *mc = &((multiCmd *)c->mstate)[c->mstate_len++];
        mc->argv = c->argv;
        mc->argc = c->argc;
        mc->cmd = c->cmd;
        c->mstate_argv_sum += c->argv_len_sum;
        /* The queue owns the arguments now. */
        c->argv = NULL;
        c->argv_len = 0;
        c->argc = 0;
    }
    replyConst(c, "+QUEUED\r\n");
}

int multiQueueHasFlags(client *c, uint64_t flags) {
    multiCmd *q = c->mstate;
    for (int j = 0; j < c->mstate_len; j++)
        if (q[j].cmd->flags & flags) return 1;
    return 0;
}

int multiQueueHasWrites(client *c) {
    if (multiQueueHasFlags(c, CMD_WRITE | CMD_MAY_REPLICATE)) return 1;
    multiCmd *q = c->mstate;
    for (int j = 0; j < c->mstate_len; j++)
        if (scriptCommandDeclaresWrite(q[j].cmd, q[j].argv, q[j].argc)) return 1;
    return 0;
}

int multiQueueMayWrite(client *c) {
    multiCmd *q = c->mstate;
    for (int j = 0; j < c->mstate_len; j++)
        if (scriptCommandMayWrite(q[j].cmd, q[j].argv, q[j].argc)) return 1;
    return 0;
}

int multiQueueAnyLacks(client *c, uint64_t flag) {
    multiCmd *q = c->mstate;
    for (int j = 0; j < c->mstate_len; j++)
        if (!(q[j].cmd->flags & flag)) return 1;
    return 0;
}

size_t multiClientMemory(client *c) {
    /* The keys' own bytes are shared with the watch table: not counted. */
    return c->mstate_argv_sum + (size_t)c->mstate_cap * sizeof(multiCmd) +
           (size_t)c->watched_cap * sizeof(watchedKey) + (size_t)c->watched_len * sizeof(watcher);
}

void multiFlagError(client *c) {
    if (c->flags & CLIENT_MULTI) c->flags |= CLIENT_DIRTY_EXEC;
}

static void multiFreeQueue(client *c) {
    multiCmd *q = c->mstate;
    for (int j = 0; j < c->mstate_len; j++) {
        for (int k = 0; k < q[j].argc; k++) decrRefCount(q[j].argv[k]);
        zfree(q[j].argv);
    }
    zfree(c->mstate);
    c->mstate = NULL;
    c->mstate_len = c->mstate_cap = 0;
    c->mstate_argv_sum = 0;
}

void multiDiscard(client *c) {
    multiFreeQueue(c);
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    unwatchAllKeys(c);
}

void multiCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        replyError(c, "ERR MULTI calls can not be nested");
        return;
    }
    c->flags |= CLIENT_MULTI;
    replyOk(c);
}

void discardCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        replyError(c, "ERR DISCARD without MULTI");
        return;
    }
    multiDiscard(c);
    replyOk(c);
}

/* Present in the dict but logically expired (not yet deleted). */
static int keyIsStale(serverDb *db, sds key) {
    if (!db || dictSize(db->expires) == 0) return 0;
    dictEntry *e = dictFind(db->expires, key);
    return e && dictGetSignedIntegerVal(e) < dbExpiredNow();
}

/* Has a watched key expired since WATCH, without anyone deleting it yet? */
static int watchedKeyExpiredSince(client *c) {
    watchedKey *w = c->watched;
    for (int j = 0; j < c->watched_len; j++)
        if (!w[j].expired && keyIsStale(w[j].db, w[j].key->ptr)) return 1;
    return 0;
}

void execCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        replyError(c, "ERR EXEC without MULTI");
        return;
    }
    if (c->flags & CLIENT_DIRTY_EXEC) {
        replyError(c, "EXECABORT Transaction discarded because of previous errors.");
        multiDiscard(c);
        return;
    }
    if ((c->flags & CLIENT_DIRTY_CAS) || watchedKeyExpiredSince(c)) {
        replyNullArray(c);
        multiDiscard(c);
        return;
    }
    unwatchAllKeys(c); /* WATCH has done its job: later changes are ours */
    multiCmd *q = c->mstate;
    int n = c->mstate_len;
    c->mstate = NULL;
    c->mstate_len = c->mstate_cap = 0;
    c->mstate_argv_sum = 0;
    c->flags &= ~CLIENT_MULTI;

    robj **orig_argv = c->argv;
    int orig_argc = c->argc, orig_argv_len = c->argv_len;
    cairnCommand *orig_cmd = c->cmd;
    replyArrayLen(c, n);
    c->flags |= CLIENT_DENY_BLOCKING;
    propagateTransactionBeginLazy(); /* one write alone goes out bare, as in Redis 7.0 */
    server.in_exec = 1;
    for (int j = 0; j < n; j++) {
        c->argv = q[j].argv;
        c->argc = c->argv_len = q[j].argc;
        c->cmd = q[j].cmd;
        /* Rules may have changed since the command was queued. */
        int acl_pos = 0, acl_res = aclCheckCommand(c->user, c->cmd, c->argv, c->argc, &acl_pos);
        if (acl_res == ACL_OK) {
            commandCall(c);
        } else {
            aclLogAdd(c, acl_res, ACL_LOG_CTX_MULTI, acl_pos, NULL, NULL);
            replyErrorFormat(c, "NOPERM ACLs rules changed between the moment the transaction was "
                                "accumulated and the EXEC call. This command is no longer allowed "
                                "for the following reason: %s",
                             acl_res == ACL_DENIED_CMD   ? "no permission to execute the command or subcommand"
                             : acl_res == ACL_DENIED_KEY ? "no permission to touch the specified keys"
                             : "no permission to access one of the channels used as arguments");
        }
        /* The command may have rewritten its argv for propagation. */
        q[j].argv = c->argv;
        q[j].argc = c->argc;
    }
    server.in_exec = 0;
    propagateTransactionEnd();
    c->flags &= ~CLIENT_DENY_BLOCKING;
    c->argv = orig_argv;
    c->argc = orig_argc;
    c->argv_len = orig_argv_len;
    c->cmd = orig_cmd;
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < q[j].argc; k++) decrRefCount(q[j].argv[k]);
        zfree(q[j].argv);
    }
    zfree(q);
}

/* ---- WATCH ---- */

static int isWatching(client *c, serverDb *db, robj *key) {
    watchedKey *w = c->watched;
    for (int j = 0; j < c->watched_len; j++)
        if (w[j].db == db && equalStringObjects(w[j].key, key)) return 1;
    return 0;
}

static void watchKey(client *c, robj *key) {
    if (isWatching(c, c->db, key)) return;
    dict *d = watchedDict(c->db, 1);
    dictEntry *de = dictFind(d, key->ptr);
    clientArray *a;
    if (!de) {
        a = zcalloc(sizeof(*a));
        dictAdd(d, sdsdup(key->ptr), a);
    } else {
        a = dictGetVal(de);
    }
    if (a->len == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 4;
        a->v = zrealloc(a->v, sizeof(watcher) * a->cap);
    }
    a->v[a->len++] = (watcher){c, c->watched_len};
    if (c->watched_len == c->watched_cap) {
        c->watched_cap = c->watched_cap ? c->watched_cap * 2 : 4;
        c->watched = zrealloc(c->watched, sizeof(watchedKey) * c->watched_cap);
    }
    watchedKey *w = &((watchedKey *)c->watched)[c->watched_len++];
    incrRefCount(key);
    w->key = key;
    w->db = c->db;
    w->expired = keyIsStale(c->db, key->ptr);
    if (c->watched_len == 1) watching_clients++;
}

void unwatchAllKeys(client *c) {
    watchedKey *w = c->watched;
    for (int j = 0; j < c->watched_len; j++) {
        dict *d = watchedDict(w[j].db, 0);
        dictEntry *de = d ? dictFind(d, w[j].key->ptr) : NULL;
        if (de) {
            clientArray *a = dictGetVal(de);
            for (int k = 0; k < a->len; k++) {
                if (a->v[k].c == c) {
                    memmove(a->v + k, a->v + k + 1, sizeof(watcher) * (a->len - k - 1));
                    a->len--;
                    break;
                }
            }
            if (a->len == 0) dictDelete(d, w[j].key->ptr);
        }
        decrRefCount(w[j].key);
    }
    if (c->watched_len) watching_clients--;
    zfree(c->watched);
    c->watched = NULL;
    c->watched_len = c->watched_cap = 0;
}

void watchCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        replyError(c, "ERR WATCH inside MULTI is not allowed");
        return;
    }
    /* Already doomed: no need to watch more. */
    if (!(c->flags & CLIENT_DIRTY_CAS))
        for (int j = 1; j < c->argc; j++) watchKey(c, c->argv[j]);
    replyOk(c);
}

void unwatchCommand(client *c) {
    unwatchAllKeys(c);
    c->flags &= ~CLIENT_DIRTY_CAS;
    replyOk(c);
}

static watchedKey *watcherKey(watcher *w) { return &((watchedKey *)w->c->watched)[w->idx]; }

/* A key changed: everyone watching it must fail their EXEC, except those
 * that watched it while it was expired and now see it deleted. */
void touchWatchedKey(serverDb *db, robj *key) {
    dict *d = watchedDict(db, 0);
    if (!d || dictSize(d) == 0) return;
    dictEntry *de = dictFind(d, key->ptr);
    if (!de) return;
    clientArray *a = dictGetVal(de);
    int gone = -1; /* computed on first need */
    for (int j = 0; j < a->len; j++) {
        watchedKey *wk = watcherKey(&a->v[j]);
        if (wk->expired) {
            if (gone < 0) gone = dictFind(db->dict, key->ptr) == NULL;
            /* Deleted: from now on it is simply a missing key. Still there
             * (touched without being expired first): still absent. */
            if (gone) wk->expired = 0;
            continue;
        }
        a->v[j].c->flags |= CLIENT_DIRTY_CAS;
    }
}

/* FLUSHDB/FLUSHALL (replaced_with NULL) and SWAPDB: a watched key changed
 * if a value disappears or appears, with expired values counting as none. */
void touchAllWatchedKeysInDb(serverDb *emptied, serverDb *replaced_with) {
    dict *d = watchedDict(emptied, 0);
    if (!d || dictSize(d) == 0) return;
    dictIterator di;
    dictInitIterator(&di, d);
    dictEntry *de;
    while ((de = dictNext(&di)) != NULL) {
        sds key = dictGetKey(de);
        int in_emptied = dictFind(emptied->dict, key) != NULL;
        int in_other = replaced_with && dictFind(replaced_with->dict, key) != NULL;
        if (!in_emptied && !in_other) continue;
        int other_stale = in_other && keyIsStale(replaced_with, key);
        clientArray *a = dictGetVal(de);
        for (int j = 0; j < a->len; j++) {
            watchedKey *wk = watcherKey(&a->v[j]);
            if (wk->expired) {
                if (!in_other) {
                    wk->expired = 0; /* the stale value is gone: no change */
                    continue;
                }
                if (other_stale) continue; /* stale replaced by stale */
            } else if (!in_emptied && other_stale) {
                wk->expired = 1; /* nothing replaced by a stale value */
                continue;
            }
            a->v[j].c->flags |= CLIENT_DIRTY_CAS;
        }
    }
    dictResetIterator(&di);
}

int multiWatchingClients(void) { return watching_clients > 0; }
