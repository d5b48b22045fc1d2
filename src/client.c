/* client: the lifecycle of a connected client, its query buffer and its
 * output flushing.
 *
 * Bytes enter through clientReadHandler into c->querybuf; the resp parser
 * cuts requests out of it; each complete request becomes c->argv (robj
 * references owned by the client until the command ends) and goes to
 * commandProcess. Replies built by reply.c leave through clientWrite, called
 * from beforeSleep (most replies never wait for a writable event) or from the
 * write handler when the socket was full.
 *
 * Clients are never freed inside an event handler: clientFreeAsync queues
 * them and beforeSleep frees them, so a connection stays valid for the rest
 * of the event that closed it. */
#include "acl.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "conn.h"
#include "conn_tls.h"
#include "db.h"
#include "dict.h"
#include "event.h"
#include "log.h"
#include "multi.h"
#include "object.h"
#include "pubsub.h"
#include "reply.h"
#include "resp.h"
#include "script.h"
#include "sds.h"
#include "server_state.h"
#include "tracking.h"
#include "util.h"
#include "zmalloc.h"
#include "blocked.h"
#include "aof.h"
#include "repl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* Don't let one client monopolise the loop: after this many bytes written in
 * one go, the rest waits for the next iteration (unless memory is short). */
#define NET_MAX_WRITES_PER_EVENT (1024 * 64)
#define CLIENT_IOV_MAX 16
/* Query buffers idle and larger than this are shrunk by the cron. */
#define CLIENT_QBUF_SHRINK_MIN (32 * 1024)

static void clientReadHandler(connection *conn);
/* DEBUG READ-CHUNK: the most bytes one read asks for (0: no limit), so tests
 * can leave input inside a transport (TLS) and see it served anyway. */
static size_t read_chunk_limit;
static void clientWriteHandler(connection *conn);

client *clientCreate(connection *conn, int flags) {
    client *c = zmalloc(sizeof(client));
    memset(c, 0, sizeof(*c));
    /* A separate allocation: the cron resizes it to what the client uses. */
    c->buf = zmalloc_usable(PROTO_REPLY_CHUNK_BYTES, &c->buf_size);
    c->buf_peak_reset_ms = server.unixtime_ms;
    c->id = server.next_client_id++;
    c->flags = flags;
    c->conn = conn;
    c->resp = 2;
    c->db = &server.db[0];
    c->querybuf = sdsempty();
    respInit(&c->req);
    c->ctime = server.unixtime;
    c->last_interaction = server.unixtime_ms;
    /* The server's own clients (conn NULL) run as no user: anything goes. */
    c->user = conn ? aclDefaultUser() : NULL;
    if (!conn || aclClientStartsAuthenticated()) c->flags |= CLIENT_AUTHENTICATED;
    if (conn) {
        conn->private_data = c;
        connFormatPeer(conn, c->peer, sizeof(c->peer), 0);
        connSetReadHandler(conn, clientReadHandler);
        c->next = server.clients;
        if (server.clients) server.clients->prev = c;
        server.clients = c;
        server.nclients++;
    }
    return c;
}

void clientFreeArgv(client *c) {
    clientFreeOriginalArgv(c);
    for (int j = 0; j < c->argc; j++) decrRefCount(c->argv[j]);
    /* Like the parser's argument array (respReset): only ordinary sizes
     * are kept for reuse. */
    if (c->argv_len > RESP_ARGS_KEEP) {
        zfree(c->argv);
        c->argv = NULL;
        c->argv_len = 0;
    }
    c->argc = 0;
    c->argv_len_sum = 0;
    c->cmd = NULL;
}

void clientReset(client *c) {
    /* REPLY SKIP applies to exactly the command after CLIENT REPLY SKIP. */
    if (c->flags & CLIENT_REPLY_SKIP) c->flags &= ~CLIENT_REPLY_SKIP;
    /* CLIENT CACHING applies to the one command after it. */
    if ((c->flags & CLIENT_TRACKING_CACHING) && !(c->flags & CLIENT_MULTI) &&
        (!c->cmd || c->cmd->proc != trackingCachingCommand))
        c->flags &= ~CLIENT_TRACKING_CACHING;
    clientFreeArgv(c);
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags |= CLIENT_REPLY_SKIP;
        c->flags &= ~CLIENT_REPLY_SKIP_NEXT;
    }
}

static void clientUnlinkList(client **head, client *c, size_t next_off) {
    client **pp = head;
    while (*pp) {
        if (*pp == c) {
            *pp = *(client **)((char *)c + next_off);
            return;
        }
        pp = (client **)((char *)*pp + next_off);
    }
}

void clientFree(client *c) {
    server.clients_mem_tracked -= c->mem_tracked;
    c->mem_tracked = 0;
    if (c->conn) {
        if (c->prev) c->prev->next = c->next;
        else server.clients = c->next;
        if (c->next) c->next->prev = c->prev;
        server.nclients--;
        connClose(c->conn);
        c->conn = NULL;
    }
    if (c->flags & CLIENT_PENDING_WRITE)
        clientUnlinkList(&server.pending_writes, c, offsetof(client, pending_next));
    if (c->flags & CLIENT_MONITOR)
        clientUnlinkList(&server.monitors, c, offsetof(client, monitor_next));
    if (server.current_client == c) server.current_client = NULL;
    if (c->flags & CLIENT_BLOCKED) unblockClient(c);
    pubsubUnsubscribeAllClient(c, 0);
    multiDiscard(c);
    trackingDisable(c);
    if (c->flags & CLIENT_UNBLOCKED)
        clientUnlinkList(&server.unblocked, c, offsetof(client, unblocked_next));
    if (c->flags & (CLIENT_AOF_WAIT | CLIENT_AOF_RESUME)) aofClientFreed(c);
    if (c->repl || (c->flags & (CLIENT_MASTER | CLIENT_REPL_WAIT))) replClientFreed(c);
    clientFreeArgv(c);
    zfree(c->argv);
    zfree(c->buf);
    respFree(&c->req);
    sdsfree(c->querybuf);
    sdsfree(c->name);
    replyFreeBlocks(c);
    zfree(c);
}

void clientFreeAsync(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    c->flags |= CLIENT_CLOSE_ASAP;
    /* Closing: no longer counts against maxmemory-clients. */
    server.clients_mem_tracked -= c->mem_tracked;
    c->mem_tracked = 0;
    c->close_next = server.clients_to_close;
    server.clients_to_close = c;
}

size_t clientsClosingMemory(void) {
    size_t mem = 0;
    for (client *c = server.clients_to_close; c; c = c->close_next) mem += clientMemoryUsage(c);
    return mem;
}

void clientFreeAsyncShut(client *c) {
    clientFreeAsync(c);
    if (c->conn) shutdown(c->conn->fd, SHUT_RDWR);
}

void clientsFreePendingClose(void) {
    client **pp = &server.clients_to_close;
    while (*pp) {
        client *c = *pp;
        /* A long script serving events: its caller is freed after it. */
        if (c->flags & CLIENT_EXECUTING_COMMAND) {
            pp = &c->close_next;
            continue;
        }
        *pp = c->close_next;
        clientFree(c);
    }
}

void clientSetProtocolError(client *c, const char *err) {
    if (cfg.verbosity <= LL_VERBOSE) {
        serverLog(LL_VERBOSE, "Protocol error (%s) from client: id=%llu addr=%s", err,
                  (unsigned long long)c->id, c->peer);
    }
    c->flags |= CLIENT_CLOSE_AFTER_REPLY | CLIENT_PROTOCOL_ERROR;
}

int clientHasPendingReplies(client *c) { return c->bufpos > 0 || c->reply_head != NULL; }

/* Grow argv for n arguments. */
static void clientEnsureArgv(client *c, int n) {
    if (c->argv_len >= n) return;
    int len = c->argv_len ? c->argv_len : 8;
    while (len < n) len *= 2;
    c->argv = zrealloc(c->argv, sizeof(robj *) * len);
    c->argv_len = len;
}

/* Turn the parsed request into argv objects. */
static void clientBuildArgv(client *c, const char *base) {
    respRequest *r = &c->req;
    clientEnsureArgv(c, r->argc);
    if (r->type == RESP_REQ_INLINE) {
        for (int j = 0; j < r->argc; j++) {
            c->argv[j] = createObject(OBJ_STRING, r->inline_argv[j]);
            c->argv_len_sum += sdslen(r->inline_argv[j]);
        }
        /* The sds strings now belong to the objects. */
        zfree(r->inline_argv);
        r->inline_argv = NULL;
    } else {
        for (int j = 0; j < r->argc; j++) {
            c->argv[j] = createStringObject(base + r->args[j].off, r->args[j].len);
            c->argv_len_sum += r->args[j].len;
        }
    }
    c->argc = r->argc;
    r->argc = 0;
}

void clientProcessInput(client *c) {
    respLimits lim;
    lim.max_bulk_len = cfg.proto_max_bulk_len;
    while (c->qb_pos < sdslen(c->querybuf)) {
        /* CLIENT_AOF_WAIT: its replies wait for an fsync (appendfsync
         * always); its next commands wait with them. */
        if (c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP | CLIENT_BLOCKED |
                        CLIENT_POSTPONED | CLIENT_AOF_WAIT | CLIENT_REPL_WAIT))
            break;
        /* The primary's stream waits in the buffer while a long script
         * serves events: -BUSY to it would lose its writes. The script's
         * end queues the link again (evalGeneric). */
        if ((c->flags & CLIENT_MASTER) && scriptIsBusy()) break;
        lim.unauthenticated = !(c->flags & CLIENT_AUTHENTICATED);
        const char *base = c->querybuf + c->qb_pos;
        int st = respParse(&c->req, base, sdslen(c->querybuf) - c->qb_pos, &lim);
        if (st == RESP_NEED_MORE) break;
        if (st == RESP_ERROR && (c->flags & CLIENT_MASTER)) {
            /* Garbage from the primary: drop the link, resync from where
             * the last whole command left us. */
            serverLog(LL_WARNING, "Protocol error from the primary (%s): dropping the link to resynchronize",
                      c->req.err);
            respReset(&c->req);
            clientFreeAsync(c);
            break;
        }
        if (st == RESP_ERROR) {
            replyBegin(c);
            replyError(c, c->req.err);
            clientSetProtocolError(c, c->req.err + strlen("ERR Protocol error: "));
            respReset(&c->req);
            /* Whatever follows is garbage from our point of view. */
            sdsclear(c->querybuf);
            c->qb_pos = 0;
            break;
        }
        size_t consumed = c->req.pos;
        clientBuildArgv(c, base);
        c->qb_pos += consumed;
        respReset(&c->req);
        if (c->argc == 0) {
            /* empty line or *0 */
            if (c->flags & CLIENT_MASTER) replicaMasterApplied(c, base, consumed);
            continue;
        }
        c->last_interaction = server.unixtime_ms;
        commandProcess(c);
        if ((c->flags & (CLIENT_MASTER | CLIENT_POSTPONED)) == (CLIENT_MASTER | CLIENT_POSTPONED)) {
            /* A pause holds the primary's stream too (Redis 7.0 pauses
             * every client but replicas): its command goes back to the
             * buffer unapplied, so the offset stays where it is; the
             * pause's end parses it again (pauseResumeHeld). */
            c->qb_pos -= consumed;
            clientReset(c);
            break;
        }
        if (c->flags & CLIENT_MASTER) replicaMasterApplied(c, base, consumed);
        /* A blocked command keeps its argv: it runs again when a key it
         * waits for becomes ready. */
        if (c->flags & (CLIENT_BLOCKED | CLIENT_POSTPONED)) {
            if (cfg.maxmemory_clients) clientMemTrack(c);
            break;
        }
        clientReset(c);
        /* Its reply counts now, for the next command's eviction check
         * (Redis counts a client after each command too). */
        if (cfg.maxmemory_clients) clientMemTrack(c);
    }
    if (c->qb_pos) {
        sdsrange(c->querybuf, c->qb_pos, -1);
        c->qb_pos = 0;
    }
}

static void clientReadHandler(connection *conn) {
    client *c = conn->private_data;
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    /* Its command (a long script) is still running: read afterwards. */
    if (c->flags & CLIENT_EXECUTING_COMMAND) return;
    size_t readlen = PROTO_IOBUF_LEN;
    int big_arg = 0;
    /* In the middle of a big argument, read exactly what is missing so the
     * query buffer holds it without overallocation. */
    if (c->req.type == RESP_REQ_MULTIBULK && c->req.bulklen >= PROTO_MBULK_BIG_ARG) {
        size_t have = sdslen(c->querybuf) - c->qb_pos - c->req.pos;
        size_t need = (size_t)c->req.bulklen + 2;
        big_arg = 1;
        if (need > have && need - have > readlen) readlen = need - have;
    }
    /* The first 16 KB and big arguments grow the buffer exactly (as Redis:
     * CLIENT LIST's qbuf + qbuf-free of a fresh client is 16 KB, below the
     * cron's shrink threshold); after that, greedily, reading all the room. */
    if (big_arg || sdsalloc(c->querybuf) < PROTO_IOBUF_LEN) {
        c->querybuf = sdsMakeRoomForNonGreedy(c->querybuf, readlen);
    } else {
        c->querybuf = sdsMakeRoomFor(c->querybuf, readlen);
        readlen = sdsavail(c->querybuf);
    }
    if (read_chunk_limit && readlen > read_chunk_limit) readlen = read_chunk_limit;
    ssize_t n = connRead(conn, c->querybuf + sdslen(c->querybuf), readlen);
    if (n == 0) {
        serverLog(LL_VERBOSE, "Client closed connection id=%llu addr=%s",
                  (unsigned long long)c->id, c->peer);
        clientFreeAsync(c);
        return;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        serverLog(LL_VERBOSE, "Reading from client: %s", strerror(errno));
        clientFreeAsync(c);
        return;
    }
    sdsIncrLen(c->querybuf, n);
    server.stat_net_input_bytes += n;
    server.stat_io_reads_processed++;
    c->last_interaction = server.unixtime_ms;
    size_t qlen = sdslen(c->querybuf);
    if (qlen > c->querybuf_peak) c->querybuf_peak = qlen;
    /* Not the primary's link: what it sends is the dataset, not a request. */
    if (cfg.client_max_querybuf_len && qlen > cfg.client_max_querybuf_len &&
        !(c->flags & CLIENT_MASTER)) {
        serverLog(LL_WARNING, "Closing client that reached max query buffer length: id=%llu "
                              "addr=%s qbuf=%zu",
                  (unsigned long long)c->id, c->peer, qlen);
        server.stat_client_qbuf_limit_disconnections++;
        clientFreeAsync(c);
        return;
    }
    server.current_client = c;
    clientProcessInput(c);
    server.current_client = NULL;
}

/* Write as much pending output as the socket takes. Returns C_ERR if the
 * client was scheduled to be freed. */
int clientWrite(client *c, int handler_installed) {
    ssize_t total = 0;
    /* A limit (the AOF releasing the covered prefix of held output) writes
     * only that many bytes from the front. */
    size_t limit = c->write_limit ? c->write_limit : SIZE_MAX;
    while (clientHasPendingReplies(c) && limit) {
        struct iovec iov[CLIENT_IOV_MAX];
        int cnt = 0;
        size_t off = c->sentlen;
        if (c->bufpos > 0) {
            iov[cnt].iov_base = c->buf + off;
            iov[cnt].iov_len = c->bufpos - off;
            cnt++;
            off = 0;
        }
        for (replyBlock *b = c->reply_head; b && cnt < CLIENT_IOV_MAX; b = b->next) {
            if (b->used - off == 0) {
                off = 0;
                continue;
            }
            iov[cnt].iov_base = b->buf + off;
            iov[cnt].iov_len = b->used - off;
            cnt++;
            off = 0;
        }
        if (limit != SIZE_MAX) {
            size_t sum = 0;
            for (int k = 0; k < cnt; k++) {
                if (sum + iov[k].iov_len >= limit) {
                    iov[k].iov_len = limit - sum;
                    cnt = k + 1;
                    break;
                }
                sum += iov[k].iov_len;
            }
        }
        /* The common case is one buffer: plain write is cheaper in the kernel. */
        ssize_t n = cnt == 1   ? connWrite(c->conn, iov[0].iov_base, iov[0].iov_len)
                    : cnt > 1 ? connWritev(c->conn, iov, cnt)
                              : 0;
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && errno != EINTR) {
                serverLog(LL_VERBOSE, "Error writing to client: %s", strerror(errno));
                clientFreeAsync(c);
                return C_ERR;
            }
            if (cnt) break;
        }
        total += n;
        if (limit != SIZE_MAX && n > 0) limit -= (size_t)n;
        /* bufpos only grows until the buffer is written, so its peak is
         * seen here, without a check on every append. */
        if (c->bufpos > c->buf_peak) c->buf_peak = c->bufpos;
        /* Consume n bytes from the front of the output. */
        size_t left = (size_t)(n > 0 ? n : 0);
        if (c->bufpos > 0) {
            size_t rem = c->bufpos - c->sentlen;
            if (left >= rem) {
                left -= rem;
                c->bufpos = 0;
                c->sentlen = 0;
            } else {
                c->sentlen += left;
                left = 0;
            }
        }
        while (c->bufpos == 0 && c->reply_head) {
            replyBlock *b = c->reply_head;
            size_t rem = b->used - c->sentlen;
            if (left < rem) {
                c->sentlen += left;
                break;
            }
            left -= rem;
            c->sentlen = 0;
            c->reply_head = b->next;
            if (!c->reply_head) c->reply_tail = NULL;
            c->reply_bytes -= b->size;
            zfree(b);
        }
        if (total > NET_MAX_WRITES_PER_EVENT) break;
    }
    server.stat_net_output_bytes += total;
    if (total) {
        server.stat_io_writes_processed++;
        /* As Redis: a client taking a long reply is not idle. */
        if (!(c->flags & CLIENT_MASTER)) c->last_interaction = server.unixtime_ms;
    }
    if (!clientHasPendingReplies(c)) {
        c->sentlen = 0;
        if (handler_installed) connSetWriteHandler(c->conn, NULL, 0);
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
            clientFreeAsync(c);
            return C_ERR;
        }
    }
    return C_OK;
}

static void clientWriteHandler(connection *conn) {
    client *c = conn->private_data;
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    if (aof_hold_active && aofClientMustWait(c)) {
        connSetWriteHandler(c->conn, NULL, 0);
        return;
    }
    clientWrite(c, 1);
}

/* Called before the loop sleeps: most clients get their reply written here,
 * without ever registering for writable events. */
void clientsHandlePendingWrites(void) {
    while (server.pending_writes) {
        client *c = server.pending_writes;
        server.pending_writes = c->pending_next;
        c->flags &= ~CLIENT_PENDING_WRITE;
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        /* appendfsync always: held until the fsync covering it is done. */
        if (aof_hold_active && aofClientMustWait(c)) continue;
        /* A replica's output is its replies, then the snapshot and the
         * stream, all written by the replication code. */
        if (c->flags & CLIENT_REPLICA) {
            replicaWrite(c);
            continue;
        }
        if (clientWrite(c, 0) == C_ERR) continue;
        if (clientHasPendingReplies(c)) connSetWriteHandler(c->conn, clientWriteHandler, 0);
    }
}

int clientType(client *c) {
    if (c->flags & CLIENT_MASTER) return CLIENT_TYPE_MASTER;
    if (c->flags & CLIENT_REPLICA) return CLIENT_TYPE_REPLICA;
    if (c->flags & CLIENT_PUBSUB) return CLIENT_TYPE_PUBSUB;
    return CLIENT_TYPE_NORMAL;
}

const char *clientTypeName(client *c) {
    switch (clientType(c)) {
    case CLIENT_TYPE_MASTER: return "master";
    case CLIENT_TYPE_REPLICA: return "slave";
    case CLIENT_TYPE_PUBSUB: return "pubsub";
    default: return "normal";
    }
}

/* Apply client-output-buffer-limit for the client's class. Returns 1 if the
 * client was scheduled to be closed. from_cron: found by the cron (a soft
 * limit's time running out), which Redis logs as a close done on the spot,
 * rather than while output was being added. */
static int clientCheckOutputLimitsFrom(client *c, int from_cron) {
    if (c->flags & (CLIENT_FAKE | CLIENT_CLOSE_ASAP | CLIENT_MASTER)) return 0;
    clientBufferLimit *lim = &cfg.client_obuf_limits[clientType(c)];
    size_t used = c->reply_bytes;
    int hard = lim->hard_limit_bytes && used >= lim->hard_limit_bytes;
    int soft = lim->soft_limit_bytes && used >= lim->soft_limit_bytes;
    if (soft) {
        if (c->obuf_soft_limit_reached_time == 0) {
            c->obuf_soft_limit_reached_time = server.unixtime;
            soft = lim->soft_limit_seconds == 0;
        } else if (server.unixtime - c->obuf_soft_limit_reached_time <= lim->soft_limit_seconds) {
            soft = 0;
        }
    } else {
        c->obuf_soft_limit_reached_time = 0;
    }
    if (!hard && !soft) return 0;
    sds info = clientInfoString(sdsempty(), c);
    serverLog(LL_WARNING, "Client %s %s for overcoming of output buffer limits.", info,
              from_cron ? "closed" : "scheduled to be closed ASAP");
    sdsfree(info);
    server.stat_client_outbuf_limit_disconnections++;
    clientFreeAsync(c);
    return 1;
}

int clientCheckOutputLimits(client *c) { return clientCheckOutputLimitsFrom(c, 0); }

client *clientLookupById(uint64_t id) {
    for (client *c = server.clients; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

/* Protected mode: with no password, only loopback and unix socket clients
 * are served; the others get this explanation (Redis' text) and are closed. */
static const char protectedModeErr[] =
    "-DENIED Redis is running in protected mode because protected "
    "mode is enabled and no password is set for the default user. "
    "In this mode connections are only accepted from the loopback interface. "
    "If you want to connect from external computers to Redis you "
    "may adopt one of the following solutions: "
    "1) Just disable protected mode sending the command "
    "'CONFIG SET protected-mode no' from the loopback interface "
    "by connecting to Redis from the same host the server is "
    "running, however MAKE SURE Redis is not publicly accessible "
    "from internet if you do so. Use CONFIG REWRITE to make this "
    "change permanent. "
    "2) Alternatively you can just disable the protected mode by "
    "editing the Redis configuration file, and setting the protected "
    "mode option to 'no', and then restarting the server. "
    "3) If you started the server manually just for testing, restart "
    "it with the '--protected-mode no' option. "
    "4) Setup a an authentication password for the default user. "
    "NOTE: You only need to do one of the above things in order for "
    "the server to start accepting connections from the outside.\r\n";

static void clientAcceptCommon(connection *conn, int flags, const char *ip, int local) {
    const char *reject = NULL;
    size_t rlen = 0;
    if (server.nclients >= cfg.maxclients) {
        static const char err[] = "-ERR max number of clients reached\r\n";
        reject = err;
        rlen = sizeof(err) - 1;
    } else if (cfg.protected_mode && (aclDefaultUser()->flags & ACL_USER_NOPASS) && !local) {
        reject = protectedModeErr;
        rlen = sizeof(protectedModeErr) - 1;
    }
    if (reject) {
        /* Best effort: the socket is fresh, so the write almost always fits. */
        if (connWrite(conn, reject, rlen) == -1) { /* nothing to do */
        }
        server.stat_rejected_conn++;
        connClose(conn);
        return;
    }
    client *c = clientCreate(conn, flags);
    server.stat_numconnections++;
    serverLog(LL_VERBOSE, "Accepted %s", ip);
    (void)c;
}

/* Accept up to this many connections per readable event, as Redis does, so
 * a connection storm cannot starve established clients. */
#define MAX_ACCEPTS_PER_CALL 1000

/* A TLS connection whose handshake ended: a client if it succeeded. */
static void clientTlsHandshakeDone(connection *conn) {
    if (conn->state != CONN_STATE_CONNECTED) {
        connClose(conn); /* conn_tls logged why */
        return;
    }
    char addr[NET_ADDR_STR_LEN];
    connFormatPeer(conn, addr, sizeof(addr), 0);
    int local = !strncmp(addr, "127.0.0.1:", 10) || !strncmp(addr, "[::1]:", 6);
    clientAcceptCommon(conn, 0, addr, local);
}

static void clientAcceptInet(int fd, int tls) {
    char ip[NET_IP_STR_LEN];
    int port;
    for (int i = 0; i < MAX_ACCEPTS_PER_CALL; i++) {
        int cfd = netAccept(server.neterr, sizeof(server.neterr), fd, ip, sizeof(ip), &port);
        if (cfd == -1) {
            if (errno != EWOULDBLOCK && errno != EAGAIN)
                serverLog(LL_WARNING, "Accepting client connection: %s", server.neterr);
            return;
        }
        netSetTcpNoDelay(cfd);
        if (cfg.tcpkeepalive) netSetKeepAlive(cfd, cfg.tcpkeepalive);
        if (tls) {
            connection *conn = connCreateAcceptedTls(cfd);
            if (!conn) close(cfd);
            else if (connAccept(conn, clientTlsHandshakeDone) == -1) connClose(conn);
            continue;
        }
        char addr[NET_ADDR_STR_LEN];
        netFormatAddr(addr, sizeof(addr), ip, port);
        clientAcceptCommon(connCreateAccepted(&connTcpType, cfd), 0, addr,
                           !strcmp(ip, "127.0.0.1") || !strcmp(ip, "::1"));
    }
}

void clientAcceptTcp(eventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)data;
    (void)mask;
    clientAcceptInet(fd, 0);
}

void clientAcceptTls(eventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)data;
    (void)mask;
    clientAcceptInet(fd, 1);
}

void clientAcceptUnix(eventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)data;
    (void)mask;
    for (int i = 0; i < MAX_ACCEPTS_PER_CALL; i++) {
        int cfd = netAccept(server.neterr, sizeof(server.neterr), fd, NULL, 0, NULL);
        if (cfd == -1) {
            if (errno != EWOULDBLOCK && errno != EAGAIN)
                serverLog(LL_WARNING, "Accepting client connection: %s", server.neterr);
            return;
        }
        clientAcceptCommon(connCreateAccepted(&connUnixType, cfd), CLIENT_UNIX_SOCKET,
                           cfg.unixsocket, 1);
    }
}

/* Periodic per-client work, a slice of the clients per call so the cron
 * stays short with many clients: idle timeouts, query buffer shrinking and
 * the time-based part of output limits. */
/* s reallocated to hold `size` bytes (>= its length); an empty result is
 * sdsempty(), whose zero free space CLIENT LIST shows as Redis does. */
static sds clientQbufShrink(sds s, size_t size) {
    sds n = sdsempty();
    /* sdsempty() reports its allocator slack (a few bytes) as free space;
     * an idle client's buffer is given back whole, so say 0 like Redis.
     * Under-stating the capacity of a type 8 header is always safe. */
    ((struct sdshdr8 *)(n - sizeof(struct sdshdr8)))->alloc = 0;
    if (size) {
        n = sdsMakeRoomForNonGreedy(n, size);
        n = sdscatlen(n, s, sdslen(s));
    }
    sdsfree(s);
    return n;
}

/* Give back query buffer space a client does not use (Redis' rules, which
 * CLIENT LIST's qbuf-free shows): all the free space after more than 2
 * idle seconds, or down to the recent peak when the buffer is over 32 KB
 * and twice that peak. The peak restarts at every visit. */
static void clientResizeQueryBuffer(client *c) {
    size_t size = sdsalloc(c->querybuf);
    long long idle = server.unixtime_ms / 1000 - c->last_interaction / 1000;
    long long bulklen = c->req.type == RESP_REQ_MULTIBULK ? c->req.bulklen : -1;
    if (c->qb_pos == 0 && sdsavail(c->querybuf) > 4 * 1024) {
        if (idle > 2) {
            c->querybuf = clientQbufShrink(c->querybuf, sdslen(c->querybuf));
        } else if (size > CLIENT_QBUF_SHRINK_MIN && size / 2 > c->querybuf_peak) {
            size_t resize = sdslen(c->querybuf);
            if (resize < c->querybuf_peak) resize = c->querybuf_peak;
            if (bulklen != -1 && resize < (size_t)bulklen) resize = (size_t)bulklen;
            c->querybuf = clientQbufShrink(c->querybuf, resize);
        }
    }
    c->querybuf_peak = sdslen(c->querybuf);
    if (bulklen != -1 && (size_t)bulklen > c->querybuf_peak) c->querybuf_peak = (size_t)bulklen;
}

/* Reply buffer sizing, Redis 7.0's policy: DEBUG REPLYBUFFER changes these. */
static long reply_buffer_peak_reset_ms = 5000; /* -1: never reset the peak */
static int reply_buffer_resizing = 1;

void clientSetReplyBufferPeakReset(long ms) { reply_buffer_peak_reset_ms = ms; }

void clientSetReadChunk(size_t bytes) { read_chunk_limit = bytes; }
void clientSetReplyBufferResizing(int on) { reply_buffer_resizing = on; }

/* Shrink the static reply buffer of a client that used less than half of
 * it since the last peak reset (down to 1 KB: an idle connection then
 * costs ~1 KB instead of 16), or double it (up to 16 KB) when it filled.
 * What is waiting to be written moves with it. */
static void clientResizeReplyBuffer(client *c) {
    size_t size = 0;
    /* Unwritten output may not have been counted in the peak yet. */
    size_t peak = c->buf_peak > c->bufpos ? c->buf_peak : c->bufpos;
    if (reply_buffer_resizing) {
        if (c->buf_size / 2 >= PROTO_REPLY_MIN_BYTES && peak < c->buf_size / 2) {
            size = peak + 1 > PROTO_REPLY_MIN_BYTES ? peak + 1 : PROTO_REPLY_MIN_BYTES;
            server.stat_reply_buffer_shrinks++;
        } else if (c->buf_size < PROTO_REPLY_CHUNK_BYTES && peak == c->buf_size) {
            size = c->buf_size * 2 < PROTO_REPLY_CHUNK_BYTES ? c->buf_size * 2 : PROTO_REPLY_CHUNK_BYTES;
            server.stat_reply_buffer_expands++;
        }
    }
    if (reply_buffer_peak_reset_ms >= 0 &&
        server.unixtime_ms - c->buf_peak_reset_ms >= reply_buffer_peak_reset_ms) {
        c->buf_peak = c->bufpos;
        c->buf_peak_reset_ms = server.unixtime_ms;
    }
    if (!size) return;
    char *old = c->buf;
    c->buf = zmalloc_usable(size, &c->buf_size);
    memcpy(c->buf, old, c->bufpos);
    zfree(old);
}

/* The subscription tables' own overhead (the names are shared with the
 * server-wide tables). */
static size_t clientPubsubMemory(const dict *d) {
    return d ? dictSize(d) * sizeof(dictEntry) + dictSlots(d) * sizeof(dictEntry *) : 0;
}

size_t clientMemoryUsage(client *c) {
    size_t argvmem = c->argv_len_sum + sizeof(robj *) * c->argv_len;
    return sizeof(client) + c->buf_size + sdsAllocSize(c->querybuf) + c->reply_bytes + argvmem +
           multiClientMemory(c) + clientPubsubMemory(c->pubsub_channels) +
           clientPubsubMemory(c->pubsub_patterns) + clientPubsubMemory(c->pubsub_shard_channels) +
           trackingClientMemory(c);
}

/* maxmemory-clients in bytes (a negative setting is a percentage of
 * maxmemory); 0: off. */
static long long clientsEvictLimit(void) {
    long long limit = cfg.maxmemory_clients;
    if (limit < 0) limit = (long long)(cfg.maxmemory * (unsigned long long)-limit / 100);
    return limit;
}

/* What c counts against maxmemory-clients: normal and pubsub clients
 * (CLIENT NO-EVICT ones too, though they are never chosen). */
static size_t clientEvictableMemory(client *c) {
    int type = clientType(c);
    if ((type != CLIENT_TYPE_NORMAL && type != CLIENT_TYPE_PUBSUB) ||
        (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_FAKE)))
        return 0;
    return clientMemoryUsage(c);
}

void clientMemTrack(client *c) {
    if (clientsEvictLimit() <= 0) return;
    size_t mem = clientEvictableMemory(c);
    server.clients_mem_tracked += mem - c->mem_tracked; /* wraps back into range */
    c->mem_tracked = mem;
}

/* maxmemory-clients: while normal and pubsub clients together hold more
 * than the limit, close the biggest one that may be evicted (not CLIENT
 * NO-EVICT). Called before the loop sleeps: it recounts every client, so
 * the running total (which misses changes made between commands, like
 * output written, a subscriber's messages, input read) is exact again
 * afterwards. With the limit off (the default) this costs nothing. */
void clientsEvictIfNeeded(void) {
    long long limit = clientsEvictLimit();
    if (limit <= 0) return;
    for (;;) {
        size_t total = 0, worst_mem = 0;
        client *worst = NULL;
        for (client *c = server.clients; c; c = c->next) {
            size_t mem = clientEvictableMemory(c);
            c->mem_tracked = mem;
            total += mem;
            if (mem && !(c->flags & CLIENT_NO_EVICT) && mem > worst_mem) {
                worst = c;
                worst_mem = mem;
            }
        }
        server.clients_mem_tracked = total;
        if (total < (size_t)limit || !worst) return;
        sds info = clientInfoString(sdsempty(), worst);
        serverLog(LL_NOTICE, "Evicting client: %s", info);
        sdsfree(info);
        server.stat_evictedclients++;
        clientFreeAsync(worst);
    }
}

/* Between commands the clients' memory is known as last counted: the
 * current client's request is both in its query buffer and in its argv,
 * which a recount would hold against it twice. So this, like Redis'
 * per-command check, goes by the counted values. */
int clientsEvictBeforeCommand(client *c) {
    long long limit = clientsEvictLimit();
    if (limit <= 0) return 0;
    while (server.clients_mem_tracked >= (size_t)limit) {
        client *worst = NULL;
        for (client *x = server.clients; x; x = x->next) {
            if (x->flags & CLIENT_NO_EVICT) continue;
            if (x->mem_tracked && (!worst || x->mem_tracked > worst->mem_tracked)) worst = x;
        }
        if (!worst) break;
        sds info = clientInfoString(sdsempty(), worst);
        serverLog(LL_NOTICE, "Evicting client: %s", info);
        sdsfree(info);
        server.stat_evictedclients++;
        clientFreeAsync(worst); /* takes its share off the total */
    }
    return (c->flags & CLIENT_CLOSE_ASAP) != 0;
}

int clientsCron(void) {
    static client *cursor = NULL; /* resumes where the last call stopped */
    unsigned long numclients = server.nclients;
    unsigned long iterations = numclients / (unsigned long)server.hz;
    if (iterations < 50) iterations = numclients < 50 ? numclients : 50;
    /* The cursor may have been freed since: validate by walking. A freed
     * cursor simply restarts from the head. */
    client *c = NULL;
    if (cursor) {
        for (client *x = server.clients; x; x = x->next)
            if (x == cursor) {
                c = x;
                break;
            }
    }
    if (!c) c = server.clients;
    while (c && iterations--) {
        client *next = c->next;
        if (!(c->flags & CLIENT_CLOSE_ASAP)) {
            /* As Redis: subscribers and clients waiting on the server (a
             * blocking command, WAIT/WAITAOF, a pause, an fsync) are not
             * idle; Redis counts all of those as blocked. */
            if (cfg.maxidletime &&
                !(c->flags &
                  (CLIENT_MONITOR | CLIENT_REPLICA | CLIENT_MASTER | CLIENT_PUBSUB |
                   CLIENT_BLOCKED | CLIENT_POSTPONED | CLIENT_REPL_WAIT | CLIENT_AOF_WAIT)) &&
                server.unixtime_ms - c->last_interaction > (long long)cfg.maxidletime * 1000) {
                serverLog(LL_VERBOSE, "Closing idle client");
                clientFreeAsync(c);
            } else {
                clientResizeQueryBuffer(c);
                clientResizeReplyBuffer(c);
                if (c->reply_head && c->obuf_soft_limit_reached_time) clientCheckOutputLimitsFrom(c, 1);
            }
        }
        c = next;
    }
    cursor = c;
    return 0;
}

/* Redis' letters in Redis' order. A client held by a pause or in WAIT
 * shows 'b': Redis blocks those too. A monitor is only 'O'. */
static void clientFlagsString(client *c, char *buf) {
    char *p = buf;
    if (c->flags & CLIENT_MONITOR) *p++ = 'O';
    else if (c->flags & CLIENT_REPLICA)
        *p++ = 'S';
    if (c->flags & CLIENT_MASTER) *p++ = 'M';
    if (c->flags & CLIENT_PUBSUB) *p++ = 'P';
    if (c->flags & CLIENT_MULTI) *p++ = 'x';
    if (c->flags & (CLIENT_BLOCKED | CLIENT_POSTPONED | CLIENT_REPL_WAIT)) *p++ = 'b';
    if (c->flags & CLIENT_TRACKING) *p++ = 't';
    if (c->flags & CLIENT_TRACKING_BROKEN_REDIR) *p++ = 'R';
    if (c->flags & CLIENT_TRACKING_BCAST) *p++ = 'B';
    if (c->flags & CLIENT_DIRTY_CAS) *p++ = 'd';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY) *p++ = 'c';
    if (c->flags & CLIENT_UNBLOCKED) *p++ = 'u';
    if (c->flags & CLIENT_CLOSE_ASAP) *p++ = 'A';
    if (c->flags & CLIENT_UNIX_SOCKET) *p++ = 'U';
    if (c->flags & CLIENT_NO_EVICT) *p++ = 'e';
    if (p == buf) *p++ = 'N';
    *p = '\0';
}

sds clientInfoString(sds s, client *c) {
    char flags[16], events[3], *e = events;
    clientFlagsString(c, flags);
    if (c->conn) {
        int mask = elGetFileMask(server.el, c->conn->fd);
        if (mask & EV_READABLE) *e++ = 'r';
        if (mask & EV_WRITABLE) *e++ = 'w';
    }
    *e = '\0';
    char laddr[NET_ADDR_STR_LEN] = "";
    if (c->conn) connFormatPeer(c->conn, laddr, sizeof(laddr), 1);
    size_t obl = c->bufpos;
    unsigned long oll = 0;
    for (replyBlock *b = c->reply_head; b; b = b->next) oll++;
    /* qbuf in Redis' terms: Redis turns each complete argument into an
     * object as it parses (argv-mem), dropping it and its header from the
     * buffer, so between commands qbuf is what is not parsed yet (for a big
     * argument, only its payload so far). We keep the request in the buffer
     * until it is whole: its parsed part is subtracted here. During the
     * client's own command both keep the command's bytes. */
    size_t qbuf = sdslen(c->querybuf);
    size_t qfree = sdsavail(c->querybuf);
    size_t argvmem = c->argv_len_sum;
    if (!(c->flags & CLIENT_EXECUTING_COMMAND)) {
        size_t parsed = c->qb_pos + c->req.pos;
        qbuf = qbuf > parsed ? qbuf - parsed : 0;
        if (c->req.type == RESP_REQ_MULTIBULK) argvmem += c->req.args_len;
    }
    size_t totmem = clientMemoryUsage(c);
    return sdscatprintf(
        s,
        "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=%lu psub=%lu "
        "ssub=%lu multi=%d qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=%zu rbs=%zu rbp=%zu "
        "obl=%zu "
        "oll=%lu omem=%zu tot-mem=%zu events=%s cmd=%s user=%s redir=%lld resp=%d",
        (unsigned long long)c->id, c->peer, laddr, c->conn ? c->conn->fd : -1,
        c->name ? c->name : "", (long long)(server.unixtime - c->ctime),
        (server.unixtime_ms - c->last_interaction) / 1000, flags, c->db ? c->db->id : 0,
        c->pubsub_channels ? dictSize(c->pubsub_channels) : 0,
        c->pubsub_patterns ? dictSize(c->pubsub_patterns) : 0,
        c->pubsub_shard_channels ? dictSize(c->pubsub_shard_channels) : 0,
        (c->flags & CLIENT_MULTI) ? c->mstate_len : -1, qbuf, qfree, argvmem, multiClientMemory(c),
        c->buf_size, c->buf_peak, obl, oll, c->reply_bytes, totmem, events,
        c->lastcmd ? c->lastcmd->fullname : "NULL", c->user ? c->user->name : "(superuser)",
        (c->flags & CLIENT_TRACKING) ? (long long)c->tracking_redirect : -1LL, c->resp);
}

sds clientListString(int type) {
    sds s = sdsempty();
    /* The list is newest-first; CLIENT LIST shows oldest first like Redis. */
    client *last = server.clients;
    while (last && last->next) last = last->next;
    for (client *c = last; c; c = c->prev) {
        if (type != -1 && clientType(c) != type) continue;
        s = clientInfoString(s, c);
        s = sdscatlen(s, "\n", 1);
    }
    return s;
}

/* Replace the arguments (used when a command is propagated in a different
 * form, e.g. SETEX -> SET PX). Takes ownership of the passed objects. */
void clientRewriteArgv(client *c, int argc, ...) {
    va_list ap;
    robj **argv = zmalloc(sizeof(robj *) * argc);
    va_start(ap, argc);
    for (int j = 0; j < argc; j++) argv[j] = va_arg(ap, robj *);
    va_end(ap);
    clientReplaceArgv(c, argv, argc);
}

void clientReplaceArgv(client *c, robj **argv, int argc) {
    if (!c->original_argv) {
        c->original_argv = c->argv;
        c->original_argc = c->argc;
    } else {
        for (int j = 0; j < c->argc; j++) decrRefCount(c->argv[j]);
        zfree(c->argv);
    }
    c->argv = argv;
    c->argc = c->argv_len = argc;
}

void clientRewriteArg(client *c, int i, robj *o) {
    clientRetainOriginalArgv(c);
    decrRefCount(c->argv[i]);
    c->argv[i] = o;
}

/* SLOWLOG and MONITOR show "(redacted)" for argument i (a password); the
 * command itself still sees it. */
void clientRedactArg(client *c, int i) {
    clientRetainOriginalArgv(c);
    decrRefCount(c->original_argv[i]);
    c->original_argv[i] = createStringObject("(redacted)", 10);
}

void clientRetainOriginalArgv(client *c) {
    if (c->original_argv) return;
    c->original_argv = zmalloc(sizeof(robj *) * c->argc);
    for (int j = 0; j < c->argc; j++) {
        c->original_argv[j] = c->argv[j];
        incrRefCount(c->argv[j]);
    }
    c->original_argc = c->argc;
}

void clientFreeOriginalArgv(client *c) {
    if (!c->original_argv) return;
    for (int j = 0; j < c->original_argc; j++) decrRefCount(c->original_argv[j]);
    zfree(c->original_argv);
    c->original_argv = NULL;
    c->original_argc = 0;
}

/* Serve clients from inside a long job on the main thread (a snapshot
 * being loaded): a few non-blocking passes over the sockets, so each gets
 * an answer (-LOADING for most commands) in bounded time, and the cron's
 * timers stay off because they would act on a half-built keyspace. A
 * SIGTERM/SIGINT arriving meanwhile ends the process here without saving:
 * saving would overwrite the file being read with part of it. */
int processEventsWhileBlocked(void) {
    int total = 0;
    for (int j = 0; j < 4; j++) {
        int n = elProcessFileEventsNow(server.el);
        total += n;
        if (n == 0) break;
    }
    if (server.shutdown_asap && server.loading && !server.in_shutdown) {
        serverLog(LL_WARNING, "Received shutdown signal during loading, exiting now.");
        if (prepareForShutdown(SHUTDOWN_NOSAVE) == C_OK) exit(0);
        server.shutdown_asap = 0;
    }
    return total;
}
