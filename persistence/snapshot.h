/* snapshot: the server side of RDB snapshots: SAVE, BGSAVE, LASTSAVE,
 * save points, loading at start-up, the final save at shutdown, DEBUG
 * RELOAD and the INFO persistence fields (see snapshot.c).
 *
 * main.c calls rdbStartupLoad once, rdbCron from every cron tick and
 * rdbShutdown from prepareForShutdown; commands.c registers the commands;
 * info.c and debug.c call the INFO and DEBUG RELOAD helpers. */
#ifndef CAIRN_SNAPSHOT_H
#define CAIRN_SNAPSHOT_H
#include "sds.h"
#include "rdb.h"
#include <sys/types.h>

struct client;

/* Replication owns CHILD_TYPE_REPL children; rdbCron reaps them and calls
 * this (replication/ registers it: persistence never includes it). */
typedef void rdbChildDoneFn(pid_t pid, int exitcode, int bysignal);
void rdbSetReplChildDone(rdbChildDoneFn *fn);
/* The repl-id / repl-offset of the snapshot loaded at start-up: 1 and *out
 * filled if it had them, else 0. */
int rdbStartupReplInfo(rdbReplInfo *out);
/* Hand fn each key the start-up load dropped as expired (fn owns it; NULL
 * frees them), once: a restarted primary propagates their deletion. */
void rdbStartupTakeExpired(rdbLoadExpiredFn *fn);
/* Load a snapshot received from a primary (a file in dir) through the
 * logged, client-serving load; flags RDB_LOAD_*. 0 or -1 (logged); *st
 * gets the stats (repl info of the primary). */
int rdbLoadReceived(const char *filename, int flags, rdbLoadStats *st);
/* A load another module drives (a replica parsing its primary's payload
 * from the socket): from Begin to End the server is loading (INFO's
 * loading fields, -LOADING), and the loader calls serve between keys,
 * which should call rdbLoadNoteProgress (INFO, the progress log) and then
 * serve clients. total_bytes: 0 when unknown. End with ok records the
 * load's key counts for INFO. */
void rdbLoadServedBegin(size_t total_bytes, rdbLoadProgressFn *serve);
void rdbLoadNoteProgress(size_t loaded, const rdbLoadStats *st);
void rdbLoadServedEnd(const rdbLoadStats *st, int ok);

void saveCommand(struct client *c);
void bgsaveCommand(struct client *c);
void lastsaveCommand(struct client *c);

/* Load cfg.rdb_filename from cfg.dir if it exists; exits the process with
 * status 1 (after logging why) if it cannot be loaded. */
void rdbStartupLoad(void);
/* Reap a finished background save; start one when a save point or BGSAVE
 * SCHEDULE asks for it. */
void rdbCron(void);
/* Kill a running background save and, when save points are set (or flags
 * hold SHUTDOWN_SAVE, unless SHUTDOWN_NOSAVE), save synchronously.
 * Returns 0, or -1 when the save failed and SHUTDOWN_FORCE is not set. */
int rdbShutdown(int flags);
/* The rdb part of INFO persistence ("loading:" .. "rdb_last_load_keys_loaded:"). */
sds rdbInfoFields(sds s);
/* While the start-up load runs: Redis 7.0's loading_* INFO persistence
 * fields (start time, bytes, percentage, ETA), appended after the AOF ones;
 * nothing otherwise. */
sds rdbInfoLoadingFields(sds s);
/* FLUSHALL, after emptying the keyspace: kill a running BGSAVE and, when
 * save points are set, save the empty dataset (as Redis does). */
void rdbFlushallSave(void);
/* Changes since the last successful save (INFO rdb_changes_since_last_save). */
long long rdbChangesSinceSave(void);
/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]. */
void rdbDebugReload(struct client *c);
/* stop-writes-on-bgsave-error: 1 if write commands (and PING) must be
 * refused with RDB_MISCONF_ERROR now, because the last background save
 * failed while save points are set. */
int rdbWritesDenied(void);
#define RDB_MISCONF_ERROR                                                                          \
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "  \
    "disk. Commands that may modify the data set are disabled, because this instance is "          \
    "configured to report errors during writes if RDB snapshotting fails "                         \
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB " \
    "error."

#endif
