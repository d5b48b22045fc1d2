/* repl_primary_internal: what the primary side's files share (a replica's
 * link state and the list of replicas), for repl_primary.c, which owns and
 * changes them, and repl_roster.c, which only reads them. Nothing outside
 * replication/ includes this. */
#ifndef CAIRN_REPL_PRIMARY_INTERNAL_H
#define CAIRN_REPL_PRIMARY_INTERNAL_H

#include "client.h"
#include "propagate.h"
#include "repl.h"

#include <sys/types.h>
#include <time.h>

#define RS_WAIT_BGSAVE_START 0 /* waits for a snapshot to be started */
#define RS_WAIT_BGSAVE_END   1 /* attached to a running snapshot */
#define RS_SEND_BULK         2 /* the snapshot payload is being written */
#define RS_ONLINE            3 /* streaming */

typedef struct replicaLink {
    int state;
    int is_replica;
    streamCursor cur;
    int attached;
    int capa;
    int listening_port;
    char announce_ip[NET_IP_STR_LEN];
    long long ack_off;
    long long aof_off; /* REPLCONF ACK .. FACK: its AOF is fsynced up to here */
    time_t ack_time;
    int old_sync;       /* SYNC: no +FULLRESYNC line */
    int wait_first_ack; /* after a diskless payload: stream after the first ACK */
    int acked_early;    /* that ACK came before we saw the pipe's end */
    time_t soft_since;  /* over the soft output limit since (0: not) */
    /* disk payload */
    int bulk_fd;
    off_t bulk_off, bulk_size;
    sds preamble;
    /* diskless payload: bytes of the current pipe chunk already written */
    size_t pipe_sent;
    /* since when the socket took no more of the chunk (0: it took it all);
     * past repl-timeout the replica is dropped, not the transfer stalled */
    time_t pipe_stall_since;
    int snap_id; /* the snapshot this replica is attached to */
    int rdb_req; /* REPLCONF rdb-filter-only: REPL_REQ_* parts left out */
    /* REPLCONF archive-only 1 (cairn-backup stream): streamed like any
     * replica, but never counted by WAIT or min-replicas-to-write and not
     * listed by INFO or ROLE, so sentinel never sees it to promote it. */
    int archiver;
    /* After a full sync, the stream from the fork on comes from the
     * snapshot's spill file until spill_pos reaches its end; then the
     * replica moves to a memory cursor (attached). */
    replSpill *spill;
    long long spill_pos;
    /* An online replica that fell behind reads on from the lag spill (spill
     * is then that one), then from memory again. */
    int lag_spilled;
} replicaLink;

/* Replicas in the order they connected (INFO's slaveN lines): owned by
 * repl_primary.c (replAddReplica, replClientFreed). */
extern client **repl_replicas;
extern int repl_nreplicas;

#endif
