/* repl_replica: this server as a replica of a primary.
 *
 * The link to the primary is a non-blocking state machine driven by the
 * connection's events and the cron:
 *
 *   NONE ----------- REPLICAOF host port / replicaof directive -------> CONNECT
 *        (replicaofCommand, replConfigSetMaster)
 *   CONNECT -------- replicaConnect (cron, or at once) --------------> CONNECTING
 *   CONNECTING ----- replicaConnected: send PING --------------------> RECEIVE_PING
 *   RECEIVE_PING --- replicaHandshakeStep: AUTH if masterauth -------> RECEIVE_AUTH
 *                    else REPLCONF listening-port -------------------> RECEIVE_PORT
 *   RECEIVE_AUTH --- replicaHandshakeStep: REPLCONF listening-port --> RECEIVE_PORT
 *   RECEIVE_PORT --- replicaHandshakeStep: REPLCONF ip-address ------> RECEIVE_IP
 *                    (only with replica-announce-ip) else capa ------> RECEIVE_CAPA
 *   RECEIVE_IP ----- replicaHandshakeStep: REPLCONF capa eof psync2 -> RECEIVE_CAPA
 *   RECEIVE_CAPA --- replicaHandshakeStep: PSYNC replid offset+1 ----> RECEIVE_PSYNC
 *   RECEIVE_PSYNC -- replicaPsyncReply: +FULLRESYNC id off ----------> TRANSFER
 *                                       +CONTINUE [id] --------------> CONNECTED
 *   TRANSFER ------- replicaTransferRead: payload in a temp file,
 *                    replicaLoadTransfer loads it -------------------> CONNECTED
 *                    or (EOF-marked, swapdb or an empty dataset)
 *                    replicaLoadFromSocket parses it as it arrives --> CONNECTED
 *   CONNECTED ------ the primary's client is freed (replicaMasterFreed) -> CONNECT
 *   any but NONE --- replicaLinkFailed (error, garbage, repl-timeout) -> CONNECT
 *   any ------------ REPLICAOF NO ONE (replicaPromote) --------------> NONE
 *
 * With tls-replication the connection is a TLS one (conn_tls.c): the TLS
 * handshake runs inside CONNECTING and replicaConnected is called once it
 * is done or failed; everything after reads and writes through the
 * connection's type, the blocking helpers included.
 *
 * Handshake replies are read a byte at a time until their newline, so not
 * one byte of the payload or stream after +FULLRESYNC / +CONTINUE is taken
 * by the handshake. The payload is either "$<len>\r\n" + len bytes or
 * "$EOF:<40-byte mark>\r\n" + bytes ending with the mark (diskless); a
 * primary sends newlines as keep-alives before it.
 *
 * CONNECTED: the connection becomes the primary's client (CLIENT_MASTER),
 * which runs the commands through the ordinary command path with replies
 * dropped. The exact bytes of every command it ran are appended to our own
 * stream (replicaMasterApplied -> streamAppendRaw); a transaction's bytes
 * only at its EXEC, so the offset never counts half a transaction. Our
 * offset is therefore the primary's, and sub-replicas, the backlog and the
 * AOF read what the primary sent. Nothing here copies the stream. */
#define _GNU_SOURCE /* sync_file_range */
#include "args.h"
#include "client.h"
#include "config.h"
#include "conn.h"
#include "conn_tls.h"
#include "db.h"
#include "log.h"
#include "oom.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "repl.h"
#include "repl_parse.h"
#include "rdb.h"
#include "rio_codec.h"
#include "snapshot.h"
#include "aof.h"
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum {
    RL_NONE,
    RL_CONNECT,
    RL_CONNECTING,
    RL_RECEIVE_PING,
    RL_RECEIVE_AUTH,
    RL_RECEIVE_PORT,
    RL_RECEIVE_IP,
    RL_RECEIVE_CAPA,
    RL_RECEIVE_PSYNC,
    RL_TRANSFER,
    RL_CONNECTED,
};

#define RL_LINE_MAX 1024
#define RL_CHUNK (64 * 1024) /* a payload read: fewer event-loop turns per MB */
#define RL_EOF_MARK_LEN REPL_EOF_MARK_LEN

static struct {
    int state;
    connection *conn;       /* handshake and transfer; the master client owns it after */
    client *master;
    char line[RL_LINE_MAX];
    size_t linelen;
    int have_history;       /* our replid/offset may continue a primary's history */
    int master_db;          /* database the primary's stream had selected */
    sds pending_raw;        /* the primary's transaction so far */
    time_t handshake_start, lastio, down_since;
    time_t last_ack;
    time_t last_connect; /* retries are paced at one a second, as Redis' cron does */
    long long last_fack;    /* the AOF offset our last ACK reported */
    /* transfer */
    char sync_replid[REPL_ID_LEN + 1];
    long long sync_offset;
    int tmpfd;
    char tmpfile[128];
    long long size;         /* -1: EOF-mark payload */
    long long read;
    char mark[RL_EOF_MARK_LEN];
    int codec;              /* RIO_CODEC_*: an EOF payload's frame (header line) */
    char tail[RL_EOF_MARK_LEN]; /* last bytes read, to spot the mark */
    size_t taillen;
} ml = {.tmpfd = -1, .master_db = 0};

static void replicaConnect(void);
static void replicaHandshakeRead(connection *conn);
static void replicaTransferRead(connection *conn);

int replIsReplica(void) { return repl.masterhost != NULL; }
int replicaLinkUp(void) { return ml.state == RL_CONNECTED; }
int replicaMasterDb(void) { return ml.master ? ml.master->db->id : ml.master_db; }

/* Tear down a handshake or transfer (not a connected primary client). */
static void replicaCancel(void) {
    if (ml.conn) {
        connClose(ml.conn);
        ml.conn = NULL;
    }
    if (ml.tmpfd != -1) {
        close(ml.tmpfd);
        ml.tmpfd = -1;
        unlink(ml.tmpfile);
    }
    ml.linelen = 0;
}

static void replicaLinkFailed(const char *why) {
    serverLog(LL_WARNING, "Replication with %s:%d: %s. Reconnecting.", repl.masterhost, repl.masterport, why);
    int psync_failed = ml.state == RL_RECEIVE_PSYNC;
    if (ml.state == RL_TRANSFER) server.loading = 0;
    replicaCancel();
    ml.state = RL_CONNECT;
    /* A FAILOVER's PSYNC not sent or not answered: we become the primary
     * again, as Redis does (failover.c). */
    if (psync_failed) failoverPsyncDone(0);
}

static int replicaSend(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(buf)) return -1;
    return connSyncWrite(ml.conn, buf, (size_t)n, 1000) == n ? 0 : -1;
}

/* A RESP command from argv strings; lens (NULL: strlen of each) lets AUTH
 * carry a password with NUL bytes. */
static int replicaSendCommandLen(int argc, const char **argv, const size_t *lens) {
    sds s = sdscatprintf(sdsempty(), "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        size_t len = lens ? lens[j] : strlen(argv[j]);
        s = sdscatprintf(s, "$%zu\r\n", len);
        s = sdscatlen(s, argv[j], len);
        s = sdscatlen(s, "\r\n", 2);
    }
    int ok = connSyncWrite(ml.conn, s, sdslen(s), 1000) == (ssize_t)sdslen(s);
    sdsfree(s);
    return ok ? 0 : -1;
}

static int replicaSendCommand(int argc, const char **argv) {
    return replicaSendCommandLen(argc, argv, NULL);
}

static void replicaConnected(connection *conn) {
    if (conn->state != CONN_STATE_CONNECTED) {
        char why[600];
        snprintf(why, sizeof(why), "Error condition on socket for SYNC: %s", connLastError(conn));
        replicaLinkFailed(why);
        return;
    }
    serverLog(LL_NOTICE, "Non blocking connect for SYNC fired the event.");
    netSetTcpNoDelay(conn->fd);
    netSetKeepAlive(conn->fd, cfg.tcpkeepalive ? cfg.tcpkeepalive : 300);
    connSetReadHandler(conn, replicaHandshakeRead);
    ml.state = RL_RECEIVE_PING;
    ml.lastio = server.unixtime;
    if (replicaSend("PING\r\n") == -1) replicaLinkFailed("could not send PING");
}

static void replicaConnect(void) {
    /* tls-replication: the primary is reached on its tls-port. */
    ml.conn = connCreate(cfg.tls_replication ? &connTlsType : &connTcpType);
    ml.handshake_start = ml.lastio = ml.last_connect = server.unixtime;
    serverLog(LL_NOTICE, "Connecting to MASTER %s:%d", repl.masterhost, repl.masterport);
    if (connConnect(ml.conn, repl.masterhost, repl.masterport, cfg.bind_source_addr,
                    replicaConnected) == C_ERR) {
        char why[600];
        snprintf(why, sizeof(why), "Unable to connect to MASTER: %s", connLastError(ml.conn));
        replicaLinkFailed(why);
        return;
    }
    ml.state = RL_CONNECTING;
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync started");
}

/* Read what is available of one line; 1 when ml.line holds a whole one. */
static int replicaReadLine(connection *conn) {
    while (1) {
        char ch;
        ssize_t n = connRead(conn, &ch, 1);
        if (n == 1) {
            ml.lastio = server.unixtime;
            if (ch == '\n') {
                if (ml.linelen && ml.line[ml.linelen - 1] == '\r') ml.linelen--;
                ml.line[ml.linelen] = '\0';
                ml.linelen = 0;
                return 1;
            }
            if (ml.linelen + 1 >= RL_LINE_MAX) {
                replicaLinkFailed("the primary sent an overlong reply line");
                return -1;
            }
            ml.line[ml.linelen++] = ch;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            replicaLinkFailed(n == 0 ? "the primary closed the connection" : strerror(errno));
            return -1;
        }
        return 0;
    }
}

static void replicaSendPsync(void) {
    const char *id = ml.have_history ? repl.replid : "?";
    long long off = ml.have_history ? streamOffset() + 1 : -1;
    ml.state = RL_RECEIVE_PSYNC;
    if (ml.have_history)
        serverLog(LL_NOTICE, "Trying a partial resynchronization (request %s:%lld).", id, off);
    else
        serverLog(LL_NOTICE, "Partial resynchronization not possible (no cached master)");
    char offstr[LONG_STR_SIZE];
    ll2string(offstr, sizeof(offstr), off);
    /* FAILOVER (failover.c): the target promotes itself before answering. */
    const char *argv[4] = {"PSYNC", id, offstr, "FAILOVER"};
    if (replicaSendCommand(failoverInProgress() ? 4 : 3, argv) == -1) replicaLinkFailed("could not send PSYNC");
}

static void replicaSendCapa(void) {
    ml.state = RL_RECEIVE_CAPA;
    /* cairn-lz4/zstd: we decode a compressed payload (repl-compression);
     * a Redis primary ignores capabilities it does not know. */
    const char *argv[9] = {"REPLCONF", "capa", "eof", "capa", "psync2", "capa", "cairn-lz4", "capa", "cairn-zstd"};
    if (replicaSendCommand(9, argv) == -1) replicaLinkFailed("could not send REPLCONF capa");
}

static void replicaSendPort(void) {
    char port[16];
    /* As Redis: a TLS replica announces the port its own replicas would
     * reach it on, its tls-port. */
    int own = cfg.tls_replication && cfg.tls_port ? cfg.tls_port : cfg.port;
    snprintf(port, sizeof(port), "%d", cfg.replica_announce_port ? cfg.replica_announce_port : own);
    ml.state = RL_RECEIVE_PORT;
    const char *argv[3] = {"REPLCONF", "listening-port", port};
    if (replicaSendCommand(3, argv) == -1) replicaLinkFailed("could not send REPLCONF listening-port");
}

static void replicaStartMaster(connection *conn);

/* +FULLRESYNC <replid> <offset>, +CONTINUE [<replid>], or an error. */
static void replicaPsyncReply(connection *conn) {
    const char *l = ml.line;
    replPsyncReply pr;
    int kind = replParsePsyncReply(l, &pr);
    if (kind == REPL_PSYNC_MALFORMED) {
        replicaLinkFailed(l[1] == 'F' ? "the primary sent a malformed +FULLRESYNC reply"
                                      : "the primary sent a malformed +CONTINUE reply");
        return;
    }
    if (kind == REPL_PSYNC_FULLRESYNC) {
        memcpy(ml.sync_replid, pr.replid, REPL_ID_LEN + 1);
        ml.sync_offset = pr.offset;
        failoverPsyncDone(1);
        serverLog(LL_NOTICE, "Full resync from master: %s:%lld", pr.replid, pr.offset);
        snprintf(ml.tmpfile, sizeof(ml.tmpfile), "temp-%d.%ld.rdb", (int)getpid(), (long)server.unixtime);
        ml.tmpfd = open(ml.tmpfile, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
        if (ml.tmpfd == -1) {
            char why[256];
            snprintf(why, sizeof(why), "Opening the temp file needed for MASTER <-> REPLICA synchronization: %s",
                     strerror(errno));
            replicaLinkFailed(why);
            return;
        }
        ml.size = -2; /* the payload's header is next */
        ml.read = 0;
        ml.taillen = 0;
        ml.state = RL_TRANSFER;
        connSetReadHandler(conn, replicaTransferRead);
        return;
    }
    if (kind == REPL_PSYNC_CONTINUE) {
        const char *id = pr.replid;
        serverLog(LL_NOTICE, "Successful partial resynchronization with master.");
        if (*id && strcmp(id, repl.replid)) {
            /* The primary's history goes on under a new ID: ours continues
             * as the second one, for our own replicas. */
            memcpy(repl.replid2, repl.replid, sizeof(repl.replid2));
            repl.second_replid_offset = streamOffset() + 1;
            memcpy(repl.replid, id, REPL_ID_LEN + 1);
            serverLog(LL_NOTICE, "Master replication ID changed to %s", repl.replid);
            replDisconnectReplicas();
        }
        backlogCreate();
        failoverPsyncDone(1);
        replicaStartMaster(conn);
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        return;
    }
    if (kind == REPL_PSYNC_RETRY) {
        serverLog(LL_NOTICE, "Master is currently unable to PSYNC but should be in the future: %s", l);
        replicaLinkFailed("the primary cannot serve a sync yet");
        return;
    }
    char why[RL_LINE_MAX + 64];
    snprintf(why, sizeof(why), "unexpected reply to PSYNC from master: %.200s", l);
    replicaLinkFailed(why);
}

static void replicaHandshakeRead(connection *conn) {
    while (ml.state >= RL_RECEIVE_PING && ml.state <= RL_RECEIVE_PSYNC && ml.conn == conn) {
        int r = replicaReadLine(conn);
        if (r <= 0) return;
        /* Newlines are a primary's keep-alive while it prepares the sync. */
        if (ml.line[0] == '\0') continue;
        switch (ml.state) {
        case RL_RECEIVE_PING:
            if (ml.line[0] == '-' && strncmp(ml.line, "-NOAUTH", 7) && strncmp(ml.line, "-NOPERM", 7) &&
                strncmp(ml.line, "-ERR operation not permitted", 28)) {
                char why[RL_LINE_MAX + 64];
                snprintf(why, sizeof(why), "Error reply to PING from master: '%.200s'", ml.line);
                replicaLinkFailed(why);
                return;
            }
            serverLog(LL_NOTICE, "Master replied to PING, replication can continue...");
            if (cfg.masterauth) {
                ml.state = RL_RECEIVE_AUTH;
                /* masterauth is an sds that may hold NUL bytes */
                const char *argv[3] = {"AUTH", cfg.masteruser ? cfg.masteruser : cfg.masterauth, cfg.masterauth};
                size_t lens[3] = {4,
                                  cfg.masteruser ? strlen(cfg.masteruser) : sdslen(cfg.masterauth),
                                  sdslen(cfg.masterauth)};
                if (replicaSendCommandLen(cfg.masteruser ? 3 : 2, argv, lens) == -1)
                    replicaLinkFailed("could not send AUTH");
            } else {
                replicaSendPort();
            }
            break;
        case RL_RECEIVE_AUTH:
            if (ml.line[0] == '-') {
                char why[RL_LINE_MAX + 64];
                snprintf(why, sizeof(why), "Unable to AUTH to MASTER: %.200s", ml.line);
                replicaLinkFailed(why);
                return;
            }
            replicaSendPort();
            break;
        case RL_RECEIVE_PORT:
            /* Old primaries do not know REPLCONF: not an error, as in Redis. */
            if (ml.line[0] == '-')
                serverLog(LL_NOTICE, "(Non critical) Master does not understand REPLCONF listening-port: %s", ml.line);
            if (cfg.replica_announce_ip) {
                ml.state = RL_RECEIVE_IP;
                const char *argv[3] = {"REPLCONF", "ip-address", cfg.replica_announce_ip};
                if (replicaSendCommand(3, argv) == -1) replicaLinkFailed("could not send REPLCONF ip-address");
            } else {
                replicaSendCapa();
            }
            break;
        case RL_RECEIVE_IP:
            if (ml.line[0] == '-')
                serverLog(LL_NOTICE, "(Non critical) Master does not understand REPLCONF ip-address: %s", ml.line);
            replicaSendCapa();
            break;
        case RL_RECEIVE_CAPA:
            if (ml.line[0] == '-')
                serverLog(LL_NOTICE, "(Non critical) Master does not understand REPLCONF capa: %s", ml.line);
            replicaSendPsync();
            break;
        case RL_RECEIVE_PSYNC:
            replicaPsyncReply(conn);
            return;
        }
    }
}

/* ---- the payload ---- */

static void replicaLoadTransfer(connection *conn);
static void replicaLoadFromSocket(connection *conn, int keep_copy);

static void replicaTransferRead(connection *conn) {
    if (ml.size == -2) {
        while (1) {
            int r = replicaReadLine(conn);
            if (r <= 0) return;
            if (ml.line[0] == '\0') continue; /* keep-alive */
            break;
        }
        /* A file-based load needs no codec: the loader knows the frame by
         * its magic. Only the socket load uses ml.codec. */
        int codec = replParsePayloadCodec(ml.line, ml.mark);
        ml.codec = codec == REPL_PAYLOAD_CODEC_LZ4    ? RIO_CODEC_LZ4
                   : codec == REPL_PAYLOAD_CODEC_ZSTD ? RIO_CODEC_ZSTD
                                                      : RIO_CODEC_NONE;
        ml.size = -1;
        int kind = codec != REPL_PAYLOAD_CODEC_NONE ? REPL_PAYLOAD_EOF
                                                    : replParsePayloadHeader(ml.line, &ml.size, ml.mark);
        if (kind == REPL_PAYLOAD_ERROR) {
            char why[RL_LINE_MAX + 64];
            snprintf(why, sizeof(why), "MASTER aborted replication with an error: %.200s", ml.line);
            replicaLinkFailed(why);
            return;
        }
        if (kind == REPL_PAYLOAD_NOT_BULK) {
            char why[RL_LINE_MAX + 64];
            snprintf(why, sizeof(why), "Bad protocol from MASTER, the first byte is not '$' (we received '%.200s'), are you sure the host and port are right?",
                     ml.line);
            replicaLinkFailed(why);
            return;
        }
        if (kind == REPL_PAYLOAD_BAD_LEN) {
            replicaLinkFailed("the primary sent a malformed payload length");
            return;
        }
        if (kind == REPL_PAYLOAD_EOF) {
            /* ml.size is -1: bytes until the mark. Straight from the socket:
             * only this form, since nothing follows the mark until we ACK (a
             * sized payload may be followed at once by the stream, which a
             * read-ahead would eat). */
            if (cfg.repl_diskless_load == REPL_DISKLESS_LOAD_SWAPDB || dbTotalKeys() == 0) {
                replicaLoadFromSocket(conn, cfg.repl_diskless_load == REPL_DISKLESS_LOAD_DISABLED);
                return;
            }
            serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk");
        } else {
            serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving %lld bytes from master to disk", ml.size);
        }
    }
    char buf[RL_CHUNK];
    size_t want = sizeof(buf);
    if (ml.size >= 0 && (long long)want > ml.size - ml.read) want = (size_t)(ml.size - ml.read);
    if (want > 0) {
        ssize_t n = connRead(conn, buf, want);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            replicaLinkFailed(n == 0 ? "the primary closed the connection during the transfer"
                                     : "I/O error reading the bulk count from MASTER");
            return;
        }
        if (n < 0) return;
        ml.lastio = server.unixtime;
        if (write(ml.tmpfd, buf, (size_t)n) != n) {
            char why[256];
            snprintf(why, sizeof(why), "Write error or short write writing to the DB dump file needed for MASTER <-> REPLICA synchronization: %s",
                     strerror(errno));
            replicaLinkFailed(why);
            return;
        }
        ml.read += n;
        if (ml.size == -1) replEofTailUpdate(ml.tail, &ml.taillen, buf, (size_t)n);
    }
    int done = ml.size >= 0 ? ml.read == ml.size
                            : ml.taillen == RL_EOF_MARK_LEN && !memcmp(ml.tail, ml.mark, RL_EOF_MARK_LEN);
    if (!done) return;
    if (ml.size == -1 && ftruncate(ml.tmpfd, ml.read - RL_EOF_MARK_LEN) == -1) {
        replicaLinkFailed("could not strip the EOF mark from the received snapshot");
        return;
    }
    replicaLoadTransfer(conn);
}

/* The dataset is the primary's at ml.sync_offset: take its history on. */
static void replicaAdoptSnapshot(connection *conn, const rdbLoadStats *st) {
    long long before = streamOffset();
    streamSetOffset(ml.sync_offset);
    aofStreamShifted(ml.sync_offset - before);
    memcpy(repl.replid, ml.sync_replid, sizeof(repl.replid));
    memset(repl.replid2, '0', REPL_ID_LEN);
    repl.second_replid_offset = -1;
    replResetBacklog();
    ml.master_db = st->repl.stream_db >= 0 ? st->repl.stream_db : 0;
    streamNoteRawDb(ml.master_db); /* before a rewrite opens a new file */
    aofDatasetReplaced();
    replicaStartMaster(conn);
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Finished with success");
}

/* The socket load: while it runs, the keyspace kept aside (swapdb), which
 * an async load serves between keys; and the temp file that receives a
 * copy of every byte (repl-diskless-load disabled: the payload still
 * becomes dbfilename). */
static dbBackup *load_backup;
static void *load_libs; /* swapdb: the libraries kept aside */
static int load_async;
static off_t load_synced; /* bytes of the temp file already flushed */

/* Flush the copy in 8 MB steps as it arrives, so the fsync at the end has
 * little left to write. */
#define RL_TEE_SYNC_STEP (8 * 1024 * 1024)

/* The socket load's reads: through the connection (TLS decrypts there),
 * blocking up to repl-timeout for each; copied to the temp file if any. */
static ssize_t replicaSocketRead(void *ctx, void *buf, size_t len) {
    ssize_t n = connSyncRead(ctx, buf, len, (long long)cfg.repl_timeout * 1000);
    if (n <= 0) return n;
    ml.lastio = server.unixtime;
    ml.read += n;
    replEofTailUpdate(ml.tail, &ml.taillen, buf, (size_t)n);
    if (ml.tmpfd == -1) return n;
    for (ssize_t done = 0; done < n;) {
        ssize_t w = write(ml.tmpfd, (char *)buf + done, (size_t)(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            serverLog(LL_WARNING,
                      "Write error or short write writing to the DB dump file needed for MASTER "
                      "<-> REPLICA synchronization: %s",
                      strerror(errno));
            return -1;
        }
        done += w;
    }
    if (ml.read - load_synced >= RL_TEE_SYNC_STEP) {
        /* Start the write-back only: waiting for it would stall the load. */
        (void)sync_file_range(ml.tmpfd, load_synced, ml.read - load_synced, SYNC_FILE_RANGE_WRITE);
        load_synced = ml.read;
    }
    return n;
}

/* Between keys: INFO's loading fields, then clients. An async load lets
 * them see the old dataset meanwhile. */
static void replicaLoadServe(size_t loaded, const rdbLoadStats *st) {
    rdbLoadNoteProgress(loaded, st);
    if (load_async) {
        dbBackupSwap(load_backup);
        load_libs = rdbFunctionsSwap(load_libs);
    }
    processEventsWhileBlocked();
    if (load_async) {
        dbBackupSwap(load_backup);
        load_libs = rdbFunctionsSwap(load_libs);
    }
}

/* The copy in the temp file is complete (the mark stripped): it becomes
 * dbfilename, or goes (rdb-del-sync-files). 0 or -1 with the reason in why. */
static int replicaInstallCopy(char *why, size_t whylen) {
    if (ftruncate(ml.tmpfd, ml.read - RL_EOF_MARK_LEN) == -1) {
        snprintf(why, whylen, "could not strip the EOF mark from the received snapshot");
        return -1; /* replicaLinkFailed closes and unlinks it */
    }
    if (fsync(ml.tmpfd) == -1)
        serverLog(LL_WARNING, "fsync of the received snapshot failed: %s", strerror(errno));
    close(ml.tmpfd);
    ml.tmpfd = -1;
    if (cfg.rdb_del_sync_files && cfg.saveparamslen == 0) {
        serverLog(LL_NOTICE, "Removing the RDB file obtained from the master. This replica has "
                             "persistence disabled");
        unlink(ml.tmpfile);
        return 0;
    }
    if (childActiveType() == CHILD_TYPE_RDB)
        serverLog(LL_NOTICE, "A BGSAVE is running: its file will be replaced by the next one.");
    if (rename(ml.tmpfile, cfg.rdb_filename) == -1) {
        snprintf(
            why, whylen,
            "Failed trying to rename the temp DB into %s in MASTER <-> REPLICA synchronization: %s",
            cfg.rdb_filename, strerror(errno));
        unlink(ml.tmpfile);
        return -1;
    }
    return 0;
}

/* Parse an EOF-marked payload from the socket as it arrives (blocking,
 * bounded by repl-timeout per read) into the keyspace, serving clients
 * between keys. swapdb keeps the old dataset aside until the load
 * succeeded (and serves it meanwhile when the payload continues our own
 * primary's history, as Redis 7.0's async loading does); on-empty-db has
 * nothing to keep; keep_copy (repl-diskless-load disabled, but an empty
 * dataset: nothing to keep either) also writes the bytes to the temp file,
 * which then becomes dbfilename as a received file would, so receiving
 * and loading overlap instead of taking turns. */
static void replicaLoadFromSocket(connection *conn, int keep_copy) {
    if (ml.tmpfd != -1 && !keep_copy) {
        close(ml.tmpfd);
        ml.tmpfd = -1;
        unlink(ml.tmpfile);
    }
    connSetReadHandler(conn, NULL);
    replDisconnectReplicas();
    dbBackup *backup = cfg.repl_diskless_load == REPL_DISKLESS_LOAD_SWAPDB ? dbBackupTake() : NULL;
    if (!backup) dbEmpty(-1, cfg.replica_lazy_flush);
    /* The primary's libraries replace ours; swapdb keeps ours aside too. */
    void *libs = NULL;
    if (backup)
        libs = rdbFunctionsTake();
    else
        rdbFunctionsClear();
    load_backup = backup;
    load_libs = libs;
    load_async = backup && !memcmp(repl.replid, ml.sync_replid, REPL_ID_LEN);
    load_synced = 0;
    /* An async load's clients go on seeing the old keys: nothing flushed. */
    if (!load_async)
        for (int j = 0; j < cfg.dbnum; j++) signalFlushedDb(j);
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Loading DB in memory from the socket (%s)",
              load_async  ? "swapdb, async"
              : backup    ? "swapdb"
              : keep_copy ? "empty dataset, a copy to disk"
                          : "on-empty-db");
    rio r, framed;
    rioInitWithReader(&r, replicaSocketRead, conn);
    rdbLoadStats st;
    memset(&st, 0, sizeof(st));
    sds err = NULL;
    rdbLoadServedBegin(0, replicaLoadServe);
    server.async_loading = load_async;
    int ret;
    char mark[RL_EOF_MARK_LEN];
    if (ml.codec == RIO_CODEC_NONE) {
        ret = rdbLoadRio(&r, RDB_LOAD_KEEP_EXPIRED, &st, &err);
        if (ret == 0 && !rioRead(&r, mark, RL_EOF_MARK_LEN)) ret = -2;
    } else if (!rioInitCodecReaderRio(&framed, &r, ml.codec)) {
        ret = -1;
        err = sdsnew("can't set up the payload's decompression");
    } else {
        ret = rdbLoadRio(&framed, RDB_LOAD_KEEP_EXPIRED, &st, &err);
        if (ret == 0 && !rioCodecAtEnd(&framed)) {
            ret = -1;
            err = sdsnew("the payload's compressed frame is truncated or corrupt");
        }
        if (ret == 0 && !rioCodecReadAfter(&framed, mark, RL_EOF_MARK_LEN)) ret = -2;
        rioCodecFree(&framed);
    }
    if (ret == -2 || (ret == 0 && memcmp(mark, ml.mark, RL_EOF_MARK_LEN))) {
        ret = -1;
        err = sdsnew("the payload does not end with its EOF mark");
    }
    /* The copy must end with the mark: bytes read past it are no snapshot. */
    if (ret == 0 && keep_copy &&
        (ml.taillen != RL_EOF_MARK_LEN || memcmp(ml.tail, ml.mark, RL_EOF_MARK_LEN))) {
        ret = -1;
        err = sdsnew("bytes followed the payload's EOF mark");
    }
    char why[256] = "the snapshot from the socket could not be loaded";
    if (ret == 0 && keep_copy && replicaInstallCopy(why, sizeof(why)) == -1) ret = -3;
    rdbLoadServedEnd(&st, ret == 0);
    load_backup = NULL;
    load_libs = NULL; /* the serve calls swap in pairs: libs is still the old set */
    load_async = 0;
    rioFreeFd(&r);
    if (ret != 0) {
        if (ret != -3)
            serverLog(LL_WARNING,
                      "Failed trying to load the MASTER synchronization DB from socket: %s", err);
        sdsfree(err);
        if (backup) {
            dbBackupEnd(backup, 1);
            rdbFunctionsGiveBack(libs, 1);
            serverLog(LL_NOTICE,
                      "MASTER <-> REPLICA sync: Restoring the dataset kept aside (swapdb)");
        } else {
            dbEmpty(-1, 0);
            rdbFunctionsClear();
            ml.have_history = 0;
        }
        replicaLinkFailed(why);
        return;
    }
    if (backup) {
        /* Now the old keys are gone for their readers too. */
        if (load_async)
            for (int j = 0; j < cfg.dbnum; j++) signalFlushedDb(j);
        dbBackupEnd(backup, 0);
        rdbFunctionsGiveBack(libs, 0);
    }
    serverLog(LL_NOTICE, "Done loading RDB from the socket, keys loaded: %lld.", st.keys_loaded);
    replicaAdoptSnapshot(conn, &st);
}

/* The payload is complete: it becomes our snapshot file and our dataset. */
static void replicaLoadTransfer(connection *conn) {
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Flushing old data");
    if (fsync(ml.tmpfd) == -1) serverLog(LL_WARNING, "fsync of the received snapshot failed: %s", strerror(errno));
    close(ml.tmpfd);
    ml.tmpfd = -1;
    if (childActiveType() == CHILD_TYPE_RDB) serverLog(LL_NOTICE, "A BGSAVE is running: its file will be replaced by the next one.");
    if (rename(ml.tmpfile, cfg.rdb_filename) == -1) {
        char why[256];
        snprintf(why, sizeof(why), "Failed trying to rename the temp DB into %s in MASTER <-> REPLICA synchronization: %s",
                 cfg.rdb_filename, strerror(errno));
        unlink(ml.tmpfile);
        replicaLinkFailed(why);
        return;
    }
    /* Our sub-replicas' history is replaced: they must sync again. */
    replDisconnectReplicas();
    connSetReadHandler(conn, NULL);
    dbEmpty(-1, cfg.replica_lazy_flush);
    rdbFunctionsClear(); /* the primary's libraries replace ours */
    for (int j = 0; j < cfg.dbnum; j++) signalFlushedDb(j);
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Loading DB in memory");
    rdbLoadStats st;
    memset(&st, 0, sizeof(st));
    /* The primary decides when keys expire: load them all. */
    if (rdbLoadReceived(cfg.rdb_filename, RDB_LOAD_KEEP_EXPIRED, &st) == -1) {
        serverLog(LL_WARNING, "Failed trying to load the MASTER synchronization DB from disk, check server logs.");
        dbEmpty(-1, 0);
        rdbFunctionsClear();
        ml.have_history = 0;
        replicaLinkFailed("the received snapshot could not be loaded");
        return;
    }
    /* rdb-del-sync-files: without save points the file is no snapshot of
     * ours. Like Redis, the AOF does not keep it (Redis has switched its AOF
     * off while it loads, and restarts it after). */
    if (cfg.rdb_del_sync_files && cfg.saveparamslen == 0) {
        serverLog(LL_NOTICE, "Removing the RDB file obtained from the master. This replica has persistence disabled");
        unlink(cfg.rdb_filename);
    }
    replicaAdoptSnapshot(conn, &st);
}

/* The link becomes the primary's client. */
static void replicaStartMaster(connection *conn) {
    ml.conn = NULL;
    client *c = clientCreate(conn, 0);
    c->flags |= CLIENT_MASTER | CLIENT_AUTHENTICATED | CLIENT_REPLY_OFF;
    c->user = NULL; /* the primary's stream is applied whatever the ACL rules */
    dbSelect(c, ml.master_db);
    streamRawBegins(ml.master_db);
    ml.master = c;
    ml.state = RL_CONNECTED;
    ml.have_history = 1;
    ml.down_since = 0;
    if (!ml.pending_raw) ml.pending_raw = sdsempty();
    sdsclear(ml.pending_raw);
    replicaSendAckNow();
}

void replicaMasterApplied(client *c, const char *p, size_t len) {
    if (c != ml.master) return;
    if (c->flags & CLIENT_MULTI) {
        ml.pending_raw = sdscatlen(ml.pending_raw, p, len);
        return;
    }
    if (sdslen(ml.pending_raw)) {
        streamAppendRaw(ml.pending_raw, sdslen(ml.pending_raw));
        sdsclear(ml.pending_raw);
    }
    streamAppendRaw(p, len);
    streamNoteRawDb(c->db->id);
}

void replicaMasterFreed(client *c) {
    if (c != ml.master) return;
    ml.master_db = c->db->id;
    ml.master = NULL;
    /* A transaction cut in the middle never happened: the offset stays
     * before its MULTI, and a partial resync sends it again whole. */
    if (ml.pending_raw) sdsclear(ml.pending_raw);
    if (ml.state == RL_CONNECTED && repl.masterhost) {
        serverLog(LL_NOTICE, "Connection with master lost.");
        ml.state = RL_CONNECT;
        ml.down_since = server.unixtime;
    }
}

/* REPLCONF ACK <offset applied>, and with an AOF (as Redis 7.2) FACK
 * <offset fsynced in it>: our stream is the primary's, so the AOF's
 * offsets are the primary's too. While the first rewrite runs nothing is
 * durable yet: FACK 0, like Redis. */
void replicaSendAckNow(void) {
    if (!ml.master || (ml.master->flags & CLIENT_CLOSE_ASAP)) return;
    char off[LONG_STR_SIZE], foff[LONG_STR_SIZE], buf[160];
    int ol = ll2string(off, sizeof(off), streamOffset());
    int n;
    if (cfg.appendonly) {
        long long f = aofFsyncedOffset();
        ml.last_fack = f < 0 ? 0 : f;
        int fl = ll2string(foff, sizeof(foff), ml.last_fack);
        n = snprintf(buf, sizeof(buf), "*5\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%d\r\n%s\r\n$4\r\nFACK\r\n$%d\r\n%s\r\n",
                     ol, off, fl, foff);
    } else {
        n = snprintf(buf, sizeof(buf), "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%d\r\n%s\r\n", ol, off);
    }
    /* A few bytes on a socket we only read from: the kernel buffer has room. */
    if (connSyncWrite(ml.master->conn, buf, (size_t)n, 100) != n) {
        serverLog(LL_WARNING, "Could not send REPLCONF ACK to the primary");
        clientFreeAsync(ml.master);
    }
    ml.last_ack = server.unixtime;
}

void replicaRestoredFromSnapshot(int stream_db) {
    if (!repl.masterhost) return;
    ml.have_history = 1;
    ml.master_db = stream_db >= 0 ? stream_db : 0;
}

/* ---- configuration and commands ---- */

static void replicaDropLink(void) {
    if (ml.master) {
        client *m = ml.master;
        ml.master = NULL;
        ml.master_db = m->db->id;
        clientFreeAsync(m);
    }
    replicaCancel();
    if (ml.state == RL_TRANSFER) server.loading = 0;
}

int replConfigSetMaster(const char *host, int port) {
    int was_primary = repl.masterhost == NULL;
    int was_connected = ml.state == RL_CONNECTED;
    replDisconnectBlocked();
    replicaDropLink();
    zfree(repl.masterhost);
    repl.masterhost = zstrdup(host);
    repl.masterport = port;
    /* A primary turned replica may continue its own history at the new
     * primary (if it was that primary's replica before). */
    if (was_primary && server.el) ml.have_history = 1;
    streamSetRawOnly(1);
    ml.state = RL_CONNECT;
    /* master_link_down_since_seconds counts from the loss of a link that
     * was up; a replica never connected shows -1, as in Redis. */
    if (was_connected) ml.down_since = server.unixtime;
    else if (was_primary) ml.down_since = 0;
    if (was_primary) (void)oomScoreAdjApply(OOM_CLASS_REPLICA, NULL);
    return 1;
}

sds replConfigGetMaster(void) {
    if (!repl.masterhost) return sdsempty();
    return sdscatprintf(sdsempty(), "%s %d", repl.masterhost, repl.masterport);
}

static void replicaPromote(void) {
    replicaDropLink();
    zfree(repl.masterhost);
    repl.masterhost = NULL;
    repl.masterport = 0;
    ml.state = RL_NONE;
    ml.down_since = 0;
    /* Our history so far continues under a new ID; replicas that followed
     * the old one continue partially through replid2. */
    replShiftReplicationId();
    replDisconnectReplicas();
    streamSetRawOnly(0);
    backlogCreate();
    (void)oomScoreAdjApply(OOM_CLASS_PRIMARY, NULL);
}

void replicaFollow(const char *host, int port) {
    replConfigSetMaster(host, port);
    serverLog(LL_NOTICE, "Connecting to %s:%d to hand the primary role over (FAILOVER)", host, port);
    replicaConnect();
}

void replicaUnfollow(void) {
    if (repl.masterhost) replicaPromote();
}

void replicaofCommand(client *c) {
    if (failoverActive()) {
        replyError(c, "ERR REPLICAOF not allowed while failing over.");
        return;
    }
    if (argEq(c->argv[1], "no") && argEq(c->argv[2], "one")) {
        if (repl.masterhost) {
            replicaPromote();
            serverLog(LL_NOTICE, "MASTER MODE enabled (user request from 'id=%llu addr=%s')",
                      (unsigned long long)c->id, c->peer);
        }
        replyOk(c);
        return;
    }
    if (c->flags & CLIENT_REPLICA) {
        replyError(c, "ERR Command is not valid when client is a replica.");
        return;
    }
    long port;
    if (getLongFromObjectOrReply(c, c->argv[2], &port, NULL) != C_OK) return;
    if (port < 0 || port > 65535) {
        replyError(c, "ERR Invalid master port");
        return;
    }
    if (repl.masterhost && !strcasecmp(repl.masterhost, c->argv[1]->ptr) && repl.masterport == port) {
        serverLog(LL_NOTICE, "REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.");
        replyStatusC(c, "OK Already connected to specified master");
        return;
    }
    replConfigSetMaster(c->argv[1]->ptr, (int)port);
    serverLog(LL_NOTICE, "REPLICAOF %s:%d enabled (user request from 'id=%llu addr=%s')", repl.masterhost,
              repl.masterport, (unsigned long long)c->id, c->peer);
    replicaConnect();
    replyOk(c);
}

/* ---- INFO and ROLE ---- */

sds replicaInfoFields(sds s) {
    long long off = streamOffset();
    s = sdscatprintf(s,
                     "master_host:%s\r\n"
                     "master_port:%d\r\n"
                     "master_link_status:%s\r\n"
                     "master_last_io_seconds_ago:%d\r\n"
                     "master_sync_in_progress:%d\r\n"
                     "slave_read_repl_offset:%lld\r\n"
                     "slave_repl_offset:%lld\r\n",
                     repl.masterhost, repl.masterport, ml.state == RL_CONNECTED ? "up" : "down",
                     ml.master ? (int)(server.unixtime - ml.master->last_interaction / 1000) : -1,
                     ml.state == RL_TRANSFER,
                     ml.master ? off + (long long)sdslen(ml.master->querybuf) : off, off);
    if (ml.state == RL_TRANSFER) {
        /* Redis shows -1 until the payload's header is read, and 0 for an
         * EOF-mark (diskless) payload, which has no size. */
        long long total = ml.size >= 0 ? ml.size : ml.size == -1 ? 0 : -1;
        s = sdscatprintf(s,
                         "master_sync_total_bytes:%lld\r\n"
                         "master_sync_read_bytes:%lld\r\n"
                         "master_sync_left_bytes:%lld\r\n"
                         "master_sync_perc:%.2f\r\n"
                         "master_sync_last_io_seconds_ago:%d\r\n",
                         total, ml.read, total - ml.read, total ? (double)ml.read / (double)total * 100 : 0.0,
                         (int)(server.unixtime - ml.lastio));
    }
    if (ml.state != RL_CONNECTED)
        s = sdscatprintf(s, "master_link_down_since_seconds:%lld\r\n",
                         ml.down_since ? (long long)(server.unixtime - ml.down_since) : -1LL);
    return sdscatprintf(s, "slave_priority:%d\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
                        cfg.replica_priority, cfg.replica_read_only, cfg.replica_announced);
}

void replicaRoleReply(client *c) {
    const char *st;
    switch (ml.state) {
    case RL_NONE: st = "none"; break;
    case RL_CONNECT: st = "connect"; break;
    case RL_CONNECTING: st = "connecting"; break;
    case RL_TRANSFER: st = "sync"; break;
    case RL_CONNECTED: st = "connected"; break;
    default: st = "handshake"; break;
    }
    replyArrayLen(c, 5);
    replyBulkCString(c, "slave");
    replyBulkCString(c, repl.masterhost);
    replyLongLong(c, repl.masterport);
    replyBulkCString(c, st);
    replyLongLong(c, ml.master ? streamOffset() : -1);
}

/* Each loop turn: an AOF fsync that covered more of the stream is
 * reported at once, so a WAITAOF on the primary need not wait for the
 * next second's ACK. */
void replicaBeforeSleep(void) {
    if (!ml.master || !cfg.appendonly) return;
    if (aofFsyncedOffset() > ml.last_fack) replicaSendAckNow();
}

void replicaCron(void) {
    if (!repl.masterhost) return;
    time_t now = server.unixtime;
    switch (ml.state) {
    case RL_CONNECT:
        /* A primary that refuses us would otherwise be retried (and logged
         * on both sides) on every cron tick. */
        if (now != ml.last_connect) replicaConnect();
        break;
    case RL_CONNECTED:
        if (ml.master && now - ml.master->last_interaction / 1000 > cfg.repl_timeout) {
            serverLog(LL_WARNING, "MASTER timeout: no data nor PING received...");
            clientFreeAsync(ml.master);
            break;
        }
        if (now != ml.last_ack) replicaSendAckNow();
        break;
    case RL_TRANSFER:
        if (now - ml.lastio > cfg.repl_timeout)
            replicaLinkFailed("Timeout receiving bulk data from MASTER... If the problem persists try to set the 'repl-timeout' parameter in redis.conf to a larger value.");
        break;
    case RL_NONE:
        break;
    default:
        if (now - ml.handshake_start > cfg.repl_timeout) replicaLinkFailed("Timeout connecting to the MASTER...");
        break;
    }
}
