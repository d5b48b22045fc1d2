/* backup_main: cairn-backup's command line (see backup.h for the files).
 *
 *   cairn-backup full    --server HOST:PORT --repo DIR [--user U] [--pass P]
 *                        [--timeout SECS] [--json]
 *   cairn-backup stream  --server HOST:PORT --repo DIR [--user U] [--pass P]
 *                        [--segment-bytes N] [--segment-seconds S] [--timeout S]
 *   (full, stream: --sentinel HOST:PORT[,...] --master NAME instead of --server)
 *   cairn-backup list    --repo DIR [--json]
 *   cairn-backup prune   --repo DIR [--keep-last N] [--keep-within DURATION] [--dry-run]
 *                        [--json]
 *   cairn-backup verify  --repo DIR [ID] [--json]
 *   cairn-backup restore --repo DIR --to DIR [--backup ID] [--at TIME |
 *                        --offset N | --before-command NAME] [--force]
 *                        [--redis-compatible] [--json]
 *   (--backup alone: that snapshot; with a point: searched on its timeline
 *   only, e.g. an older one a failover diverged from)
 *   full and stream also take --archive-cmd 'CMD %f' (backupArchiveFile);
 *   they and restore --to-server take
 *   --tls [--cacert F] [--cacertdir D] [--cert F --key F] [--sni N] [--insecure]
 *
 * Results go to stdout, log lines (one per step, with the time) and errors
 * to stderr; the exit status is 0 on success, 1 on any failure, 2 on a
 * usage error. */
#include "backup.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int backup_json;
const char *backup_archive_cmd;

/* The path in single quotes for sh, each ' as '\''. */
static sds backupShellQuote(sds s, const char *path) {
    s = sdscatlen(s, "'", 1);
    for (const char *p = path; *p; p++) s = *p == '\'' ? sdscat(s, "'\\''") : sdscatlen(s, p, 1);
    return sdscatlen(s, "'", 1);
}

static double progress_drawn;

void backupProgress(const char *what, long long done, long long total, double started) {
    double now = backupNow();
    if (!isatty(STDERR_FILENO) || now - progress_drawn < 0.1) return;
    progress_drawn = now;
    double rate = now > started ? (double)done / (now - started) : 0;
    fprintf(stderr, "\r%s %.1f MB", what, (double)done / 1e6);
    if (total > 0)
        fprintf(stderr, " of %.1f MB (%d%%), ETA %.0f s", (double)total / 1e6,
                (int)(done * 100 / total), rate > 0 ? (double)(total - done) / rate : 0.0);
    fprintf(stderr, ", %.1f MB/s   ", rate / 1e6);
}

void backupProgressEnd(void) {
    if (progress_drawn > 0) fputc('\n', stderr);
    progress_drawn = 0;
}

int backupArchiveFile(const char *path) {
    if (!backup_archive_cmd) return 0;
    sds cmd = sdsempty();
    for (const char *p = backup_archive_cmd; *p; p++) {
        if (p[0] == '%' && p[1] == 'f')
            cmd = backupShellQuote(cmd, path), p++;
        else if (p[0] == '%' && p[1] == '%')
            cmd = sdscatlen(cmd, "%", 1), p++;
        else
            cmd = sdscatlen(cmd, p, 1);
    }
    int st = system(cmd);
    int ok = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!ok) backupLog("--archive-cmd failed (status %d) for %s: %s", st, path, cmd);
    sdsfree(cmd);
    return ok ? 0 : -1;
}

double backupNow(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

sds backupFormatTime(double t) {
    time_t secs = (time_t)t;
    struct tm tm;
    gmtime_r(&secs, &tm);
    char buf[64];
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    return sdscatprintf(sdsempty(), "%s.%03dZ", buf, (int)((t - (double)secs) * 1000));
}

void backupLog(const char *fmt, ...) {
    sds t = backupFormatTime(backupNow());
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s cairn-backup: ", t);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    sdsfree(t);
}

static int backupUsage(void) {
    fprintf(
        stderr,
        "Usage: cairn-backup full    --server HOST:PORT --repo DIR [--user U] [--pass P] "
        "[--timeout S] [--json]\n"
        "       cairn-backup stream  --server HOST:PORT --repo DIR [--user U] [--pass P]\n"
        "                            [--segment-bytes N] [--segment-seconds S] [--timeout S]\n"
        "       (full and stream: --sentinel HOST:PORT[,HOST:PORT...] --master NAME instead of\n"
        "        --server asks redis-sentinel for the primary, stream before every connection)\n"
        "       (full and stream: --archive-cmd 'CMD %%f' runs CMD for each finished file;\n"
        "        they and restore --to-server: --tls [--cacert FILE] [--cacertdir DIR]\n"
        "        [--cert FILE --key FILE] [--sni NAME] [--insecure] connect to a TLS port,\n"
        "        as redis-cli does)\n"
        "       (every subcommand: --encrypt-key FILE, 32 bytes or 64 hex digits: AES-256-GCM at "
        "rest)\n"
        "       cairn-backup list    --repo DIR [--json]\n"
        "       cairn-backup prune   --repo DIR [--keep-last N] [--keep-within DURATION] "
        "[--dry-run] [--json]\n"
        "       cairn-backup verify  --repo DIR [ID] [--json]\n"
        "       cairn-backup restore --repo DIR --to DIR [--backup ID] [--at TIME | --offset N |\n"
        "                            --before-command NAME] [--force] [--redis-compatible] "
        "[--json]\n"
        "       (--backup ID with a point: only that backup's timeline)\n"
        "       (or --to-server HOST:PORT [--user U] [--pass P] [TLS options] instead of --to)\n"
        "TIME: ISO 8601 with Z or an offset (2026-12-02T01:02:03.5Z), or Unix seconds.\n");
    return 2;
}

typedef struct backupArgs {
    const char *cmd, *server, *repo, *user, *pass, *to, *id, *at, *offset, *before, *keep_last,
        *keep_within, *to_server, *encrypt_key, *sentinels, *master;
    int timeout, json, force, dry_run;
    backupTlsOptions tls;
    long long segment_bytes;
    double segment_seconds;
} backupArgs;

/* --name VALUE options; one bare argument (verify's ID). -1 on a bad one. */
static int backupParseArgs(int argc, char **argv, backupArgs *a) {
    struct {
        const char *name;
        const char **dst;
    } valued[] = {{"--server", &a->server},
                  {"--repo", &a->repo},
                  {"--user", &a->user},
                  {"--pass", &a->pass},
                  {"--to", &a->to},
                  {"--backup", &a->id},
                  {"--at", &a->at},
                  {"--offset", &a->offset},
                  {"--before-command", &a->before},
                  {"--archive-cmd", &backup_archive_cmd},
                  {"--keep-last", &a->keep_last},
                  {"--keep-within", &a->keep_within},
                  {"--to-server", &a->to_server},
                  {"--encrypt-key", &a->encrypt_key},
                  {"--sentinel", &a->sentinels},
                  {"--master", &a->master},
                  {"--cacert", &a->tls.cacert},
                  {"--cacertdir", &a->tls.cacertdir},
                  {"--cert", &a->tls.cert},
                  {"--key", &a->tls.key},
                  {"--sni", &a->tls.sni},
                  {NULL, NULL}};
    for (int j = 1; j < argc; j++) {
        const char *arg = argv[j];
        int matched = 0;
        for (int k = 0; valued[k].name && !matched; k++) {
            if (strcmp(arg, valued[k].name)) continue;
            if (j + 1 >= argc) {
                fprintf(stderr, "cairn-backup: %s needs a value\n", arg);
                return -1;
            }
            *valued[k].dst = argv[++j];
            matched = 1;
        }
        if (matched) continue;
        if (!strcmp(arg, "--json"))
            a->json = 1;
        else if (!strcmp(arg, "--force"))
            a->force = 1;
        else if (!strcmp(arg, "--dry-run"))
            a->dry_run = 1;
        else if (!strcmp(arg, "--tls"))
            a->tls.enabled = 1;
        else if (!strcmp(arg, "--insecure"))
            a->tls.insecure = 1;
        else if (!strcmp(arg, "--redis-compatible"))
            continue; /* an RDB 10 restore already is */
        else if (!strcmp(arg, "--timeout") && j + 1 < argc)
            a->timeout = atoi(argv[++j]);
        else if (!strcmp(arg, "--segment-bytes") && j + 1 < argc)
            a->segment_bytes = atoll(argv[++j]);
        else if (!strcmp(arg, "--segment-seconds") && j + 1 < argc)
            a->segment_seconds = atof(argv[++j]);
        else if (arg[0] != '-' && !a->id)
            a->id = arg;
        else {
            fprintf(stderr, "cairn-backup: unknown or unsupported option %s\n", arg);
            return -1;
        }
    }
    return 0;
}

int backupSplitServer(const char *s, sds *host, int *port) {
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) return 0;
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (*end || p <= 0 || p > 65535) return 0;
    const char *h = s;
    size_t hl = (size_t)(colon - s);
    if (h[0] == '[' && h[hl - 1] == ']') h++, hl -= 2; /* [::1]:6379 */
    *host = sdsnewlen(h, hl);
    *port = (int)p;
    return 1;
}

int backupMain(int argc, char **argv) {
    if (argc < 1 || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) return backupUsage();
    backupArgs a;
    memset(&a, 0, sizeof(a));
    a.cmd = argv[0];
    if (backupParseArgs(argc, argv, &a) == -1) return backupUsage();
    backup_json = a.json;
    sds kerr = NULL;
    if (a.encrypt_key && cryptLoadKey(a.encrypt_key, &kerr) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", kerr);
        sdsfree(kerr);
        return 2;
    }
    if (!a.repo) {
        fprintf(stderr, "cairn-backup: --repo DIR is required\n");
        return backupUsage();
    }
    if (backupTlsSetup(&a.tls, &kerr) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", kerr);
        sdsfree(kerr);
        return 2;
    }
    if (!a.sentinels != !a.master) {
        fprintf(stderr, "cairn-backup: --sentinel and --master go together\n");
        return backupUsage();
    }
    if (a.sentinels && a.server) {
        fprintf(stderr, "cairn-backup: --server or --sentinel, not both\n");
        return backupUsage();
    }
    if (!strcmp(a.cmd, "full")) {
        sds host = NULL;
        backupLinkOptions o = {.user = a.user,
                               .pass = a.pass,
                               .timeout_s = a.timeout,
                               .rdb_only = 1,
                               .archive_only = 1};
        if (a.sentinels) {
            if (backupSentinelPrimary(a.sentinels, a.master, 5, &host, &o.port, &kerr) == -1) {
                fprintf(stderr, "cairn-backup: %s\n", kerr);
                sdsfree(kerr);
                return 1;
            }
        } else if (!a.server || !backupSplitServer(a.server, &host, &o.port)) {
            fprintf(stderr, "cairn-backup: full needs --server HOST:PORT or --sentinel/--master\n");
            return backupUsage();
        }
        o.host = host;
        int ret = backupFull(&o, a.repo);
        sdsfree(host);
        return ret;
    }
    if (!strcmp(a.cmd, "stream")) {
        sds host = NULL;
        backupStreamOptions so = {.repo = a.repo,
                                  .segment_bytes =
                                      a.segment_bytes ? a.segment_bytes : 16 * 1024 * 1024,
                                  .segment_seconds = a.segment_seconds ? a.segment_seconds : 60,
                                  .timeout_s = a.timeout ? a.timeout : 60};
        so.link = (backupLinkOptions){.user = a.user, .pass = a.pass, .timeout_s = a.timeout};
        so.sentinels = a.sentinels;
        so.master = a.master;
        if (!a.sentinels && (!a.server || !backupSplitServer(a.server, &host, &so.link.port))) {
            fprintf(stderr,
                    "cairn-backup: stream needs --server HOST:PORT or --sentinel/--master\n");
            return backupUsage();
        }
        so.link.host = host;
        int ret = backupStream(&so);
        sdsfree(host);
        return ret;
    }
    if (!strcmp(a.cmd, "prune")) {
        int last = 0;
        double within = -1;
        if (a.keep_last && ((last = atoi(a.keep_last)) < 1)) {
            fprintf(stderr, "cairn-backup: --keep-last needs a count of at least 1\n");
            return 2;
        }
        if (a.keep_within && !backupParseDuration(a.keep_within, &within)) {
            fprintf(stderr, "cairn-backup: --keep-within %s: not a duration (7d, 12h, 30m, 90s)\n",
                    a.keep_within);
            return 2;
        }
        if (!a.keep_last && !a.keep_within) {
            fprintf(stderr,
                    "cairn-backup: prune needs --keep-last N and/or --keep-within DURATION\n");
            return backupUsage();
        }
        return backupPrune(a.repo, last, within, a.dry_run);
    }
    if (!strcmp(a.cmd, "list")) return backupList(a.repo, a.json);
    if (!strcmp(a.cmd, "verify")) return backupVerify(a.repo, a.id, a.json);
    if (!strcmp(a.cmd, "restore")) {
        backupRestoreOptions o = {.repo = a.repo,
                                  .to = a.to,
                                  .id = a.id,
                                  .force = a.force,
                                  .before = a.before,
                                  .to_server = a.to_server,
                                  .user = a.user,
                                  .pass = a.pass};
        if (!a.to == !a.to_server) {
            fprintf(stderr, "cairn-backup: restore needs --to DIR or --to-server HOST:PORT\n");
            return backupUsage();
        }
        if (!!a.at + !!a.offset + !!a.before > 1) {
            fprintf(stderr,
                    "cairn-backup: --at, --offset and --before-command exclude each other\n");
            return backupUsage();
        }
        if (a.at) {
            if (!backupParseTime(a.at, &o.time)) {
                fprintf(stderr,
                        "cairn-backup: --at %s: not an ISO 8601 time with Z or an offset, nor Unix "
                        "seconds\n",
                        a.at);
                return 2;
            }
            o.have_time = 1;
        }
        if (a.offset) {
            char *end;
            o.offset = strtoll(a.offset, &end, 10);
            if (*end || !*a.offset) {
                fprintf(stderr, "cairn-backup: --offset %s: not a number\n", a.offset);
                return 2;
            }
            o.have_offset = 1;
        }
        return backupRestore(&o);
    }
    fprintf(stderr, "cairn-backup: unknown subcommand %s\n", a.cmd);
    return backupUsage();
}
