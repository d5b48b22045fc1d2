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
 *   full.c         `full`: the payload into a zstd file, counted by the loader
 *   verify.c       `verify` (and the checks restore shares)
 *   restore.c      `restore`: a snapshot back into a data directory
 *
 * Ownership: every struct here belongs to whoever created it and is freed
 * by the matching *Free / *Close; strings handed out are sds. */
#ifndef CAIRN_BACKUP_H
#define CAIRN_BACKUP_H
#include "sds.h"
#include <stddef.h>
#include <stdint.h>

/* Entry point: argv after the program name / --backup. Exit status. */
int backupMain(int argc, char **argv);

/* ---- backup_main.c ---- */
void backupLog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double backupNow(void);         /* wall clock, seconds with a fraction */
sds backupFormatTime(double t); /* ISO 8601 UTC with milliseconds */

/* ---- link.c ---- */
typedef struct backupLink {
    int fd;
    int timeout_s;
    char replid[41];  /* from +FULLRESYNC */
    long long offset; /* the snapshot's position in the source's stream */
    double sync_time; /* when +FULLRESYNC arrived: the snapshot's moment */
    long long size;   /* payload length, -1 for an EOF-mark payload */
    char mark[40];
    char server_info[64]; /* "redis_version:..." of the source, if INFO answered */
} backupLink;

typedef struct backupLinkOptions {
    const char *host;
    int port;
    const char *user, *pass;
    int timeout_s;
    int rdb_only; /* REPLCONF rdb-only 1: no stream after the snapshot */
} backupLinkOptions;

/* Connect, handshake and PSYNC ? -1 up to the payload's header. NULL with
 * *err set on failure. */
backupLink *backupLinkOpen(const backupLinkOptions *o, sds *err);
/* Called with the payload's bytes in order; 0 stops the transfer. */
typedef int backupSinkFn(void *ctx, const void *buf, size_t len);
/* Read the whole payload into sink. 0 on success, -1 with *err. */
int backupLinkReadPayload(backupLink *l, backupSinkFn *sink, void *ctx, long long *bytes, sds *err);
void backupLinkClose(backupLink *l);

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
} backupManifest;

extern const char *backupTypeNames[BACKUP_TYPES];

/* Create the layout if missing (marker file, backups/). 0 or -1 with *err. */
int repoInit(const char *repo, sds *err);
/* 0 if `repo` is a repository, -1 with *err. */
int repoCheck(const char *repo, sds *err);
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

/* Write `len` bytes as `path` atomically: temp file, fsync, rename, fsync
 * of the directory. 0 or -1 with *err. */
int repoWriteFileAtomic(const char *path, const void *buf, size_t len, sds *err);
int repoFsyncDir(const char *dir, sds *err);

/* ---- full.c, verify.c, restore.c ---- */
typedef struct backupCounts {
    long long keys, expires;
    long long keys_db[BACKUP_MAX_DBS];
    long long keys_type[BACKUP_TYPES];
    int rdb_version;
} backupCounts;
/* Load an RDB file (plain or zstd) with the server's loader in check-only
 * mode. 0, or -1 with *err naming the byte offset. */
int backupCountFile(const char *path, backupCounts *c, sds *err);

int backupFull(const backupLinkOptions *o, const char *repo, int json);
int backupList(const char *repo, int json);
int backupVerify(const char *repo, const char *id, int json);
/* Check one backup (manifest already parsed): file sizes and hashes, the
 * load. 0, or -1 with *err naming the file and offset. */
int backupVerifyOne(const char *repo, const backupManifest *m, sds *err);

typedef struct backupRestoreOptions {
    const char *repo, *to, *id;
    int have_time, have_offset;
    double time;
    long long offset;
    int force;
} backupRestoreOptions;
int backupRestore(const backupRestoreOptions *o);
/* "2026-12-02T01:02:03.5Z", "...+02:00", or Unix seconds with a fraction. */
int backupParseTime(const char *s, double *t);

#endif
