/* reply: building client output (see reply.h for the hot-path rules).
 *
 * Bytes enter from command implementations through reply* calls and are
 * appended to c->buf or the client's block list; client.c takes them out with
 * writev. This file never touches sockets. */
#include "client.h"
#include "commands.h"
#include "config.h"
#include "conn.h"
#include "info.h"
#include "log.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* Called once per command (and once per out-of-command push): queue the
 * client so beforeSleep flushes it, unless a write handler is already
 * waiting for the socket to drain. Fake clients never write. */
void replyBegin(client *c) {
    if (c->flags & (CLIENT_PENDING_WRITE | CLIENT_FAKE | CLIENT_CLOSE_ASAP)) return;
    if (c->conn && connHasWriteHandler(c->conn)) return;
    c->flags |= CLIENT_PENDING_WRITE;
    c->pending_next = server.pending_writes;
    server.pending_writes = c;
}

static replyBlock *replyNewBlock(client *c, size_t minsize) {
    size_t size = minsize < PROTO_REPLY_CHUNK_BYTES ? PROTO_REPLY_CHUNK_BYTES : minsize;
    size_t usable;
    replyBlock *b = zmalloc_usable(sizeof(replyBlock) + size, &usable);
    b->next = NULL;
    b->size = usable - sizeof(replyBlock);
    b->used = 0;
    if (c->reply_tail) c->reply_tail->next = b;
    else c->reply_head = b;
    c->reply_tail = b;
    c->reply_bytes += b->size;
    /* Limits are checked only when the output grows by a block, so the
     * common path pays nothing for them. */
    clientCheckOutputLimits(c);
    return b;
}

/* Copy as much of s as fits into dst[*used..size); advances s and len. */
static inline void replyFill(char *dst, size_t size, size_t *used, const char **s, size_t *len) {
    size_t avail = size - *used;
    size_t n = *len < avail ? *len : avail;
    memcpy(dst + *used, *s, n);
    *used += n;
    *s += n;
    *len -= n;
}

void replyAppendSlow(client *c, const char *s, size_t len) {
    if (c->reply_head == NULL) {
        replyFill(c->buf, c->buf_size, &c->bufpos, &s, &len);
        if (len == 0) return;
    }
    replyBlock *b = c->reply_tail;
    if (b) {
        replyFill(b->buf, b->size, &b->used, &s, &len);
        if (len == 0) return;
    }
    b = replyNewBlock(c, len);
    memcpy(b->buf, s, len);
    b->used = len;
}

/* "<prefix><n>\r\n" into buf, returns its length. */
static inline size_t replyFormatHeader(char *buf, char prefix, long long n) {
    buf[0] = prefix;
    size_t l = 1 + ll2string(buf + 1, LONG_STR_SIZE, n);
    buf[l++] = '\r';
    buf[l++] = '\n';
    return l;
}

static inline void replyHeader(client *c, char prefix, long long n) {
    char buf[LONG_STR_SIZE + 3];
    replyRaw(c, buf, replyFormatHeader(buf, prefix, n));
}

void replyOk(client *c) { replyConst(c, "+OK\r\n"); }

void replyStatus(client *c, const char *s, size_t len) {
    replyRaw(c, "+", 1);
    replyRaw(c, s, len);
    replyRaw(c, "\r\n", 2);
}

void replyStatusC(client *c, const char *s) { replyStatus(c, s, strlen(s)); }

void replyNull(client *c) {
    if (c->resp >= 3) replyConst(c, "_\r\n");
    else replyConst(c, "$-1\r\n");
}

void replyNullArray(client *c) {
    if (c->resp >= 3) replyConst(c, "_\r\n");
    else replyConst(c, "*-1\r\n");
}

/* An error sent over a replication link means the two sides' datasets
 * diverged (a replica failing a command of its primary's stream): Redis
 * logs it as critical, counts it (unexpected_error_replies) and, with
 * propagation-error-behavior panic or panic-on-replicas, a read-only
 * replica stops rather than go on with a dataset that is no longer its
 * primary's. (Redis' other case, panic on a failing AOF command at load,
 * is not here: cairn's AOF load stops on any failing command already.) */
static void replyErrorOnReplicationLink(client *c, const char *msg, size_t len) {
    const char *from = (c->flags & CLIENT_MASTER) ? "replica" : "master";
    const char *to = (c->flags & CLIENT_MASTER) ? "master" : "replica";
    const char *cmdname = c->lastcmd ? c->lastcmd->fullname : "<unknown>";
    if (len > 4096) len = 4096;
    serverLog(LL_WARNING, "== CRITICAL == This %s is sending an error to its %s: '-%.*s' after processing the command '%s'",
              from, to, (int)len, msg, cmdname);
    server.stat_unexpected_error_replies++;
    if ((c->flags & CLIENT_MASTER) && cfg.replica_read_only &&
        (cfg.propagation_error_behavior == PROPAGATION_ERR_BEHAVIOR_PANIC ||
         cfg.propagation_error_behavior == PROPAGATION_ERR_BEHAVIOR_PANIC_ON_REPLICAS)) {
        char why[256];
        snprintf(why, sizeof(why), "This %s panicked sending an error to its %s after processing the command '%s'",
                 from, to, cmdname);
        serverPanic(why);
    }
}

static void replyErrorWrite(client *c, const char *msg, size_t len) {
    replyRaw(c, "-", 1);
    /* An error must stay on one line or the stream desyncs; user input
     * quoted in errors may contain newlines. */
    const char *p = msg;
    size_t left = len;
    while (left) {
        size_t run = 0;
        while (run < left && p[run] != '\r' && p[run] != '\n') run++;
        replyRaw(c, p, run);
        if (run < left) {
            replyRaw(c, " ", 1);
            run++;
        }
        p += run;
        left -= run;
    }
    replyRaw(c, "\r\n", 2);
    if (c->flags & (CLIENT_MASTER | CLIENT_REPLICA)) replyErrorOnReplicationLink(c, msg, len);
}

void replyErrorCount(const char *msg, size_t len) {
    server.stat_total_error_replies++;
    size_t codelen = 0;
    while (codelen < len && msg[codelen] != ' ') codelen++;
    errorStatIncr(msg, codelen);
}

void replyErrorLen(client *c, const char *msg, size_t len) {
    replyErrorWrite(c, msg, len);
    replyErrorCount(msg, len);
}

void replyErrorLenNoStats(client *c, const char *msg, size_t len) { replyErrorWrite(c, msg, len); }

void replyError(client *c, const char *msg) { replyErrorLen(c, msg, strlen(msg)); }

void replyErrorFormat(client *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    replyErrorLen(c, s, sdslen(s));
    sdsfree(s);
}

void replyErrorArity(client *c) {
    replyErrorFormat(c, "ERR wrong number of arguments for '%s' command",
                     c->cmd ? c->cmd->fullname : (char *)c->argv[0]->ptr);
}

void replyErrorSyntax(client *c) { replyError(c, "ERR syntax error"); }
void replyErrorWrongType(client *c) {
    replyError(c, "WRONGTYPE Operation against a key holding the wrong kind of value");
}
void replyErrorNotInt(client *c) { replyError(c, "ERR value is not an integer or out of range"); }
void replyErrorExpireTime(client *c) {
    replyErrorFormat(c, "ERR invalid expire time in '%s' command", c->cmd->fullname);
}

void replyErrorSubcommand(client *c) {
    sds cmd = sdsnew(c->cmd->parent ? c->cmd->parent->name : c->cmd->name);
    sdstoupper(cmd);
    replyErrorFormat(c, "ERR unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.",
                     (char *)c->argv[1]->ptr, cmd);
    sdsfree(cmd);
}

void replyLongLong(client *c, long long ll) { replyHeader(c, ':', ll); }

void replyBulkBuf(client *c, const void *p, size_t len) {
    char hdr[LONG_STR_SIZE + 3];
    size_t hl = replyFormatHeader(hdr, '$', (long long)len);
    size_t total = hl + len + 2;
    /* Header, payload and CRLF in one step when they fit. */
    if (c->reply_head == NULL && c->bufpos + total <= c->buf_size) {
        char *dst = c->buf + c->bufpos;
        memcpy(dst, hdr, hl);
        memcpy(dst + hl, p, len);
        dst[hl + len] = '\r';
        dst[hl + len + 1] = '\n';
        c->bufpos += total;
        return;
    }
    replyAppendSlow(c, hdr, hl);
    replyAppendSlow(c, p, len);
    replyAppendSlow(c, "\r\n", 2);
}

void replyBulkLongLong(client *c, long long ll) {
    /* "$<digits>\r\n<number>\r\n" built once on the stack. */
    char num[LONG_STR_SIZE];
    int nl = ll2string(num, sizeof(num), ll);
    char buf[LONG_STR_SIZE * 2 + 8];
    size_t l = replyFormatHeader(buf, '$', nl);
    memcpy(buf + l, num, nl);
    l += nl;
    buf[l++] = '\r';
    buf[l++] = '\n';
    replyRaw(c, buf, l);
}

void replyBulk(client *c, const robj *o) {
    if (sdsEncodedObject(o)) replyBulkBuf(c, o->ptr, sdslen(o->ptr));
    else replyBulkLongLong(c, (long)o->ptr);
}

void replyBulkCString(client *c, const char *s) {
    if (s == NULL) replyNull(c);
    else replyBulkBuf(c, s, strlen(s));
}

void replyBulkSds(client *c, sds s) {
    replyBulkBuf(c, s, sdslen(s));
    sdsfree(s);
}

void replyArrayLen(client *c, long n) { replyHeader(c, '*', n); }
void replyMapLen(client *c, long n) {
    if (c->resp >= 3) replyHeader(c, '%', n);
    else replyHeader(c, '*', n * 2);
}
void replySetLen(client *c, long n) { replyHeader(c, c->resp >= 3 ? '~' : '*', n); }
void replyPushLen(client *c, long n) { replyHeader(c, c->resp >= 3 ? '>' : '*', n); }
void replyAttributeLen(client *c, long n) { replyHeader(c, '|', n); }

void replyDouble(client *c, double d) {
    char buf[MAX_D2STRING_CHARS];
    int l = d2string(buf, sizeof(buf), d);
    if (c->resp >= 3) {
        replyRaw(c, ",", 1);
        replyRaw(c, buf, l);
        replyRaw(c, "\r\n", 2);
    } else {
        replyBulkBuf(c, buf, l);
    }
}

void replyLongDouble(client *c, long double d) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int l = ld2string(buf, sizeof(buf), d, LD_STR_HUMAN);
    if (c->resp >= 3) {
        replyRaw(c, ",", 1);
        replyRaw(c, buf, l);
        replyRaw(c, "\r\n", 2);
    } else {
        replyBulkBuf(c, buf, l);
    }
}

void replyBool(client *c, int b) {
    if (c->resp >= 3) {
        if (b) replyConst(c, "#t\r\n");
        else replyConst(c, "#f\r\n");
    } else {
        if (b) replyConst(c, ":1\r\n");
        else replyConst(c, ":0\r\n");
    }
}

void replyVerbatim(client *c, const char *s, size_t len, const char *ext) {
    if (c->resp < 3) {
        replyBulkBuf(c, s, len);
        return;
    }
    char hdr[LONG_STR_SIZE + 8];
    size_t hl = replyFormatHeader(hdr, '=', (long long)len + 4);
    replyRaw(c, hdr, hl);
    replyRaw(c, ext, 3);
    replyRaw(c, ":", 1);
    replyRaw(c, s, len);
    replyRaw(c, "\r\n", 2);
}

void replyBigNum(client *c, const char *num, size_t len) {
    if (c->resp < 3) {
        replyBulkBuf(c, num, len);
        return;
    }
    replyRaw(c, "(", 1);
    replyRaw(c, num, len);
    replyRaw(c, "\r\n", 2);
}

void replyHelp(client *c, const char **lines) {
    sds cmd = sdsnew(c->cmd->parent ? c->cmd->parent->name : c->cmd->name);
    sdstoupper(cmd);
    int n = 0;
    while (lines[n]) n++;
    replyArrayLen(c, n + 3);
    sds head = sdscatprintf(sdsempty(),
                            "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", cmd);
    replyStatus(c, head, sdslen(head));
    sdsfree(head);
    for (int j = 0; j < n; j++) replyStatusC(c, lines[j]);
    replyConst(c, "+HELP\r\n");
    replyConst(c, "+    Prints this help.\r\n");
    sdsfree(cmd);
}

/* A deferred header is a block of its own, created with room for the
 * header but size 0 so nothing else is appended into it; the command's
 * following output goes into later blocks. */
#define DEFERRED_HDR_ROOM (LONG_STR_SIZE + 3)

void *replyDeferredLen(client *c) {
    replyBlock *b = zmalloc(sizeof(replyBlock) + DEFERRED_HDR_ROOM);
    b->next = NULL;
    b->size = 0;
    b->used = 0;
    if (c->reply_tail) c->reply_tail->next = b;
    else c->reply_head = b;
    c->reply_tail = b;
    c->reply_bytes += DEFERRED_HDR_ROOM;
    return b;
}

static void replySetDeferred(client *c, void *node, char prefix, long n) {
    replyBlock *b = node;
    size_t l = replyFormatHeader(b->buf, prefix, n);
    /* reply_bytes took the header's room; the block now counts, and is freed
     * as, its size. Without this each deferred reply left its difference in
     * reply_bytes for good: omem grew while idle, and an output buffer limit
     * ended up closing clients that had read everything. */
    if (b->size == 0) c->reply_bytes -= DEFERRED_HDR_ROOM - l;
    b->size = b->used = l;
}

void replySetDeferredArrayLen(client *c, void *node, long n) {
    replySetDeferred(c, node, '*', n);
}
void replySetDeferredMapLen(client *c, void *node, long n) {
    if (c->resp >= 3) replySetDeferred(c, node, '%', n);
    else replySetDeferred(c, node, '*', n * 2);
}
void replySetDeferredSetLen(client *c, void *node, long n) {
    replySetDeferred(c, node, c->resp >= 3 ? '~' : '*', n);
}

void replyMarkGet(client *c, replyMark *m) {
    m->bufpos = c->bufpos;
    m->tail = c->reply_tail;
    m->tail_used = c->reply_tail ? c->reply_tail->used : 0;
}

void replyRollback(client *c, const replyMark *m) {
    replyBlock *b = m->tail ? m->tail->next : c->reply_head;
    while (b) {
        replyBlock *next = b->next;
        c->reply_bytes -= b->size ? b->size : DEFERRED_HDR_ROOM;
        zfree(b);
        b = next;
    }
    if (m->tail) {
        m->tail->next = NULL;
        m->tail->used = m->tail_used;
    } else {
        c->reply_head = NULL;
    }
    c->reply_tail = m->tail;
    c->bufpos = m->bufpos;
}

/* Pushes (pub/sub confirmations and messages) reach a client even under
 * CLIENT REPLY OFF/SKIP, as in Redis. Silenced output is dropped by rolling
 * the command's reply back to cmd_mark when it ends, so a push written by
 * the client's own command first drops what the command said before it, and
 * afterwards moves the mark past itself. Pushes caused by other clients'
 * commands are never rolled back and need nothing. */
static int replyPushSilenced(client *c) {
    return (c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) && c == server.current_client;
}

void replyPushStart(client *c) {
    if (replyPushSilenced(c)) replyRollback(c, &c->cmd_mark);
}

void replyPushDone(client *c) {
    if (replyPushSilenced(c)) replyMarkGet(c, &c->cmd_mark);
}

size_t replyPendingBytes(const client *c) {
    size_t n = c->bufpos;
    for (replyBlock *b = c->reply_head; b; b = b->next) n += b->used;
    return n - c->sentlen;
}

void replyFreeBlocks(client *c) {
    replyBlock *b = c->reply_head;
    while (b) {
        replyBlock *next = b->next;
        zfree(b);
        b = next;
    }
    c->reply_head = c->reply_tail = NULL;
    c->reply_bytes = 0;
}
