/* reply: everything a command says back to its client.
 *
 * Output goes into a per-client buffer (c->buf, c->buf_size bytes; the
 * client cron resizes it between 1 and 16 KB to what the client uses) and,
 * once that is full or a deferred length is pending, into a list of heap
 * blocks. The shape of
 * the hot path follows what profiles of Redis show:
 *  - replyBegin() is called once per command (by the command core) and once
 *    per out-of-command push (MONITOR feed, timeouts). It decides whether the
 *    client can take output and queues it for writing; reply* functions after
 *    it never check again.
 *  - a bulk's header, payload and CRLF are appended in one step;
 *  - integer-encoded values and integers are formatted on the stack once;
 *  - constants use replyConst (length known at compile time, no strlen);
 *  - array/map/set headers of known length go straight to the buffer;
 *    unknown lengths use replyDeferredLen + replySetDeferred*Len.
 * CLIENT REPLY OFF/SKIP is honoured by rolling the output back to where the
 * command started (replyCommandEnd), so no reply function tests it.
 *
 * Ownership: the client owns c->buf and the block list; reply functions copy
 * what they are given, except replyBulkSds which takes ownership of the sds. */
#ifndef CAIRN_REPLY_H
#define CAIRN_REPLY_H
#include "object.h"
#include <stddef.h>
#include <string.h>

struct client;

typedef struct replyBlock {
    struct replyBlock *next;
    size_t size; /* capacity of buf */
    size_t used;
    char buf[];
} replyBlock;

/* Size of the static per-client buffer and of ordinary reply blocks. */
#define PROTO_REPLY_CHUNK_BYTES (16 * 1024)
/* The smallest a client's static reply buffer shrinks to when idle. */
#define PROTO_REPLY_MIN_BYTES 1024

void replyBegin(struct client *c);
/* Appends bytes; the out-of-line part handles spilling into blocks. */
void replyAppendSlow(struct client *c, const char *s, size_t len);
/* replyRaw (the inline fast path) is defined in client.h next to the client. */
#define replyConst(c, s) replyRaw((c), (s), sizeof(s) - 1)

void replyOk(struct client *c);
void replyStatus(struct client *c, const char *s, size_t len);
void replyStatusC(struct client *c, const char *s); /* strlen'ed */
void replyNull(struct client *c);
void replyNullArray(struct client *c);
/* msg is the full error text including its code, e.g. "ERR syntax error",
 * without the leading '-'. Newlines in msg are replaced by spaces. */
void replyError(struct client *c, const char *msg);
void replyErrorLen(struct client *c, const char *msg, size_t len);
/* An error already counted where it arose (a script's redis.call error
 * passed on to the script's caller): written, not counted again. */
void replyErrorLenNoStats(struct client *c, const char *msg, size_t len);
/* Count an error as replied (total_error_replies, errorstats by code). */
void replyErrorCount(const char *msg, size_t len);
void replyErrorFormat(struct client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void replyErrorArity(struct client *c);
void replyErrorSyntax(struct client *c);
void replyErrorWrongType(struct client *c);
void replyErrorNotInt(struct client *c);
void replyErrorExpireTime(struct client *c);
void replyErrorSubcommand(struct client *c);
void replyLongLong(struct client *c, long long ll);
void replyBulk(struct client *c, const robj *o);
void replyBulkBuf(struct client *c, const void *p, size_t len);
void replyBulkCString(struct client *c, const char *s); /* NULL -> null */
void replyBulkSds(struct client *c, sds s);             /* takes ownership */
void replyBulkLongLong(struct client *c, long long ll);
void replyArrayLen(struct client *c, long n);
void replyMapLen(struct client *c, long n);
void replySetLen(struct client *c, long n);
void replyPushLen(struct client *c, long n);
void replyAttributeLen(struct client *c, long n);
void replyDouble(struct client *c, double d);
void replyLongDouble(struct client *c, long double d); /* bulk in RESP2, double in RESP3 */
void replyBool(struct client *c, int b);
void replyVerbatim(struct client *c, const char *s, size_t len, const char *ext);
void replyBigNum(struct client *c, const char *num, size_t len);
/* Reply with an array of status lines, Redis' HELP format. */
void replyHelp(struct client *c, const char **lines);
/* Deferred lengths: reserve a header slot now, fill it once the count is known. */
void *replyDeferredLen(struct client *c);
void replySetDeferredArrayLen(struct client *c, void *node, long n);
void replySetDeferredMapLen(struct client *c, void *node, long n);
void replySetDeferredSetLen(struct client *c, void *node, long n);

/* Position marker for rollback (CLIENT REPLY OFF/SKIP). */
typedef struct replyMark {
    size_t bufpos;
    replyBlock *tail;
    size_t tail_used;
} replyMark;
void replyMarkGet(struct client *c, replyMark *m);
void replyRollback(struct client *c, const replyMark *m);
/* Around a push the client must get even under CLIENT REPLY OFF/SKIP. */
void replyPushStart(struct client *c);
void replyPushDone(struct client *c);

/* Bytes waiting to be written (static buffer + blocks). */
size_t replyPendingBytes(const struct client *c);
void replyFreeBlocks(struct client *c);

#endif
