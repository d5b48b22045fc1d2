/* main: start-up order, the cron, the before-sleep hook and shutdown.
 *
 * Start-up: defaults -> config file and argv overrides -> daemonize/pidfile
 * -> shared objects, databases, command table -> listeners -> event loop.
 * Every 1000/hz ms the cron updates cached time, serves client timeouts,
 * active expiry and rehashing. Before each sleep pending replies are written
 * and clients marked for closing are freed. */
#include "acl.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "conn.h"
#include "conn_tls.h"
#include "db.h"
#include "dict.h"
#include "event.h"
#include "evict.h"
#include "info.h"
#include "log.h"
#include "object.h"
#include "oom.h"
#include "propagate.h"
#include "sds.h"
#include "script.h"
#include "function.h"
#include "server_state.h"
#include "shutdown_wait.h"
#include "tls.h"
#include "tracking.h"
#include "proctitle.h"
#include "util.h"
#include "watchdog.h"
#include "zmalloc.h"
#include "bio.h"
#include "devcpu.h"
#include "blocked.h"
#include "check_rdb.h"
#include "child_info.h"
#include "crash.h"
#include "lazyfree.h"
#include "snapshot.h"
#include "acl.h"
#include "aof.h"
#include "repl.h"
#include "waitaof.h"
#include "aof_check.h"
#include "backup.h"
#include "migrate.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

struct cairnServer server;

void infoTrackSamples(void);
void infoRecordStartupMemory(void);
int debugActiveExpireEnabled(void);
int debugCronPaused(void);
sds configArgvToOverrides(int argc, char **argv, int start);

void updateCachedTime(void) {
    server.ustime = ustime();
    server.unixtime_ms = server.ustime / 1000;
    server.unixtime = (time_t)(server.unixtime_ms / 1000);
    server.lruclock = getLRUClock();
}

unsigned int getLRUClock(void) {
    return (unsigned int)((mstime() / LRU_CLOCK_RESOLUTION) & LRU_CLOCK_MAX);
}

/* The cached clock is good enough: the cron refreshes it more often than
 * the clock's one-second resolution. */
unsigned int lruClock(void) { return server.lruclock; }

long long estimateObjectIdleTime(robj *o) {
    unsigned long long now = lruClock();
    if (now >= o->lru) return (now - o->lru) * LRU_CLOCK_RESOLUTION;
    return (now + (LRU_CLOCK_MAX - o->lru)) * LRU_CLOCK_RESOLUTION;
}

void resetServerStats(void) {
    server.stat_numcommands = 0;
    server.stat_numconnections = 0;
    server.stat_expiredkeys = 0;
    server.stat_expired_time_cap_reached_count = 0;
    server.stat_keyspace_hits = server.stat_keyspace_misses = 0;
    server.stat_net_input_bytes = server.stat_net_output_bytes = 0;
    server.stat_rejected_conn = 0;
    server.stat_total_error_replies = 0;
    server.stat_unexpected_error_replies = 0;
    server.stat_io_reads_processed = server.stat_io_writes_processed = 0;
    server.stat_client_qbuf_limit_disconnections = 0;
    server.stat_client_outbuf_limit_disconnections = 0;
    server.stat_reply_buffer_shrinks = server.stat_reply_buffer_expands = 0;
    server.stat_evictedkeys = 0;
    server.stat_evictedclients = 0;
    evictResetStats();
    lazyfreeResetStats();
    commandResetStats();
    replResetStats();
    errorStatsReset();
}

static void closeListenerSet(int *fds, int *count) {
    for (int j = 0; j < *count; j++) {
        elDelFile(server.el, fds[j], EV_READABLE);
        close(fds[j]);
    }
    *count = 0;
}

static void closeListeners(void) {
    closeListenerSet(server.listen_fds, &server.listen_count);
    closeListenerSet(server.tls_listen_fds, &server.tls_listen_count);
    if (server.unix_fd != -1) {
        elDelFile(server.el, server.unix_fd, EV_READABLE);
        close(server.unix_fd);
        server.unix_fd = -1;
        if (cfg.unixsocket) unlink(cfg.unixsocket);
    }
}

int prepareForShutdown(int flags) {
    (void)flags;
    if (server.in_shutdown) return C_OK;
    server.in_shutdown = 1;
    serverLog(LL_WARNING, "User requested shutdown...");
    if (rdbShutdown(flags) != 0) {
        server.in_shutdown = 0;
        return C_ERR;
    }
    /* before the replies below: they may wait for it */
    if (aofShutdown(flags) != 0) {
        server.in_shutdown = 0;
        return C_ERR;
    }
    replShutdown();
    if (cfg.pidfile) unlink(cfg.pidfile);
    /* Flush what we can to clients before exiting (e.g. replies already
     * queued in this loop iteration). */
    clientsHandlePendingWrites();
    closeListeners();
    serverLog(LL_WARNING, "cairn is now ready to exit, bye bye...");
    return C_OK;
}

static void sigShutdownHandler(int sig) {
    if (server.shutdown_asap && sig == SIGINT) {
        serverLogFromSignal(LL_WARNING, "You insist... exiting now.");
        /* The final save may be under way: its temp file goes too (built
         * with async-signal-safe calls only). */
        char tmp[64] = "temp-";
        int n = ll2string(tmp + 5, sizeof(tmp) - 10, (long long)getpid());
        memcpy(tmp + 5 + n, ".rdb", 5);
        unlink(tmp);
        if (cfg.pidfile) unlink(cfg.pidfile);
        _exit(1);
    }
    serverLogFromSignal(LL_WARNING, sig == SIGINT ? "Received SIGINT scheduling shutdown..."
                                                  : "Received SIGTERM scheduling shutdown...");
    server.shutdown_asap = 1;
    /* Wake the loop soon: the cron checks the flag every tick. */
}

static void setupSignals(void) {
    struct sigaction act = {0};
    sigemptyset(&act.sa_mask);
    act.sa_handler = sigShutdownHandler;
    sigaction(SIGTERM, &act, NULL);
    sigaction(SIGINT, &act, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    crashInstallHandlers();
}

static long long serverCron(eventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    watchdogCron();
    updateCachedTime();
    server.hz = cfg.hz;
    if (cfg.dynamic_hz) {
        /* More clients, more frequent cron: the per-call work stays small. */
        while (server.nclients / server.hz > 200 && server.hz < 500) server.hz *= 2;
    }
    /* DEBUG PAUSE-CRON: tests that need nothing to happen behind their back. */
    if (debugCronPaused()) return 1000 / server.hz;
    if (server.shutdown_asap && !server.in_shutdown) {
        if (!shutdownWaitBegin(SHUTDOWN_NOFLAGS, NULL) && prepareForShutdown(SHUTDOWN_NOFLAGS) == C_OK)
            exit(0);
        server.shutdown_asap = 0;
    }
    shutdownWaitCron();
    infoTrackSamples();
    rdbCron();
    aofCron();
    replCron();
    clientsCron();
    migrateCron();
    blockedCheckTimeouts();
    pauseCheckTimeout();
    tlsHandshakeCron();
    if (debugActiveExpireEnabled()) dbsCron();
    else if (cfg.activerehashing) {
        for (int j = 0; j < cfg.dbnum; j++)
            if (dictIsRehashing(server.db[j].dict)) dictRehashMilliseconds(server.db[j].dict, 1);
    }
    server.cronloops++;
    return 1000 / server.hz;
}

static void beforeSleep(eventLoop *el) {
    /* First: the input it serves may block or wake clients, and replies. */
    if (tlsProcessPending()) elPollNow(el);
    /* A long script serving events meanwhile is half-way through: the
     * clients its writes wake are served when it ends, as in Redis. */
    if (!scriptIsBusy()) {
        handleClientsBlockedOnKeys();
        processUnblockedClients();
    }
    trackingBroadcast();
    /* The AOF reads this turn's stream bytes before replies go out:
     * under appendfsync always the replies then wait for the fsync. */
    aofBeforeSleep();
    /* Replicas read the same stream bytes, from their own cursors. */
    replBeforeSleep();
    /* (after the AOF: an always group commit or an everysec fsync that
     * finished this turn may release WAITAOF waiters) */
    waitaofBeforeSleep();
    clientsHandlePendingWrites();
    clientsEvictIfNeeded();
    clientsFreePendingClose();
}

static void afterSleep(eventLoop *el) {
    (void)el;
    updateCachedTime();
}

/* Open listeners for cfg.bindaddr on `port` into fds; returns the count or
 * -1 on failure (then nothing stays open). */
static int listenOpen(int *fds, int port) {
    char **addrs = cfg.bindaddr;
    int count = cfg.bindaddr_count;
    int n = 0;
    /* bind "" (no address) means no TCP listener at all, as port 0 does;
     * the default "* -::*" is an ordinary value of the directive. */
    if (port == 0 || count == 0) return 0;
    for (int j = 0; j < count; j++) {
        const char *addr = addrs[j];
        int optional = addr[0] == '-';
        if (optional) addr++;
        int fd = netTcpListen(server.neterr, sizeof(server.neterr), addr, port, cfg.tcp_backlog);
        if (fd == -1) {
            if (optional || errno == EAFNOSUPPORT || errno == EADDRNOTAVAIL) {
                serverLog(LL_NOTICE, "Skipping optional bind address %s: %s", addr, server.neterr);
                continue;
            }
            serverLog(LL_WARNING, "Warning: Could not create server TCP listening socket %s:%d: %s",
                      addr, port, server.neterr);
            while (n) close(fds[--n]);
            return -1;
        }
        fds[n++] = fd;
    }
    if (n == 0) {
        serverLog(LL_WARNING, "Failed listening on port %d (no usable bind address)", port);
        return -1;
    }
    return n;
}

/* Replace the listeners in fds/count by the n in newfds. */
static void listenInstall(int *fds, int *count, const int *newfds, int n, evFileProc *accept) {
    closeListenerSet(fds, count);
    memcpy(fds, newfds, sizeof(int) * n);
    *count = n;
    for (int k = 0; k < n; k++) elAddFile(server.el, fds[k], EV_READABLE, accept, NULL);
}

/* At start-up. The "Failed listening" line is Redis': test suites and
 * supervisors look for it to tell a busy port from a slow start. */
static int listenToPort(void) {
    int fds[CONFIG_MAX_BIND * 2];
    int n = listenOpen(fds, cfg.port);
    if (n < 0) {
        serverLog(LL_WARNING, "Failed listening on port %d (TCP), aborting.", cfg.port);
        return C_ERR;
    }
    listenInstall(server.listen_fds, &server.listen_count, fds, n, clientAcceptTcp);
    n = listenOpen(fds, cfg.tls_port);
    if (n < 0) {
        serverLog(LL_WARNING, "Failed listening on port %d (TLS), aborting.", cfg.tls_port);
        return C_ERR;
    }
    listenInstall(server.tls_listen_fds, &server.tls_listen_count, fds, n, clientAcceptTls);
    return C_OK;
}

/* CONFIG SET port/tls-port/bind: open the new listeners first, so a failure
 * leaves the old ones serving. */
static int applyListenWith(const char **err, const char *failure, int tcp, int tls) {
    int fds[CONFIG_MAX_BIND * 2], tlsfds[CONFIG_MAX_BIND * 2];
    int n = tcp ? listenOpen(fds, cfg.port) : 0;
    int ntls = n >= 0 && tls ? listenOpen(tlsfds, cfg.tls_port) : 0;
    if (n < 0 || ntls < 0) {
        while (n > 0) close(fds[--n]);
        *err = failure;
        return 0;
    }
    if (tcp) listenInstall(server.listen_fds, &server.listen_count, fds, n, clientAcceptTcp);
    if (tls) listenInstall(server.tls_listen_fds, &server.tls_listen_count, tlsfds, ntls, clientAcceptTls);
    return 1;
}

/* Redis' messages differ by directive. */
static int applyPort(const char **err) {
    return applyListenWith(err, "Unable to listen on this port. Check server logs.", 1, 0);
}

static int applyBind(const char **err) {
    return applyListenWith(err, "Failed to bind to specified addresses.", 1, 1);
}

/* A tls-port on a server that had none loads the certificates first. */
static int applyTlsPort(const char **err) {
    if (cfg.tls_port && !tlsServerCtx() && !tlsApplyConfig(err)) return 0;
    return applyListenWith(err, "Unable to listen on this port. Check server logs.", 0, 1);
}

static int applyMaxclients(const char **err) {
    int want = (int)cfg.maxclients + CONFIG_MIN_RESERVED_FDS + 96;
    if (want > elGetSetSize(server.el) && elResize(server.el, want) != EV_OK) {
        *err = "The event loop API used by Redis is not able to handle the specified number of clients";
        return 0;
    }
    return 1;
}

static int applyHz(const char **err) {
    (void)err;
    server.hz = cfg.hz;
    return 1;
}

/* jemalloc-bg-thread: start or stop jemalloc's purging thread. A libc build
 * has none; the setting is then moot, as in a Redis built without jemalloc. */
static int applyJemallocBgThread(const char **err) {
    (void)err;
    zmalloc_set_background_thread(cfg.jemalloc_bg_thread);
    return 1;
}

/* oom-score-adj and its values changed: the value of the current role. */
static int applyOomScoreAdj(const char **err) {
    return oomScoreAdjApply(replIsReplica() ? OOM_CLASS_REPLICA : OOM_CLASS_PRIMARY, err);
}

static void daemonize(void) {
    if (fork() != 0) exit(0);
    setsid();
    int fd = open("/dev/null", O_RDWR, 0);
    if (fd != -1) {
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO) close(fd);
    }
}

static void createPidFile(void) {
    if (!cfg.pidfile) return;
    FILE *fp = fopen(cfg.pidfile, "w");
    if (!fp) {
        serverLog(LL_WARNING, "Failed to write PID file: %s", strerror(errno));
        return;
    }
    fprintf(fp, "%d\n", (int)getpid());
    fclose(fp);
}

/* Make room for maxclients connections plus the server's own descriptors,
 * raising the soft limit if allowed; otherwise lower maxclients to what the
 * system gives, as Redis does, and say so. */
static void adjustOpenFilesLimit(void) {
    rlim_t want = (rlim_t)cfg.maxclients + CONFIG_MIN_RESERVED_FDS;
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == -1) return;
    if (limit.rlim_cur >= want) return;
    struct rlimit next = limit;
    next.rlim_cur = want;
    if (next.rlim_max < want) next.rlim_max = want;
    if (setrlimit(RLIMIT_NOFILE, &next) == 0) return;
    next.rlim_max = limit.rlim_max;
    next.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &next) == 0) limit = next;
    if (limit.rlim_cur <= CONFIG_MIN_RESERVED_FDS) return;
    unsigned int old = cfg.maxclients;
    cfg.maxclients = (unsigned int)(limit.rlim_cur - CONFIG_MIN_RESERVED_FDS);
    serverLog(LL_WARNING, "You requested maxclients of %u requiring at least %llu max file "
                          "descriptors. Server can't set maximum open files to %llu; maxclients "
                          "is now %u.",
              old, (unsigned long long)want, (unsigned long long)want, cfg.maxclients);
}

static void usage(void) {
    fprintf(stderr,
            "Usage: ./cairn-server [/path/to/cairn.conf] [options] [-]\n"
            "       ./cairn-server - (read config from stdin)\n"
            "       ./cairn-server -v or --version\n"
            "       ./cairn-server -h or --help\n\n"
            "Examples:\n"
            "       ./cairn-server (run the server with default conf)\n"
            "       ./cairn-server default.conf\n"
            "       ./cairn-server --port 7777\n"
            "       ./cairn-server default.conf --loglevel verbose\n");
    exit(1);
}

/* The start-up banner: shown when the log is a terminal or with
 * always-show-logo; Redis' test suite and some supervisors find the pid in
 * its " PID: n" line. Otherwise one line with the mode and port. */
static void mainBanner(void) {
    int show = cfg.always_show_logo ||
               (!cfg.syslog_enabled && (!cfg.logfile || !cfg.logfile[0]) && isatty(STDOUT_FILENO));
    if (!show) {
        serverLog(LL_NOTICE, "Running mode=standalone, port=%d.", cfg.port);
        return;
    }
    char buf[512];
    snprintf(buf, sizeof(buf),
             "\n"
             "    .-.      cairn %s (Redis %s compatible) %d bit\n"
             "   (   )     \n"
             "  .-'-'-.    Running in standalone mode\n"
             " (       )   Port: %d\n"
             "  '-----'    PID: %d\n",
             CAIRN_OWN_VERSION, CAIRN_VERSION, (int)(sizeof(long) * 8), cfg.port, (int)getpid());
    serverLogRaw(LL_NOTICE, buf);
}

int main(int argc, char **argv) {
    /* Before anything keeps a pointer into argv or the environment. */
    proctitleInit(argc, argv);
    if (argc >= 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
        printf("cairn server v=%s redis_version=%s malloc=%s bits=%d\n", CAIRN_OWN_VERSION,
               CAIRN_VERSION, zmalloc_lib(), (int)(sizeof(long) * 8));
        return 0;
    }
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) usage();
    /* cairn-check-aof is a mode of this binary (utils/cairn-check-aof). */
    const char *prog = strrchr(argv[0], '/');
    if (!strcmp(prog ? prog + 1 : argv[0], "cairn-check-aof")) return aofCheckMain(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "--check-aof")) return aofCheckMain(argc - 1, argv + 1);

    memset(&server, 0, sizeof(server));
    server.unix_fd = -1;
    server.pid = getpid();
    server.executable = realpath(argv[0], NULL);
    server.exec_argv = argv;
    updateCachedTime();
    server.stat_starttime = server.unixtime;
    server.next_client_id = 1;
    getRandomHexChars(server.runid, 40);
    server.runid[40] = '\0';
    uint8_t seed[16];
    getRandomBytes(seed, sizeof(seed));
    dictSetHashFunctionSeed(seed);
    srandom((unsigned)(server.ustime ^ server.pid));

    /* cairn-check-rdb is this binary under another name (or --check-rdb),
     * so it checks a file with the very loader the server uses. */
    const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int as_checker = !strcmp(base, "cairn-check-rdb");
    if (as_checker || (argc >= 2 && !strcmp(argv[1], "--check-rdb"))) {
        configInitDefaults();
        objectCreateShared();
        dbInit();
        return checkRdbMain(argc - (as_checker ? 1 : 2), argv + (as_checker ? 1 : 2));
    }
    /* cairn-backup likewise: its snapshots are read by this loader. */
    int as_backup = !strcmp(base, "cairn-backup");
    if (as_backup || (argc >= 2 && !strcmp(argv[1], "--backup"))) {
        configInitDefaults();
        objectCreateShared();
        dbInit();
        return backupMain(argc - (as_backup ? 1 : 2), argv + (as_backup ? 1 : 2));
    }

    configInitDefaults();
    int j = 1;
    const char *configfile = NULL;
    if (argc >= 2 && argv[1][0] != '-') {
        configfile = argv[1];
        j = 2;
    }
    sds overrides = configArgvToOverrides(argc, argv, j);
    configLoad(configfile, overrides);
    sdsfree(overrides);
    server.hz = cfg.hz;

    if (cfg.daemonize) daemonize();
    setupSignals();
    serverLog(LL_NOTICE, "oO0OoO0OoO0Oo cairn is starting oO0OoO0OoO0Oo");
    serverLog(LL_NOTICE, "cairn version=%s (redis_version=%s), bits=%d, pid=%d, just started",
              CAIRN_OWN_VERSION, CAIRN_VERSION, (int)(sizeof(long) * 8), (int)getpid());
    if (!configfile)
        serverLog(LL_WARNING, "Warning: no config file specified, using the default config. In "
                              "order to specify a config file use cairn-server /path/to/cairn.conf");
    adjustOpenFilesLimit();
    /* Huge pages make a fork's copy-on-write copy 2 MB per small write.
     * As Redis, only when the kernel hands them out unasked. */
    if (cfg.disable_thp && childInfoTHPAlways() && childInfoDisableTHP() == -1)
        serverLog(LL_WARNING, "WARNING: Transparent Huge Pages (THP) are enabled and could not be "
                              "disabled for this process (%s): latency and memory usage of "
                              "background saves may suffer.", strerror(errno));
    server.el = elCreate((int)cfg.maxclients + CONFIG_MIN_RESERVED_FDS + 96);
    if (!server.el) {
        serverLog(LL_WARNING, "Failed creating the event loop: %s", strerror(errno));
        exit(1);
    }
    objectCreateShared();
    commandsInit();
    const char *rename_err = NULL;
    if (!commandsApplyRenames(&rename_err)) {
        fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (cairn) ***\n>>> 'rename-command'\n%s\n",
                rename_err);
        exit(1);
    }
    aclInit();
    scriptInit();
    functionsInit();
    sds acl_err = NULL;
    if (!aclLoadAtStartup(&acl_err)) {
        serverLog(LL_WARNING, "%s", acl_err);
        serverLog(LL_WARNING, "Aborting cairn startup because of ACL errors");
        exit(1);
    }
    dbInit();
    propagateInit();
    bioInit();
    /* After bioInit, as Redis: the background threads keep the process's
     * CPUs unless bio_cpulist says otherwise. */
    devcpuApply(pthread_self(), cfg.server_cpulist, "server_cpulist");

    tlsInit();
    if (tlsWanted()) {
        char tlserr[512];
        if (tlsConfigure(tlserr, sizeof(tlserr)) == -1) {
            serverLog(LL_WARNING, "%s", tlserr);
            serverLog(LL_WARNING, "Failed to configure TLS. Check logs for more info.");
            exit(1);
        }
    }
    if (listenToPort() == C_ERR) exit(1);
    if (cfg.unixsocket) {
        server.unix_fd = netUnixListen(server.neterr, sizeof(server.neterr), cfg.unixsocket,
                                       cfg.unixsocketperm, cfg.tcp_backlog);
        if (server.unix_fd == -1) {
            serverLog(LL_WARNING, "Failed opening Unix socket: %s", server.neterr);
            exit(1);
        }
        elAddFile(server.el, server.unix_fd, EV_READABLE, clientAcceptUnix, NULL);
    }
    if (server.listen_count == 0 && server.tls_listen_count == 0 && !cfg.unixsocket) {
        serverLog(LL_WARNING, "Configured to not listen anywhere, exiting.");
        exit(1);
    }
    cfgHooks.apply_port = applyPort;
    cfgHooks.apply_bind = applyBind;
    cfgHooks.apply_tls_port = applyTlsPort;
    cfgHooks.apply_tls = tlsApplyConfig;
    cfgHooks.apply_maxclients = applyMaxclients;
    cfgHooks.apply_hz = applyHz;
    cfgHooks.apply_watchdog = watchdogApply;
    cfgHooks.apply_proc_title = proctitleApply;
    if (cfg.set_proc_title) (void)proctitleApply(NULL);
    cfgHooks.apply_maxmemory = evictApplyMaxmemory;
    cfgHooks.apply_oom_score_adj = applyOomScoreAdj;
    cfgHooks.apply_jemalloc_bg_thread = applyJemallocBgThread;
    (void)applyJemallocBgThread(NULL);
    /* Like Redis, a failure here is logged and start-up goes on. */
    const char *oom_err = NULL;
    (void)applyOomScoreAdj(&oom_err);
    if (cfg.watchdog_period) (void)watchdogApply(NULL);
    elAddTimer(server.el, 1, serverCron, NULL);
    elSetBeforeSleep(server.el, beforeSleep);
    elSetAfterSleep(server.el, afterSleep);
    /* Only once the listeners exist: whoever waits for the pid file may
     * connect right away. Before the load, as in Redis: a loading server
     * answers (-LOADING, INFO), and the banner's " PID: " line tells
     * supervisors and Redis' test suite it is up. */
    createPidFile();
    mainBanner();
    serverLog(LL_NOTICE, "Server initialized");
    aofInit();
    if (cfg.appendonly) aofStartupLoad(); /* as Redis: the AOF wins over the RDB */
    else rdbStartupLoad();
    replInit();
    infoRecordStartupMemory(); /* INFO's used_memory_startup */
    if (server.listen_count) serverLog(LL_NOTICE, "Ready to accept connections tcp");
    if (cfg.unixsocket) serverLog(LL_NOTICE, "Ready to accept connections unix");
    if (server.tls_listen_count) serverLog(LL_NOTICE, "Ready to accept connections tls");
    elMain(server.el);
    return 0;
}
