/* aof: the append-only file, Redis 7.0's multi-part layout (a base plus
 * incremental files listed in a manifest, see aof_manifest.h), as a reader
 * of the propagation stream (propagate.h).
 *
 * main.c calls aofInit before loading, aofStartupLoad instead of the RDB
 * load when appendonly is yes, aofBeforeSleep each loop turn before
 * replies are flushed, aofCron from the cron and aofShutdown at shutdown.
 * client.c asks aofClientMustWait before it writes a client's output and
 * calls aofClientFreed when a held client goes away; commands.c asks
 * aofWritesDenied; snapshot.c's cron hands a finished rewrite child to
 * aofRewriteDone; info.c shows aofInfoFields. */
#ifndef CAIRN_AOF_H
#define CAIRN_AOF_H
#include "sds.h"
#include <sys/types.h>

struct client;

void aofInit(void);
/* Load the AOF directory (or a Redis 6 single file) and open the last
 * incremental file for appending; exits the process on a fatal error. */
void aofStartupLoad(void);
/* Write (everysec/no) or hand to the writer thread (always) the stream
 * bytes of this turn. */
void aofBeforeSleep(void);
void aofCron(void);
/* Write and fsync everything, kill a rewrite child. -1 (the server must
 * not exit) while appendonly was just turned on and its first base is
 * still being written, unless flags hold SHUTDOWN_FORCE. */
int aofShutdown(int flags);
/* appendfsync always: 1 if c's output may depend on stream bytes not yet
 * on disk; c is then held (flag CLIENT_AOF_WAIT) until they are. */
int aofClientMustWait(struct client *c);
void aofClientFreed(struct client *c);
/* c just ran a command that read or wrote the keyspace: its output now
 * depends on the whole stream so far. */
void aofNoteReply(struct client *c);
/* streamSetOffset moved every stream offset by delta. */
void aofStreamShifted(long long delta);
/* A writable replica's local write, RESP: into the file only (it is no
 * part of the primary's stream), after the stream bytes so far. */
void aofAppendLocal(const char *p, size_t len);
/* A full sync replaced the whole dataset: start (or schedule) a rewrite. */
void aofDatasetReplaced(void);
/* NULL, or the MISCONF error write commands get while the AOF can't be
 * written. */
const char *aofWritesDenied(void);
/* The stream offset up to which the AOF is written and fsynced, -1 while
 * there is no AOF holding the whole dataset (off, or its first rewrite is
 * still running). Moves under always after each group commit, under
 * everysec after each background fsync, under no only at rewrites,
 * appendfsync changes and shutdown (WAITAOF's numlocal). */
long long aofFsyncedOffset(void);
void aofRewriteDone(pid_t pid, int exitcode, int bysignal);
/* DEBUG LOADAOF: flush, empty the keyspace, load the AOF files again.
 * NULL, or the error to reply (nothing was loaded; caller frees). */
sds aofDebugLoad(void);
sds aofInfoFields(sds s);
/* Flag: replies must be checked by aofClientMustWait (appendfsync always). */
extern int aof_hold_active;

void bgrewriteaofCommand(struct client *c);
/* DEBUG AOF-FLUSH-SLEEP: sleep before each AOF write of new bytes. */
void aofDebugSetFlushSleep(long long us);

#endif
