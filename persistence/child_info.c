/* child_info: the child-info pipe and the copy-on-write measurement (see
 * child_info.h). State: the two pipe ends, -1 when closed. */
#include "child_info.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static int info_pipe[2] = {-1, -1};

static void closeEnd(int j) {
    if (info_pipe[j] != -1) close(info_pipe[j]);
    info_pipe[j] = -1;
}

int childInfoOpen(void) {
    closeEnd(0);
    closeEnd(1);
    if (pipe(info_pipe) == -1) {
        info_pipe[0] = info_pipe[1] = -1;
        return -1;
    }
    /* Neither side may ever wait on the other: a parent busy with clients
     * must not stall the save, and the parent reads from its cron. */
    for (int j = 0; j < 2; j++) {
        fcntl(info_pipe[j], F_SETFL, fcntl(info_pipe[j], F_GETFL) | O_NONBLOCK);
        fcntl(info_pipe[j], F_SETFD, FD_CLOEXEC);
    }
    return 0;
}

void childInfoAfterFork(int in_child) { closeEnd(in_child ? 0 : 1); }

void childInfoClose(void) { closeEnd(0); }

void childInfoSend(int kind, long long keys) {
    if (info_pipe[1] == -1) return;
    childInfoMsg m;
    memset(&m, 0, sizeof(m));
    m.kind = kind;
    m.keys = keys;
    m.cow_bytes = childInfoPrivateDirty();
    ssize_t n;
    do {
        n = write(info_pipe[1], &m, sizeof(m));
    } while (n == -1 && errno == EINTR);
}

int childInfoReceive(childInfoMsg *m) {
    if (info_pipe[0] == -1) return 0;
    ssize_t n;
    do {
        n = read(info_pipe[0], m, sizeof(*m));
    } while (n == -1 && errno == EINTR);
    /* Writes of less than PIPE_BUF are atomic, so a message is whole or absent. */
    return n == (ssize_t)sizeof(*m);
}

static size_t sumPrivateDirty(const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) return (size_t)-1;
    char line[256];
    size_t total = 0;
    while (fgets(line, sizeof(line), fp)) {
        unsigned long long kb;
        if (!strncmp(line, "Private_Dirty:", 14) && sscanf(line + 14, "%llu", &kb) == 1)
            total += (size_t)kb * 1024;
    }
    fclose(fp);
    return total;
}

size_t childInfoPrivateDirty(void) {
    size_t n = sumPrivateDirty("/proc/self/smaps_rollup");
    if (n == (size_t)-1) n = sumPrivateDirty("/proc/self/smaps");
    return n == (size_t)-1 ? 0 : n;
}

int childInfoTHPAlways(void) {
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!fp) return 0;
    char buf[128] = "";
    if (!fgets(buf, sizeof(buf), fp)) buf[0] = '\0';
    fclose(fp);
    return strstr(buf, "[always]") != NULL;
}

int childInfoDisableTHP(void) {
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0 ? 0 : -1;
#else
    errno = ENOSYS;
    return -1;
#endif
}
