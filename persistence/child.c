/* child: fork management for background jobs (see child.h).
 *
 * State is the child's pid, type and start time, kept here. In the child,
 * SIGTERM/SIGINT get their default action back (the parent's handlers only
 * set a flag its cron would read, and the child runs no cron) and SIGUSR1
 * terminates it, so the parent can cancel a save, and the child takes the
 * third oom-score-adj value. Each fork opens the
 * child-info pipe (child_info.c); whoever reaps the child drains and closes
 * it. */
#include "child.h"
#include "child_info.h"
#include "config.h"
#include "devcpu.h"
#include "dict.h"
#include "log.h"
#include "latency.h"
#include "oom.h"

#include <errno.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child_pid = -1;
static int child_type = CHILD_TYPE_NONE;
static long long child_start;
static long long last_fork_usec, total_forks;

pid_t childFork(int type) {
    if (child_pid != -1) {
        errno = EBUSY;
        return -1;
    }
    /* No pipe only means no progress reports: the job runs anyway. */
    if (childInfoOpen() == -1) serverLog(LL_WARNING, "Can't open the child info pipe: %s", strerror(errno));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    childInfoAfterFork(pid == 0);
    if (pid == 0) {
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGUSR1, SIG_DFL);
        (void)oomScoreAdjApply(OOM_CLASS_CHILD, NULL);
        if (type == CHILD_TYPE_AOF)
            devcpuApply(pthread_self(), cfg.aof_rewrite_cpulist, "aof_rewrite_cpulist");
        else
            devcpuApply(pthread_self(), cfg.bgsave_cpulist, "bgsave_cpulist");
        return 0;
    }
    if (pid == -1) {
        childInfoClose();
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    last_fork_usec = (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000;
    total_forks++;
    /* the latency monitor's "fork" event, as in Redis */
    latencyAddSampleIfNeeded("fork", last_fork_usec / 1000);
    child_pid = pid;
    child_type = type;
    child_start = (long long)time(NULL);
    dictSetResizeEnabled(0);
    return pid;
}

int childActiveType(void) { return child_type; }
pid_t childPid(void) { return child_pid; }
long long childStartTime(void) { return child_start; }
long long childLastForkUsec(void) {
    return last_fork_usec;
}
long long childTotalForks(void) {
    return total_forks;
}

static void childForget(void) {
    child_pid = -1;
    child_type = CHILD_TYPE_NONE;
    dictSetResizeEnabled(1);
}

int childCheckDone(int *type, int *exitcode, int *bysignal) {
    if (child_pid == -1) return 0;
    int status;
    pid_t pid = waitpid(child_pid, &status, WNOHANG);
    if (pid == 0) return 0;
    if (pid == -1) {
        /* Lost (e.g. reaped elsewhere): report a failure rather than wait forever. */
        serverLog(LL_WARNING, "waitpid() returned an error: %s. child_pid = %d", strerror(errno),
                  (int)child_pid);
        *exitcode = 1;
        *bysignal = 0;
    } else {
        *exitcode = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
        *bysignal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    *type = child_type;
    childForget();
    return 1;
}

void childKill(void) {
    if (child_pid == -1) return;
    kill(child_pid, SIGUSR1);
    int status;
    while (waitpid(child_pid, &status, 0) == -1 && errno == EINTR) {
    }
    childForget();
}

void childStop(void) {
    if (child_pid != -1) kill(child_pid, SIGUSR1);
}

void childExit(int status) { _exit(status); }
