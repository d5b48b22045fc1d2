/* failover: FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], Redis
 * 6.2's coordinated hand-over of the primary role to one of its replicas.
 *
 *              FAILOVER (writes paused)      target acked our whole offset,
 *   NONE ----------------------------> WAIT_SYNC ------------------------>
 *    ^  ^                               |  or TIMEOUT passed with FORCE
 *    |  +--- ABORT, or TIMEOUT ---------+  (failoverCron: replicaFollow)
 *    |       without FORCE                                                |
 *    |                                                                    v
 *    +--- PSYNC accepted (+CONTINUE/+FULLRESYNC): we stay its replica -- IN_PROGRESS
 *    +--- PSYNC refused or failed, or ABORT: primary again (replicaUnfollow)
 *
 * In IN_PROGRESS this server is already the target's replica: its PSYNC
 * carries a fourth argument, FAILOVER (repl_replica.c asks
 * failoverInProgress), which makes the target promote itself before it
 * answers (syncCommand, on the target's side). Failing to connect
 * keeps retrying, as in Redis, until FAILOVER ABORT. Writes are held from
 * FAILOVER until the end (pauseWritesForFailover); those held when we
 * became a replica then get -READONLY, so no acknowledged write is lost.
 * While paused, no PING or GETACK enters the stream, so the offset the
 * target must reach stays still.
 *
 * Data enters as the FAILOVER command, the replicas' acks (read through
 * replReplicaAt each cron tick) and the PSYNC outcome
 * (failoverPsyncDone); it leaves as the replica link repl_replica.c
 * opens. The target's host is a copy owned here. */
#include "args.h"
#include "client.h"
#include "config.h"
#include "log.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "repl.h"

#include <limits.h>
#include <stdio.h>

enum { FO_NONE, FO_WAIT_SYNC, FO_IN_PROGRESS };

static struct {
    int state;
    char *host; /* NULL: any replica that catches up first */
    int port;
    long long end_ms; /* 0: no timeout */
    int force;
} fo;

const char *failoverStateName(void) {
    switch (fo.state) {
        case FO_WAIT_SYNC:
            return "waiting-for-sync";
        case FO_IN_PROGRESS:
            return "failover-in-progress";
        default:
            return "no-failover";
    }
}

int failoverActive(void) {
    return fo.state != FO_NONE;
}
int failoverInProgress(void) {
    return fo.state == FO_IN_PROGRESS;
}

static void failoverClear(void) {
    zfree(fo.host);
    fo.host = NULL;
    fo.port = 0;
    fo.end_ms = 0;
    fo.force = 0;
    fo.state = FO_NONE;
    pauseWritesForFailover(0);
}

static void failoverAbort(const char *why) {
    if (fo.state == FO_NONE) return;
    if (fo.host)
        serverLog(LL_NOTICE, "FAILOVER to %s:%d aborted: %s", fo.host, fo.port, why);
    else
        serverLog(LL_NOTICE, "FAILOVER to any replica aborted: %s", why);
    if (fo.state == FO_IN_PROGRESS) replicaUnfollow();
    failoverClear();
}

void failoverPsyncDone(int accepted) {
    if (fo.state != FO_IN_PROGRESS) return;
    if (accepted)
        failoverClear();
    else
        failoverAbort("Failover target rejected psync request");
}

/* The replica at host:port, -1 if none is. */
static int failoverFind(const char *host, int port, replicaPeer *out) {
    for (int j = 0; replReplicaAt(j, out); j++)
        if (!strcasecmp(out->ip, host) && out->port == port) return j;
    return -1;
}

static void failoverStart(void) {
    fo.state = FO_IN_PROGRESS;
    replicaFollow(fo.host, fo.port);
}

void failoverCron(void) {
    if (fo.state != FO_WAIT_SYNC) return;
    if (fo.end_ms && server.unixtime_ms >= fo.end_ms) {
        if (fo.force) {
            serverLog(LL_NOTICE, "FAILOVER to %s:%d time out exceeded, failing over.", fo.host,
                      fo.port);
            failoverStart();
        } else {
            failoverAbort("Replica never caught up before timeout");
        }
        return;
    }
    replicaPeer p;
    long long offset = replPrimaryOffset();
    int found = 0;
    if (fo.host) {
        found = failoverFind(fo.host, fo.port, &p) != -1 && p.ack_off == offset;
    } else {
        for (int j = 0; !found && replReplicaAt(j, &p); j++) found = p.ack_off == offset;
        if (found) {
            fo.host = zstrdup(p.ip);
            fo.port = p.port;
        }
    }
    if (!found) return;
    serverLog(LL_NOTICE, "Failover target %s:%d is synced, failing over.", fo.host, fo.port);
    failoverStart();
}

void failoverCommand(client *c) {
    if (c->argc == 2 && argEq(c->argv[1], "abort")) {
        if (fo.state == FO_NONE) {
            replyError(c, "ERR No failover in progress.");
            return;
        }
        failoverAbort("Failover manually aborted");
        replyOk(c);
        return;
    }
    long timeout = 0, port = 0;
    int force = 0;
    const char *host = NULL;
    /* Each option at most once, in any order; anything else is a syntax
     * error (ABORT included, when not alone). */
    for (int j = 1; j < c->argc; j++) {
        if (argEq(c->argv[j], "timeout") && j + 1 < c->argc && timeout == 0) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &timeout, NULL) != C_OK) return;
            if (timeout <= 0) {
                replyError(c, "ERR FAILOVER timeout must be greater than 0");
                return;
            }
            j++;
        } else if (argEq(c->argv[j], "to") && j + 2 < c->argc && !host) {
            if (getLongFromObjectOrReply(c, c->argv[j + 2], &port, NULL) != C_OK) return;
            host = c->argv[j + 1]->ptr;
            j += 2;
        } else if (argEq(c->argv[j], "force") && !force) {
            force = 1;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    if (fo.state != FO_NONE) {
        replyError(c, "ERR FAILOVER already in progress.");
        return;
    }
    if (replIsReplica()) {
        replyError(c, "ERR FAILOVER is not valid when server is a replica.");
        return;
    }
    replicaPeer p;
    if (!replReplicaAt(0, &p)) {
        replyError(c, "ERR FAILOVER requires connected replicas.");
        return;
    }
    if (force && (!timeout || !host)) {
        replyError(
            c, "ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
        return;
    }
    if (host) {
        if (failoverFind(host, (int)port, &p) == -1) {
            replyError(c, "ERR FAILOVER target HOST and PORT is not a replica.");
            return;
        }
        if (!p.online) {
            replyError(c, "ERR FAILOVER target replica is not online.");
            return;
        }
        fo.host = zstrdup(host);
        fo.port = (int)port;
        serverLog(LL_NOTICE, "FAILOVER requested to %s:%ld.", host, port);
    } else {
        serverLog(LL_NOTICE, "FAILOVER requested to any replica.");
    }
    /* A timeout past the end of time never comes (and must not overflow). */
    if (timeout == 0)
        fo.end_ms = 0;
    else
        fo.end_ms =
            timeout > LLONG_MAX - server.unixtime_ms ? LLONG_MAX : server.unixtime_ms + timeout;
    fo.force = force;
    fo.state = FO_WAIT_SYNC;
    pauseWritesForFailover(1);
    replyOk(c);
}
