/* propagate: encoding writes into the shared stream (see propagate.h).
 *
 * Commands enter through propagate()/propagateCommand() from the command
 * core (after a write changed the dataset) and propagateDel() from expiry;
 * bytes leave through cursors. A SELECT is emitted whenever the database of
 * the next command differs from the previous one in the stream, so every
 * consumer can replay the stream from any command boundary after a SELECT. */
#include "client.h"
#include "db.h"
#include "object.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "propagate.h"
#include "aof.h"
#include "config.h"

#define STREAM_BLOCK_SIZE (16 * 1024)

/* The paths of marks (redis.set_repl) are kept out of line, so that the
 * writer and the readers of unmarked blocks (all of them, without
 * set_repl) stay as lean as they were: inlined, they would cost every call
 * register saves. */
#define STREAM_COLD __attribute__((noinline, cold))

/* Inside EXEC the first propagated write is preceded by MULTI and, if any
 * was, EXEC closes the unit: consumers apply the transaction atomically. */
static int in_transaction, multi_emitted;

/* A writable replica's local writes are no part of its primary's stream,
 * but belong in its AOF, as in Redis: each is encoded into `local` and
 * handed to the AOF (aofAppendLocal), which writes it after the stream
 * bytes before it. raw_dbid is the database the primary's raw bytes left
 * selected (streamNoteRawDb); local_dbid the one the AOF has selected
 * after our last local write, which must be raw_dbid again before more raw
 * bytes follow, so a local write ends with a SELECT back to it (but not
 * inside a transaction, whose EXEC does). */
static sds local;
static int raw_dbid = -1, local_dbid = -1;

static struct {
    streamBlock *head, *tail;
    long long offset;   /* bytes ever appended for replicas */
    long long aof_skew; /* bytes ever appended for the AOF, less offset */
    int last_dbid;      /* database replicas have selected, -1 unknown */
    int aof_dbid;       /* the AOF's: differs only after a script's set_repl */
    size_t memory;
    int raw_only; /* a replica: only streamAppendRaw feeds the stream */
    int targets;  /* whom the bytes appended now are for */
} stream = {NULL, NULL, 0, 0, -1, -1, 0, 0, STREAM_TO_ALL};

/* Whom propagate() encodes for (redis.set_repl). */
static int cur_targets = STREAM_TO_ALL;

static streamBlock *streamNewBlock(size_t minsize) {
    size_t size = minsize > STREAM_BLOCK_SIZE ? minsize : STREAM_BLOCK_SIZE;
    size_t usable;
    streamBlock *b = zmalloc_usable(sizeof(*b) + size, &usable);
    b->next = NULL;
    b->refcount = 0;
    b->size = usable - sizeof(*b);
    b->used = 0;
    b->start_offset = stream.offset;
    b->aof_delta = stream.aof_skew;
    b->marks = NULL;
    stream.memory += usable;
    return b;
}

/* ---- marks: ranges some readers skip ---- */

static int readerNeeds(int reader) {
    return reader == STREAM_READER_AOF   ? STREAM_TO_AOF
           : reader == STREAM_READER_ALL ? 0
                                         : STREAM_TO_REPLICAS;
}

static int markSkips(const streamMark *m, int need) {
    return need && !(m->targets & need);
}

/* The first byte at or after pos that a reader needing `need` reads. */
static size_t marksSkip(const streamBlock *b, size_t pos, int need) {
    for (int j = 0; j < b->marks->n; j++) {
        const streamMark *m = &b->marks->m[j];
        if (m->to <= pos) continue;
        if (m->from > pos) break;
        if (markSkips(m, need)) pos = m->to;
    }
    return pos;
}

/* The end of the run of read bytes starting at pos (a read byte). */
static size_t marksRunEnd(const streamBlock *b, size_t pos, int need) {
    for (int j = 0; j < b->marks->n; j++) {
        const streamMark *m = &b->marks->m[j];
        if (m->from >= pos && markSkips(m, need)) return m->from;
    }
    return b->used;
}

/* Bytes before pos that such a reader skips. */
static size_t marksSkippedBefore(const streamBlock *b, size_t pos, int need) {
    size_t n = 0;
    for (int j = 0; j < b->marks->n && b->marks->m[j].from < pos; j++) {
        const streamMark *m = &b->marks->m[j];
        if (markSkips(m, need)) n += (m->to < pos ? m->to : pos) - m->from;
    }
    return n;
}

/* len bytes just written at b->buf[from] are for stream.targets only. */
static STREAM_COLD void streamMarkAppended(streamBlock *b, size_t from, size_t len) {
    streamMarks *ms = b->marks;
    if (ms && ms->n && ms->m[ms->n - 1].to == from && ms->m[ms->n - 1].targets == stream.targets) {
        ms->m[ms->n - 1].to += len;
    } else {
        if (!ms || ms->n == ms->cap) {
            int cap = ms ? ms->cap * 2 : 4;
            ms = zrealloc(ms, sizeof(*ms) + sizeof(streamMark) * (size_t)cap);
            if (!b->marks) ms->n = 0;
            ms->cap = cap;
            b->marks = ms;
        }
        ms->m[ms->n++] = (streamMark){from, from + len, stream.targets};
    }
    /* Each reader's offset counts only its own bytes. */
    if (!(stream.targets & STREAM_TO_REPLICAS)) {
        stream.offset -= (long long)len;
        stream.aof_skew += (long long)len;
    }
    if (!(stream.targets & STREAM_TO_AOF)) stream.aof_skew -= (long long)len;
}

static void streamFreeMarks(streamBlock *b) {
    zfree(b->marks);
    b->marks = NULL;
}

/* Free unreferenced blocks at the head: a block is needed only while some
 * cursor points into it or into an earlier block, or while it is the tail. */
static void streamTrim(void) {
    while (stream.head && stream.head != stream.tail && stream.head->refcount == 0) {
        streamBlock *b = stream.head;
        stream.head = b->next;
        stream.memory -= zmalloc_size(b);
        streamFreeMarks(b);
        zfree(b);
    }
}

static void streamAppend(const char *p, size_t len) {
    while (len) {
        streamBlock *t = stream.tail;
        if (t == NULL || t->used == t->size) {
            /* With no reader anywhere, the full tail can simply be reused. */
            if (t && t == stream.head && t->refcount == 0) {
                t->used = 0;
                t->start_offset = stream.offset;
                t->aof_delta = stream.aof_skew;
                if (t->marks) streamFreeMarks(t);
            } else {
                streamBlock *b = streamNewBlock(len);
                if (t)
                    t->next = b;
                else
                    stream.head = b;
                stream.tail = b;
                streamTrim();
            }
            t = stream.tail;
        }
        size_t n = t->size - t->used;
        if (n > len) n = len;
        memcpy(t->buf + t->used, p, n);
        if (stream.targets != STREAM_TO_ALL) streamMarkAppended(t, t->used, n);
        t->used += n;
        stream.offset += n;
        p += n;
        len -= n;
    }
}

/* Commands are encoded into a stack buffer and appended in one piece; big
 * arguments go straight to the stream. This keeps the per-command cost of
 * the propagation path to a few memcpy calls. */
typedef struct encBuf {
    char buf[1024];
    size_t len;
} encBuf;

static void encOut(const char *p, size_t len) {
    if (local)
        local = sdscatlen(local, p, len);
    else
        streamAppend(p, len);
}

static void encFlush(encBuf *e) {
    if (e->len) encOut(e->buf, e->len);
    e->len = 0;
}

static void encAdd(encBuf *e, const char *p, size_t len) {
    if (e->len + len > sizeof(e->buf)) {
        encFlush(e);
        if (len > sizeof(e->buf) / 2) {
            encOut(p, len);
            return;
        }
    }
    memcpy(e->buf + e->len, p, len);
    e->len += len;
}

static void encHeader(encBuf *e, char prefix, long long n) {
    char hdr[LONG_STR_SIZE + 3];
    hdr[0] = prefix;
    size_t l = 1 + ll2string(hdr + 1, LONG_STR_SIZE, n);
    hdr[l++] = '\r';
    hdr[l++] = '\n';
    encAdd(e, hdr, l);
}

static void encArg(encBuf *e, const char *p, size_t len) {
    encHeader(e, '$', (long long)len);
    encAdd(e, p, len);
    encAdd(e, "\r\n", 2);
}

/* One command as a RESP array, then everything goes to the stream. */
static void encCommand(encBuf *e, robj **argv, int argc) {
    encHeader(e, '*', argc);
    for (int j = 0; j < argc; j++) {
        char num[LONG_STR_SIZE];
        size_t len;
        const char *p = stringObjectPtr(argv[j], num, &len);
        encArg(e, p, len);
    }
    encFlush(e);
}

static void encSelect(encBuf *e, int dbid) {
    char num[LONG_STR_SIZE];
    int nl = ll2string(num, sizeof(num), dbid);
    encHeader(e, '*', 2);
    encArg(e, "SELECT", 6);
    encArg(e, num, nl);
}

/* The encoded local bytes go to the AOF; `local` is freed here. */
static void localToAof(encBuf *e) {
    encFlush(e);
    aofAppendLocal(local, sdslen(local));
    sdsfree(local);
    local = NULL;
}

static void propagateLocal(int dbid, robj **argv, int argc) {
    if (in_transaction && !multi_emitted) {
        multi_emitted = 1;
        robj *multi = createStringObject("MULTI", 5);
        propagateLocal(dbid, &multi, 1);
        decrRefCount(multi);
    }
    /* EXEC is propagated with the stream's database, unknown on a replica. */
    if (dbid < 0) dbid = local_dbid >= 0 ? local_dbid : 0;
    local = sdsempty();
    encBuf e;
    e.len = 0;
    if (dbid != local_dbid) encSelect(&e, dbid);
    local_dbid = dbid;
    encCommand(&e, argv, argc);
    if (!in_transaction && raw_dbid >= 0 && local_dbid != raw_dbid) {
        encSelect(&e, raw_dbid);
        local_dbid = raw_dbid;
    }
    localToAof(&e);
}

/* Encode one command for `targets` into the stream, after a SELECT for
 * those of them whose database differs (dbid -1: none). Each kind of
 * reader has its own selected database once a script wrote for one only,
 * so a SELECT may be marked for fewer readers than its command. */
static STREAM_COLD void propagateEmitMarked(int dbid, robj **argv, int argc, int targets) {
    encBuf e;
    e.len = 0;
    int sel = 0;
    if (dbid >= 0) {
        if ((targets & STREAM_TO_REPLICAS) && dbid != stream.last_dbid) sel |= STREAM_TO_REPLICAS;
        if ((targets & STREAM_TO_AOF) && dbid != stream.aof_dbid) sel |= STREAM_TO_AOF;
    }
    if (sel) {
        encSelect(&e, dbid);
        if (sel & STREAM_TO_REPLICAS) stream.last_dbid = dbid;
        if (sel & STREAM_TO_AOF) stream.aof_dbid = dbid;
        if (sel != targets) {
            stream.targets = sel;
            encFlush(&e);
        }
    }
    stream.targets = targets;
    encCommand(&e, argv, argc);
    stream.targets = STREAM_TO_ALL;
}

static void propagateEmit(int dbid, robj **argv, int argc, int targets) {
    if (targets != STREAM_TO_ALL || stream.last_dbid != stream.aof_dbid) {
        propagateEmitMarked(dbid, argv, argc, targets);
        return;
    }
    encBuf e;
    e.len = 0;
    if (dbid >= 0 && dbid != stream.last_dbid) {
        encSelect(&e, dbid);
        stream.last_dbid = stream.aof_dbid = dbid;
    }
    encCommand(&e, argv, argc);
}

static void propagateEmitName(int dbid, const char *name, int targets) {
    robj *o = createStringObject(name, strlen(name));
    propagateEmit(dbid, &o, 1, targets);
    decrRefCount(o);
}

/* A lazy transaction's (script's) first write, held until the second. */
static int txn_lazy;
static robj **txn_first;
static int txn_first_argc, txn_first_dbid, txn_first_targets;
static int txn_last_dbid; /* EXEC's, as Redis: the last write's database */

static void propagateFlushFirst(void) {
    robj **argv = txn_first;
    txn_first = NULL;
    propagateEmit(txn_first_dbid, argv, txn_first_argc, txn_first_targets);
    for (int j = 0; j < txn_first_argc; j++) decrRefCount(argv[j]);
    zfree(argv);
}

static void propagateTo(int dbid, robj **argv, int argc, int targets) {
    /* Replaying the AOF at start-up: those writes are already on disk. A
     * replica's stream is its primary's bytes (streamAppendRaw): its own
     * local writes and expiries are not part of it, as in Redis, but its
     * local writes go to its AOF. */
    if (server.loading) return;
    if (stream.raw_only) {
        /* The primary's own commands are in the AOF already, as raw bytes. */
        int from_primary = server.current_client && (server.current_client->flags & CLIENT_MASTER);
        if (cfg.appendonly && !from_primary && (targets & STREAM_TO_AOF))
            propagateLocal(dbid, argv, argc);
        return;
    }
    if (targets == 0) return; /* redis.set_repl(redis.REPL_NONE) */
    txn_last_dbid = dbid;
    if (in_transaction && !multi_emitted) {
        if (txn_lazy && !txn_first) {
            /* A script's first write waits: alone, it goes out bare. */
            txn_first = zmalloc(sizeof(robj *) * argc);
            for (int j = 0; j < argc; j++) {
                txn_first[j] = argv[j];
                incrRefCount(argv[j]);
            }
            txn_first_argc = argc;
            txn_first_dbid = dbid;
            txn_first_targets = targets;
            return;
        }
        /* MULTI and EXEC go to every reader, whoever the writes between
         * them are for: Redis 7.0 sends a replica an empty MULTI/EXEC
         * when a script's writes were for the AOF only (and the other
         * way round), and replication offsets count those bytes. */
        multi_emitted = 1;
        propagateEmitName(txn_first ? txn_first_dbid : dbid, "MULTI", STREAM_TO_ALL);
        if (txn_first) propagateFlushFirst();
    }
    propagateEmit(dbid, argv, argc, targets);
}

void propagate(int dbid, robj **argv, int argc) {
    propagateTo(dbid, argv, argc, cur_targets);
}

void propagateSetTargets(int targets) {
    cur_targets = targets;
}

void propagateNoDb(robj **argv, int argc) {
    if (server.loading || stream.raw_only) return;
    encBuf e;
    e.len = 0;
    encCommand(&e, argv, argc);
}

void propagateTransactionBegin(void) {
    in_transaction = 1;
    multi_emitted = 0;
    txn_lazy = 0;
}

void propagateTransactionBeginLazy(void) {
    propagateTransactionBegin();
    txn_lazy = 1;
}

int propagateTransactionActive(void) {
    return in_transaction;
}
int propagateHeldWrite(void) {
    return txn_first != NULL;
}

void propagateTransactionEnd(void) {
    in_transaction = 0;
    if (txn_first) propagateFlushFirst(); /* one write alone: no MULTI/EXEC around it */
    txn_lazy = 0;
    if (multi_emitted) {
        /* Through propagateTo: on a writable replica a local transaction's
         * EXEC belongs in its AOF only, never in its primary's stream
         * (there the database is whatever the AOF has selected: -1). */
        robj *exec = createStringObject("EXEC", 4);
        propagateTo(stream.raw_only ? -1 : txn_last_dbid, &exec, 1, STREAM_TO_ALL);
        decrRefCount(exec);
    }
    multi_emitted = 0;
}

void propagateCommand(client *c) {
    propagate(c->db->id, c->argv, c->argc);
}

void propagateDel(serverDb *db, robj *key, int lazy) {
    /* Expiry and eviction send many: the command names are made once. */
    static robj *del, *unlink_cmd;
    if (!del) {
        del = createStringObject("DEL", 3);
        unlink_cmd = createStringObject("UNLINK", 6);
    }
    robj *argv[2] = {lazy ? unlink_cmd : del, key};
    propagateTo(db->id, argv, 2, STREAM_TO_ALL);
}

void propagateResetSelect(void) {
    stream.last_dbid = stream.aof_dbid = -1;
}

void propagateInit(void) {
    stream.last_dbid = stream.aof_dbid = -1;
}

long long propagateOffset(void) {
    return stream.offset;
}
long long streamOffset(void) {
    return stream.offset;
}
long long streamAofOffset(void) {
    return stream.offset + stream.aof_skew;
}
size_t streamMemory(void) {
    return stream.memory;
}

size_t streamHeldMemory(void) {
    size_t tail = stream.tail ? sizeof(streamBlock) + stream.tail->size : 0;
    return stream.memory > tail ? stream.memory - tail : 0;
}

void streamCursorAttach(streamCursor *cur) {
    streamCursorAttachFor(cur, STREAM_READER_REPLICA);
}

void streamCursorAttachFor(streamCursor *cur, int reader) {
    cur->reader = reader;
    if (!stream.tail) {
        stream.head = stream.tail = streamNewBlock(STREAM_BLOCK_SIZE);
    }
    cur->block = stream.tail;
    cur->pos = stream.tail->used;
    cur->block->refcount++;
}

void streamCursorDetach(streamCursor *cur) {
    if (!cur->block) return;
    cur->block->refcount--;
    cur->block = NULL;
    streamTrim();
}

/* Peek from block b on, once a marked block is reached: the runs each
 * block has for this reader. A tail call of streamCursorPeek's, so the
 * loop over unmarked blocks needs no registers saved. */
static STREAM_COLD int streamPeekMarked(const streamCursor *cur, streamBlock *b, size_t pos,
                                        struct iovec *iov, int n, int max) {
    int need = readerNeeds(cur->reader);
    for (; b && n < max; b = b->next, pos = 0) {
        if (!b->marks) {
            if (b->used > pos) {
                iov[n].iov_base = b->buf + pos;
                iov[n].iov_len = b->used - pos;
                n++;
            }
            continue;
        }
        while (n < max && (pos = marksSkip(b, pos, need)) < b->used) {
            size_t end = marksRunEnd(b, pos, need);
            iov[n].iov_base = b->buf + pos;
            iov[n].iov_len = end - pos;
            n++;
            pos = end;
        }
    }
    return n;
}

int streamCursorPeek(streamCursor *cur, struct iovec *iov, int max) {
    int n = 0;
    size_t pos = cur->pos;
    for (streamBlock *b = cur->block; b && n < max; b = b->next) {
        if (b->marks) return streamPeekMarked(cur, b, pos, iov, n, max);
        if (b->used > pos) {
            iov[n].iov_base = b->buf + pos;
            iov[n].iov_len = b->used - pos;
            n++;
        }
        pos = 0;
    }
    return n;
}

/* Advance from a marked block on: n counts only the bytes the reader
 * reads, the ranges it skips are passed over. A tail call of
 * streamCursorAdvance's, for the same reason as streamPeekMarked. */
static STREAM_COLD void streamAdvanceMarked(streamCursor *cur, size_t n) {
    int need = readerNeeds(cur->reader);
    while (n) {
        streamBlock *b = cur->block;
        size_t pos = cur->pos, end = b->used;
        if (b->marks) {
            pos = marksSkip(b, pos, need);
            end = pos < b->used ? marksRunEnd(b, pos, need) : b->used;
        }
        size_t avail = end - pos;
        if (n < avail || (n == avail && (end < b->used || b->next == NULL))) {
            cur->pos = pos + n;
            return;
        }
        n -= avail;
        if (end < b->used) {
            cur->pos = end;
            continue;
        }
        b->refcount--;
        cur->block = b->next;
        cur->block->refcount++;
        cur->pos = 0;
    }
    streamTrim();
}

void streamCursorAdvance(streamCursor *cur, size_t n) {
    while (n) {
        streamBlock *b = cur->block;
        if (b->marks) {
            streamAdvanceMarked(cur, n);
            return;
        }
        size_t avail = b->used - cur->pos;
        if (n < avail || (n == avail && b->next == NULL)) {
            cur->pos += n;
            return;
        }
        n -= avail;
        /* Move to the next block; the reference moves with us. */
        b->refcount--;
        cur->block = b->next;
        cur->block->refcount++;
        cur->pos = 0;
    }
    streamTrim();
}

static STREAM_COLD long long streamOffsetMarked(const streamCursor *cur) {
    const streamBlock *b = cur->block;
    int aof = cur->reader == STREAM_READER_AOF;
    long long off =
        b->start_offset + (long long)cur->pos -
        (long long)marksSkippedBefore(b, cur->pos, aof ? STREAM_TO_AOF : STREAM_TO_REPLICAS);
    return aof ? off + b->aof_delta : off;
}

long long streamCursorOffset(const streamCursor *cur) {
    const streamBlock *b = cur->block;
    if (b->marks) return streamOffsetMarked(cur);
    /* aof_delta is 0 but for an AOF reader after a script's set_repl */
    return b->start_offset + (long long)cur->pos +
           (cur->reader == STREAM_READER_AOF ? b->aof_delta : 0);
}

/* The position in b of replication offset b->start_offset + want. */
static size_t blockReplicaPos(const streamBlock *b, size_t want) {
    size_t pos = 0;
    for (int j = 0; b->marks && j < b->marks->n; j++) {
        const streamMark *m = &b->marks->m[j];
        if (!markSkips(m, STREAM_TO_REPLICAS)) continue;
        if (want < m->from - pos) break;
        want -= m->from - pos;
        pos = m->to;
    }
    return pos + want;
}

/* Bytes of b that replicas receive. */
static size_t blockReplicaLen(const streamBlock *b) {
    return b->marks ? b->used - marksSkippedBefore(b, b->used, STREAM_TO_REPLICAS) : b->used;
}

int streamCursorAttachAt(streamCursor *cur, long long offset) {
    if (offset == stream.offset) {
        streamCursorAttach(cur);
        return 0;
    }
    for (streamBlock *b = stream.head; b; b = b->next) {
        if (offset >= b->start_offset && offset < b->start_offset + (long long)blockReplicaLen(b)) {
            cur->reader = STREAM_READER_REPLICA;
            cur->block = b;
            cur->pos = blockReplicaPos(b, (size_t)(offset - b->start_offset));
            b->refcount++;
            return 0;
        }
    }
    return -1;
}

long long streamFirstOffset(void) {
    return stream.head ? stream.head->start_offset : stream.offset;
}

void streamAppendRaw(const char *p, size_t len) {
    streamAppend(p, len);
    /* Whatever database the raw bytes left selected is unknown to us. */
    stream.last_dbid = stream.aof_dbid = -1;
}

void streamNoteRawDb(int dbid) {
    raw_dbid = local_dbid = dbid;
}

void streamRawBegins(int dbid) {
    streamNoteRawDb(dbid);
    if (!cfg.appendonly || server.loading) return;
    encBuf e;
    e.len = 0;
    local = sdsempty();
    encSelect(&e, dbid);
    localToAof(&e);
}
int streamRawDb(void) {
    return stream.raw_only ? raw_dbid : -1;
}

void streamSetRawOnly(int on) {
    stream.raw_only = on;
    stream.last_dbid = stream.aof_dbid = -1;
}

int streamIsRawOnly(void) {
    return stream.raw_only;
}

void streamSetOffset(long long offset) {
    long long delta = offset - stream.offset;
    for (streamBlock *b = stream.head; b; b = b->next) b->start_offset += delta;
    stream.offset = offset;
    stream.last_dbid = stream.aof_dbid = -1;
}
