/* shutdown_wait: the graceful shutdown of a server with replicas (Redis
 * 7.0's shutdown-timeout). Before it saves and exits, writes are paused and
 * it waits, up to shutdown-timeout seconds, for every online replica to
 * acknowledge the whole stream, so that a failover after a planned stop
 * loses nothing.
 *
 * Data in: SHUTDOWN (servercmd.c) and SIGTERM/SIGINT (main.c's cron) ask
 * shutdownWaitBegin, which returns 0 when there is nothing to wait for
 * (the caller shuts down at once). The cron calls shutdownWaitCron each
 * tick; SHUTDOWN ABORT calls shutdownWaitAbort. Out: prepareForShutdown and
 * exit(0), or, if that fails or is aborted, the error to every SHUTDOWN
 * client that waits (blocked through blocked.c) and writes resume. */
#include "blocked.h"
#include "client.h"
#include "config.h"
#include "log.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"
#include "repl.h"
#include "shutdown_wait.h"

#include <stdlib.h>

#define SHUTDOWN_ERROR "ERR Errors trying to SHUTDOWN. Check logs."

static int waiting;
static int wait_flags;
static long long deadline_ms;

/* 1 when no online replica lags (only those are waited for, as in
 * Redis); counts the replicas that acknowledged everything. */
static int replicasInSync(int *in_sync, int *total) {
    replicaPeer p;
    long long off = replPrimaryOffset();
    int lagging_online = 0;
    *in_sync = *total = 0;
    for (int j = 0; replReplicaAt(j, &p); j++) {
        (*total)++;
        if (p.ack_off == off)
            (*in_sync)++;
        else if (p.online)
            lagging_online++;
    }
    return lagging_online == 0;
}

static void shutdownWaitTimeout(client *c) {
    replyError(c, SHUTDOWN_ERROR);
}

/* Every blocked SHUTDOWN gets the error; writes resume. */
static void shutdownWaitFail(void) {
    waiting = 0;
    pauseWritesForShutdown(0);
    for (client *c = server.clients; c; c = c->next) {
        if (!(c->flags & CLIENT_BLOCKED) || c->btype != BLOCKED_SHUTDOWN) continue;
        unblockClient(c);
        replyBegin(c);
        replyError(c, SHUTDOWN_ERROR);
        blockedServed(c);
    }
}

int shutdownWaitActive(void) {
    return waiting;
}

long long shutdownWaitRemainingMs(void) {
    long long left = deadline_ms - mstime();
    return left > 0 ? left : 0;
}

int shutdownWaitBegin(int flags, client *c) {
    int in_sync, total;
    if (!waiting) {
        if ((flags & SHUTDOWN_NOW) || cfg.shutdown_timeout == 0 || replicasInSync(&in_sync, &total))
            return 0;
        serverLog(LL_NOTICE, "Waiting for replicas before shutting down.");
        waiting = 1;
        wait_flags = flags;
        deadline_ms = mstime() + (long long)cfg.shutdown_timeout * 1000;
        pauseWritesForShutdown(1);
        replRequestAck();
    } else if (flags & SHUTDOWN_NOW) {
        return 0;
    }
    if (c && !(c->flags & CLIENT_DENY_BLOCKING))
        blockClientNoKeys(c, BLOCKED_SHUTDOWN, 0, shutdownWaitTimeout);
    else if (c)
        replyError(c, SHUTDOWN_ERROR);
    return 1;
}

void shutdownWaitAbort(void) {
    if (!waiting) return;
    shutdownWaitFail();
}

void shutdownWaitCron(void) {
    if (!waiting) return;
    int in_sync, total;
    if (!replicasInSync(&in_sync, &total) && mstime() < deadline_ms) return;
    replicaPeer p;
    long long off = replPrimaryOffset();
    for (int j = 0; replReplicaAt(j, &p); j++) {
        if (p.ack_off != off)
            serverLog(LL_WARNING,
                      "Lagging replica %s:%d reported offset %lld behind master, state=%s.", p.ip,
                      p.port, off - p.ack_off, p.online ? "online" : "syncing");
    }
    serverLog(LL_NOTICE, "%d of %d replicas are in sync when shutting down.", in_sync, total);
    if (prepareForShutdown(wait_flags) == C_OK) exit(0);
    serverLog(LL_WARNING,
              "Errors trying to shut down the server. Check the logs for more information.");
    shutdownWaitFail();
}
