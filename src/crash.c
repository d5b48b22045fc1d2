/* crash: what the log says when the process dies of a fatal signal.
 *
 * A crash must leave the operator a trace: which signal, where, the call
 * stack, the command being served and the server's main state. Then the
 * process dies of that same signal (the default action, re-raised), so a
 * supervisor sees a crash and restarts it, and a core dump is still written
 * where the system allows one.
 *
 * Everything here runs inside a signal handler on a possibly corrupt heap,
 * so it uses only async-signal-safe calls: write(2) on a descriptor opened
 * once for the report, number formatting by hand, backtrace_symbols_fd
 * (which writes straight to a descriptor and does not allocate). The
 * handler runs on its own stack (sigaltstack) so a stack overflow gets a
 * report too, and SA_RESETHAND makes a second fault inside the handler
 * kill the process instead of looping.
 *
 * Data enters from the globals (server, cfg, the current client) and
 * leaves as text appended to the log file (or stdout). */
#define _GNU_SOURCE /* REG_RIP in ucontext.h */
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "crash.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define CRASH_ARGS_SHOWN 8  /* argv entries printed; the rest are counted */
#define CRASH_ARG_CLIP 128  /* bytes of each argument printed */
#define CRASH_FRAMES 64

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

/* A tiny buffered writer: one write(2) per full buffer, no allocation. */
typedef struct crashOut {
    int fd;
    size_t len;
    char buf[512];
} crashOut;

static void crashFlush(crashOut *o) {
    size_t off = 0;
    while (off < o->len) {
        ssize_t n = write(o->fd, o->buf + off, o->len - off);
        if (n <= 0) break; /* nothing more can be done from here */
        off += (size_t)n;
    }
    o->len = 0;
}

static void crashPutLen(crashOut *o, const char *s, size_t len) {
    while (len) {
        if (o->len == sizeof(o->buf)) crashFlush(o);
        size_t n = sizeof(o->buf) - o->len;
        if (n > len) n = len;
        memcpy(o->buf + o->len, s, n);
        o->len += n;
        s += n;
        len -= n;
    }
}

static void crashPuts(crashOut *o, const char *s) { crashPutLen(o, s, strlen(s)); }

static void crashPutLL(crashOut *o, long long v) {
    char tmp[24];
    int l = ll2string(tmp, sizeof(tmp), v);
    crashPutLen(o, tmp, (size_t)l);
}

static void crashPutHex(crashOut *o, uintptr_t v) {
    char tmp[2 + sizeof(v) * 2];
    int i = (int)sizeof(tmp);
    do {
        tmp[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    tmp[--i] = 'x';
    tmp[--i] = '0';
    crashPutLen(o, tmp + i, sizeof(tmp) - (size_t)i);
}

/* An argument, quoted and clipped, with unprintable bytes as \xNN so the
 * report stays one line per argument whatever the client sent. */
static void crashPutQuoted(crashOut *o, const char *s, size_t len) {
    size_t shown = len > CRASH_ARG_CLIP ? CRASH_ARG_CLIP : len;
    crashPuts(o, "'");
    for (size_t j = 0; j < shown; j++) {
        unsigned char ch = (unsigned char)s[j];
        if (ch >= 32 && ch < 127 && ch != '\\' && ch != '\'') {
            crashPutLen(o, (const char *)&ch, 1);
        } else {
            char esc[4] = {'\\', 'x', "0123456789abcdef"[ch >> 4], "0123456789abcdef"[ch & 15]};
            crashPutLen(o, esc, 4);
        }
    }
    crashPuts(o, "'");
    if (shown < len) {
        crashPuts(o, "... (");
        crashPutLL(o, (long long)len);
        crashPuts(o, " bytes)");
    }
}

static void crashPutField(crashOut *o, const char *name, long long v) {
    crashPuts(o, name);
    crashPuts(o, ":");
    crashPutLL(o, v);
    crashPuts(o, "\n");
}

static const char *crashSignalName(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "?";
    }
}

uintptr_t crashContextPC(void *uc) {
    if (!uc) return 0;
#if defined(__linux__) && defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__linux__) && defined(__aarch64__)
    return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc;
#else
    return 0;
#endif
}

static void crashReportClient(crashOut *o, client *c) {
    crashPuts(o, "\n------ CURRENT CLIENT INFO ------\n");
    if (!c) {
        crashPuts(o, "(no command was being executed)\n");
        return;
    }
    crashPuts(o, "id=");
    crashPutLL(o, (long long)c->id);
    crashPuts(o, " addr=");
    crashPutLen(o, c->peer, strnlen(c->peer, sizeof(c->peer)));
    crashPuts(o, " db=");
    crashPutLL(o, c->db ? c->db->id : -1);
    if (c->name) {
        crashPuts(o, " name=");
        crashPutQuoted(o, c->name, sdslen(c->name));
    }
    crashPuts(o, " resp=");
    crashPutLL(o, c->resp);
    crashPuts(o, "\ncmd=");
    crashPuts(o, c->cmd && c->cmd->fullname ? c->cmd->fullname : "(unknown)");
    crashPuts(o, " argc=");
    crashPutLL(o, c->argc);
    crashPuts(o, "\n");
    for (int j = 0; j < c->argc && j < CRASH_ARGS_SHOWN && c->argv; j++) {
        robj *a = c->argv[j];
        crashPuts(o, "argv[");
        crashPutLL(o, j);
        crashPuts(o, "]: ");
        if (!a) crashPuts(o, "(null)");
        else if (a->encoding == OBJ_ENCODING_INT) crashPutLL(o, (long)a->ptr);
        else if (sdsEncodedObject(a)) crashPutQuoted(o, a->ptr, sdslen(a->ptr));
        else crashPuts(o, "(not a string)");
        crashPuts(o, "\n");
    }
    if (c->argc > CRASH_ARGS_SHOWN) {
        crashPuts(o, "(");
        crashPutLL(o, c->argc - CRASH_ARGS_SHOWN);
        crashPuts(o, " more arguments)\n");
    }
}

static void crashReportState(crashOut *o) {
    crashPuts(o, "\n------ SERVER STATE ------\n");
    crashPuts(o, "redis_version:" CAIRN_VERSION "\n");
    crashPutField(o, "process_id", (long long)getpid());
    crashPutField(o, "tcp_port", cfg.port);
    crashPutField(o, "uptime_in_seconds", (long long)(server.unixtime - server.stat_starttime));
    crashPutField(o, "connected_clients", (long long)server.nclients);
    crashPutField(o, "blocked_clients", (long long)server.blocked_clients);
    crashPutField(o, "used_memory", (long long)zmalloc_used_memory());
    crashPutField(o, "total_commands_processed", server.stat_numcommands);
    crashPutField(o, "dirty", server.dirty);
    crashPutField(o, "loading", server.loading);
    crashPutField(o, "in_exec", server.in_exec);
    crashPutField(o, "shutdown_in_progress", server.in_shutdown);
    for (int j = 0; server.db && j < cfg.dbnum; j++) {
        unsigned long keys = dictSize(server.db[j].dict);
        if (!keys) continue;
        crashPuts(o, "db");
        crashPutLL(o, j);
        crashPuts(o, ":keys=");
        crashPutLL(o, (long long)keys);
        crashPuts(o, ",expires=");
        crashPutLL(o, (long long)dictSize(server.db[j].expires));
        crashPuts(o, "\n");
    }
}

static void crashHandler(int sig, siginfo_t *info, void *uc) {
    int tostdout = !cfg.logfile || cfg.logfile[0] == '\0';
    crashOut o = {.fd = tostdout ? STDOUT_FILENO : open(cfg.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644),
                  .len = 0};
    if (o.fd == -1) o.fd = STDERR_FILENO;

    crashPuts(&o, "\n\n=== CAIRN BUG REPORT START: Cut & paste starting from here ===\n");
    crashPutLL(&o, (long long)getpid());
    crashPuts(&o, ":M # cairn " CAIRN_VERSION " crashed by signal: ");
    crashPutLL(&o, sig);
    crashPuts(&o, " (");
    crashPuts(&o, crashSignalName(sig));
    crashPuts(&o, "), si_code: ");
    crashPutLL(&o, info ? info->si_code : 0);
    crashPuts(&o, "\n");
    if (info && sig != SIGABRT) {
        crashPuts(&o, "Accessing address: ");
        crashPutHex(&o, (uintptr_t)info->si_addr);
        crashPuts(&o, "\n");
    }
    uintptr_t pc = crashContextPC(uc);
    if (pc) {
        crashPuts(&o, "Crashed running the instruction at: ");
        crashPutHex(&o, pc);
        crashPuts(&o, "\n");
    }
    if (sig == SIGABRT) crashPuts(&o, "(an assertion failure or abort(): see the line before this report)\n");

    crashPuts(&o, "\n------ STACK TRACE ------\n");
    crashFlush(&o);
    void *frames[CRASH_FRAMES];
    int n = backtrace(frames, CRASH_FRAMES);
    backtrace_symbols_fd(frames, n, o.fd);

    crashReportClient(&o, server.current_client);
    crashReportState(&o);
    crashPuts(&o, "\n=== CAIRN BUG REPORT END. Make sure to include from START to END. ===\n\n");
    crashFlush(&o);
    if (!tostdout && o.fd != STDERR_FILENO) close(o.fd);
    if (cfg.pidfile) unlink(cfg.pidfile);

    /* Die of the same signal, so the exit status tells the supervisor
     * (and the shell) what happened, and a core can be dumped. */
    struct sigaction act = {0};
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_DFL;
    sigaction(sig, &act, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig); /* only if the signal was somehow ignored */
}

void crashInstallHandlers(void) {
    /* backtrace() loads libgcc on its first call, which allocates: do that
     * now, not inside a handler on a broken heap. */
    void *warm[1];
    backtrace(warm, 1);

    static char *altstack;
    if (!altstack) {
        size_t size = SIGSTKSZ * 4 > 65536 ? SIGSTKSZ * 4 : 65536;
        altstack = malloc(size);
        if (altstack) {
            stack_t ss = {.ss_sp = altstack, .ss_size = size, .ss_flags = 0};
            sigaltstack(&ss, NULL);
        }
    }
    struct sigaction act = {0};
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND | SA_ONSTACK;
    act.sa_sigaction = crashHandler;
    for (size_t j = 0; j < sizeof(crash_signals) / sizeof(crash_signals[0]); j++)
        sigaction(crash_signals[j], &act, NULL);
}

void crashDebugSegfault(void) {
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    *(volatile char *)p = 'x';
    abort(); /* not reached */
}
