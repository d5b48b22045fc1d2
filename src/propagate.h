/* propagate: the one propagation path.
 *
 * Every change to the dataset is encoded once, as RESP commands, into a
 * single stream of reference-counted blocks. Consumers (the AOF writer, the
 * replication backlog, each replica) hold a cursor into that stream and read
 * the same bytes; nobody copies the stream per consumer. A block is freed
 * when no cursor points into it or before it and it is not the tail.
 *
 *   writer: propagate() -> streamAppend -> tail block
 *   reader: streamCursorAttach, streamCursorPeek (iovecs), streamCursorAdvance
 *
 * Ownership: propagate.c owns the blocks; cursors own one reference to the
 * block they point into. */
#ifndef CAIRN_PROPAGATE_H
#define CAIRN_PROPAGATE_H
#include "object.h"

#include <stddef.h>
#include <sys/uio.h>

typedef struct client client;
typedef struct serverDb serverDb;

/* Who a range of the stream is for (a script's redis.set_repl). Bytes
 * carry no mark unless some reader must skip them: the blocks of a stream
 * without set_repl have none, and their readers never look. */
#define STREAM_TO_AOF      1
#define STREAM_TO_REPLICAS 2
#define STREAM_TO_ALL      (STREAM_TO_AOF | STREAM_TO_REPLICAS)

typedef struct streamMark {
    size_t from, to; /* [from, to) of the block's buf */
    int targets;     /* STREAM_TO_*, never 0 nor ALL */
} streamMark;

typedef struct streamMarks {
    int n, cap;
    streamMark m[];
} streamMarks;

typedef struct streamBlock {
    struct streamBlock *next;
    int refcount; /* cursors positioned in this block */
    size_t size, used;
    long long start_offset; /* replication offset of buf[0] */
    long long aof_delta;    /* AOF offset of buf[0] less start_offset */
    streamMarks *marks;     /* NULL: every byte is for every reader */
    char buf[];
} streamBlock;

/* A cursor reads the bytes meant for its kind of reader and counts its
 * offset in that reader's space: replicas (and the backlog) count only
 * what replicas receive, which is Redis' master_repl_offset; the AOF
 * counts only what the AOF receives. The two are equal until a script
 * sends a write to one of them only. */
#define STREAM_READER_REPLICA 0
#define STREAM_READER_AOF     1
#define STREAM_READER_ALL     2 /* every byte (DEBUG PROPAGATED); replica offsets */

typedef struct streamCursor {
    streamBlock *block;
    size_t pos; /* within block */
    int reader; /* STREAM_READER_* */
} streamCursor;

/* Total bytes ever encoded into the stream (Redis' master_repl_offset). */
long long streamOffset(void);
/* Bytes ever encoded for the AOF (the AOF reader's offsets). */
long long streamAofOffset(void);
/* Attach a cursor at the current end of the stream: a replica's reader,
 * or one of the given kind. */
void streamCursorAttach(streamCursor *cur);
void streamCursorAttachFor(streamCursor *cur, int reader);
void streamCursorDetach(streamCursor *cur);
/* Fill up to max iovecs with unread bytes; returns the count. */
int streamCursorPeek(streamCursor *cur, struct iovec *iov, int max);
/* Mark n bytes as consumed, releasing blocks nobody needs any more. */
void streamCursorAdvance(streamCursor *cur, size_t n);
/* Stream offset of the cursor, in its reader's space. */
long long streamCursorOffset(const streamCursor *cur);
/* Attach a replica's cursor at a past replication offset still held in
 * the stream's blocks (some other cursor, like the backlog's, keeps
 * them). 0, or -1 when the offset is outside what the stream holds. */
int streamCursorAttachAt(streamCursor *cur, long long offset);
/* Offset of the oldest byte still held in memory. */
long long streamFirstOffset(void);
/* A replica re-feeds its primary's bytes as they are, so its offsets, its
 * sub-replicas and its AOF see exactly the primary's stream. */
void streamAppendRaw(const char *p, size_t len);
/* The database the raw bytes so far leave selected (the primary client's),
 * told by the replica after each; streamRawDb: -1 unless raw-only. A new
 * AOF file starts with a SELECT of it, and a replica's local writes (which
 * go to its AOF only, aofAppendLocal) end with one. */
void streamNoteRawDb(int dbid);
int streamRawDb(void);
/* A primary's link starts: its bytes go on in dbid, whatever the AOF file
 * (restarted, or after local writes) has selected: a SELECT into the AOF. */
void streamRawBegins(int dbid);
/* raw_only: propagate() drops commands (a replica's local writes are not
 * part of its primary's stream); switching resets the SELECT state. */
void streamSetRawOnly(int on);
int streamIsRawOnly(void);
/* Move the stream's base so that streamOffset() == offset: every block and
 * cursor offset shifts by the same amount (a replica taking its primary's
 * offset at a full sync; the offset of a snapshot at start-up). The AOF
 * keeps offsets: callers tell it (aofStreamShifted). */
void streamSetOffset(long long offset);
/* Make the next command start with a SELECT (a consumer that starts a new
 * file, like the AOF after a rewrite, needs one at its start). */
void propagateResetSelect(void);
/* Bytes held in blocks (for INFO). */
size_t streamMemory(void);
/* The same less the tail block, which the stream always keeps to write
 * into: what its readers (AOF, backlog, replicas) hold beyond that. */
size_t streamHeldMemory(void);

void propagateInit(void);
/* Who the writes propagated from now on are for (STREAM_TO_*; 0: nobody):
 * a script's redis.set_repl, reset to STREAM_TO_ALL when it ends. Expiry's
 * DELs go to everyone whatever it says. */
void propagateSetTargets(int targets);
/* Encode one write into the shared stream (SELECT first if the db changed). */
void propagate(int dbid, robj **argv, int argc);
void propagateCommand(client *c);
void propagateDel(serverDb *db, robj *key, int lazy);
/* A command that belongs to no database (PING, REPLCONF GETACK for the
 * replicas): no SELECT before it. */
void propagateNoDb(robj **argv, int argc);
long long propagateOffset(void);
/* MULTI/EXEC around the writes of a transaction (multi.c). */
void propagateTransactionBegin(void);
void propagateTransactionEnd(void);
/* Scripts: MULTI/EXEC only when a second write comes (a lone write goes
 * out bare, as Redis 7.0 propagates a script's effects). MULTI/EXEC go
 * to every reader, as in Redis 7.0, even one that gets none of the writes
 * inside (redis.set_repl). */
void propagateTransactionBeginLazy(void);
int propagateTransactionActive(void);
/* A lazy transaction's first write is held, not yet in the stream. */
int propagateHeldWrite(void);

#endif
