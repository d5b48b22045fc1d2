/* watchdog: the software watchdog (CONFIG SET watchdog-period MS).
 *
 * While armed, every cron tick pushes a one-shot SIGALRM timer
 * (ITIMER_REAL) watchdog-period milliseconds into the future. A main
 * thread that keeps returning to the event loop keeps pushing it away, so
 * the signal only arrives when one step (a command, a script, a load) has
 * held the thread longer than the period. The handler then writes
 * "--- WATCHDOG TIMER EXPIRED ---" and the interrupted thread's stack to
 * the log and returns: the server goes on, as Redis' does, and the report
 * shows where it was stuck.
 *
 * The handler uses only async-signal-safe calls (write(2) through
 * serverLogFromSignal, backtrace_symbols_fd straight to a descriptor;
 * backtrace itself was warmed up by crashInstallHandlers). Only the main
 * thread can take the signal: the bio threads block every signal.
 *
 * Data enters as cfg.watchdog_period (config file or CONFIG SET, through
 * watchdogApply) and leaves as text appended to the log. */
#include "config.h"
#include "crash.h"
#include "log.h"
#include "watchdog.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define WATCHDOG_FRAMES 100

static void watchdogWrite(int fd, const char *s) {
    if (write(fd, s, strlen(s)) == -1) {
        /* nothing more can be done from a signal handler */
    }
}

static void watchdogHandler(int sig, siginfo_t *info, void *uc) {
    (void)sig;
    (void)info;
    int saved_errno = errno; /* the interrupted code may be about to read it */
    serverLogFromSignal(LL_WARNING, "\n--- WATCHDOG TIMER EXPIRED ---");
    int tostdout = !cfg.logfile || cfg.logfile[0] == '\0';
    int fd = tostdout ? STDOUT_FILENO : open(cfg.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644);
    if (fd != -1) {
        void *frames[WATCHDOG_FRAMES];
        int n = backtrace(frames, WATCHDOG_FRAMES);
        watchdogWrite(fd, "\n------ STACK TRACE ------\n");
        void *pc = (void *)crashContextPC(uc);
        if (pc) {
            watchdogWrite(fd, "EIP:\n");
            backtrace_symbols_fd(&pc, 1, fd);
        }
        watchdogWrite(fd, "\nBacktrace:\n");
        /* Frame 0 is this handler: the stuck code starts after it. */
        if (n > 1) backtrace_symbols_fd(frames + 1, n - 1, fd);
        if (!tostdout) close(fd);
    }
    serverLogFromSignal(LL_WARNING, "--------\n");
    errno = saved_errno;
}

/* One shot, ms from now; 0 disarms. */
static void watchdogSchedule(int ms) {
    struct itimerval it = {0};
    it.it_value.tv_sec = ms / 1000;
    it.it_value.tv_usec = (long)(ms % 1000) * 1000;
    setitimer(ITIMER_REAL, &it, NULL);
}

int watchdogApply(const char **err) {
    (void)err;
    struct sigaction act = {0};
    sigemptyset(&act.sa_mask);
    if (cfg.watchdog_period == 0) {
        watchdogSchedule(0);
        /* Ignoring also drops an alarm already pending. */
        act.sa_handler = SIG_IGN;
        sigaction(SIGALRM, &act, NULL);
        return 1;
    }
    /* SA_RESTART: the alarm must not make the main thread's reads and
     * writes fail with EINTR; the report is all it should cause. */
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    act.sa_sigaction = watchdogHandler;
    sigaction(SIGALRM, &act, NULL);
    /* Shorter than two cron ticks would fire between healthy ticks:
     * raised to that, as Redis does (CONFIG GET then shows it). */
    int hz = cfg.hz > 0 ? cfg.hz : 1;
    int min_period = (1000 / hz) * 2;
    if (cfg.watchdog_period < min_period) cfg.watchdog_period = min_period;
    watchdogSchedule(cfg.watchdog_period);
    return 1;
}

void watchdogCron(void) {
    if (cfg.watchdog_period) watchdogSchedule(cfg.watchdog_period);
}
