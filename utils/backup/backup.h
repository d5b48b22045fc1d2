/* backup: cairn-backup, online backups of a cairn or Redis 7.0 server over
 * the replication protocol, kept in a repository directory, verified and
 * restored with the server's own RDB loader (`cairn-server --backup ...`,
 * or the binary run under the name cairn-backup; utils/cairn-backup is the
 * wrapper users call).
 *
 *   backup_main.c  argument parsing, the subcommands, the log lines
 *   link.c         the replication client: handshake as a replica, PSYNC,
 *                  the full-sync payload ($<len> or $EOF:<mark>)
 *   repo.c         the repository layout, manifests, SHA-256, atomic files
 *   full.c         `full`: the payload into a zstd file, hashed, checked
 *   check.c        the check-only loader: a file, or a payload as it arrives
 *   verify.c       `verify` (and the checks restore shares)
 *   restore.c      `restore`: a snapshot (+ the archived stream) back into a
 *                  data directory
 *   segment.c      the archived stream's segment files
 *   stream.c       `stream`: continuous archiving after a backup
 *   replay.c       the archived stream as commands (src/resp.c)
 *   crypt.c        --encrypt-key: AES-256-GCM of stored files
 *   transport.c    the link's bytes: a plain socket or TLS (--tls ...)
 *   load.c         `restore --to-server`: RESTOREs and commands, pipelined
 *   sentinel.c     --sentinel/--master: the source's address from sentinel
 *   list.c, prune.c  `list`, `prune`
 *
 * Ownership: every struct here belongs to whoever created it and is freed
 * by the matching *Free / *Close; strings handed out are sds. */
#ifndef CAIRN_BACKUP_H
#define CAIRN_BACKUP_H
#include "sds.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Entry point: argv after the program name / --backup. Exit status. */
int backupMain(int argc, char **argv);

/* ---- backup_main.c ---- */
void backupLog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double backupNow(void); /* wall clock, seconds with a fraction */
/* --archive-cmd: run it for a finished file (%f: its path, %% a %). 0 if
 * there is none or it exited 0; -1 (logged) otherwise. */
extern const char *backup_archive_cmd;
/* On a terminal: a progress line (bytes, rate, ETA when total >= 0),
 * redrawn at most 10 times a second; backupProgressEnd ends it. Off a
 * terminal nothing: the callers log a line per step instead. */
void backupProgress(const char *what, long long done, long long total, double started);
void backupProgressEnd(void);
int backupArchiveFile(const char *path);
sds backupFormatTime(double t); /* ISO 8601 UTC with milliseconds */

/* ---- link.c ---- */
struct ssl_st;
typedef struct backupLink {
    int fd;
    struct ssl_st *ssl; /* NULL without --tls; transport.c owns it */
    int timeout_s;
    char replid[41];  /* from +FULLRESYNC */
    long long offset; /* the snapshot's position in the source's stream */
    double sync_time; /* when +FULLRESYNC arrived: the snapshot's moment */
    long long size;   /* payload length, -1 for an EOF-mark payload */
    char mark[40];
    char server_info[64];    /* "redis_version:..." of the source, if INFO answered */
    char replid2[41];        /* the source's master_replid2 ("" if INFO did not say) */
    long long second_offset; /* its second_repl_offset: replid2 holds up to this - 1 */
    char info_replid[41];    /* its master_replid and master_repl_offset ("" / 0 if unknown) */
    long long info_offset;
    int continued; /* +CONTINUE: the stream goes on at psync_offset, no payload */
    /* A refused PSYNC because the tool holds bytes the source never had
     * (it is behind the tool, e.g. a promoted replica that missed the
     * old primary's last writes): the last offset of the requested history
     * the source shares, else -1. */
    long long diverged_at;
    int archiver; /* the source accepted REPLCONF archive-only (cairn) */
} backupLink;

/* ---- transport.c ---- */
typedef struct backupTlsOptions {
    int enabled, insecure; /* --tls, --insecure */
    const char *cacert, *cacertdir, *cert, *key, *sni;
} backupTlsOptions;
/* The process' TLS client context (nothing without --tls). 0 or -1. */
int backupTlsSetup(const backupTlsOptions *t, sds *err);
/* TLS on l->fd if set up; 0, or -1 with *err naming what failed. */
int backupTransportStart(backupLink *l, const char *host, int port, sds *err);
ssize_t backupTransportRead(backupLink *l, void *buf, size_t len);
ssize_t backupTransportWrite(backupLink *l, const void *buf, size_t len);
int backupTransportPending(backupLink *l); /* bytes decrypted but not yet read */
void backupTransportClose(backupLink *l);

typedef struct backupLinkOptions {
    const char *host;
    int port;
    const char *user, *pass;
    int timeout_s;
    int rdb_only;             /* REPLCONF rdb-only 1: no stream after the snapshot */
    int archive_only;         /* REPLCONF archive-only 1: cairn counts us for nothing */
    const char *psync_replid; /* NULL: PSYNC ? -1 */
    long long psync_offset;   /* the first stream byte wanted */
    sds *psync_refusal;       /* set to the reason a partial resync was refused */
} backupLinkOptions;

/* Connect, handshake and PSYNC ? -1 up to the payload's header. NULL with
 * *err set on failure. */
backupLink *backupLinkOpen(const backupLinkOptions *o, sds *err);
/* Called with the payload's bytes in order; 0 stops the transfer. */
typedef int backupSinkFn(void *ctx, const void *buf, size_t len);
/* The payload pulled by its consumer (full.c's loader): each
 * backupPayloadPull reads up to cap bytes of the link into buf and hands
 * the payload bytes among them, in order, to sink (an EOF payload's mark
 * is not; the bytes in buf may include it). It returns the bytes read,
 * 0 once the payload is complete (done), or -1 with *err. */
typedef struct backupPayload {
    backupLink *l;
    backupSinkFn *sink;
    void *ctx;
    long long total; /* payload bytes handed to sink */
    int done;
    size_t held; /* an EOF payload's last bytes, held back: they may be the mark */
    char mark_tail[40];
} backupPayload;
void backupPayloadInit(backupPayload *p, backupLink *l, backupSinkFn *sink, void *ctx);
ssize_t backupPayloadPull(backupPayload *p, void *buf, size_t cap, sds *err);
void backupLinkClose(backupLink *l);
/* REPLCONF ACK offset. 0 or -1. */
int backupLinkAck(backupLink *l, long long offset);

/* ---- repo.c ---- */
#define BACKUP_MAX_DBS 64
#define BACKUP_TYPES   5
#define BACKUP_BLOCK   (1024 * 1024) /* the unit of the per-block file hashes */

typedef struct backupManifest {
    sds id;
    sds source;
    char replid[41];
    long long offset;
    double time, finished;
    int rdb_version;
    int stream_db; /* the database the source's stream had selected (repl-stream-db) */
    long long rdb_bytes;
    char rdb_sha256[65];
    sds file; /* name inside the backup's directory */
    long long file_bytes;
    char file_sha256[65];
    int nblocks;
    char (*block_sha256)[65]; /* one per BACKUP_BLOCK of the file */
    long long keys;
    long long keys_db[BACKUP_MAX_DBS];
    long long keys_type[BACKUP_TYPES];
    long long expires;
    char enc_keyid[17]; /* "" unless encrypted (crypt.c) */
    /* Taken by `stream` because the source is behind the archive: backup
     * diverged_from's stream (diverged_at, diverged_end] is not on this
     * source (NULL / -1 otherwise). */
    sds diverged_from;
    long long diverged_at, diverged_end;
} backupManifest;

extern const char *backupTypeNames[BACKUP_TYPES];

/* Create the layout if missing (marker file, backups/). 0 or -1 with *err. */
int repoInit(const char *repo, sds *err);
/* 0 if `repo` is a repository, -1 with *err. */
int repoCheck(const char *repo, sds *err);
/* Create a .tmp-ID directory (a backup being written) and take its owner
 * lock: the returned fd holds it until closed (after the rename into
 * place). -1 with *err. */
int repoTmpDirCreate(const char *path, sds *err);
/* Remove the backups/.tmp-* directories that no live process owns (left
 * by a run killed mid-backup); logs each. Those being written are kept. */
void repoRemoveStaleTmp(const char *repo);
sds repoBackupDir(const char *repo, const char *id);
/* Every backup with a manifest, oldest first (by their point in time).
 * *n gets the count; names of dirs whose manifest is unreadable go to
 * *bad (NULL-able). The array and its manifests are freed by repoFreeList. */
backupManifest **repoListBackups(const char *repo, int *n, sds *bad);
void repoFreeList(backupManifest **list, int n);

sds manifestFormat(const backupManifest *m);
/* Parse and check the manifest's own SHA-256 line. NULL with *err. */
backupManifest *manifestParse(const char *text, size_t len, sds *err);
backupManifest *manifestRead(const char *path, sds *err);
void manifestFree(backupManifest *m);

/* SHA-256 hex digests. */
typedef struct backupSha backupSha;
backupSha *shaNew(void);
void shaUpdate(backupSha *s, const void *buf, size_t len);
void shaFinal(backupSha *s, char hex[65]); /* frees s */
void shaOf(const void *buf, size_t len, char hex[65]);
/* The whole file's digest and one per BACKUP_BLOCK (*blocks: malloc'd,
 * caller frees). 0 or -1 with *err. */
int shaFile(const char *path, char hex[65], long long *size, char (**blocks)[65], int *nblocks,
            sds *err);
/* The same digests over bytes fed in order (a file as it is written). */
typedef struct fileHasher fileHasher;
fileHasher *fileHasherNew(void);
void fileHasherUpdate(fileHasher *h, const void *buf, size_t len);
/* Frees h; *blocks as for shaFile (NULL blocks: not wanted). */
void fileHasherFinal(fileHasher *h, char hex[65], long long *size, char (**blocks)[65],
                     int *nblocks);

/* Write `len` bytes as `path` atomically: temp file, fsync, rename, fsync
 * of the directory. 0 or -1 with *err. */
int repoWriteFileAtomic(const char *path, const void *buf, size_t len, sds *err);
int repoFsyncDir(const char *dir, sds *err);
/* write(2) until all of buf is out: 0, or -1 with errno. */
int repoWriteAll(int fd, const void *buf, size_t len);
/* Start the writeback (sync_file_range, not waiting for it) of what was
 * written to fd past *flushed once REPO_WRITEBACK bytes are pending, so a
 * big file's final fsync finds little left to write. */
#define REPO_WRITEBACK (4 * 1024 * 1024)
void repoWriteback(int fd, off_t *flushed, off_t written);
/* A whole file as sds, or NULL with *err. */
sds repoReadFile(const char *path, sds *err);
/* Sealed text: a last line "KEY <SHA-256 of everything before it>".
 * repoSeal appends it; repoUnseal checks it and gives the body's length
 * (-1 with *err naming `what` when truncated or damaged). */
sds repoSeal(sds s, const char *key);
int repoUnseal(const char *text, size_t len, const char *key, const char *what, size_t *body,
               sds *err);
int repoHex(const char *v, char out[65]); /* 1 if v is a SHA-256 hex digest */

/* ---- crypt.c ---- */
int cryptLoadKey(const char *path, sds *err);
const char *cryptKeyId(void); /* NULL without --encrypt-key */
int cryptEncryptInPlace(const char *path, sds *err);
/* A plain copy of path (a new temp file) when keyid says it is encrypted,
 * else path itself; NULL with *err for a missing or wrong key or a failed
 * tag. backupPlainDone deletes the copy. */
sds backupPlainFile(const char *path, const char *keyid, sds *err);
void backupPlainDone(const char *plain, const char *path);

/* ---- segment.c ---- */
typedef struct segIndex {
    long long offset; /* the source offset reached ... */
    double time;      /* ... when these bytes arrived */
} segIndex;
typedef struct segMeta {
    sds path; /* the .seg.zst file */
    char replid[41];
    long long start, end; /* the stream bytes (start, end] */
    long long file_bytes;
    char sha256[65];
    char enc_keyid[17];
    int nidx;
    segIndex *idx; /* ascending; the last one is at `end` */
} segMeta;
typedef struct segWriter segWriter;

sds segDir(const char *repo, const char *timeline);
segWriter *segOpen(const char *repo, const char *timeline, const char *replid, long long start,
                   sds *err);
int segAppend(segWriter *w, const void *buf, size_t len, double now, sds *err);
int segSync(segWriter *w, sds *err);
int segClose(segWriter *w, sds *err); /* seals and frees */
long long segWriterBytes(const segWriter *w);
double segWriterAge(const segWriter *w);
long long segWriterEnd(const segWriter *w);
int segRecover(const char *repo, sds *err); /* seal what a killed run left */
/* A timeline's sealed segments by start offset (*bad: the first unreadable meta). */
segMeta **segList(const char *repo, const char *timeline, int *n, sds *bad);
void segFreeList(segMeta **list, int n);
void segFreeMeta(segMeta *m);
/* The segment's stream bytes, its file's size and SHA-256 checked. */
sds segRead(const segMeta *m, sds *err);

/* ---- replay.c ---- */
/* One command of the stream: its name, its bytes, its source offsets
 * (start, end]. 0 stops the scan. */
typedef int replayFn(void *ctx, const char *name, const char *cmd, size_t len, long long start,
                     long long end);
/* Scan buf (stream bytes after offset `base`). *stop (NULL-able): where
 * the scan ended. 0, or -1 with *err naming the offset of bad bytes. */
int replayScan(const char *buf, size_t len, long long base, replayFn *fn, void *ctx,
               long long *stop, sds *err);
/* The last offset <= limit that ends a command outside a transaction. */
long long replayBoundary(const char *buf, size_t len, long long base, long long limit);
/* The start offset of the last command called `name`, or -1. */
long long replayFindLast(const char *buf, size_t len, long long base, const char *name);
/* The commands as an AOF increment (SELECT stream_db first; PING and
 * REPLCONF left out). */
sds replayToAof(const char *buf, size_t len, long long base, int stream_db);

/* ---- sentinel.c ---- */
/* The address of primary `name` from the first of the comma-separated
 * sentinels that answers. 0 with *host (sds, the caller frees) and *port,
 * or -1 with *err. */
int backupSentinelPrimary(const char *list, const char *name, int timeout_s, sds *host, int *port,
                          sds *err);

/* ---- stream.c ---- */
typedef struct backupStreamOptions {
    backupLinkOptions link;
    const char *sentinels, *master; /* --sentinel LIST --master NAME, or NULL */
    const char *repo;
    long long segment_bytes;
    double segment_seconds;
    int timeout_s; /* silence after which the link is taken for dead */
} backupStreamOptions;
int backupStream(const backupStreamOptions *o);

/* ---- check.c (full.c, verify.c, restore.c) ---- */
typedef struct backupCounts {
    long long keys, expires;
    long long keys_db[BACKUP_MAX_DBS];
    long long keys_type[BACKUP_TYPES];
    int rdb_version;
    int stream_db;
} backupCounts;
/* Load an RDB file (plain or zstd) with the server's loader in check-only
 * mode. 0, or -1 with *err naming the byte offset. */
int backupCountFile(const char *path, backupCounts *c, sds *err);
/* The same load handing every key to fn (borrowed, freed after it) and,
 * when lib is not NULL, every functions library's code (FUNCTION2) to lib. */
struct robj;
struct rdbLoadStats;
typedef void backupKeyFn(void *ctx, size_t offset, int dbid, int rdbtype, sds key, struct robj *val,
                         long long expire);
typedef void backupLibraryFn(void *ctx, size_t offset, sds code);
int backupScanFile(const char *path, backupKeyFn *fn, backupLibraryFn *lib, void *ctx,
                   struct rdbLoadStats *st, sds *err);
/* The check of a snapshot read from r as it arrives (the loader skimming:
 * structure, counts and CRC64, no decoding). 0 with *out, or -1 with *err. */
struct rio;
int checkRio(struct rio *r, backupCounts *out, sds *err);

extern int backup_json; /* --json: machine-readable results */
int backupFull(const backupLinkOptions *o, const char *repo);
/* The payload of an open link as a new backup; *id gets its ID. With
 * l->diverged_at >= 0, `timeline` (the backup whose archive the PSYNC
 * asked to continue, which ends at `end`) is named in the manifest as
 * the history this one diverged from. */
int backupStoreSnapshot(backupLink *l, const char *repo, const char *source, const char *timeline,
                        long long end, sds *id, sds *err);
int backupList(const char *repo, int json);
/* keep_last 0 / keep_within < 0: that rule is off. */
int backupPrune(const char *repo, int keep_last, double keep_within, int dry_run);
int backupParseDuration(const char *s, double *secs); /* 7d 12h 30m 90s 1w, or seconds */
int backupVerify(const char *repo, const char *id, int json);
/* Check one backup (manifest already parsed): file sizes and hashes, the
 * load. 0, or -1 with *err naming the file and offset. */
int backupVerifyOne(const char *repo, const backupManifest *m, sds *err);

typedef struct backupRestoreOptions {
    const char *repo, *to, *id;
    const char *before;                  /* --before-command NAME */
    const char *to_server, *user, *pass; /* --to-server HOST:PORT, its AUTH */
    int have_time, have_offset;
    double time;
    long long offset;
    int force;
} backupRestoreOptions;
int backupRestore(const backupRestoreOptions *o);
/* load.c: the snapshot file's keys as RESTOREs, then `stream` (len bytes
 * of archived commands) into o->to_server. 0 or -1 with *err. */
int backupLoadToServer(const backupRestoreOptions *o, const char *snapshot, const char *stream,
                       size_t len, int stream_db, sds *err);
int backupConnect(const char *host, int port, int timeout_s,
                  sds *err);                                /* link.c: a TCP socket or -1 */
int backupSplitServer(const char *s, sds *host, int *port); /* "HOST:PORT", "[::1]:PORT" */
/* "2026-12-02T01:02:03.5Z", "...+02:00", or Unix seconds with a fraction. */
int backupParseTime(const char *s, double *t);

#endif
