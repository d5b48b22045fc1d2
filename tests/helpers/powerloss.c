/* powerloss.c -- an LD_PRELOAD shim that records what a power cut would
 * leave of one directory tree (tests/integration/powerloss.tcl).
 *
 * The kernel keeps what a SIGKILLed process wrote, so a kill alone cannot
 * show that fsync is called at the right moments. This shim keeps, outside
 * the watched tree, the state a disk is only obliged to have after a power
 * loss (POSIX, read conservatively):
 *   - a regular file's content as of its last fsync/fdatasync (taken when
 *     the call is made: a write racing with it is not guaranteed either);
 *   - a directory's entries (name -> inode) as of its last fsync, so a file
 *     created, renamed or removed since is not, or still, there.
 * Everything present when the first shimmed process starts counts as
 * durable (the baseline). sync() and syncfs() make the whole tree durable.
 * Data enters through the interposed calls of the server and of its fork
 * children (they inherit the shim; the state is in files, under a lock).
 * It leaves as the state directory, which tests/helpers/powerloss.tcl
 * reads after the processes were killed, to roll the tree back.
 *
 * Environment: CAIRN_POWERLOSS_DIR (the watched tree) and
 * CAIRN_POWERLOSS_STATE (an existing directory outside it). Without them
 * the shim only passes calls through.
 *
 * State layout (all text but data/):
 *   lock         taken (a record lock) around every update
 *   root         the id of the watched directory
 *   gen/INO      generation of inode number INO (absent: 0). An inode is
 *                named by the id INO.GEN; removing a file's last link bumps
 *                GEN, so a new file that reuses the number gets a new id
 *                while durable directory entries still name the old one.
 *   data/ID      durable content of the file ID
 *   dir/ID       durable entries of directory ID: "f ID NAME" or "d ID NAME"
 *   log          one line per recorded event (for the test's counts)
 *   inplace/INO  inode INO got positioned writes (a torn rollback may keep
 *                some of its rewritten blocks)
 *
 * Writes are not interposed, except the positioned ones (pwrite, pwritev:
 * the AOF writing into its preallocated pad), which may change bytes
 * already recorded: the lowest offset each inode was so written at since
 * its last fsync is kept per process (pl_dirty), and that fsync takes the
 * content from there.
 *
 * Not modelled (documented in tests/README.md): O_SYNC/O_DSYNC opens and
 * msync (their writes count as not durable, the pessimistic side), hard
 * links (only the last unlink of a name is tracked), renamed directories,
 * and torn writes inside a fsync'd range. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned);
static void (*real_sync)(void);
static int (*real_syncfs)(int);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);

static char pl_watch[PATH_MAX]; /* realpath of the watched tree; "" = off */
static size_t pl_watch_len;
static dev_t pl_watch_dev;
static char pl_state[PATH_MAX];

static void plLoadSymbols(void) {
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_unlink = dlsym(RTLD_NEXT, "unlink");
    real_unlinkat = dlsym(RTLD_NEXT, "unlinkat");
    real_rename = dlsym(RTLD_NEXT, "rename");
    real_renameat = dlsym(RTLD_NEXT, "renameat");
    real_renameat2 = dlsym(RTLD_NEXT, "renameat2");
    real_sync = dlsym(RTLD_NEXT, "sync");
    real_syncfs = dlsym(RTLD_NEXT, "syncfs");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwritev = dlsym(RTLD_NEXT, "pwritev");
}

/* ---- state files ---- */

static void plPath(char *buf, size_t size, const char *fmt, ...) {
    int n = snprintf(buf, size, "%s/", pl_state);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, size - (size_t)n, fmt, ap);
    va_end(ap);
}

/* The lock: a mutex between this process's threads, then a POSIX record
 * lock on STATE/lock between processes. Record locks are not inherited by
 * fork (a flock would be, through the shared file description, and a child
 * forked while a thread held it would hold it forever); the mutex is taken
 * around fork so the child's copy starts unlocked. */
static pthread_mutex_t pl_mu = PTHREAD_MUTEX_INITIALIZER;
static int pl_lockfd = -1;

static void plForkPrepare(void) {
    pthread_mutex_lock(&pl_mu);
}
static void plForkRelease(void) {
    pthread_mutex_unlock(&pl_mu);
}

static int plLock(void) {
    pthread_mutex_lock(&pl_mu);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fcntl(pl_lockfd, F_SETLKW, &fl) == -1 && errno == EINTR) {
    }
    return 0;
}

static void plUnlock(int lk) {
    (void)lk;
    struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
    fcntl(pl_lockfd, F_SETLK, &fl);
    pthread_mutex_unlock(&pl_mu);
}

static int plWriteAll(int fd, const char *buf, size_t len) {
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Whole-file replace: a unique temp file renamed over rel (rename is ours
 * to call through the real pointer, or it would be tracked). */
static int plTempOpen(char *tmp, size_t size) {
    static unsigned seq;
    plPath(tmp, size, "tmp.%d.%u", (int)getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
    return open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void plCommit(const char *tmp, const char *rel) {
    char p[PATH_MAX];
    plPath(p, sizeof(p), "%s", rel);
    if (real_rename(tmp, p) == -1) real_unlink(tmp);
}

static void plLog(const char *fmt, ...) {
    char p[PATH_MAX], line[PATH_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof(line) - 2) n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    plPath(p, sizeof(p), "log");
    int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1) return;
    (void)plWriteAll(fd, line, (size_t)n);
    close(fd);
}

static unsigned long plGen(ino_t ino) {
    char p[PATH_MAX], buf[32];
    plPath(p, sizeof(p), "gen/%llu", (unsigned long long)ino);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd == -1) return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return strtoul(buf, NULL, 10);
}

static void plId(char *buf, size_t size, ino_t ino) {
    snprintf(buf, size, "%llu.%lu", (unsigned long long)ino, plGen(ino));
}

/* Called with the lock held, once the last link of ino is gone. */
static void plBumpGen(ino_t ino) {
    char tmp[PATH_MAX], rel[64], buf[32];
    int n = snprintf(buf, sizeof(buf), "%lu\n", plGen(ino) + 1);
    int fd = plTempOpen(tmp, sizeof(tmp));
    if (fd == -1) return;
    int ok = plWriteAll(fd, buf, (size_t)n) == 0;
    close(fd);
    snprintf(rel, sizeof(rel), "gen/%llu", (unsigned long long)ino);
    if (ok)
        plCommit(tmp, rel);
    else
        real_unlink(tmp);
}

/* ---- paths ---- */

static int plUnder(const char *path) {
    return pl_watch[0] && strncmp(path, pl_watch, pl_watch_len) == 0 &&
           (path[pl_watch_len] == '\0' || path[pl_watch_len] == '/');
}

static int plFdPath(int fd, char *buf, size_t size) {
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, size - 1);
    if (n < 0) return -1;
    buf[n] = '\0';
    return 0;
}

/* The absolute path of (dirfd, path) without resolving its last part,
 * which may be about to disappear. */
static int plAbsPath(int dirfd, const char *path, char *buf, size_t size) {
    char base[PATH_MAX];
    if (path[0] == '/') {
        base[0] = '\0';
    } else if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof(base))) return -1;
    } else if (plFdPath(dirfd, base, sizeof(base)) == -1) {
        return -1;
    }
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof(joined), "%s%s%s", base, base[0] ? "/" : "", path);
    char *slash = strrchr(joined, '/');
    *slash = '\0';
    char dir[PATH_MAX];
    if (!realpath(joined[0] ? joined : "/", dir)) return -1;
    if ((size_t)snprintf(buf, size, "%s/%s", dir, slash + 1) >= size) return -1;
    return 0;
}

/* ---- recording durable state (lock held) ---- */

#define PL_WINDOW 16384

/* Appends in's bytes from off to its end to out. */
static int plCopyFrom(int in, int out, off_t off) {
    char buf[65536];
    ssize_t n;
    while ((n = pread(in, buf, sizeof(buf), off)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (plWriteAll(out, buf, (size_t)n) == -1) return -1;
        off += n;
    }
    return 0;
}

static int plSameRange(int a, int b, off_t off, size_t len) {
    char x[PL_WINDOW], y[PL_WINDOW];
    if (len > sizeof(x)) len = sizeof(x);
    return pread(a, x, len, off) == (ssize_t)len && pread(b, y, len, off) == (ssize_t)len &&
           !memcmp(x, y, len);
}

/* ---- positioned writes: what they dirtied ---- */

#define PL_DIRTY_MAX 64
static struct {
    ino_t ino; /* 0: a free slot */
    off_t from;
} pl_dirty[PL_DIRTY_MAX];
static int pl_dirty_overflow; /* the table was full once: copy files whole */
static pthread_mutex_t pl_dirty_mu = PTHREAD_MUTEX_INITIALIZER;

static void plNoteWrite(int fd, off_t off) {
    struct stat st;
    if (!pl_watch[0] || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_dev != pl_watch_dev)
        return;
    pthread_mutex_lock(&pl_dirty_mu);
    int slot = -1;
    for (int k = 0; k < PL_DIRTY_MAX; k++) {
        if (pl_dirty[k].ino == st.st_ino) {
            slot = k;
            break;
        }
        if (slot < 0 && pl_dirty[k].ino == 0) slot = k;
    }
    if (slot < 0) {
        pl_dirty_overflow = 1;
    } else if (pl_dirty[slot].ino != st.st_ino) {
        pl_dirty[slot].ino = st.st_ino;
        pl_dirty[slot].from = off;
        /* tells the rollback that this file is rewritten in place */
        char mark[PATH_MAX];
        plPath(mark, sizeof(mark), "inplace/%llu", (unsigned long long)st.st_ino);
        int fd2 = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd2 != -1) close(fd2);
    } else if (off < pl_dirty[slot].from) {
        pl_dirty[slot].from = off;
    }
    pthread_mutex_unlock(&pl_dirty_mu);
}

/* At an fsync: the lowest offset positioned writes touched since the last
 * one (the entry is cleared), -1 for none, -2 when unknown. */
static off_t plTakeDirty(ino_t ino) {
    off_t from = -1;
    pthread_mutex_lock(&pl_dirty_mu);
    for (int k = 0; k < PL_DIRTY_MAX; k++) {
        if (pl_dirty[k].ino == ino) {
            from = pl_dirty[k].from;
            pl_dirty[k].ino = 0;
            break;
        }
    }
    if (from == -1 && pl_dirty_overflow) from = -2;
    pthread_mutex_unlock(&pl_dirty_mu);
    return from;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off) {
    ssize_t w = real_pwrite(fd, buf, len, off);
    if (w > 0) plNoteWrite(fd, off);
    return w;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
    ssize_t w = real_pwritev(fd, iov, cnt, off);
    if (w > 0) plNoteWrite(fd, off);
    return w;
}

/* A file that only grew since it was last recorded (an AOF) gets just its
 * new bytes appended to data/ID, so each fsync costs what it added. "Only
 * grew" is judged by its first and last 16 KB of the recorded length, which
 * is enough for the append-only and write-once files this is used with.
 * Bytes rewritten in place from `dirty` on (plTakeDirty; -1: none, -2:
 * unknown) are taken again from there.
 * Returns the recorded length before the append (to undo it if the real
 * call fails; after a rewrite in place, the lower offset it started at),
 * or -1 when the whole file must be copied. */
static off_t plAppendContent(int in, const char *data, off_t dirty) {
    if (dirty == -2) return -1;
    int out = open(data, O_RDWR | O_CLOEXEC);
    if (out == -1) return -1;
    struct stat si, so;
    off_t ret = -1;
    if (dirty >= 0 && fstat(in, &si) == 0 && fstat(out, &so) == 0 && dirty < so.st_size &&
        si.st_size >= dirty) {
        if (ftruncate(out, dirty) == 0 && lseek(out, 0, SEEK_END) == dirty &&
            plCopyFrom(in, out, dirty) == 0)
            ret = dirty;
        close(out);
        return ret;
    }
    if (fstat(in, &si) == 0 && fstat(out, &so) == 0 && si.st_size >= so.st_size && so.st_size > 0 &&
        plSameRange(in, out, 0, PL_WINDOW < so.st_size ? PL_WINDOW : (size_t)so.st_size) &&
        plSameRange(in, out, so.st_size > PL_WINDOW ? so.st_size - PL_WINDOW : 0,
                    so.st_size > PL_WINDOW ? PL_WINDOW : (size_t)so.st_size)) {
        if (lseek(out, 0, SEEK_END) == so.st_size && plCopyFrom(in, out, so.st_size) == 0)
            ret = so.st_size;
        else if (ftruncate(out, so.st_size) == -1)
            ret = -1;
    }
    close(out);
    return ret;
}

/* Takes the content of the open file fd: appended to data/ID in place
 * (*undo = the old length) or copied whole into a temp file (*undo = -1)
 * that the caller commits once the real fsync succeeded. */
static int plTakeContent(int fd, ino_t ino, const char *id, char *tmp, size_t size, off_t *undo) {
    char self[64], data[PATH_MAX];
    snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
    int in = open(self, O_RDONLY | O_CLOEXEC); /* works for O_WRONLY fds too */
    if (in == -1) return -1;
    plPath(data, sizeof(data), "data/%s", id);
    *undo = plAppendContent(in, data, plTakeDirty(ino));
    if (*undo >= 0) {
        close(in);
        return 0;
    }
    int out = plTempOpen(tmp, size);
    int ok = out != -1 && plCopyFrom(in, out, 0) == 0;
    close(in);
    if (out != -1) close(out);
    if (!ok && out != -1) real_unlink(tmp);
    return ok ? 0 : -1;
}

/* Lists the directory's current entries into a temp file, to become its
 * durable ones (plCommitDir). The entry count, or -1. */
static int plListDir(const char *path, char *tmp, size_t size) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int out = plTempOpen(tmp, size);
    if (out == -1) {
        closedir(d);
        return -1;
    }
    struct dirent *e;
    int entries = 0;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) continue;
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
        char id[64], line[PATH_MAX + 80];
        plId(id, sizeof(id), st.st_ino);
        int n = snprintf(line, sizeof(line), "%c %s %s\n", S_ISDIR(st.st_mode) ? 'd' : 'f', id,
                         e->d_name);
        (void)plWriteAll(out, line, (size_t)n);
        entries++;
    }
    closedir(d);
    close(out);
    return entries;
}

static void plCommitDir(const char *tmp, const char *path, ino_t ino, int entries) {
    char id[64], rel[96];
    plId(id, sizeof(id), ino);
    snprintf(rel, sizeof(rel), "dir/%s", id);
    plCommit(tmp, rel);
    plLog("%d dirsync %s %s %d", (int)getpid(), id, path, entries);
}

static void plRecordFileNow(const char *path, ino_t ino) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) return;
    char tmp[PATH_MAX], id[64], rel[96];
    off_t undo;
    plId(id, sizeof(id), ino);
    if (plTakeContent(fd, ino, id, tmp, sizeof(tmp), &undo) == 0 && undo < 0) {
        snprintf(rel, sizeof(rel), "data/%s", id);
        plCommit(tmp, rel);
    }
    close(fd);
}

/* Everything in the tree at path becomes durable (baseline, sync). */
static void plRecordTree(const char *path) {
    struct stat st;
    if (lstat(path, &st) == -1) return;
    if (S_ISREG(st.st_mode)) {
        plRecordFileNow(path, st.st_ino);
        return;
    }
    if (!S_ISDIR(st.st_mode)) return;
    char tmp[PATH_MAX];
    int entries = plListDir(path, tmp, sizeof(tmp));
    if (entries >= 0) plCommitDir(tmp, path, st.st_ino, entries);
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char child[PATH_MAX];
        if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, e->d_name) < sizeof(child))
            plRecordTree(child);
    }
    closedir(d);
}

static void plSyncAll(const char *why) {
    int lk = plLock();
    plRecordTree(pl_watch);
    plLog("%d %s", (int)getpid(), why);
    plUnlock(lk);
}

__attribute__((constructor)) static void plInit(void) {
    plLoadSymbols();
    const char *watch = getenv("CAIRN_POWERLOSS_DIR"), *state = getenv("CAIRN_POWERLOSS_STATE");
    if (!watch || !state || !realpath(watch, pl_watch) || !realpath(state, pl_state)) {
        pl_watch[0] = '\0';
        return;
    }
    struct stat st;
    if (stat(pl_watch, &st) == -1) {
        pl_watch[0] = '\0';
        return;
    }
    pl_watch_len = strlen(pl_watch);
    pl_watch_dev = st.st_dev;
    char p[PATH_MAX];
    plPath(p, sizeof(p), "lock");
    pl_lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (pl_lockfd == -1) {
        pl_watch[0] = '\0';
        return;
    }
    pthread_atfork(plForkPrepare, plForkRelease, plForkRelease);
    plPath(p, sizeof(p), "gen");
    mkdir(p, 0755);
    plPath(p, sizeof(p), "data");
    mkdir(p, 0755);
    plPath(p, sizeof(p), "dir");
    mkdir(p, 0755);
    plPath(p, sizeof(p), "inplace");
    mkdir(p, 0755);
    int lk = plLock();
    plPath(p, sizeof(p), "root");
    if (access(p, F_OK) == -1) {
        plRecordTree(pl_watch);
        char tmp[PATH_MAX], id[80];
        int n =
            snprintf(id, sizeof(id), "%llu.%lu\n", (unsigned long long)st.st_ino, plGen(st.st_ino));
        int fd = plTempOpen(tmp, sizeof(tmp));
        if (fd != -1) {
            (void)plWriteAll(fd, id, (size_t)n);
            close(fd);
            plCommit(tmp, "root");
        }
        plLog("%d baseline %s", (int)getpid(), pl_watch);
    }
    plUnlock(lk);
}

/* ---- the interposed calls ---- */

/* fsync and fdatasync: what the file (or directory) holds when the call is
 * made is recorded as durable once the call succeeded. */
static int plSync(int fd, int (*real)(int), const char *what) {
    char path[PATH_MAX];
    struct stat st;
    if (!pl_watch[0] || fstat(fd, &st) == -1 || st.st_dev != pl_watch_dev ||
        plFdPath(fd, path, sizeof(path)) == -1 || !plUnder(path) ||
        !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
        return real(fd);
    int saved = errno;
    /* taken before the call: what changes meanwhile is not covered. The
     * lock is not held during the real call, so that one process's slow
     * fsync does not hold up another's. */
    char tmp[PATH_MAX], id[64], rel[96];
    int dir = S_ISDIR(st.st_mode);
    off_t undo = -1;
    int lk = plLock();
    plId(id, sizeof(id), st.st_ino);
    int taken = dir ? plListDir(path, tmp, sizeof(tmp))
                    : plTakeContent(fd, st.st_ino, id, tmp, sizeof(tmp), &undo);
    plUnlock(lk);
    int ret = real(fd);
    int e = errno;
    lk = plLock();
    if (taken >= 0 && ret == 0) {
        if (dir) {
            plCommitDir(tmp, path, st.st_ino, taken);
        } else {
            snprintf(rel, sizeof(rel), "data/%s", id);
            if (undo < 0) plCommit(tmp, rel);
            plLog("%d %s %s %s %lld", (int)getpid(), what, id, path, (long long)st.st_size);
        }
    } else if (taken >= 0 && undo >= 0) {
        plPath(tmp, sizeof(tmp), "data/%s", id);
        if (truncate(tmp, undo) == -1) { /* the file stays longer: as if the disk kept more */
        }
    } else if (taken >= 0) {
        real_unlink(tmp);
    }
    plUnlock(lk);
    errno = ret == 0 ? saved : e;
    return ret;
}

int fsync(int fd) {
    return plSync(fd, real_fsync, "fsync");
}
int fdatasync(int fd) {
    return plSync(fd, real_fdatasync, "fdatasync");
}

void sync(void) {
    real_sync();
    if (pl_watch[0]) plSyncAll("sync");
}

int syncfs(int fd) {
    int ret = real_syncfs(fd);
    struct stat st;
    if (ret == 0 && pl_watch[0] && fstat(fd, &st) == 0 && st.st_dev == pl_watch_dev)
        plSyncAll("syncfs");
    return ret;
}

/* A name about to go away (unlink, or the target of a rename): its inode
 * number, when it holds the last link of a regular file of the tree. */
static int plVictim(int dirfd, const char *path, ino_t *ino) {
    char abs[PATH_MAX];
    struct stat st;
    if (!pl_watch[0] || plAbsPath(dirfd, path, abs, sizeof(abs)) == -1 || !plUnder(abs)) return 0;
    if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == -1) return 0;
    if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_dev != pl_watch_dev) return 0;
    *ino = st.st_ino;
    return 1;
}

/* The lock is held across the real call, so no fsync can record a new
 * file that reuses the inode number under the old generation. */
static int plBegin(void) {
    return pl_watch[0] ? plLock() : -1;
}

static void plRemoved(int lk, int ok, int victim, ino_t ino, const char *what, const char *path) {
    if (lk == -1) return;
    int saved = errno;
    if (ok && victim) {
        plBumpGen(ino);
        plLog("%d %s %llu %s", (int)getpid(), what, (unsigned long long)ino, path);
    }
    plUnlock(lk);
    errno = saved;
}

int unlink(const char *path) {
    int lk = plBegin();
    ino_t ino = 0;
    int v = plVictim(AT_FDCWD, path, &ino);
    int ret = real_unlink(path);
    plRemoved(lk, ret == 0, v, ino, "unlink", path);
    return ret;
}

int unlinkat(int dirfd, const char *path, int flags) {
    int lk = plBegin();
    ino_t ino = 0;
    int v = !(flags & AT_REMOVEDIR) && plVictim(dirfd, path, &ino);
    int ret = real_unlinkat(dirfd, path, flags);
    plRemoved(lk, ret == 0, v, ino, "unlink", path);
    return ret;
}

/* A rename keeps the source's inode (and id); only a replaced target's
 * inode loses its name. */
int rename(const char *from, const char *to) {
    int lk = plBegin();
    ino_t ino = 0;
    int v = plVictim(AT_FDCWD, to, &ino);
    int ret = real_rename(from, to);
    plRemoved(lk, ret == 0, v, ino, "replace", to);
    return ret;
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    int lk = plBegin();
    ino_t ino = 0;
    int v = plVictim(tofd, to, &ino);
    int ret = real_renameat(fromfd, from, tofd, to);
    plRemoved(lk, ret == 0, v, ino, "replace", to);
    return ret;
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags) {
    int lk = plBegin();
    ino_t ino = 0;
    int v = !(flags & RENAME_EXCHANGE) && plVictim(tofd, to, &ino);
    int ret = real_renameat2(fromfd, from, tofd, to, flags);
    plRemoved(lk, ret == 0, v, ino, "replace", to);
    return ret;
}
