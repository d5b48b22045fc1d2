/* faultfs: an LD_PRELOAD shim that makes a disk fail on demand, so the
 * disk-full and I/O-error tests run on any machine (no tmpfs, no root).
 *
 * What it owns: nothing but its counters. It wraps write, writev, pwrite,
 * pwritev, fsync, fdatasync and rename; every other call goes straight to
 * libc.
 *
 * How control enters (environment, read once, plus one control file read
 * at every wrapped call):
 *   FAULTFS_DIR=PATH      only files under PATH fail (the path of an fd is
 *                         read from /proc/self/fd; a rename is judged by
 *                         its target). Unset: the shim does nothing.
 *   FAULTFS_CONTROL=FILE  faults happen only while FILE exists. Its
 *                         content, when not empty, says which: words among
 *                         ENOSPC EIO EDQUOT (the errno, default ENOSPC),
 *                         write fsync rename (the calls that fail, default
 *                         all three; writev counts as write, fdatasync as
 *                         fsync) and after=N (writes succeed for N more
 *                         bytes from the moment the file appeared, then the
 *                         one crossing the limit is cut short, like a disk
 *                         that fills up mid-write, and later ones fail).
 *                         Without FAULTFS_CONTROL the faults are permanent.
 * How effects leave: wrapped calls return -1 with that errno (or a short
 * count), as the kernel would. Writes to other files, sockets and pipes are
 * never touched, and the shim allocates nothing, so it is safe in the bio
 * threads and in forked children (a child starts with the parent's byte
 * budget and spends its own copy).
 *
 * Build: make builds build/normal/faultfs.so (build/sanitize/ with
 * SANITIZE=1). Under AddressSanitizer the server needs
 * ASAN_OPTIONS=verify_asan_link_order=0 to accept a preload. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define FF_WRITE 1
#define FF_FSYNC 2
#define FF_RENAME 4

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);

static const char *ff_dir, *ff_control;
static size_t ff_dirlen;
/* after=N: bytes still allowed since the control file appeared; the
 * budget restarts when the file disappears and comes back. */
static long long ff_budget = -1;
static int ff_was_active;

__attribute__((constructor)) static void ffInit(void) {
    real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    real_writev = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    real_pwrite = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    real_pwritev = (ssize_t (*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev");
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    /* Copies: the server moves its environment and writes its process
     * title over the strings getenv points into (proctitle.c). */
    ff_dir = getenv("FAULTFS_DIR");
    ff_control = getenv("FAULTFS_CONTROL");
    if (ff_dir) ff_dir = strdup(ff_dir);
    if (ff_control) ff_control = strdup(ff_control);
    if (ff_dir && !*ff_dir) ff_dir = NULL;
    if (ff_dir) ff_dirlen = strlen(ff_dir);
}

static int ffUnder(const char *path) {
    return strncmp(path, ff_dir, ff_dirlen) == 0 &&
           (path[ff_dirlen] == '/' || path[ff_dirlen] == '\0');
}

static int ffFdUnder(int fd) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n <= 0) return 0;
    path[n] = '\0';
    return ffUnder(path);
}

static int ffPathUnder(const char *p) {
    if (p[0] == '/') return ffUnder(p);
    char path[PATH_MAX];
    if (!getcwd(path, sizeof(path))) return 0;
    size_t l = strlen(path);
    if (l + 1 + strlen(p) >= sizeof(path)) return 0;
    path[l] = '/';
    strcpy(path + l + 1, p);
    return ffUnder(path);
}

/* Is a fault of kind `op` active now? Sets *err and, for after=N, *budget
 * (-1: none). Reads the control file each time: the test flips it while
 * the server runs. */
static int ffActive(int op, int *err, long long *budget) {
    *err = ENOSPC;
    *budget = -1;
    int ops = FF_WRITE | FF_FSYNC | FF_RENAME;
    if (ff_control) {
        int fd = open(ff_control, O_RDONLY | O_CLOEXEC);
        if (fd == -1) {
            ff_was_active = 0;
            return 0;
        }
        char buf[256];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        int named_ops = 0;
        long long after = -1;
        const char *sep = " \t\r\n";
        char *save = NULL;
        for (char *w = strtok_r(buf, sep, &save); w; w = strtok_r(NULL, sep, &save)) {
            if (!strcmp(w, "ENOSPC")) *err = ENOSPC;
            else if (!strcmp(w, "EIO")) *err = EIO;
            else if (!strcmp(w, "EDQUOT")) *err = EDQUOT;
            else if (!strcmp(w, "write")) named_ops |= FF_WRITE;
            else if (!strcmp(w, "fsync")) named_ops |= FF_FSYNC;
            else if (!strcmp(w, "rename")) named_ops |= FF_RENAME;
            else if (!strncmp(w, "after=", 6)) after = atoll(w + 6);
        }
        if (named_ops) ops = named_ops;
        if (!ff_was_active) ff_budget = after;
        ff_was_active = 1;
        *budget = after >= 0 ? ff_budget : -1;
    }
    return (ops & op) != 0;
}

/* How many of len bytes a write may take: len, fewer (cut short), or -1
 * with errno set. */
static ssize_t ffAllow(int fd, size_t len) {
    int err;
    long long budget;
    if (!ff_dir || !ffActive(FF_WRITE, &err, &budget) || !ffFdUnder(fd)) return (ssize_t)len;
    if (budget <= 0) {
        errno = err;
        return -1;
    }
    size_t take = (long long)len <= budget ? len : (size_t)budget;
    __atomic_fetch_sub(&ff_budget, (long long)take, __ATOMIC_RELAXED);
    return (ssize_t)take;
}

ssize_t write(int fd, const void *buf, size_t len) {
    ssize_t allow = ffAllow(fd, len);
    if (allow < 0) return -1;
    return real_write(fd, buf, (size_t)allow);
}

/* writev and pwritev (off -1: writev): cut short to the allowed prefix. */
static ssize_t ffWritev(int fd, const struct iovec *iov, int cnt, off_t off) {
    size_t len = 0;
    for (int j = 0; j < cnt; j++) len += iov[j].iov_len;
    ssize_t allow = ffAllow(fd, len);
    if (allow < 0) return -1;
    if ((size_t)allow == len) return off < 0 ? real_writev(fd, iov, cnt) : real_pwritev(fd, iov, cnt, off);
    struct iovec part[cnt > 0 ? cnt : 1];
    int n = 0;
    size_t left = (size_t)allow;
    for (int j = 0; j < cnt && left; j++) {
        part[n].iov_base = iov[j].iov_base;
        part[n].iov_len = iov[j].iov_len < left ? iov[j].iov_len : left;
        left -= part[n].iov_len;
        n++;
    }
    if (n == 0) {
        errno = ENOSPC;
        return -1;
    }
    return off < 0 ? real_writev(fd, part, n) : real_pwritev(fd, part, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
    return ffWritev(fd, iov, cnt, -1);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
    if (off < 0) {
        errno = EINVAL;
        return -1;
    }
    return ffWritev(fd, iov, cnt, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off) {
    ssize_t allow = ffAllow(fd, len);
    if (allow < 0) return -1;
    return real_pwrite(fd, buf, (size_t)allow, off);
}

static int ffSyncFails(int fd) {
    int err;
    long long budget;
    if (!ff_dir || !ffActive(FF_FSYNC, &err, &budget) || !ffFdUnder(fd)) return 0;
    /* after=N concerns the bytes; fsync fails only once they ran out. */
    if (budget > 0) return 0;
    errno = err;
    return 1;
}

int fsync(int fd) { return ffSyncFails(fd) ? -1 : real_fsync(fd); }

int fdatasync(int fd) { return ffSyncFails(fd) ? -1 : real_fdatasync(fd); }

int rename(const char *from, const char *to) {
    int err;
    long long budget;
    if (ff_dir && ffActive(FF_RENAME, &err, &budget) && budget <= 0 && ffPathUnder(to)) {
        errno = err;
        return -1;
    }
    return real_rename(from, to);
}
