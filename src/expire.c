/* expire: the commands that set, read and clear key expiry times.
 *
 * Times are absolute unix milliseconds in the db's expires dict. Setting a
 * relative expire is propagated as PEXPIREAT, and an expire already in the
 * past is propagated as the DEL it amounts to, so replaying the stream later
 * gives the same dataset. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "object.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"

#define EXPIRE_NX (1 << 0)
#define EXPIRE_XX (1 << 1)
#define EXPIRE_GT (1 << 2)
#define EXPIRE_LT (1 << 3)

static robj *objPexpireat, *objDel, *objUnlink;

static int parseExpireFlagsOrReply(client *c, int *flags) {
    int nx = 0, xx = 0, gt = 0, lt = 0;
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "nx")) nx = 1, *flags |= EXPIRE_NX;
        else if (!strcasecmp(opt, "xx")) xx = 1, *flags |= EXPIRE_XX;
        else if (!strcasecmp(opt, "gt")) gt = 1, *flags |= EXPIRE_GT;
        else if (!strcasecmp(opt, "lt")) lt = 1, *flags |= EXPIRE_LT;
        else {
            replyErrorFormat(c, "ERR Unsupported option %s", opt);
            return C_ERR;
        }
    }
    if ((nx && xx) || (nx && gt) || (nx && lt)) {
        replyError(c, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return C_ERR;
    }
    if (gt && lt) {
        replyError(c, "ERR GT and LT options at the same time are not compatible");
        return C_ERR;
    }
    return C_OK;
}

static void expireGeneric(client *c, long long basetime, int seconds) {
    robj *key = c->argv[1];
    long long when;
    int flags = 0;
    if (parseExpireFlagsOrReply(c, &flags) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &when, NULL) != C_OK) return;
    if (seconds) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
            replyErrorExpireTime(c);
            return;
        }
        when *= 1000;
    }
    if (when > LLONG_MAX - basetime) {
        replyErrorExpireTime(c);
        return;
    }
    when += basetime;
    keyRef ref;
    dbFindForWrite(c->db, key, &ref);
    if (!ref.de) {
        replyConst(c, ":0\r\n");
        return;
    }
    if (flags) {
        long long current = dbGetExpireEntry(c->db, ref.de);
        if (((flags & EXPIRE_NX) && current != -1) || ((flags & EXPIRE_XX) && current == -1) ||
            ((flags & EXPIRE_GT) && (when <= current || current == -1)) ||
            ((flags & EXPIRE_LT) && current != -1 && when >= current)) {
            replyConst(c, ":0\r\n");
            return;
        }
    }
    if (!objPexpireat) {
        objPexpireat = createStringObject("PEXPIREAT", 9);
        objDel = createStringObject("DEL", 3);
        objUnlink = createStringObject("UNLINK", 6);
    }
    if (when <= dbExpiredNow() && !server.loading) {
        incrRefCount(key);
        dbDeleteExpired(c->db, key);
        server.dirty++;
        robj *aux = cfg.lazyfree_lazy_expire ? objUnlink : objDel;
        incrRefCount(aux);
        clientRewriteArgv(c, 2, aux, key);
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        replyConst(c, ":1\r\n");
        return;
    }
    dbSetExpireEntry(c->db, ref.de, when);
    replyConst(c, ":1\r\n");
    if (c->cmd->proc != pexpireatCommand || basetime != 0 || seconds) {
        incrRefCount(objPexpireat);
        incrRefCount(key);
        clientRewriteArgv(c, 3, objPexpireat, key, createStringObjectFromLongLong(when));
    }
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", key, c->db->id);
    server.dirty++;
}

void expireCommand(client *c) { expireGeneric(c, dbExpiredNow(), 1); }
void expireatCommand(client *c) { expireGeneric(c, 0, 1); }
void pexpireCommand(client *c) { expireGeneric(c, dbExpiredNow(), 0); }
void pexpireatCommand(client *c) { expireGeneric(c, 0, 0); }

static void ttlGeneric(client *c, int output_ms, int output_abs) {
    if (!dbLookupReadNoTouch(c->db, c->argv[1])) {
        replyLongLong(c, -2);
        return;
    }
    long long expire = dbGetExpire(c->db, c->argv[1]);
    if (expire == -1) {
        replyLongLong(c, -1);
        return;
    }
    long long ttl = output_abs ? expire : expire - dbExpiredNow();
    if (ttl < 0) ttl = 0;
    /* Rounded to the nearest second. Near LLONG_MAX the sum no longer fits a
     * signed long long; Redis' result equals the unsigned computation. */
    replyLongLong(c, output_ms ? ttl : (long long)(((unsigned long long)ttl + 500) / 1000));
}

void ttlCommand(client *c) { ttlGeneric(c, 0, 0); }
void pttlCommand(client *c) { ttlGeneric(c, 1, 0); }
void expiretimeCommand(client *c) { ttlGeneric(c, 0, 1); }
void pexpiretimeCommand(client *c) { ttlGeneric(c, 1, 1); }

void persistCommand(client *c) {
    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (ref.de && dbRemoveExpireEntry(c->db, ref.de)) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "persist", c->argv[1], c->db->id);
        server.dirty++;
        replyConst(c, ":1\r\n");
    } else {
        replyConst(c, ":0\r\n");
    }
}
