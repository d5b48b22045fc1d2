/* waitaof: WAITAOF numlocal numreplicas timeout (Redis 7.2).
 *
 * A client waits until the stream offset of its last write (c->woff, set
 * by commandCall) is fsynced in the local AOF (numlocal, 0 or 1) and on
 * numreplicas replicas, or until the timeout (milliseconds, 0 = forever).
 * The reply is always [local, replicas]: how many have fsynced it.
 *
 * How data enters: the local fsynced offset from aof.c
 * (aofFsyncedOffset), the replicas' from waitaofReplicaAcks. Waiters are
 * blocked through blocked.c (blockClientNoKeys), which owns their timeout,
 * CLIENT UNBLOCK and disconnects; waitaofBeforeSleep, run each loop turn,
 * answers those whose condition now holds. Inside MULTI (blocking denied)
 * the counts are answered at once, as Redis does. Nothing is allocated
 * here: the targets live in the client (bwait_numlocal/numreplicas). */
#include "args.h"
#include "client.h"
#include "config.h"
#include "propagate.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"
#include "aof.h"
#include "blocked.h"
#include "repl.h"
#include "waitaof.h"

#include <limits.h>

/* How many replicas have acknowledged that their AOF is fsynced up to
 * stream offset `offset` (REPLCONF ACK <off> FACK <fsynced off>, Redis
 * 7.2's form). A replica without an AOF, or a Redis 7.0 one, sends no
 * FACK and never counts, as in Redis 7.2. No wake-up is needed:
 * waitaofBeforeSleep checks every loop turn, so the turn that reads an ack
 * answers the waiters it satisfies. */
long long waitaofReplicaAcks(long long offset) { return replAofAckedAt(offset); }

static long long waitaofLocalAcks(client *c) { return aofFsyncedOffset() >= c->woff ? 1 : 0; }

static void waitaofReply(client *c) {
    /* Inside EXEC a lone write may still be held back (it goes out bare at
     * the end): it is on no disk yet. */
    int held = propagateHeldWrite();
    replyArrayLen(c, 2);
    replyLongLong(c, held ? 0 : waitaofLocalAcks(c));
    replyLongLong(c, held ? 0 : waitaofReplicaAcks(c->woff));
}

static const char *waitaof_no_aof =
    "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.";

void waitaofCommand(client *c) {
    long numlocal, numreplicas;
    long long ms;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 0, 1, &numlocal, NULL) != C_OK) return;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &numreplicas, NULL) != C_OK) return;
    const char *not_int = "timeout is not an integer or out of range";
    if (getLongLongFromObjectOrReply(c, c->argv[3], &ms, not_int) != C_OK) return;
    if (ms < 0) {
        replyError(c, "ERR timeout is negative");
        return;
    }
    long long now = mstime();
    if (ms > 0 && ms > LLONG_MAX - now) {
        replyError(c, "ERR timeout is out of range");
        return;
    }
    if (replIsReplica()) {
        replyError(c, "ERR WAITAOF cannot be used with replica instances. Please also note that "
                      "writes to replicas are just local and are not propagated.");
        return;
    }
    if (numlocal && !cfg.appendonly) {
        replyError(c, waitaof_no_aof);
        return;
    }
    if ((waitaofLocalAcks(c) >= numlocal && waitaofReplicaAcks(c->woff) >= numreplicas) ||
        (c->flags & CLIENT_DENY_BLOCKING)) {
        waitaofReply(c);
        return;
    }
    c->bwait_numlocal = numlocal;
    c->bwait_numreplicas = numreplicas;
    /* Replicas report their fsynced offset at once (a GETACK), as in Redis. */
    if (numreplicas) replRequestAck();
    blockClientNoKeys(c, BLOCKED_WAITAOF, ms ? now + ms : 0, waitaofReply);
}

void waitaofBeforeSleep(void) {
    if (blockedNoKeysCount() == 0) return;
    for (client *c = server.clients; c; c = c->next) {
        if (!(c->flags & CLIENT_BLOCKED) || c->btype != BLOCKED_WAITAOF) continue;
        /* appendonly turned off under a local waiter: Redis answers the
         * error it would have given at the start. */
        int no_aof = c->bwait_numlocal && !cfg.appendonly;
        if (!no_aof && (waitaofLocalAcks(c) < c->bwait_numlocal ||
                        waitaofReplicaAcks(c->woff) < c->bwait_numreplicas))
            continue;
        unblockClient(c);
        replyBegin(c);
        if (no_aof) replyError(c, waitaof_no_aof);
        else waitaofReply(c);
        blockedServed(c);
    }
}
