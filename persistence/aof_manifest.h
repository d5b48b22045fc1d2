/* aof_manifest: the list of files that make up a multi-part append-only
 * file, in Redis 7.0's manifest format, and its naming rules.
 *
 * The manifest `<appendfilename>.manifest` inside `appenddirname` has one
 * line per file:
 *
 *   file appendonly.aof.2.base.rdb seq 2 type b
 *   file appendonly.aof.1.incr.aof seq 1 type h
 *   file appendonly.aof.3.incr.aof seq 3 type i
 *
 * b = the base (at most one, an RDB or a command file), h = history (files
 * a rewrite superseded, waiting to be deleted), i = incremental files in
 * replay order (strictly increasing seq). Lines starting with '#' are
 * comments; keys are matched case-insensitively, unknown keys are ignored,
 * and a name needing quotes is written quoted (sdscatrepr).
 *
 * Data enters from a file (aofManifestLoad) or from the server changing the
 * set of files (aofManifestNewBase/NewIncr/...); it leaves as text
 * (aofManifestFormat) written atomically by aofManifestPersist: a temp
 * file, fsync, rename over the manifest, fsync of the directory.
 *
 * Pure data + file I/O; no server state. The caller owns a manifest and
 * frees it with aofManifestFree; names inside are sds owned by it. */
#ifndef CAIRN_AOF_MANIFEST_H
#define CAIRN_AOF_MANIFEST_H
#include "sds.h"

#define AOF_FILE_BASE 'b'
#define AOF_FILE_HIST 'h'
#define AOF_FILE_INCR 'i'

typedef struct aofInfo {
    sds name;
    long long seq;
    char type;
} aofInfo;

typedef struct aofManifest {
    aofInfo *base;        /* NULL: none */
    aofInfo **incr;       /* replay order */
    int nincr;
    aofInfo **hist;
    int nhist;
    long long base_seq;   /* highest base seq used */
    long long incr_seq;   /* highest incr seq used */
} aofManifest;

aofManifest *aofManifestCreate(void);
void aofManifestFree(aofManifest *am);
aofManifest *aofManifestDup(const aofManifest *am);

/* "<appendfilename>.manifest" (and the temp- variant); caller frees. */
sds aofManifestFileName(const char *appendfilename);
/* "<dir>/<name>"; caller frees. */
sds aofPath(const char *dir, const char *name);

/* Parse manifest text. NULL with *err (a message, and *line the 1-based
 * line number, 0 if not line-specific) on any format error; the caller
 * frees *err. */
aofManifest *aofManifestParse(const char *text, size_t len, sds *err, int *line);
/* Read and parse `path`. NULL with *err: also when it cannot be read. */
aofManifest *aofManifestLoad(const char *path, sds *err, int *line);
/* The manifest as text: base, then history, then incremental files. */
sds aofManifestFormat(const aofManifest *am);
/* Write the manifest for `appendfilename` into `dir` atomically. 0 on
 * success, -1 with *err set (caller frees). */
int aofManifestPersist(const aofManifest *am, const char *dir, const char *appendfilename,
                       sds *err);

/* Make a new base named "<appendfilename>.<seq>.base.rdb" (or .aof when
 * !rdb), moving the old base to the head of the history list (newest
 * history first, as Redis writes it). Returns its name (owned
 * by the manifest). */
const char *aofManifestNewBase(aofManifest *am, const char *appendfilename, int rdb);
/* Append a new incremental file "<appendfilename>.<seq>.incr.aof". */
const char *aofManifestNewIncr(aofManifest *am, const char *appendfilename);
/* Move every incremental file except the last `keep` to the head of the
 * history list, the newest first. */
void aofManifestIncrToHistory(aofManifest *am, int keep);
/* Set the base to a given file name (upgrading a Redis 6 single file). */
void aofManifestSetBase(aofManifest *am, const char *name, long long seq);
/* Forget the history list (after its files were deleted). */
void aofManifestClearHistory(aofManifest *am);

/* fsync the directory (so a rename in it is durable); 0 or -1 (errno). */
int aofFsyncDir(const char *dir);

#endif
