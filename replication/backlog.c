/* backlog: the replication backlog, a window over the shared propagation
 * stream.
 *
 * There is no buffer of its own: the backlog is one streamCursor that
 * backlogTrim keeps at most repl-backlog-size bytes behind the stream's
 * tail. Holding the cursor keeps the stream's blocks from there to the tail
 * alive, so a partial resync attaches a new cursor at any offset inside the
 * window (streamCursorAttachAt) and reads the very same blocks every other
 * consumer reads. Bytes enter through propagate()/streamAppendRaw and leave
 * through the replicas' cursors; trimming only moves this cursor forward,
 * and the stream frees blocks nobody points into any more.
 *
 * Created when the first replica asks for a sync (as in Redis), freed after
 * repl-backlog-ttl seconds without replicas on a primary. */
#include "config.h"
#include "log.h"
#include "server_state.h"
#include "repl.h"

#include <string.h>

static struct {
    streamCursor cur;
    int active;
    time_t no_replicas_since; /* 0: there are replicas */
} bl;

void backlogCreate(void) {
    if (bl.active) return;
    streamCursorAttach(&bl.cur);
    bl.active = 1;
    bl.no_replicas_since = 0;
}

void backlogFree(void) {
    if (!bl.active) return;
    streamCursorDetach(&bl.cur);
    bl.active = 0;
}

int backlogActive(void) { return bl.active; }

void backlogTrim(void) {
    if (!bl.active) return;
    long long hist = streamOffset() - streamCursorOffset(&bl.cur);
    if (hist > cfg.repl_backlog_size) streamCursorAdvance(&bl.cur, (size_t)(hist - cfg.repl_backlog_size));
}

long long backlogStart(void) { return bl.active ? streamCursorOffset(&bl.cur) : streamOffset(); }

long long backlogHistlen(void) { return bl.active ? streamOffset() - streamCursorOffset(&bl.cur) : 0; }

int backlogCovers(long long offset) {
    if (!bl.active) return 0;
    return offset >= streamCursorOffset(&bl.cur) && offset <= streamOffset();
}

void backlogCron(int replicas) {
    if (!bl.active || replIsReplica()) return;
    if (replicas) {
        bl.no_replicas_since = 0;
        return;
    }
    if (bl.no_replicas_since == 0) bl.no_replicas_since = server.unixtime;
    if (cfg.repl_backlog_time_limit && server.unixtime - bl.no_replicas_since > cfg.repl_backlog_time_limit) {
        /* As Redis: a new ID, since nobody can continue from this history. */
        replChangeReplicationId();
        repl.second_replid_offset = -1;
        memset(repl.replid2, '0', REPL_ID_LEN);
        backlogFree();
        serverLog(LL_NOTICE, "Replication backlog freed after %lld seconds without connected replicas.",
                  cfg.repl_backlog_time_limit);
    }
}
