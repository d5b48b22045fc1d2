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

typedef struct streamBlock {
    struct streamBlock *next;
    int refcount;           /* cursors positioned in this block */
    size_t size, used;
    long long start_offset; /* stream offset of buf[0] */
    char buf[];
} streamBlock;

typedef struct streamCursor {
    streamBlock *block;
    size_t pos;             /* within block */
} streamCursor;

/* Total bytes ever encoded into the stream (Redis' master_repl_offset). */
long long streamOffset(void);
/* Attach a cursor at the current end of the stream. */
void streamCursorAttach(streamCursor *cur);
void streamCursorDetach(streamCursor *cur);
/* Fill up to max iovecs with unread bytes; returns the count. */
int streamCursorPeek(streamCursor *cur, struct iovec *iov, int max);
/* Mark n bytes as consumed, releasing blocks nobody needs any more. */
void streamCursorAdvance(streamCursor *cur, size_t n);
/* Stream offset of the cursor. */
long long streamCursorOffset(const streamCursor *cur);
/* Attach a cursor at a past offset still held in the stream's blocks
 * (some other cursor, like the backlog's, keeps them). 0, or -1 when the
 * offset is outside what the stream holds. */
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
 * out bare, as Redis 7.0 propagates a script's effects). */
void propagateTransactionBeginLazy(void);
int propagateTransactionActive(void);
/* A lazy transaction's first write is held, not yet in the stream. */
int propagateHeldWrite(void);

#endif
