/* repl: replication, as the rest of the server sees it, and the state the
 * three replication files share.
 *
 *   backlog.c      the window over the shared propagation stream that
 *                  partial resyncs read from (a streamCursor kept
 *                  repl-backlog-size behind the tail)
 *   spill.c        the stream a full sync's replicas still need, on disk
 *                  rather than pinned in memory (no resync loops)
 *   repl_primary.c replicas of this server: SYNC/PSYNC, REPLCONF, the full
 *                  sync snapshot, streaming to each replica through its own
 *                  cursor over the same stream blocks, WAIT, INFO, ROLE
 *   repl_parse.c   the handshake's parsers, pure (repl_parse.h)
 *   repl_replica.c this server as a replica: REPLICAOF, the handshake state
 *                  machine, receiving and loading the snapshot, the
 *                  primary's client that applies and re-feeds its stream
 *   failover.c     FAILOVER: pausing writes, waiting for a replica to catch
 *                  up, handing the primary role over through PSYNC FAILOVER
 *
 * src/ calls only the functions declared under "server interface";
 * replication/ uses persistence/ (snapshots through rio), never the reverse.
 * Ownership: the per-replica state (replicaLink) hangs off client->repl and
 * is freed by replClientFreed; `repl` below is a process-wide singleton. */
#ifndef CAIRN_REPL_H
#define CAIRN_REPL_H
#include "propagate.h"
#include "sds.h"
#include "client.h" /* NET_IP_STR_LEN */
#include <sys/types.h>

struct client;
struct cairnCommand;

/* ---- server interface ---- */
void replInit(void);        /* after the start-up load */
void replCron(void);        /* every cron tick */
void replBeforeSleep(void); /* after the AOF, before replies are written */
void replClientFreed(struct client *c);
/* Called for replica clients instead of the generic reply writer. */
void replicaWrite(struct client *c);
/* The error a command is refused with on replication grounds (-READONLY,
 * -MASTERDOWN, -NOREPLICAS), or NULL. */
const char *replCommandDenied(struct client *c, struct cairnCommand *cmd);
/* A primary's client processed `len` bytes at p (one whole command or an
 * empty line): they join our own stream (see repl_replica.c). */
void replicaMasterApplied(struct client *c, const char *p, size_t len);
sds replInfoFields(sds s);
sds replInfoStats(sds s); /* sync_full, sync_partial_ok, sync_partial_err */
void replResetStats(void); /* CONFIG RESETSTAT: the same three */
int replIsReplica(void);
void replShutdown(void);
/* The replicaof directive (config.c): "" / NO ONE or host port. */
int replConfigSetMaster(const char *host, int port);
sds replConfigGetMaster(void);

void syncCommand(struct client *c);
void replconfCommand(struct client *c);
void waitCommand(struct client *c);
void roleCommand(struct client *c);
void replicaofCommand(struct client *c);
void failoverCommand(struct client *c);
/* Replicas whose AOF is fsynced up to stream offset `offset` (their REPLCONF
 * ACK ... FACK, Redis 7.2's), for WAITAOF; replRequestAck makes replicas
 * report at once (a GETACK before the loop sleeps). */
long replAofAckedAt(long long offset);
void replRequestAck(void);

/* ---- shared inside replication/ ---- */
#define REPL_ID_LEN 40

typedef struct replState {
    char replid[REPL_ID_LEN + 1];
    char replid2[REPL_ID_LEN + 1];
    long long second_replid_offset; /* -1: replid2 not valid */
    long long stat_sync_full, stat_sync_partial_ok, stat_sync_partial_err;
    /* replica side (repl_replica.c) */
    char *masterhost;               /* NULL: we are a primary */
    int masterport;
} replState;
extern replState repl;

/* backlog.c */
void backlogCreate(void);       /* attach at the stream's tail if none */
void backlogFree(void);
int backlogActive(void);
void backlogTrim(void);         /* keep at most repl-backlog-size bytes */
long long backlogStart(void);   /* stream offset of its first byte */
long long backlogHistlen(void);
/* 1 if a replica that has everything before `offset` can continue from here. */
int backlogCovers(long long offset);
void backlogCron(int replicas);   /* repl-backlog-ttl: free it after long without replicas */

/* spill.c: a full sync's share of the stream, on disk */
typedef struct replSpill replSpill;
/* From the stream's tail on; one reference. what names it in the log. */
replSpill *spillCreate(const char *what);
/* From an offset the stream still holds in memory (NULL if it does not);
 * spillPumpAll then writes what it holds from there on. */
replSpill *spillCreateAt(const char *what, long long offset);
void spillRetain(replSpill *s);
void spillRelease(replSpill *s);
void spillPumpAll(void);       /* move what the stream has past each spill to its file */
long long spillEnd(const replSpill *s); /* stream offset after the file's last byte */
/* Past repl-spill-max-size: its replicas must be dropped, nobody attaches. */
int spillOverflowed(const replSpill *s);
long long spillStart(const replSpill *s); /* stream offset of the file's first byte */
int spillUsable(const replSpill *s);      /* still taking the stream (file fine, under the cap) */
int spillShared(const replSpill *s);      /* more than one reference */
/* Up to len bytes from stream offset `offset` (0 at the end, -1 on error). */
ssize_t spillRead(replSpill *s, long long offset, void *buf, size_t len);
/* A reader at the file's end continues from memory: cur is attached at
 * offset (the spill's cursor pins it). 0 on success, -1 if offset is not
 * the end. */
int spillHandOver(replSpill *s, long long offset, streamCursor *cur);

/* repl_primary.c, for repl_replica.c */
void replChangeReplicationId(void);  /* a fresh random replid */
void replShiftReplicationId(void);   /* replid becomes replid2, a new replid */
void replDisconnectReplicas(void);
void replDisconnectBlocked(void); /* -UNBLOCKED to waiters: we became a replica */
int replConnectedReplicas(void);
/* The stream changed base (streamSetOffset) and the backlog's content is
 * no longer ours: start a new one at the tail. */
void replResetBacklog(void);

/* repl_primary.c, for failover.c */
typedef struct replicaPeer {
    char ip[NET_IP_STR_LEN];
    int port;            /* its listening port */
    int online;
    long long ack_off;
} replicaPeer;
/* The j-th replica (any state), 0 past the last. */
int replReplicaAt(int j, replicaPeer *out);
long long replPrimaryOffset(void);

/* failover.c */
const char *failoverStateName(void); /* INFO master_failover_state */
int failoverActive(void);            /* any state but no-failover */
int failoverInProgress(void);        /* our PSYNC must carry FAILOVER */
/* The outcome of that PSYNC: accepted (+CONTINUE / +FULLRESYNC) or not. */
void failoverPsyncDone(int accepted);
void failoverCron(void);

/* repl_replica.c, for failover.c */
void replicaFollow(const char *host, int port); /* as REPLICAOF host port */
void replicaUnfollow(void);                     /* as REPLICAOF NO ONE */

/* repl_replica.c, for repl_primary.c */
int replicaLinkUp(void);
int replicaMasterDb(void);          /* the primary client's db, -1 without one */
void replicaSendAckNow(void);
sds replicaInfoFields(sds s);
void replicaRoleReply(struct client *c);
void replicaCron(void);
void replicaBeforeSleep(void);
void replicaMasterFreed(struct client *c);
/* Start-up loaded a snapshot with repl-id/repl-offset: a replica can
 * continue from there (stream_db: the database its stream had selected). */
void replicaRestoredFromSnapshot(int stream_db);

#endif
