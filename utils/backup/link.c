/* link: cairn-backup's replication client, a blocking one-connection
 * replica.
 *
 *   connect --> PING --> [AUTH user pass] --> one write of: INFO server
 *     replication, REPLCONF capa eof capa psync2, [REPLCONF archive-only 1],
 *     [REPLCONF rdb-only 1] --> their replies in order --> PSYNC ? -1
 *     --> +FULLRESYNC replid offset --> "\n" keep-alives --> "$<len>" or
 *     "$EOF:<40-byte mark>" --> payload bytes to the sink (an EOF payload:
 *     up to its mark)
 *
 * `stream` sends PSYNC <replid> <offset> instead and may get +CONTINUE (no
 * payload: the stream follows), and first REPLCONF archive-only 1, which a
 * cairn primary answers +OK (it then never counts the link for WAIT or
 * min-replicas-to-write and lists it nowhere sentinel looks) and Redis
 * refuses (harmless; stream.c then sends no ACKs, see there).
 * No REPLCONF listening-port is sent: a source's INFO shows the link with
 * port 0, so redis-sentinel cannot reach (nor promote) it.
 * Replies are read a byte at a time up to their newline, so nothing of
 * the payload is taken by the handshake; the payload is pulled by its
 * consumer in pieces of its choosing (a primary streams nothing after an
 * EOF mark before the replica's first ACK, so a piece never runs past it). Every read and write is
 * bounded by the link's timeout. Every byte goes through transport.c
 * (plain or TLS). */
#include "backup.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define LINK_LINE_MAX 1024

int backupConnect(const char *host, int port, int timeout_s, sds *err) {
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *p;
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0) {
        *err = sdscatprintf(sdsempty(), "cannot resolve %s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, saved = 0;
    for (p = res; p; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (fd == -1) continue;
        struct timeval tv = {timeout_s, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (connect(fd, p->ai_addr, p->ai_addrlen) == 0) break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd == -1) {
        *err = sdscatprintf(sdsempty(), "cannot connect to %s:%d: %s", host, port, strerror(saved));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    return fd;
}

static sds linkFormat(sds s, int argc, const char **argv) {
    s = sdscatprintf(s, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        s = sdscatprintf(s, "$%zu\r\n", strlen(argv[j]));
        s = sdscatlen(s, argv[j], strlen(argv[j]));
        s = sdscatlen(s, "\r\n", 2);
    }
    return s;
}

/* Write s (freed here) whole; `what` names it in the error. */
static int linkSend(backupLink *l, sds s, const char *what, sds *err) {
    size_t off = 0;
    while (off < sdslen(s)) {
        ssize_t n = backupTransportWrite(l, s + off, sdslen(s) - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            *err = sdscatprintf(sdsempty(), "sending %s: %s", what,
                                n < 0 ? strerror(errno) : "short write");
            sdsfree(s);
            return -1;
        }
        off += (size_t)n;
    }
    sdsfree(s);
    return 0;
}

static int linkSendCommand(backupLink *l, int argc, const char **argv, sds *err) {
    return linkSend(l, linkFormat(sdsempty(), argc, argv), argv[0], err);
}

/* Why a read returned n <= 0 (SO_RCVTIMEO makes a timeout EAGAIN). */
static const char *linkReadFailure(ssize_t n) {
    if (n == 0) return "connection closed";
    return errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : strerror(errno);
}

/* One reply line without its CRLF into buf. Empty lines (keep-alives) are
 * returned too; the caller skips them where they may occur. */
static int linkReadLine(backupLink *l, char *buf, size_t cap, sds *err) {
    size_t len = 0;
    while (1) {
        char ch;
        ssize_t n = backupTransportRead(l, &ch, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            *err = sdscatprintf(sdsempty(), "reading from the source: %s", linkReadFailure(n));
            return -1;
        }
        if (ch == '\n') break;
        if (len + 1 >= cap) {
            *err = sdsnew("the source sent an overlong reply line");
            return -1;
        }
        buf[len++] = ch;
    }
    if (len && buf[len - 1] == '\r') len--;
    buf[len] = '\0';
    return 0;
}

/* Send a command and read its status/error line. */
static int linkCall(backupLink *l, int argc, const char **argv, char *reply, size_t cap, sds *err) {
    if (linkSendCommand(l, argc, argv, err) == -1) return -1;
    do {
        if (linkReadLine(l, reply, cap, err) == -1) return -1;
    } while (reply[0] == '\0');
    return 0;
}

/* The reply to INFO server replication: the version line, for the
 * manifest, and the replication section's second ID, to explain a refused
 * PSYNC (a bulk reply: read it whole; an error reply, e.g. an ACL user
 * without INFO, leaves both unknown). -1 only if the link failed. */
static int linkReadInfo(backupLink *l, sds *err) {
    char line[LINK_LINE_MAX];
    l->second_offset = -1;
    do {
        if (linkReadLine(l, line, sizeof(line), err) == -1) return -1;
    } while (line[0] == '\0');
    if (line[0] != '$') return 0;
    long long len = strtoll(line + 1, NULL, 10) + 2, got = 0;
    sds body = sdsempty();
    while (got < len) {
        char buf[4096];
        size_t want = (size_t)(len - got) < sizeof(buf) ? (size_t)(len - got) : sizeof(buf);
        ssize_t n = backupTransportRead(l, buf, want);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            *err = sdscatprintf(sdsempty(), "reading INFO: %s", linkReadFailure(n));
            sdsfree(body);
            return -1;
        }
        body = sdscatlen(body, buf, (size_t)n);
        got += n;
    }
    const char *names[2] = {"cairn_version:", "redis_version:"};
    for (int j = 0; j < 2 && !l->server_info[0]; j++) {
        const char *p = strstr(body, names[j]);
        if (!p) continue;
        size_t n = strcspn(p, "\r\n");
        snprintf(l->server_info, sizeof(l->server_info), "%.*s", (int)n, p);
    }
    const char *id1 = strstr(body, "master_replid:"), *off1 = strstr(body, "master_repl_offset:");
    if (id1 && off1 && strcspn(id1 + 14, "\r\n") == 40) {
        memcpy(l->info_replid, id1 + 14, 40);
        l->info_replid[40] = '\0';
        l->info_offset = strtoll(off1 + 19, NULL, 10);
    }
    const char *id2 = strstr(body, "master_replid2:"), *off2 = strstr(body, "second_repl_offset:");
    if (id2 && off2 && strcspn(id2 + 15, "\r\n") == 40) {
        memcpy(l->replid2, id2 + 15, 40);
        l->replid2[40] = '\0';
        l->second_offset = strtoll(off2 + 19, NULL, 10);
    }
    sdsfree(body);
    return 0;
}

/* A status reply to a pipelined command: -1 if the link failed. */
static int linkReadStatus(backupLink *l, char *line, size_t cap, sds *err) {
    do {
        if (linkReadLine(l, line, cap, err) == -1) return -1;
    } while (line[0] == '\0');
    return 0;
}

backupLink *backupLinkOpen(const backupLinkOptions *o, sds *err) {
    backupLink *l = calloc(1, sizeof(*l));
    l->diverged_at = -1;
    l->timeout_s = o->timeout_s > 0 ? o->timeout_s : 60;
    l->fd = backupConnect(o->host, o->port, l->timeout_s, err);
    if (l->fd == -1) {
        free(l);
        return NULL;
    }
    if (backupTransportStart(l, o->host, o->port, err) == -1) goto fail;
    char line[LINK_LINE_MAX];
    const char *ping[1] = {"PING"};
    if (linkCall(l, 1, ping, line, sizeof(line), err) == -1) goto fail;
    /* -NOAUTH is what a source needing AUTH says: AUTH follows. */
    if (line[0] == '-' && strncmp(line, "-NOAUTH", 7) && strncmp(line, "-NOPERM", 7)) {
        *err = sdscatprintf(sdsempty(), "error reply to PING: %s", line);
        goto fail;
    }
    if (o->pass) {
        const char *argv[3] = {"AUTH", o->user ? o->user : o->pass, o->pass};
        if (linkCall(l, o->user ? 3 : 2, argv, line, sizeof(line), err) == -1) goto fail;
        if (line[0] == '-') {
            *err = sdscatprintf(sdsempty(), "AUTH refused: %s", line);
            goto fail;
        }
    } else if (line[0] == '-') {
        *err = sdscatprintf(sdsempty(), "the source needs AUTH (--user/--pass): %s", line);
        goto fail;
    }
    /* The commands before PSYNC go in one write, replies read in order:
     * one round trip instead of four. PSYNC waits for them (a source
     * refuses it while replies to a client are pending). */
    char offstr[32];
    snprintf(offstr, sizeof(offstr), "%lld", o->psync_replid ? o->psync_offset : -1LL);
    const char *info[3] = {"INFO", "server", "replication"};
    const char *capa[5] = {"REPLCONF", "capa", "eof", "capa", "psync2"};
    const char *arch[3] = {"REPLCONF", "archive-only", "1"};
    /* Redis 7.0 closes after the snapshot with rdb-only and keeps no stream
     * for us; a source that does not know it (older ones) streams on, and
     * we close after the payload anyway. */
    const char *rdbonly[3] = {"REPLCONF", "rdb-only", "1"};
    const char *psync[3] = {"PSYNC", o->psync_replid ? o->psync_replid : "?", offstr};
    sds batch = linkFormat(sdsempty(), 3, info);
    batch = linkFormat(batch, 5, capa);
    if (o->archive_only) batch = linkFormat(batch, 3, arch);
    if (o->rdb_only) batch = linkFormat(batch, 3, rdbonly);
    if (linkSend(l, batch, "the handshake", err) == -1) goto fail;
    if (linkReadInfo(l, err) == -1) goto fail;
    if (linkReadStatus(l, line, sizeof(line), err) == -1) goto fail;
    if (line[0] == '-') {
        *err = sdscatprintf(sdsempty(), "REPLCONF capa refused: %s", line);
        goto fail;
    }
    if (o->archive_only) {
        if (linkReadStatus(l, line, sizeof(line), err) == -1) goto fail;
        l->archiver = line[0] == '+';
    }
    if (o->rdb_only && linkReadStatus(l, line, sizeof(line), err) == -1) goto fail;
    if (linkCall(l, 3, psync, line, sizeof(line), err) == -1) goto fail;
    if (!strncmp(line, "+CONTINUE", 9)) {
        /* PSYNC2: the history may go on under the primary's new ID. */
        const char *id = line + 9;
        while (*id == ' ') id++;
        memcpy(l->replid, strlen(id) == 40 ? id : o->psync_replid, 40);
        l->replid[40] = '\0';
        l->offset = o->psync_offset - 1;
        l->sync_time = backupNow();
        l->continued = 1;
        return l;
    }
    if (o->psync_replid && o->psync_refusal) {
        *o->psync_refusal = sdscatprintf(sdsempty(), "the source answered %.200s to PSYNC %s %s",
                                         line, o->psync_replid, offstr);
        /* PSYNC2 continues an ID's history only up to what the source
         * has of it: second_repl_offset - 1 for its previous ID (a
         * promoted replica), master_repl_offset for its own (one that
         * restarted from an older snapshot). A tool past that holds
         * writes the source lost, which only the old timeline keeps. */
        long long shared = -1;
        if (!strcmp(l->replid2, o->psync_replid) && l->second_offset > 0)
            shared = l->second_offset - 1;
        else if (!strcmp(l->info_replid, o->psync_replid))
            shared = l->info_offset;
        if (shared >= 0 && o->psync_offset - 1 > shared) {
            l->diverged_at = shared;
            *o->psync_refusal = sdscatprintf(
                *o->psync_refusal,
                "; the source holds that history only up to offset %lld: the archived tail "
                "(%lld, %lld] is not on it (writes lost in the failover) and stays restorable "
                "from the old timeline",
                shared, shared, o->psync_offset - 1);
        }
    }
    if (strncmp(line, "+FULLRESYNC ", 12)) {
        *err = sdscatprintf(sdsempty(), "unexpected reply to PSYNC: %.200s", line);
        goto fail;
    }
    l->sync_time = backupNow();
    char id[64];
    if (sscanf(line + 12, "%63s %lld", id, &l->offset) != 2 || strlen(id) != 40) {
        *err = sdscatprintf(sdsempty(), "malformed +FULLRESYNC reply: %.200s", line);
        goto fail;
    }
    memcpy(l->replid, id, 41);
    /* The source prepares the snapshot, sending newlines meanwhile. */
    do {
        if (linkReadLine(l, line, sizeof(line), err) == -1) goto fail;
    } while (line[0] == '\0');
    if (line[0] == '-') {
        *err = sdscatprintf(sdsempty(), "the source could not produce a snapshot: %.200s", line);
        goto fail;
    }
    if (!strncmp(line, "$EOF:", 5)) {
        if (strlen(line + 5) != 40) {
            *err = sdsnew("malformed EOF mark in the payload header");
            goto fail;
        }
        memcpy(l->mark, line + 5, 40);
        l->size = -1;
    } else if (line[0] == '$') {
        char *end;
        l->size = strtoll(line + 1, &end, 10);
        if (*end || l->size < 0) {
            *err = sdscatprintf(sdsempty(), "malformed payload header: %.100s", line);
            goto fail;
        }
    } else {
        *err = sdscatprintf(sdsempty(), "unexpected payload header: %.100s", line);
        goto fail;
    }
    return l;
fail:
    backupLinkClose(l);
    return NULL;
}

void backupPayloadInit(backupPayload *p, backupLink *l, backupSinkFn *sink, void *ctx) {
    memset(p, 0, sizeof(*p));
    p->l = l, p->sink = sink, p->ctx = ctx;
}

/* Hand the first `out` bytes of held + buf to the sink, keep the rest
 * (at most 40) as the new held bytes. */
static int payloadTee(backupPayload *p, const char *buf, size_t n, size_t out) {
    size_t from_held = out < p->held ? out : p->held;
    if (from_held && !p->sink(p->ctx, p->mark_tail, from_held)) return 0;
    if (out > from_held && !p->sink(p->ctx, buf, out - from_held)) return 0;
    p->total += (long long)out;
    size_t keep = p->held + n - out; /* <= 40: the last bytes of held + buf */
    if (n >= keep) {
        memcpy(p->mark_tail, buf + n - keep, keep);
    } else {
        memmove(p->mark_tail, p->mark_tail + p->held - (keep - n), keep - n);
        memcpy(p->mark_tail + keep - n, buf, n);
    }
    p->held = keep;
    return 1;
}

ssize_t backupPayloadPull(backupPayload *p, void *buf, size_t cap, sds *err) {
    backupLink *l = p->l;
    if (p->done) return 0;
    size_t want = cap;
    if (l->size >= 0 && (long long)want > l->size - p->total) want = (size_t)(l->size - p->total);
    ssize_t n;
    do n = backupTransportRead(l, buf, want);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        *err = sdscatprintf(sdsempty(), "the payload ended after %lld bytes: %s",
                            p->total + (long long)p->held, linkReadFailure(n));
        return -1;
    }
    if (l->size >= 0) {
        if (!p->sink(p->ctx, buf, (size_t)n)) goto sinkfail;
        p->total += n;
        p->done = p->total == l->size;
        return n;
    }
    /* An EOF payload: the last 40 bytes seen are held back until more
     * arrive, since they may be the mark. Pieces are at most cap bytes,
     * so the tail is compared through a copy when it straddles. */
    size_t have = p->held + (size_t)n;
    char tail[40];
    if (have >= 40) {
        size_t from_buf = (size_t)n < 40 ? (size_t)n : 40, from_held = 40 - from_buf;
        memcpy(tail, p->mark_tail + p->held - from_held, from_held);
        memcpy(tail + from_held, (const char *)buf + n - from_buf, from_buf);
        p->done = !memcmp(tail, l->mark, 40);
    }
    if (!payloadTee(p, buf, (size_t)n, have > 40 ? have - 40 : 0)) goto sinkfail;
    return n;
sinkfail:
    *err = sdsnew("writing the payload failed");
    return -1;
}

int backupLinkAck(backupLink *l, long long offset) {
    char off[32];
    snprintf(off, sizeof(off), "%lld", offset);
    const char *argv[3] = {"REPLCONF", "ACK", off};
    sds err = NULL;
    int r = linkSendCommand(l, 3, argv, &err);
    sdsfree(err);
    return r;
}

void backupLinkClose(backupLink *l) {
    if (!l) return;
    backupTransportClose(l);
    if (l->fd != -1) close(l->fd);
    free(l);
}
