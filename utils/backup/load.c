/* load: `restore --to-server`, a restore point loaded into a running,
 * empty server instead of a data directory.
 *
 * The snapshot is read by the server's loader in check-only mode; each key
 * it yields becomes RESTORE key <expire> <DUMP payload> ABSTTL (dump.c's
 * encoder, SELECT when the database changes), each functions library a
 * FUNCTION LOAD of its code, then the archived commands
 * up to the cut follow as the source sent them (replay.c; PING/REPLCONF
 * left out). Commands go out pipelined, in batches of LOAD_BATCH whose
 * replies are read back before the next batch, so neither side's buffers
 * fill; the first error reply stops the load and is named. With --tls
 * the connection is TLS with the same options as full and stream
 * (transport.c). */
#include "backup.h"
#include "dump.h"
#include "rdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOAD_BATCH 512

typedef struct loadConn {
    backupLink link; /* fd and, with --tls, its SSL (transport.c) */
    sds out;         /* commands not yet written */
    int pending;     /* replies still to read */
    char buf[65536]; /* replies read ahead: [pos, len) */
    size_t pos, len;
    sds err; /* the first error reply, or a connection error */
    int db;
    long long sent, keys;
    double started;
} loadConn;

static int loadFill(loadConn *c) {
    if (c->pos < c->len) return 1;
    ssize_t n;
    do n = backupTransportRead(&c->link, c->buf, sizeof(c->buf));
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        if (!c->err)
            c->err = sdscatprintf(sdsempty(), "reading replies: %s",
                                  n == 0 ? "connection closed" : strerror(errno));
        return 0;
    }
    c->pos = 0;
    c->len = (size_t)n;
    return 1;
}

/* One reply line (without CRLF) into line. */
static int loadLine(loadConn *c, sds *line) {
    sdsclear(*line);
    while (loadFill(c)) {
        char *nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
        size_t take = nl ? (size_t)(nl - (c->buf + c->pos)) + 1 : c->len - c->pos;
        *line = sdscatlen(*line, c->buf + c->pos, take);
        c->pos += take;
        if (nl) {
            sdsrange(*line, 0, (ssize_t)sdslen(*line) - 3); /* drop CRLF */
            return 1;
        }
    }
    return 0;
}

/* Skip one reply of any RESP2 type; the first error is kept. */
static int loadSkipReply(loadConn *c, sds *line) {
    if (!loadLine(c, line)) return 0;
    long long n = strtoll(*line + 1, NULL, 10);
    switch ((*line)[0]) {
        case '-':
            if (!c->err) c->err = sdsdup(*line);
            return 1;
        case '$':
            for (long long left = n < 0 ? 0 : n + 2; left > 0;) {
                if (!loadFill(c)) return 0;
                size_t take = (size_t)left < c->len - c->pos ? (size_t)left : c->len - c->pos;
                c->pos += take;
                left -= (long long)take;
            }
            return 1;
        case '*':
            for (long long j = 0; j < n; j++)
                if (!loadSkipReply(c, line)) return 0;
            return 1;
        default:
            return 1;
    }
}

static int loadFlush(loadConn *c) {
    for (size_t off = 0; off < sdslen(c->out);) {
        ssize_t n = backupTransportWrite(&c->link, c->out + off, sdslen(c->out) - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (!c->err) c->err = sdscatprintf(sdsempty(), "sending: %s", strerror(errno));
            return 0;
        }
        off += (size_t)n;
    }
    sdsclear(c->out);
    sds line = sdsempty();
    while (c->pending > 0 && loadSkipReply(c, &line)) c->pending--;
    sdsfree(line);
    backupProgress("loaded", c->sent, -1, c->started);
    return c->pending == 0 && !c->err;
}

static int loadAppend(loadConn *c, const char *cmd, size_t len) {
    c->out = sdscatlen(c->out, cmd, len);
    c->pending++;
    c->sent += (long long)len;
    return c->pending < LOAD_BATCH || loadFlush(c);
}

static sds loadArg(sds s, const char *p, size_t len) {
    s = sdscatprintf(s, "$%zu\r\n", len);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

static void loadKey(void *ctx, size_t offset, int dbid, int rdbtype, sds key, robj *val,
                    long long expire) {
    (void)offset, (void)rdbtype;
    loadConn *c = ctx;
    if (c->err) return;
    if (dbid != c->db) {
        char db[16];
        int n = snprintf(db, sizeof(db), "%d", dbid);
        sds sel = loadArg(sdsnew("*2\r\n$6\r\nSELECT\r\n"), db, (size_t)n);
        loadAppend(c, sel, sdslen(sel));
        sdsfree(sel);
        c->db = dbid;
    }
    sds payload = dumpPayloadCreate(val);
    char ttl[32];
    int tn = snprintf(ttl, sizeof(ttl), "%lld", expire == -1 ? 0 : expire);
    sds cmd = sdscatprintf(sdsempty(), "*%d\r\n$7\r\nRESTORE\r\n", expire == -1 ? 4 : 5);
    cmd = loadArg(cmd, key, sdslen(key));
    cmd = loadArg(cmd, ttl, (size_t)tn);
    cmd = loadArg(cmd, payload, sdslen(payload));
    if (expire != -1) cmd = loadArg(cmd, "ABSTTL", 6);
    loadAppend(c, cmd, sdslen(cmd));
    c->keys++;
    sdsfree(cmd);
    sdsfree(payload);
}

/* A functions library (the snapshot has them before its keys). */
static void loadLibrary(void *ctx, size_t offset, sds code) {
    (void)offset;
    loadConn *c = ctx;
    if (c->err) return;
    sds cmd = loadArg(sdsnew("*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n"), code, sdslen(code));
    loadAppend(c, cmd, sdslen(cmd));
    sdsfree(cmd);
}

static int backupLoadCommand(void *ctx, const char *name, const char *cmd, size_t len,
                             long long start, long long end) {
    (void)name, (void)start, (void)end;
    loadConn *c = ctx;
    loadAppend(c, cmd, len);
    return !c->err;
}

int backupLoadToServer(const backupRestoreOptions *o, const char *snapshot, const char *stream,
                       size_t len, int stream_db, sds *err) {
    sds host = NULL;
    int port;
    if (!backupSplitServer(o->to_server, &host, &port)) {
        *err = sdscatprintf(sdsempty(), "--to-server %s: not HOST:PORT", o->to_server);
        return -1;
    }
    loadConn c;
    memset(&c, 0, sizeof(c));
    c.link.fd = backupConnect(host, port, 60, err);
    if (c.link.fd == -1) {
        sdsfree(host);
        return -1;
    }
    int tls = backupTransportStart(&c.link, host, port, err);
    sdsfree(host);
    if (tls == -1) {
        close(c.link.fd);
        return -1;
    }
    c.out = sdsempty();
    c.started = backupNow();
    sds line = sdsempty();
    if (o->pass) {
        sds auth = sdsnew(o->user ? "*3\r\n$4\r\nAUTH\r\n" : "*2\r\n$4\r\nAUTH\r\n");
        if (o->user) auth = loadArg(auth, o->user, strlen(o->user));
        auth = loadArg(auth, o->pass, strlen(o->pass));
        loadAppend(&c, auth, sdslen(auth));
        sdsfree(auth);
        loadFlush(&c);
    }
    /* An empty server only: a restore must not merge into data. */
    const char *probe = "*1\r\n$6\r\nDBSIZE\r\n";
    if (!c.err && backupTransportWrite(&c.link, probe, strlen(probe)) == (ssize_t)strlen(probe) &&
        loadLine(&c, &line) && strcmp(line, ":0") && !o->force)
        c.err = sdscatprintf(sdsempty(),
                             "the server is not empty (DBSIZE %s in db 0; --force loads anyway)",
                             line + 1);
    if (!c.err) {
        rdbLoadStats st;
        sds e = NULL;
        if (backupScanFile(snapshot, loadKey, loadLibrary, &c, &st, &e) == -1 && !c.err)
            c.err = sdscatprintf(sdsempty(), "%s: %s", snapshot, e ? e : "cannot be read");
        sdsfree(e);
    }
    if (!c.err && len) {
        sds cmds = replayToAof(stream, len, 0, stream_db);
        long long stop;
        sds e = NULL;
        /* One command at a time, each reply counted. */
        replayScan(cmds, sdslen(cmds), 0, backupLoadCommand, &c, &stop, &e);
        sdsfree(e);
        sdsfree(cmds);
    }
    if (!c.err) loadFlush(&c);
    backupProgressEnd();
    backupTransportClose(&c.link);
    close(c.link.fd);
    sdsfree(c.out);
    sdsfree(line);
    if (c.err) {
        *err = sdscatprintf(sdsempty(), "loading into %s: %s", o->to_server, c.err);
        sdsfree(c.err);
        return -1;
    }
    printf("loaded %lld keys and %zu bytes of commands into %s\n", c.keys, len, o->to_server);
    return 0;
}
