/* repl_roster: what this primary tells about its replicas, and the writes
 * it refuses for their sake: ROLE, INFO replication's fields and stats,
 * and the READONLY / MASTERDOWN / NOREPLICAS refusals (replCommandDenied).
 *
 * Data enters as the replica list and link states repl_primary.c keeps
 * (repl_primary_internal.h), read only here; it leaves as replies and INFO
 * text (sds the caller owns). */
#include "client.h"
#include "commands.h"
#include "config.h"
#include "multi.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "repl.h"
#include "repl_primary_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- ROLE and INFO ---- */

static const char *replStateName(int state) {
    switch (state) {
        case RS_WAIT_BGSAVE_START:
        case RS_WAIT_BGSAVE_END:
            return "wait_bgsave";
        case RS_SEND_BULK:
            return "send_bulk";
        default:
            return "online";
    }
}

static const char *replReplicaIp(client *c, char *buf, size_t len) {
    replicaLink *l = c->repl;
    if (l->announce_ip[0]) return l->announce_ip;
    snprintf(buf, len, "%s", c->peer);
    char *colon = strrchr(buf, ':');
    if (colon) *colon = '\0';
    if (buf[0] == '[') {
        memmove(buf, buf + 1, strlen(buf));
        char *end = strchr(buf, ']');
        if (end) *end = '\0';
    }
    return buf;
}

void roleCommand(client *c) {
    if (replIsReplica()) {
        replicaRoleReply(c);
        return;
    }
    replyArrayLen(c, 3);
    replyBulkCString(c, "master");
    replyLongLong(c, streamOffset());
    int online = 0;
    for (int j = 0; j < repl_nreplicas; j++)
        if (((replicaLink *)repl_replicas[j]->repl)->state == RS_ONLINE &&
            !((replicaLink *)repl_replicas[j]->repl)->archiver)
            online++;
    replyArrayLen(c, online);
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state != RS_ONLINE || l->archiver) continue;
        char ip[NET_ADDR_STR_LEN], num[LONG_STR_SIZE];
        replyArrayLen(c, 3);
        replyBulkCString(c, replReplicaIp(repl_replicas[j], ip, sizeof(ip)));
        int n = ll2string(num, sizeof(num), l->listening_port);
        replyBulkBuf(c, num, (size_t)n);
        n = ll2string(num, sizeof(num), l->ack_off);
        replyBulkBuf(c, num, (size_t)n);
    }
}

int replReplicaAt(int j, replicaPeer *out) {
    /* A backup archiver is no replica a primary could hand over to. */
    int k = 0;
    for (; k < repl_nreplicas; k++)
        if (!((replicaLink *)repl_replicas[k]->repl)->archiver && j-- == 0) break;
    if (j >= 0 || k == repl_nreplicas) return 0;
    replicaLink *l = repl_replicas[k]->repl;
    char ip[NET_ADDR_STR_LEN];
    snprintf(out->ip, sizeof(out->ip), "%s", replReplicaIp(repl_replicas[k], ip, sizeof(ip)));
    out->port = l->listening_port;
    out->online = l->state == RS_ONLINE;
    out->ack_off = l->ack_off;
    return 1;
}

long long replPrimaryOffset(void) {
    return streamOffset();
}

static int replGoodReplicas(void) {
    int good = 0;
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_ONLINE && !l->archiver &&
            server.unixtime - l->ack_time <= cfg.min_replicas_max_lag)
            good++;
    }
    return good;
}

sds replInfoFields(sds s) {
    s = sdscatprintf(s, "role:%s\r\n", replIsReplica() ? "slave" : "master");
    if (replIsReplica()) s = replicaInfoFields(s);
    int listed = 0;
    for (int j = 0; j < repl_nreplicas; j++)
        listed += !((replicaLink *)repl_replicas[j]->repl)->archiver;
    s = sdscatprintf(s, "connected_slaves:%d\r\n", listed);
    if (cfg.min_replicas_to_write && cfg.min_replicas_max_lag)
        s = sdscatprintf(s, "min_slaves_good_slaves:%d\r\n", replGoodReplicas());
    for (int j = 0, n = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->archiver) continue;
        char ip[NET_ADDR_STR_LEN];
        /* Redis gives a lag only for a replica that streams: 0 during its sync. */
        long long lag = l->state == RS_ONLINE ? (long long)(server.unixtime - l->ack_time) : 0;
        s = sdscatprintf(s, "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%lld\r\n", n++,
                         replReplicaIp(repl_replicas[j], ip, sizeof(ip)), l->listening_port,
                         replStateName(l->state), l->ack_off, lag);
    }
    long long hist = backlogHistlen();
    return sdscatprintf(s,
                        "master_failover_state:%s\r\n"
                        "master_replid:%s\r\n"
                        "master_replid2:%s\r\n"
                        "master_repl_offset:%lld\r\n"
                        "second_repl_offset:%lld\r\n"
                        "repl_backlog_active:%d\r\n"
                        "repl_backlog_size:%lld\r\n"
                        "repl_backlog_first_byte_offset:%lld\r\n"
                        "repl_backlog_histlen:%lld\r\n",
                        failoverStateName(), repl.replid, repl.replid2, streamOffset(),
                        repl.second_replid_offset, backlogActive(), cfg.repl_backlog_size,
                        backlogActive() ? backlogStart() + 1 : 0, hist);
}

void replResetStats(void) {
    repl.stat_sync_full = repl.stat_sync_partial_ok = repl.stat_sync_partial_err = 0;
}

sds replInfoStats(sds s) {
    return sdscatprintf(s, "sync_full:%lld\r\nsync_partial_ok:%lld\r\nsync_partial_err:%lld\r\n",
                        repl.stat_sync_full, repl.stat_sync_partial_ok, repl.stat_sync_partial_err);
}

/* ---- command refusals ---- */

const char *replCommandDenied(client *c, cairnCommand *cmd) {
    if (c->flags & CLIENT_MASTER) return NULL;
    /* The AOF being loaded (its fake client is the only one running
     * commands while loading) replays writes this server took: a read-only
     * replica obeys it (a script's writes too), as Redis does. */
    if ((c->flags & CLIENT_FAKE) && server.loading) return NULL;
    int is_write = (cmd->flags & CMD_WRITE) || (cmd->proc == execCommand && multiQueueHasWrites(c));
    if (replIsReplica()) {
        /* EXEC is as stale-safe as the least of its queued commands. */
        int deny_stale = !(cmd->flags & CMD_STALE) ||
                         (cmd->proc == execCommand && multiQueueAnyLacks(c, CMD_STALE));
        if (!replicaLinkUp() && !cfg.replica_serve_stale_data && deny_stale)
            return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to "
                   "'no'.";
        if (cfg.replica_read_only && is_write)
            return "READONLY You can't write against a read only replica.";
        return NULL;
    }
    if (is_write && cfg.min_replicas_to_write && cfg.min_replicas_max_lag &&
        replGoodReplicas() < cfg.min_replicas_to_write)
        return "NOREPLICAS Not enough good replicas to write.";
    return NULL;
}
