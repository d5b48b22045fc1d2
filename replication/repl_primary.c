/* repl_primary: this server's replicas.
 *
 * A client becomes a replica with SYNC or PSYNC (after REPLCONF
 * listening-port / ip-address / capa). PSYNC replid offset continues from
 * the backlog when replid is ours (or our previous one, replid2, up to
 * second_replid_offset) and the backlog still holds offset: the reply is
 * +CONTINUE <replid> and the replica's cursor is attached at that offset.
 * Otherwise a full sync: +FULLRESYNC <replid> <offset> where offset is the
 * stream offset at the moment a fork child takes the snapshot; the child
 * writes the RDB (persistence/rdb.c through rio) either to `dbfilename`
 * (disk) or, with repl-diskless-sync, into a pipe as `$EOF:<mark>` + RDB +
 * mark, which the parent copies to every replica of that snapshot. Replicas
 * that ask while the snapshot has not yet been taken wait for the next one
 * (repl-diskless-sync-delay collects them); one snapshot serves all
 * replicas attached to it.
 *
 * Streaming: each replica client holds its own streamCursor over the
 * shared propagation stream, positioned at the snapshot's (or the partial
 * resync's) offset. replicaWrite writes straight from the stream's blocks
 * (iovecs) to the socket; no replica has a copy of the stream in its
 * output buffer. Its backlog share (how far its cursor trails the tail)
 * is what client-output-buffer-limit replica limits.
 *
 * Bytes enter as the replicas' commands (REPLCONF ACK, PSYNC) and leave as
 * replies, snapshot payloads and stream bytes. The replicaLink hanging off
 * client->repl is allocated at the client's first REPLCONF/PSYNC and freed
 * by replClientFreed. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "conn.h"
#include "db.h"
#include "event.h"
#include "log.h"
#include "multi.h"
#include "object.h"
#include "propagate.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "repl.h"
#include "repl_parse.h"
#include "repl_primary_internal.h"
#include "child.h"
#include "rdb.h"
#include "rio_codec.h"
#include "snapshot.h"
#include "blocked.h"
#include "aof.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

replState repl;

#define REPL_CAPA_EOF REPLCONF_CAPA_EOF /* repl_parse.h parses them */
#define REPL_CAPA_PSYNC2 REPLCONF_CAPA_PSYNC2
/* cairn replicas: they decode a payload in a zstd or lz4 frame. */
#define REPL_CAPA_LZ4 REPLCONF_CAPA_LZ4
#define REPL_CAPA_ZSTD REPLCONF_CAPA_ZSTD

#define REPL_IOV_MAX 64
#define REPL_MAX_WRITE_PER_CALL (1024 * 1024)
/* 64 KB a read: the snapshot is tens of MB, and each chunk costs the
 * parent an event-loop turn and a write per replica. */
#define REPL_BULK_CHUNK (64 * 1024)
/* The pipe's size: with the default 64 KB the child stalls (and waits to
 * be scheduled again) each time the parent is one chunk behind; on a busy
 * machine those context switches, not the encoding, set the pace. */
#define REPL_PIPE_SIZE (1024 * 1024)


/* The spill that online replicas further behind than REPL_LAG_SPILL_MIN
 * (or the backlog, if larger) move to, so that their share of the stream
 * is on disk rather than pinned in memory while they catch up (a stalled
 * replica costs the primary no memory beyond that; the stream's blocks are
 * freed from its head, so any cursor left behind would pin all after it).
 * One at a time, from the offset of the furthest behind of the replicas
 * that lag when it is made; later ones join if they are within the file.
 * It holds one reference, dropped once no replica reads it or it stopped
 * taking the stream (a later laggard gets a new one). */
static replSpill *lag_spill;
static long long lag_spill_retry_ms; /* after a failed file: not before */
#define REPL_LAG_SPILL_MIN (1024 * 1024)

/* Replicas in the order they connected (INFO's slaveN lines). */
client **repl_replicas;
int repl_nreplicas;
static int replicas_cap;

/* The snapshot being taken for a full sync. */
static struct {
    int active;
    int id;
    int diskless;
    int codec;            /* RIO_CODEC_*: the payload's frame */
    long long offset;     /* stream offset at the fork */
    replSpill *spill;     /* the stream from offset on, for the replicas of this snapshot */
    pid_t pid;
    int pipe_fd;          /* diskless: the child's payload */
    char *chunk;          /* diskless: the chunk being sent to every replica */
    size_t chunk_len;
    int pipe_eof;
    int pipe_read;        /* diskless: a payload byte was taken from the pipe */
    int child_done, delivered;
    int stopping;            /* replStopUselessChild signalled the child */
    long long start_wait_ms; /* diskless delay: first replica waiting since */
    int req;              /* REPL_REQ_*: the parts this payload leaves out */
} snap = {.pipe_fd = -1};

/* WAIT */
typedef struct waitEntry {
    client *c;
    long long offset;
    long numreplicas;
    long long deadline_ms; /* 0: forever */
} waitEntry;
static waitEntry *waiters;
static int nwaiters, waiters_cap;
static int get_ack_pending;
static time_t last_ping;

/* ---- identity ---- */

void replChangeReplicationId(void) {
    getRandomHexChars(repl.replid, REPL_ID_LEN);
    repl.replid[REPL_ID_LEN] = '\0';
}

void replShiftReplicationId(void) {
    memcpy(repl.replid2, repl.replid, sizeof(repl.replid));
    /* The next byte is the first one of the new history. */
    repl.second_replid_offset = streamOffset() + 1;
    replChangeReplicationId();
    serverLog(LL_NOTICE, "Setting secondary replication ID to %s, valid up to offset: %lld. New replication ID is %s",
              repl.replid2, repl.second_replid_offset, repl.replid);
}

/* As in Redis, a primary that is in no replication chain (no backlog)
 * writes no replication fields: a replica connecting later resyncs fully
 * anyway, and the snapshot stays byte for byte the size of Redis'. */
static int replInfoSource(rdbReplInfo *out) {
    if (!replIsReplica() && !backlogActive()) return 0;
    memcpy(out->replid, repl.replid, sizeof(out->replid));
    out->offset = streamOffset();
    out->stream_db = replIsReplica() ? replicaMasterDb() : -1;
    return 1;
}

/* ---- replica list ---- */

static replicaLink *replLinkOf(client *c) {
    if (!c->repl) {
        replicaLink *l = zcalloc(sizeof(*l));
        l->bulk_fd = -1;
        l->ack_time = server.unixtime;
        c->repl = l;
    }
    return c->repl;
}

static void replAddReplica(client *c) {
    if (repl_nreplicas == replicas_cap) {
        replicas_cap = replicas_cap ? replicas_cap * 2 : 4;
        repl_replicas = zrealloc(repl_replicas, sizeof(client *) * replicas_cap);
    }
    repl_replicas[repl_nreplicas++] = c;
    c->flags |= CLIENT_REPLICA;
    replLinkOf(c)->is_replica = 1;
}

int replConnectedReplicas(void) { return repl_nreplicas; }

/* repl-disable-tcp-nodelay: fewer, fuller packets on the link to a
 * replica once it syncs (Redis turns it off when the sync starts). */
static void replApplyNoDelay(client *c) {
    if (!cfg.repl_disable_tcp_nodelay || !c->conn) return;
    int no = 0;
    /* Non critical if it fails, as in Redis. */
    (void)setsockopt(c->conn->fd, IPPROTO_TCP, TCP_NODELAY, &no, sizeof(no));
}

void replDisconnectReplicas(void) {
    for (int j = 0; j < repl_nreplicas; j++) clientFreeAsyncShut(repl_replicas[j]);
}

static void replWaitRemove(client *c);

void replClientFreed(client *c) {
    if (c->flags & CLIENT_REPL_WAIT) replWaitRemove(c);
    if (c->flags & CLIENT_MASTER) replicaMasterFreed(c);
    replicaLink *l = c->repl;
    if (!l) return;
    if (l->is_replica) {
        for (int j = 0; j < repl_nreplicas; j++) {
            if (repl_replicas[j] != c) continue;
            memmove(repl_replicas + j, repl_replicas + j + 1, sizeof(client *) * (size_t)(repl_nreplicas - j - 1));
            repl_nreplicas--;
            break;
        }
        serverLog(LL_NOTICE, "Connection with replica %s lost.", c->peer);
    }
    if (l->attached) streamCursorDetach(&l->cur);
    if (l->spill) spillRelease(l->spill);
    if (l->bulk_fd != -1) close(l->bulk_fd);
    sdsfree(l->preamble);
    zfree(l);
    c->repl = NULL;
}

/* ---- writing to a replica ---- */

static void replWriteHandler(connection *conn) { replicaWrite(conn->private_data); }

static void replWantWrite(client *c, int want) {
    connSetWriteHandler(c->conn, want ? replWriteHandler : NULL, 0);
}

/* Returns 1 when the socket took everything, 0 if it is full, -1 on error
 * (the client is then being freed). */
static int replWriteSome(client *c, const void *p, size_t len, size_t *written) {
    *written = 0;
    while (*written < len) {
        ssize_t n = connWrite(c->conn, (const char *)p + *written, len - *written);
        if (n > 0) {
            *written += (size_t)n;
            server.stat_net_output_bytes += n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
        serverLog(LL_WARNING, "Error writing to replica %s: %s", c->peer, n < 0 ? strerror(errno) : "closed");
        clientFreeAsync(c);
        return -1;
    }
    return 1;
}

static void replBulkDone(client *c, replicaLink *l);
static void replPipeWriteHandler(connection *conn);

/* The disk payload: "$<size>\r\n", then the file. */
static int replSendBulk(client *c, replicaLink *l) {
    size_t w;
    if (l->preamble && sdslen(l->preamble)) {
        int r = replWriteSome(c, l->preamble, sdslen(l->preamble), &w);
        sdsrange(l->preamble, (ssize_t)w, -1);
        if (r <= 0) return r;
    }
    char buf[REPL_BULK_CHUNK];
    size_t total = 0;
    while (l->bulk_off < l->bulk_size && total < REPL_MAX_WRITE_PER_CALL) {
        ssize_t n = pread(l->bulk_fd, buf, sizeof(buf), l->bulk_off);
        if (n <= 0) {
            serverLog(LL_WARNING, "Read error sending the snapshot to replica %s: %s", c->peer,
                      n < 0 ? strerror(errno) : "unexpected end of file");
            clientFreeAsync(c);
            return -1;
        }
        int r = replWriteSome(c, buf, (size_t)n, &w);
        l->bulk_off += (off_t)w;
        total += w;
        if (r <= 0) return r;
    }
    if (l->bulk_off < l->bulk_size) return 0;
    close(l->bulk_fd);
    l->bulk_fd = -1;
    replBulkDone(c, l);
    return 1;
}

static void replBulkDone(client *c, replicaLink *l) {
    l->state = RS_ONLINE;
    l->ack_time = server.unixtime;
    serverLog(LL_NOTICE, "Synchronization with replica %s succeeded", c->peer);
}

/* The stream since the fork, from the spill file; at its end the replica
 * moves to a memory cursor. 1 once moved, 0 if the socket is full, -1 on
 * error (the client is being freed). */
static int replSendSpill(client *c, replicaLink *l) {
    char buf[REPL_BULK_CHUNK];
    size_t total = 0;
    while (total < REPL_MAX_WRITE_PER_CALL) {
        if (l->spill_pos == spillEnd(l->spill)) {
            if (spillHandOver(l->spill, l->spill_pos, &l->cur) == -1) {
                serverLog(LL_WARNING, "The stream no longer holds offset %lld for replica %s", l->spill_pos, c->peer);
                clientFreeAsync(c);
                return -1;
            }
            l->attached = 1;
            l->lag_spilled = 0;
            spillRelease(l->spill);
            l->spill = NULL;
            return 1;
        }
        ssize_t n = spillRead(l->spill, l->spill_pos, buf, sizeof(buf));
        if (n <= 0) {
            serverLog(LL_WARNING, "Reading the spilled stream for replica %s: %s", c->peer,
                      n < 0 ? strerror(errno) : "unexpected end of file");
            clientFreeAsync(c);
            return -1;
        }
        size_t w;
        int r = replWriteSome(c, buf, (size_t)n, &w);
        l->spill_pos += (long long)w;
        total += w;
        if (r <= 0) return r;
    }
    return 0;
}

/* The stream from memory: 1 once the cursor is at its end, 0 if the
 * socket is full or this call wrote its share, -1 on error (the client is
 * being freed). */
static int replSendMemory(client *c, replicaLink *l) {
    size_t total = 0;
    while (total < REPL_MAX_WRITE_PER_CALL) {
        struct iovec iov[REPL_IOV_MAX];
        int cnt = streamCursorPeek(&l->cur, iov, REPL_IOV_MAX);
        if (cnt == 0) return 1;
        ssize_t n = connWritev(c->conn, iov, cnt);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) return 0;
            serverLog(LL_WARNING, "Error writing to replica %s: %s", c->peer, strerror(errno));
            clientFreeAsync(c);
            return -1;
        }
        if (n == 0) return 0;
        streamCursorAdvance(&l->cur, (size_t)n);
        server.stat_net_output_bytes += n;
        total += (size_t)n;
    }
    return 0;
}

void replicaWrite(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    replicaLink *l = c->repl;
    if (l && l->state == RS_WAIT_BGSAVE_END && snap.active && snap.diskless && l->snap_id == snap.id) {
        /* The pipe feeder owns the socket until the payload is out. */
        if (clientHasPendingReplies(c) && clientWrite(c, 0) == C_ERR) return;
        if (clientHasPendingReplies(c)) connSetWriteHandler(c->conn, replPipeWriteHandler, 0);
        return;
    }
    if (clientHasPendingReplies(c)) {
        if (clientWrite(c, 0) == C_ERR) return;
        if (clientHasPendingReplies(c)) {
            replWantWrite(c, 1);
            return;
        }
    }
    if (!l) {
        replWantWrite(c, 0);
        return;
    }
    if (l->state == RS_SEND_BULK && l->bulk_fd != -1) {
        int r = replSendBulk(c, l);
        if (r < 0) return;
        if (r == 0) {
            replWantWrite(c, 1);
            return;
        }
    }
    if (l->state != RS_ONLINE || l->wait_first_ack || (!l->attached && !l->spill)) {
        replWantWrite(c, 0);
        return;
    }
    if (l->spill) {
        int r = replSendSpill(c, l);
        if (r < 0) return;
        if (r == 0) {
            replWantWrite(c, 1);
            return;
        }
    }
    if (replSendMemory(c, l) < 0) return;
    replWantWrite(c, streamCursorOffset(&l->cur) < streamOffset());
}

/* ---- full sync snapshots ---- */

static void replCloseListenersInChild(void) {
    for (int j = 0; j < server.listen_count; j++) close(server.listen_fds[j]);
    if (server.unix_fd != -1) close(server.unix_fd);
}

/* Can this replica decode a payload in that frame? */
static int replAcceptsCodec(const replicaLink *l, int codec) {
    return codec == RIO_CODEC_NONE || (codec == RIO_CODEC_LZ4 && (l->capa & REPL_CAPA_LZ4)) ||
           (codec == RIO_CODEC_ZSTD && (l->capa & REPL_CAPA_ZSTD));
}

/* The diskless child: "$EOF:<mark>\r\n", the RDB, the mark, into the pipe.
 * Compressed (only for replicas that said they decode it), the header line
 * names the codec after the mark and the RDB is one zstd/lz4 frame. */
static int replChildWriteSocketFormat(int fd, int codec, int req) {
    char mark[REPL_ID_LEN + 1], hdr[80];
    getRandomHexChars(mark, REPL_ID_LEN);
    mark[REPL_ID_LEN] = '\0';
    rio r, framed;
    rioInitWithFd(&r, fd);
    int n = codec == RIO_CODEC_NONE ? snprintf(hdr, sizeof(hdr), "$EOF:%s\r\n", mark)
                                    : snprintf(hdr, sizeof(hdr), "$EOF:%s %s\r\n", mark, rioCodecName(codec));
    if (rioWrite(&r, hdr, (size_t)n) == 0) return -1;
    int parts = (req & REPL_REQ_EXCLUDE_DATA ? 0 : RDB_PART_DATA) |
                (req & REPL_REQ_EXCLUDE_FUNCTIONS ? 0 : RDB_PART_FUNCTIONS);
    if (codec == RIO_CODEC_NONE) {
        if (rdbSaveRioParts(&r, NULL, 0, parts) == -1) return -1;
    } else {
        if (!rioInitCodecWriter(&framed, &r, codec)) return -1;
        if (rdbSaveRioParts(&framed, NULL, 0, parts) == -1) {
            rioCodecFree(&framed);
            return -1;
        }
        if (!rioCodecFinish(&framed)) return -1;
    }
    if (rioWrite(&r, mark, REPL_ID_LEN) == 0) return -1;
    return rioFlush(&r) ? 0 : -1;
}

static void replPipeReadable(eventLoop *el, int fd, void *data, int mask);
static void replDisklessDelivered(int ok);

/* Attach a waiting replica to the running snapshot: its cursor starts at
 * the fork offset, and it is told so. */
static void replAttachToSnapshot(client *c, replicaLink *l) {
    if (l->attached) streamCursorDetach(&l->cur);
    l->attached = 0;
    if (l->spill) spillRelease(l->spill);
    spillRetain(snap.spill);
    l->spill = snap.spill;
    l->lag_spilled = 0;
    l->spill_pos = snap.offset;
    l->state = RS_WAIT_BGSAVE_END;
    l->snap_id = snap.id;
    l->pipe_sent = 0;
    l->pipe_stall_since = 0;
    if (!l->old_sync) {
        char buf[128];
        int n = snprintf(buf, sizeof(buf), "+FULLRESYNC %s %lld\r\n", repl.replid, snap.offset);
        replyBegin(c);
        replyRaw(c, buf, (size_t)n);
    }
}

static int replSnapshotStart(void) {
    if (snap.active || childActiveType() != CHILD_TYPE_NONE) return C_ERR;
    /* One payload serves the waiting replicas that asked for the same
     * parts (rdb-filter-only): those of the first to wait; the others get
     * the next one. A filtered payload always goes to sockets. */
    int req = -1;
    for (int j = 0; j < repl_nreplicas && req == -1; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_WAIT_BGSAVE_START) req = l->rdb_req;
    }
    if (req == -1) return C_ERR;
    int diskless = cfg.repl_diskless_sync || req;
    /* The old SYNC and a replica without capa eof need a sized payload. */
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_WAIT_BGSAVE_START && l->rdb_req == req && !(l->capa & REPL_CAPA_EOF))
            diskless = 0;
    }
    /* One payload serves them all: compressed only if each can decode it
     * (a Redis replica never can). */
    int codec = diskless ? cfg.repl_compression : cfg.snapshot_compression;
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_WAIT_BGSAVE_START && l->rdb_req == req && !replAcceptsCodec(l, codec))
            codec = RIO_CODEC_NONE;
    }
    int pfd[2] = {-1, -1};
    if (diskless && pipe(pfd) == -1) {
        serverLog(LL_WARNING, "Can't create the pipe for a diskless sync: %s", strerror(errno));
        return C_ERR;
    }
    /* Everything after the fork must start with a SELECT: the replica
     * begins applying there with no database selected. */
    propagateResetSelect();
    pid_t pid = childFork(CHILD_TYPE_REPL);
    if (pid == 0) {
        replCloseListenersInChild();
        int ret;
        if (diskless) {
            close(pfd[0]);
            ret = replChildWriteSocketFormat(pfd[1], codec, req);
            close(pfd[1]);
        } else {
            sds err = NULL;
            /* Only this child's copy of the setting: this dump is plain. */
            if (codec == RIO_CODEC_NONE) cfg.snapshot_compression = SNAPSHOT_COMPRESSION_NONE;
            ret = rdbSaveFile(cfg.rdb_filename, &err);
            if (ret != 0) {
                serverLog(LL_WARNING, "%s", err);
                sdsfree(err);
            } else {
                serverLog(LL_NOTICE, "DB saved on disk");
            }
        }
        childExit(ret == 0 ? 0 : 1);
    }
    if (pid == -1) {
        serverLog(LL_WARNING, "Can't fork for the replicas' snapshot: %s", strerror(errno));
        if (diskless) {
            close(pfd[0]);
            close(pfd[1]);
        }
        return C_ERR;
    }
    snap.active = 1;
    snap.id++;
    snap.pid = pid;
    snap.diskless = diskless;
    snap.codec = codec;
    snap.req = req;
    snap.offset = streamOffset();
    snap.chunk_len = 0;
    snap.pipe_eof = 0;
    snap.pipe_read = 0;
    snap.child_done = snap.delivered = snap.stopping = 0;
    snap.spill = spillCreate("Full sync");
    if (diskless) {
        close(pfd[1]);
        /* Best effort: a smaller pipe (pipe-max-size) only costs speed. */
        (void)fcntl(pfd[0], F_SETPIPE_SZ, REPL_PIPE_SIZE);
        netSetNonBlock(pfd[0]);
        snap.pipe_fd = pfd[0];
        if (!snap.chunk) snap.chunk = zmalloc(REPL_BULK_CHUNK);
        elAddFile(server.el, snap.pipe_fd, EV_READABLE, replPipeReadable, NULL);
    }
    serverLog(LL_NOTICE, "Starting BGSAVE for SYNC with target: %s (pid %d, payload %s)",
              diskless ? "replicas sockets" : "disk", (int)pid, rioCodecName(codec));
    /* Redis' next line, which tools and tests wait for */
    serverLog(LL_NOTICE,
              diskless ? "Background RDB transfer started by pid %d"
                       : "Background saving started by pid %d",
              (int)pid);
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_WAIT_BGSAVE_START && l->rdb_req == req) replAttachToSnapshot(repl_replicas[j], l);
    }
    return C_OK;
}

/* Diskless: a chunk read from the pipe goes to every replica of this
 * snapshot before the next one is read, so one slow replica slows the
 * transfer (as in Redis) but nobody buffers the payload. */
static int replPipeChunkSent(void) {
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_WAIT_BGSAVE_END && l->snap_id == snap.id && snap.diskless &&
            !(repl_replicas[j]->flags & CLIENT_CLOSE_ASAP) && l->pipe_sent < snap.chunk_len)
            return 0;
    }
    return 1;
}

static void replPipeFeed(void);

/* A write of w bytes of the chunk: the stall clock restarts whenever the
 * replica takes something, as Redis' last partial write does. */
static void replPipeNoteStall(replicaLink *l, size_t w) {
    if (l->pipe_sent >= snap.chunk_len) l->pipe_stall_since = 0;
    else if (w > 0 || !l->pipe_stall_since) l->pipe_stall_since = server.unixtime;
}

static void replPipeWriteHandler(connection *conn) {
    client *c = conn->private_data;
    replicaLink *l = c->repl;
    int failed = clientHasPendingReplies(c) && clientWrite(c, 0) == C_ERR;
    if (!failed && clientHasPendingReplies(c)) return;
    if (!failed && l && l->pipe_sent < snap.chunk_len) {
        size_t w;
        int r = replWriteSome(c, snap.chunk + l->pipe_sent, snap.chunk_len - l->pipe_sent, &w);
        l->pipe_sent += w;
        replPipeNoteStall(l, w);
        if (r == 0) return;
        failed = r < 0;
    }
    /* (a replica that failed is being freed: the others go on without it) */
    connSetWriteHandler(conn, NULL, 0);
    replPipeFeed();
}

/* Send the current chunk to everyone, then read the next while all took it. */
static void replPipeFeed(void) {
    while (snap.active && snap.diskless) {
        int blocked = 0;
        for (int j = 0; j < repl_nreplicas; j++) {
            client *c = repl_replicas[j];
            replicaLink *l = c->repl;
            if (l->state != RS_WAIT_BGSAVE_END || l->snap_id != snap.id || (c->flags & CLIENT_CLOSE_ASAP))
                continue;
            if (clientHasPendingReplies(c)) {
                if (clientWrite(c, 0) == C_ERR) continue;
                if (clientHasPendingReplies(c)) {
                    connSetWriteHandler(c->conn, replPipeWriteHandler, 0);
                    blocked = 1;
                    continue;
                }
            }
            if (l->pipe_sent < snap.chunk_len) {
                size_t w;
                int r = replWriteSome(c, snap.chunk + l->pipe_sent, snap.chunk_len - l->pipe_sent, &w);
                l->pipe_sent += w;
                replPipeNoteStall(l, w);
                if (r == 0) {
                    connSetWriteHandler(c->conn, replPipeWriteHandler, 0);
                    blocked = 1;
                }
            }
        }
        if (blocked || !replPipeChunkSent()) {
            elDelFile(server.el, snap.pipe_fd, EV_READABLE);
            return;
        }
        if (snap.pipe_eof) return;
        ssize_t n = read(snap.pipe_fd, snap.chunk, REPL_BULK_CHUNK);
        if (n > 0) {
            snap.pipe_read = 1;
            snap.chunk_len = (size_t)n;
            for (int j = 0; j < repl_nreplicas; j++) ((replicaLink *)repl_replicas[j]->repl)->pipe_sent = 0;
            continue;
        }
        if (n == 0) {
            snap.pipe_eof = 1;
            snap.chunk_len = 0;
            replDisklessDelivered(1);
            return;
        }
        if (errno == EAGAIN || errno == EINTR) {
            snap.chunk_len = 0;
            elAddFile(server.el, snap.pipe_fd, EV_READABLE, replPipeReadable, NULL);
            return;
        }
        serverLog(LL_WARNING, "Diskless sync: reading the child's pipe: %s", strerror(errno));
        snap.pipe_eof = 1;
        replDisklessDelivered(0);
        return;
    }
}

static void replPipeReadable(eventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)fd;
    (void)data;
    (void)mask;
    replPipeFeed();
}

static void replSnapshotRelease(void) {
    if (snap.pipe_fd != -1) {
        elDelFile(server.el, snap.pipe_fd, EV_READABLE);
        close(snap.pipe_fd);
        snap.pipe_fd = -1;
    }
    if (snap.spill) spillRelease(snap.spill);
    snap.spill = NULL;
    snap.active = 0;
}

/* Diskless: the pipe ended, so every replica that took every chunk has the
 * whole payload (ok), or the child failed and nobody has (!ok). */
static void replDisklessDelivered(int ok) {
    if (snap.delivered) return;
    snap.delivered = 1;
    if (snap.pipe_fd != -1) {
        elDelFile(server.el, snap.pipe_fd, EV_READABLE);
        close(snap.pipe_fd);
        snap.pipe_fd = -1;
    }
    if (ok) {
        int up = 0;
        for (int j = 0; j < repl_nreplicas; j++) {
            replicaLink *l = repl_replicas[j]->repl;
            up += l->state == RS_WAIT_BGSAVE_END && l->snap_id == snap.id &&
                  !(repl_replicas[j]->flags & CLIENT_CLOSE_ASAP);
        }
        serverLog(LL_WARNING,
                  "Diskless rdb transfer, done reading from pipe, %d replicas still up.", up);
    }
    for (int j = 0; j < repl_nreplicas; j++) {
        client *c = repl_replicas[j];
        replicaLink *l = c->repl;
        if (l->state != RS_WAIT_BGSAVE_END || l->snap_id != snap.id) continue;
        if (!ok || l->pipe_sent < snap.chunk_len) {
            serverLog(LL_WARNING, "SYNC failed for replica %s: the snapshot could not be made or sent", c->peer);
            clientFreeAsync(c);
            continue;
        }
        /* The replica cannot tell where the payload ends and the stream
         * starts until it has parsed the mark: it says so with an ACK. */
        l->state = RS_ONLINE;
        l->wait_first_ack = !l->acked_early;
        l->ack_time = server.unixtime;
        serverLog(LL_NOTICE, "Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK from replica to enable streaming",
                  c->peer);
        if (!l->wait_first_ack) replicaWrite(c);
    }
    if (snap.child_done) replSnapshotRelease();
}

/* rdb-del-sync-files: the dump.rdb a disk sync wrote, named by device and
 * inode, so a later SAVE or BGSAVE (a new file renamed into place, a
 * snapshot the user asked for) is never taken for it. */
static struct {
    int pending;
    dev_t dev;
    ino_t ino;
} sync_file;

static void replNoteSyncFile(void) {
    struct stat sb;
    sync_file.pending = stat(cfg.rdb_filename, &sb) == 0;
    sync_file.dev = sb.st_dev;
    sync_file.ino = sb.st_ino;
}

/* With persistence off, the file serves only replicas: once none of them
 * waits for it, remove it (Redis' removeRDBUsedToSyncReplicas). Redis
 * checks only for save points and the AOF, so a file kept by a running
 * child or a waiting replica is removed by a later cron. */
static void replRemoveSyncFile(void) {
    if (!sync_file.pending) return;
    if (!cfg.rdb_del_sync_files || cfg.saveparamslen || cfg.appendonly) {
        sync_file.pending = 0;
        return;
    }
    if (snap.active || childActiveType() != CHILD_TYPE_NONE) return;
    for (int j = 0; j < repl_nreplicas; j++)
        if (((replicaLink *)repl_replicas[j]->repl)->state != RS_ONLINE) return;
    struct stat sb;
    if (stat(cfg.rdb_filename, &sb) == 0 && sb.st_dev == sync_file.dev && sb.st_ino == sync_file.ino) {
        serverLog(LL_NOTICE, "Removing the RDB file used to feed replicas in a persistence-less instance");
        unlink(cfg.rdb_filename);
    }
    sync_file.pending = 0;
}

static void replSnapshotDone(pid_t pid, int exitcode, int bysignal) {
    if (!snap.active) return;
    int ok = !bysignal && exitcode == 0;
    serverLog(ok ? LL_NOTICE : LL_WARNING, "Background RDB transfer %s", ok ? "terminated with success" : "failed");
    snap.child_done = 1;
    if (ok && !snap.diskless) replNoteSyncFile();
    if (!ok && !snap.diskless) {
        char tmpfile[64]; /* what the stopped child was writing */
        snprintf(tmpfile, sizeof(tmpfile), "temp-%d.rdb", (int)pid);
        unlink(tmpfile);
    }
    if (snap.diskless) {
        /* The pipe may still hold the payload's tail: released at its end. */
        /* (a child stopped or failed after its pipe ended: released here) */
        if (!ok && !snap.delivered)
            replDisklessDelivered(0);
        else if (snap.delivered) replSnapshotRelease();
        return;
    }
    for (int j = 0; j < repl_nreplicas; j++) {
        client *c = repl_replicas[j];
        replicaLink *l = c->repl;
        if (l->state != RS_WAIT_BGSAVE_END || l->snap_id != snap.id) continue;
        if (!ok) {
            serverLog(LL_WARNING, "SYNC failed for replica %s: the snapshot could not be made", c->peer);
            clientFreeAsync(c);
            continue;
        }
        struct stat sb;
        l->bulk_fd = open(cfg.rdb_filename, O_RDONLY | O_CLOEXEC);
        if (l->bulk_fd == -1 || fstat(l->bulk_fd, &sb) == -1) {
            serverLog(LL_WARNING, "SYNC failed. Can't open/stat DB after BGSAVE: %s", strerror(errno));
            clientFreeAsync(c);
            continue;
        }
        l->bulk_off = 0;
        l->bulk_size = sb.st_size;
        sdsfree(l->preamble);
        l->preamble = sdscatprintf(sdsempty(), "$%lld\r\n", (long long)sb.st_size);
        l->state = RS_SEND_BULK;
        replicaWrite(c);
    }
    replSnapshotRelease();
}

/* ---- commands ---- */

static int replTryPartial(client *c, replicaLink *l, const char *id, long long psync_offset) {
    /* psync_offset is the first byte the replica lacks: Redis counts
     * offsets from 1, so the stream position is one less. */
    long long want = psync_offset - 1;
    int ours = !strcasecmp(id, repl.replid);
    int previous = !ours && repl.second_replid_offset != -1 && !strcasecmp(id, repl.replid2) &&
                   psync_offset <= repl.second_replid_offset;
    if (!ours && !previous) {
        if (strcmp(id, "?")) {
            serverLog(LL_NOTICE, "Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '%s', my replication IDs are '%s' and '%s')",
                      id, repl.replid, repl.replid2);
            repl.stat_sync_partial_err++;
        } else {
            serverLog(LL_NOTICE, "Full resync requested by replica %s", c->peer);
        }
        return 0;
    }
    if (!backlogCovers(want)) {
        serverLog(LL_NOTICE, "Unable to partial resync with replica %s for lack of backlog (Replica request was: %lld).",
                  c->peer, psync_offset);
        repl.stat_sync_partial_err++;
        return 0;
    }
    if (streamCursorAttachAt(&l->cur, want) == -1) return 0;
    l->attached = 1;
    replAddReplica(c);
    l->state = RS_ONLINE;
    l->ack_time = server.unixtime;
    char buf[128];
    int n = (l->capa & REPL_CAPA_PSYNC2) ? snprintf(buf, sizeof(buf), "+CONTINUE %s\r\n", repl.replid)
                                         : snprintf(buf, sizeof(buf), "+CONTINUE\r\n");
    replyRaw(c, buf, (size_t)n);
    repl.stat_sync_partial_ok++;
    serverLog(LL_NOTICE, "Partial resynchronization request from %s accepted. Sending %lld bytes of backlog starting from offset %lld.",
              c->peer, streamOffset() - want, psync_offset);
    return 1;
}

/* SYNC and PSYNC replid offset. */
void syncCommand(client *c) {
    if (c->flags & (CLIENT_REPLICA | CLIENT_MASTER)) return;
    /* PSYNC replid offset FAILOVER: our primary hands its role over to us
     * (its FAILOVER command). It is already our replica-to-be, and has
     * exactly our history when replid is ours: promote ourselves, then
     * serve its PSYNC as any other (a partial one through replid2). */
    if (argEq(c->argv[0], "psync") && c->argc > 3 && argEq(c->argv[3], "failover")) {
        if (strcasecmp(c->argv[1]->ptr, repl.replid)) {
            replyError(c, "ERR PSYNC FAILOVER replid must match my replid.");
            return;
        }
        if (replIsReplica()) {
            replicaUnfollow();
            sds who = clientInfoString(sdsempty(), c);
            serverLog(LL_NOTICE, "MASTER MODE enabled (failover request from '%s')", who);
            sdsfree(who);
        }
    }
    if (failoverActive()) {
        replyError(c, "NOMASTERLINK Can't SYNC while failing over");
        return;
    }
    if (replIsReplica() && !replicaLinkUp()) {
        replyError(c, "NOMASTERLINK Can't SYNC while not connected with my master");
        return;
    }
    if (clientHasPendingReplies(c)) {
        replyError(c, "ERR SYNC and PSYNC are invalid with pending output");
        return;
    }
    replicaLink *l = replLinkOf(c);
    /* A filtered payload is only ever made for sockets. */
    if (l->rdb_req && !(l->capa & REPL_CAPA_EOF)) {
        replyError(c, "ERR Filtered replica requires EOF capability");
        return;
    }
    serverLog(LL_NOTICE, "Replica %s asks for synchronization", c->peer);
    if (argEq(c->argv[0], "psync")) {
        long long off;
        /* Not a number at all: refused, as Redis does, rather than served
         * with a full sync. */
        if (!string2ll(c->argv[2]->ptr, sdslen(c->argv[2]->ptr), &off)) {
            serverLog(LL_WARNING, "Replica %s asks for synchronization but with a wrong offset",
                      c->peer);
            replyError(c, "ERR value is not an integer or out of range");
            return;
        }
        if (replParsePsyncOffset(c->argv[2]->ptr, sdslen(c->argv[2]->ptr), &off) &&
            replTryPartial(c, l, c->argv[1]->ptr, off)) {
            backlogCreate();
            replApplyNoDelay(c);
            return;
        }
    } else {
        l->old_sync = 1;
    }
    repl.stat_sync_full++;
    /* The backlog must exist from before the snapshot's offset on, or the
     * replica could not continue partially after a later drop. */
    backlogCreate();
    replAddReplica(c);
    l->state = RS_WAIT_BGSAVE_START;
    l->ack_time = server.unixtime;
    replApplyNoDelay(c);
    /* Join a snapshot already being taken if it is a disk one (the file is
     * sent once it is complete), or a diskless one whose payload has not
     * begun to leave the pipe (replicas that ask within moments of each
     * other share one snapshot even without repl-diskless-sync-delay);
     * otherwise this replica waits for the next. */
    int joins_diskless = snap.diskless && !snap.pipe_read && (l->capa & REPL_CAPA_EOF);
    if (snap.active && (!snap.diskless || joins_diskless) && snap.req == l->rdb_req &&
        replAcceptsCodec(l, snap.codec) &&
        !spillOverflowed(snap.spill)) {
        replAttachToSnapshot(c, l);
        return;
    }
    /* Without a delay to collect more replicas, start right away rather
     * than at the next cron tick. A replica without capa eof (the old SYNC,
     * or a bare PSYNC from a tool or client library) gets a disk snapshot,
     * which Redis starts at once: +FULLRESYNC comes back straight away. */
    if (!snap.active &&
        (!cfg.repl_diskless_sync || cfg.repl_diskless_sync_delay == 0 || !(l->capa & REPL_CAPA_EOF)))
        replSnapshotStart();
    else if (!snap.active && snap.start_wait_ms == 0) snap.start_wait_ms = server.unixtime_ms;
}

static void replWaitCheck(void);

void replconfCommand(client *c) {
    if (c->argc % 2 == 0) {
        replyErrorSyntax(c);
        return;
    }
    for (int j = 1; j < c->argc; j += 2) {
        const char *opt = c->argv[j]->ptr, *val = c->argv[j + 1]->ptr;
        replconfArg a;
        int kind = replParseReplconf(opt, val, NET_IP_STR_LEN, &a);
        if (kind == REPLCONF_ACK || kind == REPLCONF_BAD_ACK) {
            /* No reply: the replica is not reading one. */
            if (!(c->flags & CLIENT_REPLICA) || kind == REPLCONF_BAD_ACK) return;
            replicaLink *l = c->repl;
            if (a.offset > l->ack_off) l->ack_off = a.offset;
            /* Redis 7.2 replicas add FACK <offset their AOF has fsynced>;
             * 7.0 ones and those without an AOF do not, and never count
             * for WAITAOF. */
            long long fack;
            if (j + 3 < c->argc && argEq(c->argv[j + 2], "fack") &&
                string2ll(c->argv[j + 3]->ptr, sdslen(c->argv[j + 3]->ptr), &fack) && fack > l->aof_off)
                l->aof_off = fack;
            if (l->state == RS_WAIT_BGSAVE_END) l->acked_early = 1;
            l->ack_time = server.unixtime;
            if (l->wait_first_ack) {
                l->wait_first_ack = 0;
                serverLog(LL_NOTICE, "Synchronization with replica %s succeeded", c->peer);
                replicaWrite(c);
            }
            if (nwaiters) replWaitCheck();
            return;
        } else if (kind == REPLCONF_GETACK) {
            if (c->flags & CLIENT_MASTER) replicaSendAckNow();
            return;
        } else if (kind == REPLCONF_BAD_PORT) {
            replyError(c, "ERR value is out of range");
            return;
        } else if (kind == REPLCONF_LISTENING_PORT) {
            replLinkOf(c)->listening_port = a.port;
        } else if (kind == REPLCONF_IP_TOO_LONG) {
            replyErrorFormat(c, "ERR REPLCONF ip-address provided by replica instance is too long: %zd bytes",
                             strlen(val));
            return;
        } else if (kind == REPLCONF_IP_ADDRESS) {
            snprintf(replLinkOf(c)->announce_ip, NET_IP_STR_LEN, "%s", val);
        } else if (kind == REPLCONF_CAPA) {
            replLinkOf(c)->capa |= a.capa;
        } else if (!strcasecmp(opt, "archive-only")) {
            /* cairn-backup: not a replica for WAIT, min-replicas or ROLE */
            replLinkOf(c)->archiver = !strcmp(val, "1");
        } else if (kind == REPLCONF_UNKNOWN) {
            replyErrorFormat(c, "ERR Unrecognized REPLCONF option: %s", opt);
            return;
        } else if (kind == REPLCONF_BAD_RDB_ONLY) {
            replyError(c, "ERR value is out of range, value must between 0 and 1");
            return;
        } else if (kind == REPLCONF_BAD_FILTER) {
            if (a.bad_filter[0]) replyErrorFormat(c, "ERR Unsupported rdb-filter-only option: %s", a.bad_filter);
            else replyError(c, "ERR Missing rdb-filter-only values");
            return;
        } else if (kind == REPLCONF_RDB_FILTER) {
            /* redis-cli --functions-rdb, --replica */
            replLinkOf(c)->rdb_req = a.rdb_req;
        } /* REPLCONF_RDB_ONLY (redis-cli --rdb): accepted, the snapshot is what it gets anyway */
    }
    replyOk(c);
}

/* ---- WAIT ---- */

static long replAckedAt(long long offset) {
    long n = 0;
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_ONLINE && !l->archiver && l->ack_off >= offset) n++;
    }
    return n;
}

long replAofAckedAt(long long offset) {
    long n = 0;
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_ONLINE && !l->archiver && l->aof_off >= offset) n++;
    }
    return n;
}

void replRequestAck(void) { get_ack_pending = 1; }

static void replWaitRemove(client *c) {
    for (int j = 0; j < nwaiters; j++) {
        if (waiters[j].c != c) continue;
        waiters[j] = waiters[--nwaiters];
        break;
    }
    c->flags &= ~CLIENT_REPL_WAIT;
}

static void replWaitRelease(int j, long acked) {
    client *c = waiters[j].c;
    waiters[j] = waiters[--nwaiters];
    c->flags &= ~CLIENT_REPL_WAIT;
    c->last_interaction = server.unixtime_ms; /* as blockedServed */
    replyBegin(c);
    replyLongLong(c, acked);
    /* Input that arrived meanwhile is processed before the loop sleeps. */
    if (!(c->flags & CLIENT_UNBLOCKED)) {
        c->flags |= CLIENT_UNBLOCKED;
        c->unblocked_next = server.unblocked;
        server.unblocked = c;
    }
}

static void replWaitCheck(void) {
    for (int j = 0; j < nwaiters;) {
        long acked = replAckedAt(waiters[j].offset);
        int timed_out = waiters[j].deadline_ms && server.unixtime_ms >= waiters[j].deadline_ms;
        if (acked >= waiters[j].numreplicas || timed_out) replWaitRelease(j, acked);
        else j++;
    }
}

/* A primary turned replica (REPLICAOF host port, FAILOVER): the writes that
 * key waiters, WAIT and WAITAOF wait for can no longer be made here. As
 * Redis does, they are answered -UNBLOCKED and disconnected (the clients
 * held by a pause are not blocked: they run their command after it). */
void replDisconnectBlocked(void) {
    for (client *c = server.clients; c; c = c->next) {
        int blocked = (c->flags & CLIENT_BLOCKED) != 0;
        if (!blocked && !(c->flags & CLIENT_REPL_WAIT)) continue;
        if (blocked) unblockClient(c);
        else replWaitRemove(c);
        replyBegin(c);
        replyError(c, "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)");
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        if (blocked) blockedServed(c);
    }
}

void waitCommand(client *c) {
    if (replIsReplica()) {
        replyError(c, "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.");
        return;
    }
    long long numreplicas, timeout;
    if (getLongLongFromObjectOrReply(c, c->argv[1], &numreplicas, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &timeout, "ERR timeout is not an integer or out of range") != C_OK)
        return;
    if (timeout < 0) {
        replyError(c, "ERR timeout is negative");
        return;
    }
    /* The client's own writes, as in Redis (not the PINGs and GETACKs
     * appended since). */
    long long offset = c->woff;
    long acked = replAckedAt(offset);
    if (acked >= numreplicas || (c->flags & CLIENT_MULTI) || server.in_exec) {
        replyLongLong(c, acked);
        return;
    }
    if (nwaiters == waiters_cap) {
        waiters_cap = waiters_cap ? waiters_cap * 2 : 8;
        waiters = zrealloc(waiters, sizeof(waitEntry) * waiters_cap);
    }
    waiters[nwaiters++] = (waitEntry){c, offset, (long)numreplicas, timeout ? server.unixtime_ms + timeout : 0};
    c->flags |= CLIENT_REPL_WAIT;
    replRequestAck();
}

/* ---- the loop ---- */

void replResetBacklog(void) {
    backlogFree();
    backlogCreate();
}

/* repl-spill-max-size: the replicas still reading a spill that passed it
 * are too far behind, as with an output buffer overflow in Redis. */
static void replDropOverflowedSpills(void) {
    for (int j = 0; j < repl_nreplicas; j++) {
        client *c = repl_replicas[j];
        replicaLink *l = c->repl;
        if (!l->spill || !spillOverflowed(l->spill) || (c->flags & CLIENT_CLOSE_ASAP)) continue;
        serverLog(LL_WARNING,
                  "Client %s scheduled to be closed ASAP for overcoming of output buffer limits "
                  "(the stream kept on disk for it passed repl-spill-max-size).",
                  c->peer);
        server.stat_client_outbuf_limit_disconnections++;
        clientFreeAsync(c);
    }
}

void replBeforeSleep(void) {
    replicaBeforeSleep();
    /* First, so replicas in full sync pin no more than this turn's writes. */
    spillPumpAll();
    replDropOverflowedSpills();
    if (repl_nreplicas == 0 && !backlogActive()) return;
    /* Not while writes are paused: the GETACK would move the offset that
     * FAILOVER (or a CLIENT PAUSE user) waits for replicas to reach; it is
     * sent after the pause. */
    if (get_ack_pending && repl_nreplicas && !replIsReplica() && !clientsArePaused()) {
        robj *argv[3] = {createStringObject("REPLCONF", 8), createStringObject("GETACK", 6),
                         createStringObject("*", 1)};
        propagateNoDb(argv, 3);
        for (int j = 0; j < 3; j++) decrRefCount(argv[j]);
        get_ack_pending = 0;
    }
    if (replIsReplica() || !repl_nreplicas) get_ack_pending = 0;
    for (int j = 0; j < repl_nreplicas; j++) {
        client *c = repl_replicas[j];
        replicaLink *l = c->repl;
        if (l->state != RS_ONLINE || connHasWriteHandler(c->conn)) continue;
        if ((l->attached && streamCursorOffset(&l->cur) < streamOffset()) ||
            (l->spill && !l->wait_first_ack))
            replicaWrite(c);
    }
    backlogTrim();
}

static long long replLagSpillMin(void) {
    return cfg.repl_backlog_size > REPL_LAG_SPILL_MIN ? cfg.repl_backlog_size : REPL_LAG_SPILL_MIN;
}

static int replLagsInMemory(client *c) {
    replicaLink *l = c->repl;
    return l->state == RS_ONLINE && l->attached && !l->spill && !l->wait_first_ack &&
           !(c->flags & CLIENT_CLOSE_ASAP) &&
           streamOffset() - streamCursorOffset(&l->cur) > replLagSpillMin();
}

/* Move the online replicas that lag to the lag spill (see lag_spill). */
static void replLagSpillJoin(void) {
    long long from = -1;
    for (int j = 0; j < repl_nreplicas; j++) {
        if (!replLagsInMemory(repl_replicas[j])) continue;
        long long at = streamCursorOffset(&((replicaLink *)repl_replicas[j]->repl)->cur);
        if (from == -1 || at < from) from = at;
    }
    if (from == -1) return;
    if (!lag_spill) {
        if (server.unixtime_ms < lag_spill_retry_ms) return;
        lag_spill = spillCreateAt("Lagging replicas", from);
        if (lag_spill && !spillUsable(lag_spill)) {
            spillRelease(lag_spill);
            lag_spill = NULL;
        }
        if (!lag_spill) {
            lag_spill_retry_ms = server.unixtime_ms + 10000;
            return;
        }
    }
    /* The file holds the stream up to its tail before anyone reads it. */
    spillPumpAll();
    if (!spillUsable(lag_spill)) return;
    for (int j = 0; j < repl_nreplicas; j++) {
        if (!replLagsInMemory(repl_replicas[j])) continue;
        replicaLink *l = repl_replicas[j]->repl;
        long long at = streamCursorOffset(&l->cur);
        if (at < spillStart(lag_spill) || at > spillEnd(lag_spill)) continue;
        spillRetain(lag_spill);
        l->spill = lag_spill;
        l->lag_spilled = 1;
        l->spill_pos = at;
        streamCursorDetach(&l->cur);
        l->attached = 0;
    }
}

/* A full sync's child nobody waits for any more is stopped, as Redis does:
 * a diskless one always (its payload has no other reader), a disk one
 * unless save points make the file a useful snapshot anyway. Replicas
 * waiting for a snapshot to start would attach to a disk one. */
static void replStopUselessChild(void) {
    if (!snap.active || snap.child_done || snap.delivered || snap.stopping ||
        childActiveType() != CHILD_TYPE_REPL)
        return;
    if (!snap.diskless && cfg.saveparamslen > 0) return;
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (repl_replicas[j]->flags & CLIENT_CLOSE_ASAP) continue;
        if (l->state == RS_WAIT_BGSAVE_END && l->snap_id == snap.id) return;
        if (l->state == RS_WAIT_BGSAVE_START && !snap.diskless) return;
    }
    if (snap.diskless)
        serverLog(LL_WARNING, "Diskless rdb transfer, last replica dropped, killing fork child.");
    else
        serverLog(LL_WARNING, "Background RDB child %d stopped: no replica waits for its snapshot.",
                  (int)childPid());
    snap.stopping = 1;
    childStop();
}

void replCron(void) {
    replicaCron();
    time_t now = server.unixtime;
    /* PINGs go into the stream so replicas see the link alive (and, as in
     * Redis, they count in the offset). */
    failoverCron();
    /* The period counts from when the first replica attached, so a replica
     * that has just synced does not get a PING at once (Redis' cron-loop
     * counter behaves the same way for the stream a fresh SYNC sees). */
    if (repl_nreplicas == 0) last_ping = now;
    if (!replIsReplica() && repl_nreplicas && !failoverActive() && now - last_ping >= cfg.repl_ping_replica_period) {
        last_ping = now;
        robj *ping = createStringObject("PING", 4);
        propagateNoDb(&ping, 1);
        decrRefCount(ping);
    }
    clientBufferLimit *lim = &cfg.client_obuf_limits[CLIENT_TYPE_REPLICA];
    /* A hard limit below repl-backlog-size would drop a replica that a
     * partial resync would take right back: the backlog size counts
     * instead, as in Redis (that share costs nothing beyond the backlog). */
    unsigned long long hard_limit = lim->hard_limit_bytes;
    if (hard_limit && hard_limit < (unsigned long long)cfg.repl_backlog_size)
        hard_limit = (unsigned long long)cfg.repl_backlog_size;
    /* Once a second, as Redis: a quick snapshot then reaches a bare SYNC or
     * PSYNC (client libraries' sync()/psync()) with no newline before it. */
    static time_t last_keepalive;
    int keepalive = now != last_keepalive;
    if (keepalive) last_keepalive = now;
    for (int j = 0; j < repl_nreplicas; j++) {
        client *c = repl_replicas[j];
        replicaLink *l = c->repl;
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        /* Keep-alive while the snapshot is made: the replica would time out. */
        if (keepalive &&
            (l->state == RS_WAIT_BGSAVE_START || (l->state == RS_WAIT_BGSAVE_END && !snap.diskless))) {
            replyBegin(c);
            replyRaw(c, "\n", 1);
        }
        if (l->state == RS_WAIT_BGSAVE_END && snap.active && snap.diskless && l->snap_id == snap.id &&
            l->pipe_stall_since && now - l->pipe_stall_since > cfg.repl_timeout) {
            serverLog(LL_WARNING, "Disconnecting timedout replica (full sync): %s", c->peer);
            clientFreeAsync(c);
            continue;
        }
        if (l->state == RS_ONLINE && now - l->ack_time > cfg.repl_timeout) {
            serverLog(LL_WARNING, "Disconnecting timedout replica (streaming sync): %s", c->peer);
            clientFreeAsync(c);
            continue;
        }
        /* Its share of the stream is what output buffer limits count,
         * whether that share is in memory or in the lag spill. */
        if (l->state == RS_ONLINE && (l->attached || l->lag_spilled)) {
            long long at = l->attached ? streamCursorOffset(&l->cur) : l->spill_pos;
            unsigned long long lag = (unsigned long long)(streamOffset() - at) + c->reply_bytes;
            int soft = lim->soft_limit_bytes && lag >= lim->soft_limit_bytes;
            if (!soft) l->soft_since = 0;
            else if (!l->soft_since) l->soft_since = now;
            if ((hard_limit && lag >= hard_limit) ||
                (soft && now - l->soft_since > lim->soft_limit_seconds)) {
                serverLog(LL_WARNING, "Client %s scheduled to be closed ASAP for overcoming of output buffer limits (replica %llu bytes behind).",
                          c->peer, lag);
                server.stat_client_outbuf_limit_disconnections++;
                clientFreeAsync(c);
            }
        }
    }
    /* The others' transfer goes on without a replica dropped meanwhile
     * (stalled, or gone: its close freed it with the feed waiting on it). */
    if (snap.active && snap.diskless && !snap.delivered) replPipeFeed();
    replStopUselessChild();
    replLagSpillJoin();
    if (lag_spill && (!spillShared(lag_spill) || !spillUsable(lag_spill))) {
        spillRelease(lag_spill);
        lag_spill = NULL;
    }
    /* Diskless: start once the delay passed or enough replicas wait. */
    if (!snap.active && childActiveType() == CHILD_TYPE_NONE) {
        int waiting = 0;
        for (int j = 0; j < repl_nreplicas; j++)
            if (((replicaLink *)repl_replicas[j]->repl)->state == RS_WAIT_BGSAVE_START) waiting++;
        if (waiting) {
            if (snap.start_wait_ms == 0) snap.start_wait_ms = server.unixtime_ms;
            int max = cfg.repl_diskless_sync_max_replicas;
            if (!cfg.repl_diskless_sync ||
                server.unixtime_ms - snap.start_wait_ms >= (long long)cfg.repl_diskless_sync_delay * 1000 ||
                (max && waiting >= max)) {
                if (replSnapshotStart() == C_OK) snap.start_wait_ms = 0;
            }
        } else {
            snap.start_wait_ms = 0;
        }
    }
    if (nwaiters) replWaitCheck();
    replRemoveSyncFile();
    backlogCron(repl_nreplicas);
}

void replShutdown(void) {
    if (snap.active && childActiveType() == CHILD_TYPE_REPL) childKill();
    /* Give replicas the last bytes of the stream, as Redis does. */
    for (int j = 0; j < repl_nreplicas; j++) {
        replicaLink *l = repl_replicas[j]->repl;
        if (l->state == RS_ONLINE) replicaWrite(repl_replicas[j]);
    }
}

static void replPropagateLoadExpired(int dbid, sds key) {
    robj *k = createObject(OBJ_STRING, key);
    propagateDel(&server.db[dbid], k, cfg.lazyfree_lazy_expire);
    decrRefCount(k);
}

void replInit(void) {
    repl.second_replid_offset = -1;
    memset(repl.replid2, '0', REPL_ID_LEN);
    repl.replid2[REPL_ID_LEN] = '\0';
    replChangeReplicationId();
    rdbSetReplInfoSource(replInfoSource);
    rdbSetReplChildDone(replSnapshotDone);
    rdbReplInfo ri;
    if (rdbStartupReplInfo(&ri)) {
        long long before = streamOffset();
        streamSetOffset(ri.offset);
        aofStreamShifted(ri.offset - before);
        if (repl.masterhost) {
            /* A replica continues its primary's history from the snapshot. */
            memcpy(repl.replid, ri.replid, sizeof(repl.replid));
        } else {
            /* A primary keeps it as the second ID, so its old replicas can
             * continue partially. */
            memcpy(repl.replid2, ri.replid, sizeof(repl.replid2));
            repl.second_replid_offset = ri.offset + 1;
        }
        backlogCreate();
        replicaRestoredFromSnapshot(ri.stream_db);
        /* After the restored offset, so that replicas continuing from it
         * delete what expired while the primary was down. A replica
         * leaves that to its own primary, which sends its DELs. */
        rdbStartupTakeExpired(repl.masterhost ? NULL : replPropagateLoadExpired);
    } else {
        rdbStartupTakeExpired(NULL);
    }
}
