/* dumpcmd: the DUMP and RESTORE commands, the keyspace side of the payload
 * format that persistence/dump.c owns.
 *
 * DUMP serializes a key's value; RESTORE validates a payload completely
 * before it touches the keyspace (so a corrupt payload leaves nothing
 * half-built), then stores the value with a single keyspace lookup. A
 * relative TTL is propagated as an absolute one (ABSTTL), so the AOF and
 * replicas expire the key at the same instant as this server. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "db.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "debug.h"
#include "dump.h"
#include "lfu.h"

#include <limits.h>

void dumpCommand(client *c) {
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        replyNull(c);
        return;
    }
    replyBulkSds(c, dumpPayloadCreate(o));
}

/* RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f] */
void restoreCommand(client *c) {
    int replace = 0, absttl = 0;
    long long ttl, idletime = -1, freq = -1;
    for (int j = 4; j < c->argc; j++) {
        int more = c->argc - j - 1;
        if (argEq(c->argv[j], "replace")) {
            replace = 1;
        } else if (argEq(c->argv[j], "absttl")) {
            absttl = 1;
        } else if (argEq(c->argv[j], "idletime") && more && freq == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &idletime, NULL) != C_OK) return;
            if (idletime < 0) {
                replyError(c, "ERR Invalid IDLETIME value, must be >= 0");
                return;
            }
        } else if (argEq(c->argv[j], "freq") && more && idletime == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &freq, NULL) != C_OK) return;
            if (freq < 0 || freq > 255) {
                replyError(c, "ERR Invalid FREQ value, must be >= 0 and <= 255");
                return;
            }
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &ttl, NULL) != C_OK) return;
    if (ttl < 0) {
        replyError(c, "ERR Invalid TTL value, must be >= 0");
        return;
    }

    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (ref.de && !replace) {
        replyError(c, "BUSYKEY Target key name already exists.");
        return;
    }
    sds err;
    robj *payload = c->argv[3];
    robj *o = dumpPayloadLoad(payload->ptr, sdslen(payload->ptr), debugSkipChecksum(), &err);
    if (!o) {
        replyError(c, err);
        sdsfree(err);
        return;
    }

    long long now = dbExpiredNow();
    if (ttl && !absttl) {
        if (ttl > LLONG_MAX - now) {
            decrRefCount(o);
            replyErrorExpireTime(c);
            return;
        }
        ttl += now;
    }
    if (ttl && ttl <= now && !server.loading) {
        /* Already expired: the key is not created, and a replaced one is
         * gone, which is what replicas and the AOF must see. */
        decrRefCount(o);
        if (ref.de) {
            robj *key = c->argv[1];
            incrRefCount(key);
            dbDelete(c->db, key);
            server.dirty++;
            clientRewriteArgv(c, 2, createStringObject("DEL", 3), key);
            signalModifiedKey(c, c->db, key);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        }
        replyOk(c);
        return;
    }

    int existed = ref.de != NULL;
    dbSetValue(&ref, o);
    if (existed) dbRemoveExpireEntry(c->db, ref.de);
    if (ttl) dbSetExpireEntry(c->db, ref.de, ttl);
    /* As Redis: FREQ sets the LFU counter under an LFU policy, IDLETIME
     * the LRU clock under the others; the other one is ignored. */
    if (MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy)) {
        /* A replaced key's counter is not inherited: the value is new. */
        lfuSetFreq(o, freq >= 0 ? (unsigned)freq : LFU_INIT_VAL);
    } else if (idletime >= 0) {
        objectSetIdleSeconds(o, idletime);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "restore", c->argv[1], c->db->id);
    server.dirty++;
    if (ttl && !absttl) {
        /* Propagate the instant, not the interval. */
        int argc = c->argc + 1;
        robj **argv = zmalloc(sizeof(robj *) * argc);
        for (int j = 0; j < c->argc; j++) {
            argv[j] = c->argv[j];
            incrRefCount(argv[j]);
        }
        decrRefCount(argv[2]);
        argv[2] = createStringObjectFromLongLong(ttl);
        argv[c->argc] = createStringObject("ABSTTL", 6);
        clientReplaceArgv(c, argv, argc);
    }
    replyOk(c);
}
