/* aof_load: replaying append-only files into the keyspace at start-up
 * (private to aof.c; see aof_load.c). */
#ifndef CAIRN_AOF_LOAD_H
#define CAIRN_AOF_LOAD_H

#define AOF_LOAD_OK 0
#define AOF_LOAD_NOT_EXIST 1
#define AOF_LOAD_EMPTY 2
#define AOF_LOAD_TRUNCATED 3 /* loaded; the cut tail was removed from the file */
#define AOF_LOAD_FAILED 4    /* *err says why (file, offset, reason) */

/* Load one file: an RDB preamble if it starts with "REDIS", then RESP
 * commands. Only the last file (is_last) may end in a cut command, and
 * only if aof-load-truncated is yes. On AOF_LOAD_FAILED *err is set
 * (caller frees). keys counts commands (or RDB keys) loaded. */
int aofLoadFile(const char *path, const char *name, int is_last, long long *cmds, char **err);
/* While loading (start-up, DEBUG LOADAOF): serve clients (-LOADING). */
void aofLoadServeClients(int on);
/* The same walk without running anything or changing the file: on
 * AOF_LOAD_TRUNCATED (a cut tail) and AOF_LOAD_FAILED (*err set) *valid is
 * the offset up to which the file is good. An RDB preamble is still loaded
 * (into the keyspace) to validate it. With to_ts (unix seconds, 0: none)
 * the walk ends at the first "#TS:" annotation later than to_ts, whose
 * offset is then *ts_cut (else -1). */
int aofCheckFile(const char *path, const char *name, long long to_ts, long long *valid,
                 long long *ts_cut, long long *cmds, char **err);

#endif
