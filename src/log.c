/* log: the server log (loglevel, logfile) in Redis' line format, and the
 * assertion/panic reporters.
 *
 * Lines enter from serverLog anywhere in the process and leave appended to
 * cfg.logfile (reopened per line, so logrotate works) or stdout. */
#include "config.h"
#include "log.h"
#include "util.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

void serverLogRaw(int level, const char *msg) {
    static const char *marks = ".-*#";
    int raw = level & LL_RAW;
    level &= 0xff;
    if (level < cfg.verbosity) return;
    int tostdout = !cfg.logfile || cfg.logfile[0] == '\0';
    FILE *fp = tostdout ? stdout : fopen(cfg.logfile, "a");
    if (!fp) return;
    if (raw) {
        fprintf(fp, "%s", msg);
    } else {
        char buf[64];
        struct timeval tv;
        gettimeofday(&tv, NULL);
        struct tm tm;
        localtime_r(&tv.tv_sec, &tm);
        int off = strftime(buf, sizeof(buf), "%d %b %Y %H:%M:%S.", &tm);
        snprintf(buf + off, sizeof(buf) - off, "%03d", (int)tv.tv_usec / 1000);
        fprintf(fp, "%d:M %s %c %s\n", (int)getpid(), buf, marks[level], msg);
    }
    fflush(fp);
    if (!tostdout) fclose(fp);
}

void serverLog(int level, const char *fmt, ...) {
    if ((level & 0xff) < cfg.verbosity) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    serverLogRaw(level, msg);
}

/* Async-signal-safe: no stdio, no allocation. */
void serverLogFromSignal(int level, const char *msg) {
    if ((level & 0xff) < cfg.verbosity) return;
    int tostdout = !cfg.logfile || cfg.logfile[0] == '\0';
    int fd = tostdout ? STDOUT_FILENO : open(cfg.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644);
    if (fd == -1) return;
    char pid[24];
    int l = ll2string(pid, sizeof(pid), getpid());
    if (write(fd, pid, l) == -1 || write(fd, ":signal-handler * ", 18) == -1 ||
        write(fd, msg, strlen(msg)) == -1 || write(fd, "\n", 1) == -1) {
        /* nothing more can be done from a signal handler */
    }
    if (!tostdout) close(fd);
}

void serverAssertFail(const char *expr, const char *file, int line) {
    serverLog(LL_WARNING, "=== ASSERTION FAILED === %s:%d '%s' is not true", file, line, expr);
    abort();
}

void serverPanic(const char *msg) {
    serverLog(LL_WARNING, "!!! Guru Meditation: %s", msg);
    abort();
}
