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
/* Make the next command start with a SELECT (a consumer that starts a new
 * file, like the AOF after a rewrite, needs one at its start). */
void propagateResetSelect(void);
/* Bytes held in blocks (for INFO). */
size_t streamMemory(void);

void propagateInit(void);
/* Encode one write into the shared stream (SELECT first if the db changed). */
void propagate(int dbid, robj **argv, int argc);
void propagateCommand(client *c);
void propagateDel(serverDb *db, robj *key, int lazy);
long long propagateOffset(void);
/* MULTI/EXEC around the writes of a transaction (multi.c). */
void propagateTransactionBegin(void);
void propagateTransactionEnd(void);

#endif
