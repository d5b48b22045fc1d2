/* config: the directive table, the config file / command-line parser and
 * CONFIG REWRITE. Owns every value in `cfg` (config.h); the CONFIG command
 * itself is in configcmd.c, which reaches the table through directive.h.
 *
 * Data enters through one setter per directive, so the same validation and
 * error texts apply everywhere: configInitDefaults() feeds each directive its
 * default string, configLoad() feeds file lines (with includes) and then the
 * command-line overrides, CONFIG SET feeds client arguments. Data leaves as
 * plain cfg fields read by the rest of the server, as strings for CONFIG GET
 * (the exact Redis 7.0 renderings) and as lines for CONFIG REWRITE. Modules
 * that must react to a runtime change register a hook in cfgHooks; CONFIG
 * SET calls it after storing and rolls the whole call back if it fails.
 *
 * Defaults are written in CONFIG GET form on purpose: "differs from the
 * default" (which decides what CONFIG REWRITE appends) is then a string
 * comparison, and the table can be checked against `CONFIG GET *` of a real
 * redis-server started without a config file. */

#define _GNU_SOURCE /* realpath, glob, fchmod under a strict -std= */
#include "acl.h"
#include "config.h"
#include "db.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "repl.h"
#include "directive.h"
#include "latency.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

cairnConfig cfg;
configHooks cfgHooks;

/* ------------------------------------------------------------------------
 * Enumerated values (the row layout is in directive.h)
 * --------------------------------------------------------------------- */

/* Names in the order Redis lists them in its error messages. */
// clang-format off
static const configEnum loglevelEnum[] = {{"debug", LL_DEBUG}, {"verbose", LL_VERBOSE},
    {"notice", LL_NOTICE}, {"warning", LL_WARNING}, {NULL, 0}};
static const configEnum supervisedEnum[] = {{"upstart", SUPERVISED_UPSTART},
    {"systemd", SUPERVISED_SYSTEMD}, {"auto", SUPERVISED_AUTODETECT}, {"no", SUPERVISED_NONE}, {NULL, 0}};
static const configEnum syslogEnum[] = {{"user", LOG_USER}, {"local0", LOG_LOCAL0},
    {"local1", LOG_LOCAL1}, {"local2", LOG_LOCAL2}, {"local3", LOG_LOCAL3}, {"local4", LOG_LOCAL4},
    {"local5", LOG_LOCAL5}, {"local6", LOG_LOCAL6}, {"local7", LOG_LOCAL7}, {NULL, 0}};
static const configEnum protectedEnum[] = {{"no", DEBUG_CMD_NO}, {"yes", DEBUG_CMD_YES},
    {"local", DEBUG_CMD_LOCAL}, {NULL, 0}};
static const configEnum shutdownEnum[] = {{"default", 0}, {"save", SHUTDOWN_SAVE},
    {"nosave", SHUTDOWN_NOSAVE}, {"now", SHUTDOWN_NOW}, {"force", SHUTDOWN_FORCE}, {NULL, 0}};
static const configEnum maxmemoryEnum[] = {{"volatile-lru", MAXMEMORY_VOLATILE_LRU},
    {"volatile-lfu", MAXMEMORY_VOLATILE_LFU}, {"volatile-random", MAXMEMORY_VOLATILE_RANDOM},
    {"volatile-ttl", MAXMEMORY_VOLATILE_TTL}, {"allkeys-lru", MAXMEMORY_ALLKEYS_LRU},
    {"allkeys-lfu", MAXMEMORY_ALLKEYS_LFU}, {"allkeys-random", MAXMEMORY_ALLKEYS_RANDOM},
    {"noeviction", MAXMEMORY_NO_EVICTION}, {NULL, 0}};
static const configEnum tlsAuthEnum[] = {{"no", TLS_CLIENT_AUTH_NO}, {"yes", TLS_CLIENT_AUTH_YES},
                                         {"optional", TLS_CLIENT_AUTH_OPTIONAL}, {NULL, 0}};
static const configEnum appendfsyncEnum[] = {{"everysec", APPENDFSYNC_EVERYSEC},
    {"always", APPENDFSYNC_ALWAYS}, {"no", APPENDFSYNC_NO}, {NULL, 0}};
static const configEnum snapshotCompressionEnum[] = {{"none", SNAPSHOT_COMPRESSION_NONE},
    {"lz4", SNAPSHOT_COMPRESSION_LZ4}, {"zstd", SNAPSHOT_COMPRESSION_ZSTD}, {NULL, 0}};
static const configEnum sanitizeEnum[] = {{"no", SANITIZE_DUMP_NO}, {"yes", SANITIZE_DUMP_YES},
    {"clients", SANITIZE_DUMP_CLIENTS}, {NULL, 0}};
/* "yes" before "relative": Redis renders OOM_SCORE_RELATIVE as "yes". */
static const configEnum oomEnum[] = {{"no", OOM_SCORE_ADJ_NO}, {"yes", OOM_SCORE_RELATIVE},
    {"relative", OOM_SCORE_RELATIVE}, {"absolute", OOM_SCORE_ADJ_ABSOLUTE}, {NULL, 0}};
static const configEnum disklessLoadEnum[] = {{"disabled", REPL_DISKLESS_LOAD_DISABLED},
    {"on-empty-db", REPL_DISKLESS_LOAD_WHEN_DB_EMPTY}, {"swapdb", REPL_DISKLESS_LOAD_SWAPDB}, {NULL, 0}};
static const configEnum replCompressionEnum[] = {{"no", SNAPSHOT_COMPRESSION_NONE},
    {"lz4", SNAPSHOT_COMPRESSION_LZ4}, {"zstd", SNAPSHOT_COMPRESSION_ZSTD}, {NULL, 0}};
static const configEnum propagationEnum[] = {{"ignore", PROPAGATION_ERR_BEHAVIOR_IGNORE},
    {"panic", PROPAGATION_ERR_BEHAVIOR_PANIC},
    {"panic-on-replicas", PROPAGATION_ERR_BEHAVIOR_PANIC_ON_REPLICAS}, {NULL, 0}};
static const configEnum aclPubsubEnum[] = {{"allchannels", ACL_PUBSUB_ALLCHANNELS},
    {"resetchannels", ACL_PUBSUB_RESETCHANNELS}, {NULL, 0}};
// clang-format on

/* Messages that embed numbers or lists are built here; the server is single
 * threaded and every caller copies or replies with it immediately. */
static char errbuf[512];

#define FAIL(msg)                                                                                  \
    do {                                                                                           \
        *err = (msg);                                                                              \
        return 0;                                                                                  \
    } while (0)

static int loadingFile;  /* inside configLoad() */
static int saveLoaded;   /* a `save` line was seen while loading */
static char *configFile; /* absolute path, NULL without a file */
static clientBufferLimit cobDefaults[CLIENT_TYPE_OBUF_COUNT];

/* ------------------------------------------------------------------------
 * Generic value handling
 * --------------------------------------------------------------------- */

static long long numRead(const directive *d) {
    switch (d->width) {
        case W_INT:
            return *(int *)d->ptr;
        case W_UINT:
            return *(unsigned int *)d->ptr;
        case W_LONG:
            return *(long *)d->ptr;
        case W_ULONG:
            return (long long)*(unsigned long *)d->ptr;
        case W_ULL:
            return (long long)*(unsigned long long *)d->ptr;
        default:
            return *(long long *)d->ptr;
    }
}

static void numWrite(const directive *d, long long v) {
    switch (d->width) {
        case W_INT:
            *(int *)d->ptr = (int)v;
            break;
        case W_UINT:
            *(unsigned int *)d->ptr = (unsigned int)v;
            break;
        case W_LONG:
            *(long *)d->ptr = (long)v;
            break;
        case W_ULONG:
            *(unsigned long *)d->ptr = (unsigned long)v;
            break;
        case W_ULL:
            *(unsigned long long *)d->ptr = (unsigned long long)v;
            break;
        default:
            *(long long *)d->ptr = v;
            break;
    }
}

static int numParse(const directive *d, const char *s, long long *v, const char **err) {
    size_t len = strlen(s);
    if (d->flags & F_OCTAL) {
        char *end;
        errno = 0;
        *v = strtoll(s, &end, 8);
        if (len == 0 || *end || errno) FAIL("argument couldn't be parsed as an octal number");
    } else if (d->flags & F_MEMORY) {
        if ((d->flags & F_PERCENT) && len > 1 && s[len - 1] == '%' && string2ll(s, len - 1, v) &&
            *v >= 0) {
            if (*v > 100) FAIL("percentage argument must be less or equal to 100");
            *v = -*v;
            return 1;
        }
        int merr;
        *v = memtoull(s, &merr);
        if (merr) {
            /* All digits but unparsable means too big: say so like Redis. */
            if (len && strspn(s, "0123456789") == len) goto range;
            *err = (d->flags & F_PERCENT) ? "argument must be a memory or percent value"
                                          : "argument must be a memory value";
            return 0;
        }
    } else if (!string2ll(s, len, v))
        FAIL("argument couldn't be parsed into an integer");
    if (*v >= d->min && *v <= d->max) return 1;
range:
    if (d->flags & F_OCTAL)
        snprintf(errbuf, sizeof(errbuf), "argument must be between %llo and %llo inclusive",
                 (unsigned long long)d->min, (unsigned long long)d->max);
    else
        snprintf(errbuf, sizeof(errbuf), "argument must be between %lld and %lld inclusive", d->min,
                 d->max);
    *err = errbuf;
    return 0;
}

static int enumParse(const directive *d, const char *s, int *out, const char **err) {
    for (const configEnum *e = d->enums; e->name; e++) {
        if (!strcasecmp(e->name, s)) {
            *out = e->val;
            return 1;
        }
    }
    size_t len =
        (size_t)snprintf(errbuf, sizeof(errbuf), "argument(s) must be one of the following: ");
    for (const configEnum *e = d->enums; e->name && len < sizeof(errbuf); e++)
        len += (size_t)snprintf(errbuf + len, sizeof(errbuf) - len, "%s%s",
                                e == d->enums ? "" : ", ", e->name);
    *err = errbuf;
    return 0;
}

/* Bit-flag enums list every matching name; a value no name covers exactly
 * is "unknown", as in Redis. */
static sds enumName(const directive *d, int v) {
    sds names = NULL;
    int unmatched = v;
    for (const configEnum *e = d->enums; e->name; e++) {
        if (v == e->val) {
            sdsfree(names);
            return sdsnew(e->name);
        }
        if ((d->flags & F_BITFLAGS) && e->val && (unmatched & e->val) == e->val) {
            names = names ? sdscatprintf(names, " %s", e->name) : sdsnew(e->name);
            unmatched &= ~e->val;
        }
    }
    if (!names || unmatched) {
        sdsfree(names);
        return sdsnew("unknown");
    }
    return names;
}

static int strSet(const directive *d, const char *s, const char **err) {
    if (d->valid && !d->valid(s, err)) return 0;
    if ((d->flags & F_NONEMPTY) && !*s) {
        snprintf(errbuf, sizeof(errbuf), "%s can't be empty", d->name);
        FAIL(errbuf);
    }
    if ((d->flags & F_BASENAME) && (strchr(s, '/') || strchr(s, '\\'))) {
        snprintf(errbuf, sizeof(errbuf), "%s can't be a path, just a %s", d->name,
                 strstr(d->name, "dirname") ? "dirname" : "filename");
        FAIL(errbuf);
    }
    char **field = d->ptr;
    char *nv = ((d->flags & F_EMPTYNULL) && !*s) ? NULL : zstrdup(s);
    zfree(*field);
    *field = nv;
    return 1;
}

/* Store the arguments that follow the directive name. Nothing is stored if
 * validation fails (except by specials that say otherwise). */
static int directiveSet(const directive *d, sds *argv, int argc, const char **err) {
    long long v = 0;
    int e = 0;
    if (d->type == T_SPECIAL) return d->set(argv, argc, err);
    if (d->type == T_ENUM && (d->flags & F_BITFLAGS)) {
        if (argc == 0) return enumParse(d, "", &e, err); /* no value: refused with the list */
        for (int j = 0; j < argc; j++) {
            if (!enumParse(d, argv[j], &e, err)) return 0;
            v |= e;
        }
    } else {
        if (argc != 1) FAIL("wrong number of arguments");
        switch (d->type) {
            case T_STR:
                if (d->flags & F_BINARY) {
                    /* A password may hold any byte, NUL included. */
                    sds nv = ((d->flags & F_EMPTYNULL) && !sdslen(argv[0])) ? NULL : sdsdup(argv[0]);
                    sdsfree(*(sds *)d->ptr);
                    *(sds *)d->ptr = nv;
                    return 1;
                }
                return strSet(d, argv[0], err);
            case T_BOOL:
                if (!strcasecmp(argv[0], "yes"))
                    v = 1;
                else if (!strcasecmp(argv[0], "no"))
                    v = 0;
                else
                    FAIL("argument must be 'yes' or 'no'");
                break;
            case T_ENUM:
                if (!enumParse(d, argv[0], &e, err)) return 0;
                v = e;
                break;
            default:
                if (!numParse(d, argv[0], &v, err)) return 0;
        }
    }
    if (d->refuse && v) FAIL(d->refuse);
    if (d->check && !d->check(&v, err)) return 0;
    if (d->type == T_NUM)
        numWrite(d, v);
    else
        *(int *)d->ptr = (int)v;
    return 1;
}

/* The value as CONFIG GET shows it. */
sds directiveGet(const directive *d) {
    switch (d->type) {
        case T_BOOL:
            return sdsnew(*(int *)d->ptr ? "yes" : "no");
        case T_ENUM:
            return enumName(d, *(int *)d->ptr);
        case T_STR: {
            char *s = *(char **)d->ptr;
            if (s && (d->flags & F_BINARY)) return sdsdup(s);
            return sdsnew(s ? s : "");
        }
        case T_SPECIAL:
            return d->get();
    }
    long long v = numRead(d);
    if (d->flags & F_OCTAL) return sdscatprintf(sdsempty(), "%llo", (unsigned long long)v);
    if ((d->flags & F_PERCENT) && v < 0) return sdscatprintf(sdsempty(), "%lld%%", -v);
    if (d->width == W_ULL || d->width == W_ULONG)
        return sdscatprintf(sdsempty(), "%llu", (unsigned long long)v);
    return sdscatprintf(sdsempty(), "%lld", v);
}

/* CONFIG SET hands values over as one string: multi-word values are split
 * on single spaces like Redis does (so "" means an empty list). */
int directiveSetString(const directive *d, sds value, const char **err) {
    if (!(d->flags & F_MULTIARG)) return directiveSet(d, &value, 1, err);
    int argc;
    sds *argv = sdssplitlen(value, (ssize_t)sdslen(value), " ", 1, &argc);
    int ok = directiveSet(d, argv, argc, err);
    sdsfreesplitres(argv, argc);
    return ok;
}

/* ------------------------------------------------------------------------
 * CONFIG REWRITE primitives (used by the special directives too)
 * --------------------------------------------------------------------- */

#define RW_SIGNATURE "# Generated by CONFIG REWRITE"
#define RW_NONE      (-1) /* comment, blank or foreign line */
#define RW_USED      (-2) /* already rewritten */

typedef struct rewriteState {
    sds *lines;
    int *owner; /* directive index an old line sets, or RW_NONE / RW_USED */
    int n, cap;
    int needs_signature;
} rewriteState;

static void rwAppend(rewriteState *st, sds line, int owner) {
    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 64;
        st->lines = zrealloc(st->lines, sizeof(sds) * (size_t)st->cap);
        st->owner = zrealloc(st->owner, sizeof(int) * (size_t)st->cap);
    }
    st->lines[st->n] = line;
    st->owner[st->n++] = owner;
}

/* Put `line` where the directive was in the old file, else append it if
 * `force` (the value differs from the default). Takes ownership of line. */
static void rwLine(rewriteState *st, int idx, sds line, int force) {
    for (int k = 0; k < st->n; k++) {
        if (st->owner[k] == idx) {
            sdsfree(st->lines[k]);
            st->lines[k] = line;
            st->owner[k] = RW_USED;
            return;
        }
    }
    if (!force) {
        sdsfree(line);
        return;
    }
    if (st->needs_signature) {
        rwAppend(st, sdsnew(RW_SIGNATURE), RW_USED);
        st->needs_signature = 0;
    }
    rwAppend(st, line, RW_USED);
}

/* Later duplicates of a rewritten directive would override it: blank them. */
static void rwDone(rewriteState *st, int idx) {
    for (int k = 0; k < st->n; k++) {
        if (st->owner[k] != idx) continue;
        sdsclear(st->lines[k]);
        st->owner[k] = RW_USED;
    }
}

static sds formatMemory(sds s, long long v) {
    const long long gb = 1024LL * 1024 * 1024, mb = 1024 * 1024, kb = 1024;
    if (v && v % gb == 0) return sdscatprintf(s, "%lldgb", v / gb);
    if (v && v % mb == 0) return sdscatprintf(s, "%lldmb", v / mb);
    if (v && v % kb == 0) return sdscatprintf(s, "%lldkb", v / kb);
    return sdscatprintf(s, "%lld", v);
}

/* ------------------------------------------------------------------------
 * Validators and special directives
 * --------------------------------------------------------------------- */

static int checkHz(long long *v, const char **err) {
    (void)err;
    /* hz is a hint: out-of-range values are capped, not refused. */
    if (*v < 1) *v = 1;
    if (*v > 500) *v = 500;
    return 1;
}

static int checkShutdown(long long *v, const char **err) {
    if ((*v & SHUTDOWN_SAVE) && (*v & SHUTDOWN_NOSAVE))
        FAIL("shutdown options SAVE and NOSAVE can't be used simultaneously");
    return 1;
}

/* Mirrors Redis' check: the template must expand (known {variables},
 * "{{" and "}}" escapes) to something non-blank with an empty title. */
static int validProcTitle(const char *t, const char **err) {
    static const char *vars[] = {"title", "server-mode", "unixsocket",  "listen-addr",
                                 "port",  "tls-port",    "config-file", NULL};
    int visible = 0;
    for (const char *p = t; *p; p++) {
        if (*p == '{' && p[1] == '{') {
            visible = 1;
            p++;
        } else if (*p == '{') {
            const char *end = strchr(p, '}');
            if (!end) goto bad;
            size_t len = (size_t)(end - p - 1);
            int k;
            for (k = 0; vars[k] && !(strlen(vars[k]) == len && !memcmp(vars[k], p + 1, len)); k++)
                ;
            if (!vars[k]) goto bad;
            if (k >= 3) visible = 1; /* the first three may expand to nothing */
            p = end;
        } else if (*p == '}') {
            visible = 1;
            if (p[1] == '}') p++;
        } else if (*p != ' ') {
            visible = 1;
        }
    }
    if (visible) return 1;
bad:
    *err = "template format is invalid or contains unknown variables";
    return 0;
}

/* save: pairs of "seconds changes". In a file the first `save` line
 * replaces the defaults and later ones add to it; `save ""` clears. */
static int saveSet(sds *argv, int argc, const char **err) {
    if (argc == 1 && argv[0][0] == '\0') {
        zfree(cfg.saveparams);
        cfg.saveparams = NULL;
        cfg.saveparamslen = 0;
        argc = 0;
    }
    if (argc & 1) goto bad;
    for (int j = 0; j < argc; j++) {
        char *end;
        long long v = strtoll(argv[j], &end, 10);
        if (*end || ((j & 1) == 0 && v < 1) || ((j & 1) == 1 && v < 0)) goto bad;
    }
    if (!loadingFile || !saveLoaded) {
        zfree(cfg.saveparams);
        cfg.saveparams = NULL;
        cfg.saveparamslen = 0;
        if (loadingFile) saveLoaded = 1;
    }
    if (argc) {
        cfg.saveparams =
            zrealloc(cfg.saveparams, sizeof(saveParam) * (size_t)(cfg.saveparamslen + argc / 2));
        for (int j = 0; j < argc; j += 2) {
            saveParam *sp = &cfg.saveparams[cfg.saveparamslen++];
            sp->seconds = strtoll(argv[j], NULL, 10);
            sp->changes = strtoll(argv[j + 1], NULL, 10);
        }
    }
    return 1;
bad:
    *err = "Invalid save parameters";
    return 0;
}

static sds saveGet(void) {
    sds s = sdsempty();
    for (int j = 0; j < cfg.saveparamslen; j++)
        s = sdscatprintf(s, "%s%lld %lld", j ? " " : "", cfg.saveparams[j].seconds,
                         cfg.saveparams[j].changes);
    return s;
}

/* rename-command old new: each line adds a pair (applied by
 * commandsApplyRenames once the command table exists); "" clears them. */
static int renameCommandSet(sds *argv, int argc, const char **err) {
    if (argc == 0 || (argc == 1 && !argv[0][0])) {
        for (int j = 0; j < cfg.rename_command_len; j++) zfree(cfg.rename_command[j]);
        zfree(cfg.rename_command);
        cfg.rename_command = NULL;
        cfg.rename_command_len = 0;
        return 1;
    }
    if (argc != 2) FAIL("wrong number of arguments");
    cfg.rename_command =
        zrealloc(cfg.rename_command, sizeof(char *) * (size_t)(cfg.rename_command_len + 2));
    cfg.rename_command[cfg.rename_command_len++] = zstrdup(argv[0]);
    cfg.rename_command[cfg.rename_command_len++] = zstrdup(argv[1]);
    return 1;
}

static sds renameCommandGet(void) { return sdsempty(); }

/* user NAME RULES...: kept for acl_file.c, which creates the users at start-up. */
static int userSet(sds *argv, int argc, const char **err) {
    if (argc == 0 || (argc == 1 && !argv[0][0])) return 1;
    return aclUserDirective(argv, argc, err);
}

static sds userGet(void) { return sdsempty(); }

/* The users as they are now, unless they live in an aclfile (as Redis). */
static void userRewrite(rewriteState *st, int idx) {
    if (cfg.acl_filename && cfg.acl_filename[0]) return;
    int n;
    aclUser **us = aclUsers(&n);
    for (int j = 0; j < n; j++) {
        sds d = aclDescribeUser(us[j]);
        rwLine(st, idx, sdscatprintf(sdsempty(), "user %s %s", us[j]->name, d), 1);
        sdsfree(d);
    }
}

/* The renames stay in the file as they were given. */
static void renameCommandRewrite(rewriteState *st, int idx) {
    for (int j = 0; j + 1 < cfg.rename_command_len; j += 2) {
        sds line = sdsnew("rename-command ");
        line = sdscatrepr(line, cfg.rename_command[j], strlen(cfg.rename_command[j]));
        line = sdscat(line, " ");
        line = sdscatrepr(line, cfg.rename_command[j + 1], strlen(cfg.rename_command[j + 1]));
        rwLine(st, idx, line, 1);
    }
}

static int bindSet(sds *argv, int argc, const char **err) {
    if (argc > CONFIG_MAX_BIND) FAIL("Too many bind addresses specified.");
    if (argc == 1 && argv[0][0] == '\0') argc = 0; /* bind "" : no TCP listener */
    /* CONFIG GET joins the list with spaces and CONFIG SET splits it on
     * them: an address holding one (a quoted `bind "\"a b\""`) could never
     * be shown or set back, nor bound. */
    for (int j = 0; j < argc; j++)
        if (strchr(argv[j], ' ')) FAIL("Invalid bind address: it contains a space.");
    for (int j = 0; j < cfg.bindaddr_count; j++) zfree(cfg.bindaddr[j]);
    for (int j = 0; j < argc; j++) cfg.bindaddr[j] = zstrdup(argv[j]);
    cfg.bindaddr_count = argc;
    return 1;
}

static sds bindGet(void) {
    sds s = sdsempty();
    for (int j = 0; j < cfg.bindaddr_count; j++)
        s = sdscatprintf(s, "%s%s", j ? " " : "", cfg.bindaddr[j]);
    return s;
}

static const char *cobClassName[CLIENT_TYPE_OBUF_COUNT] = {"normal", "slave", "pubsub"};

static int cobClass(const char *name) {
    if (!strcasecmp(name, "normal")) return CLIENT_TYPE_NORMAL;
    if (!strcasecmp(name, "replica") || !strcasecmp(name, "slave")) return CLIENT_TYPE_REPLICA;
    if (!strcasecmp(name, "pubsub")) return CLIENT_TYPE_PUBSUB;
    return -1;
}

/* Validate everything first so a bad class never half-applies a value. */
static int cobSet(sds *argv, int argc, const char **err) {
    if (argc % 4) FAIL("Wrong number of arguments in buffer limit configuration.");
    for (int j = 0; j < argc; j++) {
        int merr = 0;
        if (j % 4 == 0) {
            if (cobClass(argv[j]) == -1)
                FAIL("Invalid client class specified in buffer limit configuration.");
            continue;
        }
        memtoull(argv[j], &merr);
        if (merr)
            FAIL("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
    }
    for (int j = 0; j < argc; j += 4) {
        clientBufferLimit *l = &cfg.client_obuf_limits[cobClass(argv[j])];
        l->hard_limit_bytes = (unsigned long long)memtoull(argv[j + 1], NULL);
        l->soft_limit_bytes = (unsigned long long)memtoull(argv[j + 2], NULL);
        l->soft_limit_seconds = strtoll(argv[j + 3], NULL, 10);
    }
    return 1;
}

static sds cobGet(void) {
    sds s = sdsempty();
    for (int j = 0; j < CLIENT_TYPE_OBUF_COUNT; j++) {
        clientBufferLimit *l = &cfg.client_obuf_limits[j];
        s = sdscatprintf(s, "%s%s %llu %llu %lld", j ? " " : "", cobClassName[j],
                         l->hard_limit_bytes, l->soft_limit_bytes, l->soft_limit_seconds);
    }
    return s;
}

/* notify-keyspace-events letters, in the order Redis renders them. */
static const struct {
    char c;
    int flag;
} notifyLetters[] = {
    {'g', NOTIFY_GENERIC},  {'$', NOTIFY_STRING},   {'l', NOTIFY_LIST},    {'s', NOTIFY_SET},
    {'h', NOTIFY_HASH},     {'z', NOTIFY_ZSET},     {'x', NOTIFY_EXPIRED}, {'e', NOTIFY_EVICTED},
    {'t', NOTIFY_STREAM},   {'d', NOTIFY_MODULE},   {'n', NOTIFY_NEW},     {'K', NOTIFY_KEYSPACE},
    {'E', NOTIFY_KEYEVENT}, {'m', NOTIFY_KEY_MISS}, {'A', NOTIFY_ALL},     {0, 0}};

static int notifySet(sds *argv, int argc, const char **err) {
    if (argc != 1) FAIL("wrong number of arguments");
    int flags = 0;
    for (const char *p = argv[0]; *p; p++) {
        int k;
        for (k = 0; notifyLetters[k].c && notifyLetters[k].c != *p; k++)
            ;
        if (!notifyLetters[k].c) FAIL("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        flags |= notifyLetters[k].flag;
    }
    cfg.notify_keyspace_events = flags;
    return 1;
}

/* Like Redis, "A" replaces the type letters it covers (and, quirk kept,
 * hides 'n' when present). */
static sds notifyGet(void) {
    int f = cfg.notify_keyspace_events, all = (f & NOTIFY_ALL) == NOTIFY_ALL;
    sds s = sdsnew(all ? "A" : "");
    for (int k = 0; notifyLetters[k].c != 'A'; k++) {
        int flag = notifyLetters[k].flag;
        int typeletter = !(flag & (NOTIFY_KEYSPACE | NOTIFY_KEYEVENT | NOTIFY_KEY_MISS));
        if ((f & flag) && !(all && typeletter)) s = sdscatlen(s, &notifyLetters[k].c, 1);
    }
    return s;
}

static void refreshDir(void) {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd))) return;
    zfree(cfg.dir);
    cfg.dir = zstrdup(cwd);
}

static int dirSet(sds *argv, int argc, const char **err) {
    if (argc != 1) FAIL("wrong number of arguments");
    if (chdir(argv[0]) == -1) FAIL(strerror(errno));
    refreshDir();
    return 1;
}

static sds dirGet(void) {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd))) return sdsnew(cwd);
    return sdsnew(cfg.dir ? cfg.dir : "");
}

static int oomValuesSet(sds *argv, int argc, const char **err) {
    int vals[3];
    if (argc != 3) FAIL("wrong number of arguments");
    for (int j = 0; j < 3; j++) {
        char *end;
        long v = strtol(argv[j], &end, 10);
        if (*end || !argv[j][0] || v < -2000 || v > 2000)
            FAIL("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
        vals[j] = (int)v;
    }
    memcpy(cfg.oom_score_adj_values, vals, sizeof(vals));
    return 1;
}

static sds oomValuesGet(void) {
    int *v = cfg.oom_score_adj_values;
    return sdscatprintf(sdsempty(), "%d %d %d", v[0], v[1], v[2]);
}

/* The primary lives in replication/ (repl_replica.c); "no one" and "" are
 * the default, a primary at start-up (the directive is immutable, as in
 * Redis: REPLICAOF changes it at run time). */
static int replicaofSet(sds *argv, int argc, const char **err) {
    if (argc == 0 || (argc == 1 && !argv[0][0])) return 1; /* "" = the default */
    if (argc != 2) FAIL("wrong number of arguments");
    if (!strcasecmp(argv[0], "no") && !strcasecmp(argv[1], "one")) return 1;
    char *end;
    long port = strtol(argv[1], &end, 10);
    if (port < 0 || port > 65535 || *end || !argv[1][0]) FAIL("Invalid master port");
    replConfigSetMaster(argv[0], (int)port);
    return 1;
}

static sds replicaofGet(void) { return replConfigGetMaster(); }

/* Without a master Redis writes no line (and drops old ones). */
static void replicaofRewrite(rewriteState *st, int idx) {
    sds v = replConfigGetMaster();
    if (sdslen(v)) rwLine(st, idx, sdscatprintf(sdsempty(), "replicaof %s", v), 1);
    sdsfree(v);
}

static void saveRewrite(rewriteState *st, int idx) {
    if (cfg.saveparamslen == 0) rwLine(st, idx, sdsnew("save \"\""), 1);
    for (int j = 0; j < cfg.saveparamslen; j++)
        rwLine(st, idx,
               sdscatprintf(sdsempty(), "save %lld %lld", cfg.saveparams[j].seconds,
                            cfg.saveparams[j].changes),
               1);
}

static void cobRewrite(rewriteState *st, int idx) {
    for (int j = 0; j < CLIENT_TYPE_OBUF_COUNT; j++) {
        clientBufferLimit *l = &cfg.client_obuf_limits[j], *d = &cobDefaults[j];
        int force = l->hard_limit_bytes != d->hard_limit_bytes ||
                    l->soft_limit_bytes != d->soft_limit_bytes ||
                    l->soft_limit_seconds != d->soft_limit_seconds;
        sds line = sdscatprintf(sdsempty(), "client-output-buffer-limit %s ", cobClassName[j]);
        line = formatMemory(line, (long long)l->hard_limit_bytes);
        line = sdscat(line, " ");
        line = formatMemory(line, (long long)l->soft_limit_bytes);
        line = sdscatprintf(line, " %lld", l->soft_limit_seconds);
        rwLine(st, idx, line, force);
    }
}

/* ------------------------------------------------------------------------
 * The directive table
 * --------------------------------------------------------------------- */

// clang-format off
#define HOOK(h) .apply = &cfgHooks.apply_##h
#define B(n, a, fl, f, d, ...) \
    {.name = n, .alias = a, .type = T_BOOL, .flags = fl, .ptr = &cfg.f, .def = d, __VA_ARGS__}
#define N(n, a, fl, f, lo, hi, d, ...)                                                             \
    {.name = n, .alias = a, .type = T_NUM, .flags = fl, .ptr = &cfg.f, .width = WIDTH(cfg.f), \
     .min = lo, .max = hi, .def = d, __VA_ARGS__}
#define E(n, a, fl, f, en, d, ...) \
    {.name = n, .alias = a, .type = T_ENUM, .flags = fl, .ptr = &cfg.f, .enums = en, .def = d, __VA_ARGS__}
#define S(n, a, fl, f, d, ...) \
    {.name = n, .alias = a, .type = T_STR, .flags = fl, .ptr = &cfg.f, .def = d, __VA_ARGS__}
#define X(n, a, fl, d, pfx, ...)                                                                        \
    {.name = n, .alias = a, .type = T_SPECIAL, .flags = fl, .def = d, .set = pfx##Set, .get = pfx##Get, \
     __VA_ARGS__}

#define IMM F_IMMUTABLE
#define MEM F_MEMORY

/* Bounds are Redis 7.0's (they show in error messages); unsigned fields stop
 * at LLONG_MAX like Redis' memory parser. Order is the CONFIG GET * order and
 * the order CONFIG REWRITE appends in. */
const directive directives[] = {
    /* General */
    B("daemonize", NULL, IMM, daemonize, "no"),
    S("pidfile", NULL, IMM | F_EMPTYNULL, pidfile, NULL),
    S("logfile", NULL, IMM, logfile, ""),
    E("loglevel", NULL, 0, verbosity, loglevelEnum, "notice", HOOK(loglevel)),
    B("syslog-enabled", NULL, IMM, syslog_enabled, "no"),
    S("syslog-ident", NULL, IMM, syslog_ident, "redis"),
    E("syslog-facility", NULL, IMM, syslog_facility, syslogEnum, "local0"),
    B("always-show-logo", NULL, IMM, always_show_logo, "no"),
    B("set-proc-title", NULL, IMM, set_proc_title, "yes"),
    S("proc-title-template", NULL, 0, proc_title_template, "{title} {listen-addr} {server-mode}",
      .valid = validProcTitle, HOOK(proc_title)),
    E("supervised", NULL, IMM, supervised, supervisedEnum, "no"),
    B("crash-log-enabled", NULL, 0, crash_log_enabled, "yes"),
    B("crash-memcheck-enabled", NULL, 0, crash_memcheck_enabled, "yes"),
    N("shutdown-timeout", NULL, 0, shutdown_timeout, 0, INT_MAX, "10"),
    E("shutdown-on-sigint", NULL, F_MULTIARG | F_BITFLAGS, shutdown_on_sigint, shutdownEnum, "default",
      .check = checkShutdown),
    E("shutdown-on-sigterm", NULL, F_MULTIARG | F_BITFLAGS, shutdown_on_sigterm, shutdownEnum, "default",
      .check = checkShutdown),
    X("dir", NULL, F_PROTECTED | F_QUOTE | F_ALWAYS | F_NOLOADING, NULL, dir, HOOK(dir)),
    E("enable-debug-command", NULL, IMM, enable_debug_cmd, protectedEnum, "no"),
    E("enable-protected-configs", NULL, IMM, enable_protected_configs, protectedEnum, "no"),
    E("enable-module-command", NULL, IMM, enable_module_cmd, protectedEnum, "no"),
    N("databases", NULL, IMM, dbnum, 1, INT_MAX, "16"),
    N("acllog-max-len", NULL, 0, acllog_max_len, 0, LLONG_MAX, "128"),
    E("acl-pubsub-default", NULL, 0, acl_pubsub_default, aclPubsubEnum, "resetchannels"),
    S("aclfile", NULL, IMM, acl_filename, ""),
    S("ignore-warnings", NULL, 0, ignore_warnings, ""),

    /* Networking */
    N("port", NULL, F_NEEDHOOK, port, 0, 65535, "6379", HOOK(port)),
    X("bind", NULL, F_MULTIARG | F_NEEDHOOK, "* -::*", bind, HOOK(bind)),
    S("bind-source-addr", NULL, F_EMPTYNULL, bind_source_addr, NULL),
    S("unixsocket", NULL, IMM | F_EMPTYNULL, unixsocket, NULL),
    N("unixsocketperm", NULL, IMM | F_OCTAL, unixsocketperm, 0, 0777, "0"),
    N("tcp-backlog", NULL, IMM, tcp_backlog, 0, INT_MAX, "511"),
    N("tcp-keepalive", NULL, 0, tcpkeepalive, 0, INT_MAX, "300"),
    N("timeout", NULL, 0, maxidletime, 0, INT_MAX, "0"),
    N("maxclients", NULL, F_NEEDHOOK, maxclients, 1, UINT_MAX, "10000", HOOK(maxclients)),
    B("protected-mode", NULL, 0, protected_mode, "yes"),
    N("io-threads", NULL, IMM, io_threads_num, 1, 128, "1"),
    B("io-threads-do-reads", NULL, IMM, io_threads_do_reads, "no"),
    N("proto-max-bulk-len", NULL, MEM, proto_max_bulk_len, 1024 * 1024, LLONG_MAX, "536870912"),
    N("client-query-buffer-limit", NULL, MEM, client_max_querybuf_len, 1024 * 1024, LLONG_MAX, "1073741824"),
    X("client-output-buffer-limit", NULL, F_MULTIARG,
      "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", cob, .rewrite = cobRewrite),

    /* TLS. A file directive is F_VOLATILE: setting the same path again
     * reloads it, which is how a renewed certificate is picked up. */
    N("tls-port", NULL, F_NEEDHOOK, tls_port, 0, 65535, "0", HOOK(tls_port)),
    S("tls-cert-file", NULL, F_EMPTYNULL | F_VOLATILE, tls_cert_file, NULL, HOOK(tls)),
    S("tls-key-file", NULL, F_EMPTYNULL | F_VOLATILE, tls_key_file, NULL, HOOK(tls)),
    S("tls-key-file-pass", NULL, F_EMPTYNULL | F_SENSITIVE, tls_key_file_pass, NULL, HOOK(tls)),
    S("tls-client-cert-file", NULL, F_EMPTYNULL | F_VOLATILE, tls_client_cert_file, NULL, HOOK(tls)),
    S("tls-client-key-file", NULL, F_EMPTYNULL | F_VOLATILE, tls_client_key_file, NULL, HOOK(tls)),
    S("tls-client-key-file-pass", NULL, F_EMPTYNULL | F_SENSITIVE, tls_client_key_file_pass, NULL, HOOK(tls)),
    S("tls-dh-params-file", NULL, F_EMPTYNULL | F_VOLATILE, tls_dh_params_file, NULL, HOOK(tls)),
    S("tls-ca-cert-file", NULL, F_EMPTYNULL | F_VOLATILE, tls_ca_cert_file, NULL, HOOK(tls)),
    S("tls-ca-cert-dir", NULL, F_EMPTYNULL | F_VOLATILE, tls_ca_cert_dir, NULL, HOOK(tls)),
    E("tls-auth-clients", NULL, 0, tls_auth_clients, tlsAuthEnum, "yes", HOOK(tls)),
    S("tls-protocols", NULL, F_EMPTYNULL, tls_protocols, NULL, HOOK(tls)),
    S("tls-ciphers", NULL, F_EMPTYNULL, tls_ciphers, NULL, HOOK(tls)),
    S("tls-ciphersuites", NULL, F_EMPTYNULL, tls_ciphersuites, NULL, HOOK(tls)),
    B("tls-prefer-server-ciphers", NULL, 0, tls_prefer_server_ciphers, "no", HOOK(tls)),
    B("tls-session-caching", NULL, 0, tls_session_caching, "yes", HOOK(tls)),
    N("tls-session-cache-size", NULL, 0, tls_session_cache_size, 0, INT_MAX, "20480", HOOK(tls)),
    N("tls-session-cache-timeout", NULL, 0, tls_session_cache_timeout, 0, INT_MAX, "300", HOOK(tls)),
    B("tls-replication", NULL, 0, tls_replication, "no", HOOK(tls)),
    B("tls-cluster", NULL, 0, tls_cluster, "no", HOOK(tls)),
    S("requirepass", NULL, F_EMPTYNULL | F_SENSITIVE | F_BINARY, requirepass, NULL, HOOK(requirepass)),
    N("tracking-table-max-keys", NULL, 0, tracking_table_max_keys, 0, LLONG_MAX, "1000000"),

    /* Keyspace, memory, expiry */
    N("hz", NULL, 0, hz, 0, INT_MAX, "10", .check = checkHz, HOOK(hz)),
    B("dynamic-hz", NULL, 0, dynamic_hz, "yes"),
    B("activerehashing", NULL, 0, activerehashing, "yes"),
    N("active-expire-effort", NULL, 0, active_expire_effort, 1, 10, "1"),
    B("lazyfree-lazy-eviction", NULL, 0, lazyfree_lazy_eviction, "no"),
    B("lazyfree-lazy-expire", NULL, 0, lazyfree_lazy_expire, "no"),
    B("lazyfree-lazy-server-del", NULL, 0, lazyfree_lazy_server_del, "no"),
    B("lazyfree-lazy-user-del", NULL, 0, lazyfree_lazy_user_del, "no"),
    B("lazyfree-lazy-user-flush", NULL, 0, lazyfree_lazy_user_flush, "no"),
    B("replica-lazy-flush", "slave-lazy-flush", 0, replica_lazy_flush, "no"),
    N("maxmemory", NULL, MEM, maxmemory, 0, LLONG_MAX, "0", HOOK(maxmemory)),
    E("maxmemory-policy", NULL, 0, maxmemory_policy, maxmemoryEnum, "noeviction"),
    N("maxmemory-samples", NULL, 0, maxmemory_samples, 1, INT_MAX, "5"),
    N("maxmemory-eviction-tenacity", NULL, 0, maxmemory_eviction_tenacity, 0, 100, "10"),
    N("maxmemory-clients", NULL, MEM | F_PERCENT, maxmemory_clients, -100, LLONG_MAX, "0"),
    N("lfu-log-factor", NULL, 0, lfu_log_factor, 0, INT_MAX, "10"),
    N("lfu-decay-time", NULL, 0, lfu_decay_time, 0, INT_MAX, "1"),
    X("notify-keyspace-events", NULL, F_QUOTE, "", notify),
    /* Refused as by a Redis built without its patched jemalloc: cairn does
     * not move allocations, so "yes" would only pretend. */
    B("activedefrag", NULL, 0, active_defrag_enabled, "no",
      .refuse = "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified "
                "Jemalloc like the one shipped by default with the Redis source distribution"),
    N("active-defrag-cycle-min", NULL, 0, active_defrag_cycle_min, 1, 99, "1"),
    N("active-defrag-cycle-max", NULL, 0, active_defrag_cycle_max, 1, 99, "25"),
    N("active-defrag-ignore-bytes", NULL, MEM, active_defrag_ignore_bytes, 1, LLONG_MAX, "104857600"),
    N("active-defrag-max-scan-fields", NULL, 0, active_defrag_max_scan_fields, 1, LLONG_MAX, "1000"),
    N("active-defrag-threshold-lower", NULL, 0, active_defrag_threshold_lower, 0, 1000, "10"),
    N("active-defrag-threshold-upper", NULL, 0, active_defrag_threshold_upper, 0, 1000, "100"),
    B("jemalloc-bg-thread", NULL, 0, jemalloc_bg_thread, "yes", HOOK(jemalloc_bg_thread)),
    E("oom-score-adj", NULL, 0, oom_score_adj, oomEnum, "no", HOOK(oom_score_adj)),
    X("oom-score-adj-values", NULL, F_MULTIARG, "0 200 800", oomValues, HOOK(oom_score_adj)),
    B("disable-thp", NULL, IMM, disable_thp, "yes"),

    /* Data type encodings */
    N("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, hash_max_listpack_entries, 0, LLONG_MAX, "512"),
    N("hash-max-listpack-value", "hash-max-ziplist-value", MEM, hash_max_listpack_value, 0, LLONG_MAX, "64"),
    N("list-max-listpack-size", "list-max-ziplist-size", 0, list_max_listpack_size, INT_MIN, INT_MAX, "-2"),
    N("list-compress-depth", NULL, 0, list_compress_depth, 0, INT_MAX, "0"),
    N("set-max-intset-entries", NULL, 0, set_max_intset_entries, 0, LLONG_MAX, "512"),
    N("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, zset_max_listpack_entries, 0, LLONG_MAX, "128"),
    N("zset-max-listpack-value", "zset-max-ziplist-value", MEM, zset_max_listpack_value, 0, LLONG_MAX, "64"),
    N("hll-sparse-max-bytes", NULL, MEM, hll_sparse_max_bytes, 0, LLONG_MAX, "3000"),
    N("stream-node-max-bytes", NULL, MEM, stream_node_max_bytes, 0, LLONG_MAX, "4096"),
    N("stream-node-max-entries", NULL, 0, stream_node_max_entries, 0, LLONG_MAX, "100"),

    /* Persistence */
    X("save", NULL, F_MULTIARG, "3600 1 300 100 60 10000", save, .rewrite = saveRewrite),
    S("dbfilename", NULL, F_PROTECTED | F_BASENAME, rdb_filename, "dump.rdb"),
    B("rdbcompression", NULL, 0, rdb_compression, "yes"),
    E("snapshot-compression", NULL, 0, snapshot_compression, snapshotCompressionEnum, "none"),
    B("rdbchecksum", NULL, IMM, rdb_checksum, "yes"),
    B("stop-writes-on-bgsave-error", NULL, 0, stop_writes_on_bgsave_err, "yes"),
    B("rdb-del-sync-files", NULL, 0, rdb_del_sync_files, "no"),
    B("rdb-save-incremental-fsync", NULL, 0, rdb_save_incremental_fsync, "yes"),
    B("appendonly", NULL, F_NOLOADING, appendonly, "no", HOOK(appendonly)),
    S("appendfilename", NULL, IMM | F_BASENAME | F_NONEMPTY, appendfilename, "appendonly.aof"),
    S("appenddirname", NULL, IMM | F_BASENAME | F_NONEMPTY, appenddirname, "appendonlydir"),
    E("appendfsync", NULL, 0, appendfsync, appendfsyncEnum, "everysec", HOOK(appendfsync)),
    B("no-appendfsync-on-rewrite", NULL, 0, aof_no_fsync_on_rewrite, "no"),
    N("auto-aof-rewrite-percentage", NULL, 0, aof_rewrite_perc, 0, INT_MAX, "100"),
    N("auto-aof-rewrite-min-size", NULL, MEM, aof_rewrite_min_size, 0, LLONG_MAX, "67108864"),
    B("aof-load-truncated", NULL, 0, aof_load_truncated, "yes"),
    B("aof-use-rdb-preamble", NULL, 0, aof_use_rdb_preamble, "yes"),
    B("aof-timestamp-enabled", NULL, 0, aof_timestamp_enabled, "no"),
    B("aof-preallocate", NULL, 0, aof_preallocate, "yes"),
    B("aof-rewrite-incremental-fsync", NULL, 0, aof_rewrite_incremental_fsync, "yes"),
    B("aof-disable-auto-gc", NULL, 0, aof_disable_auto_gc, "no", HOOK(aof_auto_gc)),
    E("sanitize-dump-payload", NULL, 0, sanitize_dump_payload, sanitizeEnum, "no"),

    /* Monitoring */
    N("slowlog-log-slower-than", NULL, 0, slowlog_log_slower_than, -1, LLONG_MAX, "10000"),
    N("slowlog-max-len", NULL, 0, slowlog_max_len, 0, LONG_MAX, "128"),
    N("latency-monitor-threshold", NULL, 0, latency_monitor_threshold, 0, LLONG_MAX, "0"),
    B("latency-tracking", NULL, 0, latency_tracking_enabled, "yes"),
    X("latency-tracking-info-percentiles", NULL, F_MULTIARG, "50 99 99.9", latencyPercentiles),
    X("rename-command", NULL, IMM | F_MULTIARG | F_NOGET, "", renameCommand, .rewrite = renameCommandRewrite),
    X("user", NULL, IMM | F_MULTIARG | F_NOGET, "", user, .rewrite = userRewrite),
    N("socket-mark-id", NULL, IMM, socket_mark_id, 0, UINT_MAX, "0"),
    S("server_cpulist", NULL, IMM | F_EMPTYNULL, server_cpulist, NULL),
    S("bio_cpulist", NULL, IMM | F_EMPTYNULL, bio_cpulist, NULL),
    S("aof_rewrite_cpulist", NULL, IMM | F_EMPTYNULL, aof_rewrite_cpulist, NULL),
    S("bgsave_cpulist", NULL, IMM | F_EMPTYNULL, bgsave_cpulist, NULL),
    N("rdb-key-save-delay", NULL, F_HIDDEN, rdb_key_save_delay, INT_MIN, INT_MAX, "0"),
    N("key-load-delay", NULL, F_HIDDEN, key_load_delay, INT_MIN, INT_MAX, "0"),
    N("watchdog-period", NULL, F_HIDDEN, watchdog_period, 0, INT_MAX, "0", HOOK(watchdog)),
    B("use-exit-on-panic", NULL, F_HIDDEN | F_IMMUTABLE, use_exit_on_panic, "no"),
    N("loading-process-events-interval-bytes", NULL, F_HIDDEN, loading_process_events_interval_bytes, 1024, INT_MAX, "2097152"),
    N("busy-reply-threshold", "lua-time-limit", 0, lua_time_limit, 0, LLONG_MAX, "5000"),

    /* Cluster and replication: stored only, replication arrives later */
    X("replicaof", "slaveof", IMM | F_MULTIARG, "", replicaof, .rewrite = replicaofRewrite),
    B("cluster-enabled", NULL, IMM, cluster_enabled, "no", .refuse = "cluster mode is not supported"),
    S("masterauth", NULL, F_EMPTYNULL | F_SENSITIVE | F_BINARY, masterauth, NULL),
    S("masteruser", NULL, F_EMPTYNULL, masteruser, NULL),
    N("repl-backlog-size", NULL, MEM, repl_backlog_size, 1, LLONG_MAX, "1048576"),
    N("repl-backlog-ttl", NULL, 0, repl_backlog_time_limit, 0, LLONG_MAX, "3600"),
    N("repl-timeout", NULL, 0, repl_timeout, 1, INT_MAX, "60"),
    N("repl-ping-replica-period", "repl-ping-slave-period", 0, repl_ping_replica_period, 1, INT_MAX, "10"),
    B("repl-diskless-sync", NULL, 0, repl_diskless_sync, "yes"),
    N("repl-diskless-sync-delay", NULL, 0, repl_diskless_sync_delay, 0, INT_MAX, "5"),
    N("repl-diskless-sync-max-replicas", NULL, 0, repl_diskless_sync_max_replicas, 0, INT_MAX, "0"),
    E("repl-diskless-load", NULL, F_NOLOADING, repl_diskless_load, disklessLoadEnum, "disabled"),
    E("repl-compression", NULL, 0, repl_compression, replCompressionEnum, "no"),
    N("repl-spill-max-size", NULL, MEM, repl_spill_max_size, 0, LLONG_MAX, "0"),
    B("repl-disable-tcp-nodelay", NULL, 0, repl_disable_tcp_nodelay, "no"),
    B("replica-read-only", "slave-read-only", 0, replica_read_only, "yes"),
    B("replica-serve-stale-data", "slave-serve-stale-data", 0, replica_serve_stale_data, "yes"),
    N("replica-priority", "slave-priority", 0, replica_priority, 0, INT_MAX, "100"),
    B("replica-ignore-maxmemory", "slave-ignore-maxmemory", 0, replica_ignore_maxmemory, "yes"),
    B("replica-announced", NULL, 0, replica_announced, "yes"),
    S("replica-announce-ip", "slave-announce-ip", F_EMPTYNULL, replica_announce_ip, NULL),
    N("replica-announce-port", "slave-announce-port", 0, replica_announce_port, 0, 65535, "0"),
    B("replica-ignore-disk-write-errors", NULL, 0, replica_ignore_disk_write_errors, "no"),
    N("min-replicas-to-write", "min-slaves-to-write", 0, min_replicas_to_write, 0, INT_MAX, "0"),
    N("min-replicas-max-lag", "min-slaves-max-lag", 0, min_replicas_max_lag, 0, INT_MAX, "10"),
    E("propagation-error-behavior", NULL, 0, propagation_error_behavior, propagationEnum, "ignore"),
};

// clang-format on

#define NDIRS ((int)(sizeof(directives) / sizeof(directives[0])))
const int directiveCount = NDIRS;

/* Redis 7.0 still accepts these in a config file and ignores them. */
static const char *deprecatedDirectives[] = {"list-max-ziplist-entries", "list-max-ziplist-value",
                                             "lua-replicate-commands", NULL};

/* Index of the directive called `name` (or an alias of it), -1 if none.
 * *shown receives the spelling Redis uses for it in messages: the table
 * name or alias that matched. */
int lookupDirective(const char *name, const char **shown) {
    for (int i = 0; i < NDIRS; i++) {
        const directive *d = &directives[i];
        if (!strcasecmp(d->name, name) || (d->alias && !strcasecmp(d->alias, name))) {
            if (shown) *shown = strcasecmp(d->name, name) ? d->alias : d->name;
            return i;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------------
 * Defaults and file loading
 * --------------------------------------------------------------------- */

void configInitDefaults(void) {
    refreshDir();
    for (int i = 0; i < NDIRS; i++) {
        const directive *d = &directives[i];
        const char *err = NULL;
        if (d->set == dirSet) continue; /* the default is wherever we started */
        if (d->type == T_STR) {
            if (d->flags & F_BINARY) {
                sdsfree(*(sds *)d->ptr);
                *(sds *)d->ptr = d->def ? sdsnew(d->def) : NULL;
                continue;
            }
            zfree(*(char **)d->ptr);
            *(char **)d->ptr = d->def ? zstrdup(d->def) : NULL;
            continue;
        }
        sds def = sdsnew(d->def);
        if (!directiveSetString(d, def, &err)) {
            fprintf(stderr, "cairn: bad built-in default for '%s': %s\n", d->name, err);
            abort();
        }
        sdsfree(def);
    }
    memcpy(cobDefaults, cfg.client_obuf_limits, sizeof(cobDefaults));
    /* Not Redis 7.0 directives (they arrive in 7.2); sane values for any
     * code that reads them anyway. */
    cfg.set_max_listpack_entries = 128;
    cfg.set_max_listpack_value = 64;
}

/* The first error of a load. Loading stops there: nothing after the bad
 * line takes effect, as when Redis exits on it. */
static struct {
    int failed;
    sds msg; /* what configLoad prints before exiting */
} loadErr;

static void loadFail(const char *origin, int linenum, const char *line, const char *reason) {
    if (loadErr.failed) return;
    loadErr.failed = 1;
    loadErr.msg = sdscatprintf(sdsempty(), "Reading %s, at line %d\n>>> '%s'\n%s", origin, linenum,
                               line, reason);
}

/* Whole file as an sds, or NULL with errno set. */
static sds readWholeFile(const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) return NULL;
    sds content = sdsempty();
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) content = sdscatlen(content, buf, n);
    if (ferror(fp)) {
        int e = errno;
        fclose(fp);
        sdsfree(content);
        errno = e ? e : EIO;
        return NULL;
    }
    fclose(fp);
    return content;
}

static void loadFromString(const char *text, const char *origin, int depth);

#define MAX_INCLUDE_DEPTH 16

static const char *loadFile(const char *path, int depth) {
    sds content = readWholeFile(path);
    if (!content) {
        snprintf(errbuf, sizeof(errbuf), "can't open config file '%s': %s", path, strerror(errno));
        return errbuf;
    }
    sds origin = sdscatprintf(sdsempty(), "the configuration file %s", path);
    loadFromString(content, origin, depth);
    sdsfree(origin);
    sdsfree(content);
    return NULL;
}

/* Relative paths are relative to the current directory, like Redis (so a
 * preceding `dir` line moves them). Globs include every match in order. */
static const char *loadInclude(const char *path, int depth) {
    if (depth > MAX_INCLUDE_DEPTH) {
        snprintf(errbuf, sizeof(errbuf), "include nesting is too deep (more than %d levels)",
                 MAX_INCLUDE_DEPTH);
        return errbuf;
    }
    if (!strpbrk(path, "*?[")) return loadFile(path, depth);
    glob_t g;
    const char *err = NULL;
    if (glob(path, 0, NULL, &g) != 0) return NULL; /* no match: nothing to include */
    for (size_t k = 0; k < g.gl_pathc && !err && !loadErr.failed; k++)
        err = loadFile(g.gl_pathv[k], depth);
    globfree(&g);
    return err;
}

/* One parsed line; returns an error reason or NULL. */
static const char *loadDirective(sds *argv, int argc, int depth) {
    const char *err = NULL;
    sdstolower(argv[0]);
    int i = lookupDirective(argv[0], NULL);
    if (i >= 0) {
        const directive *d = &directives[i];
        if (!(d->flags & F_MULTIARG) && argc != 2) return "wrong number of arguments";
        if ((d->flags & F_MULTIARG) && argc == 2 && sdslen(argv[1])) {
            /* `save "900 1 300 10"`: one quoted argument holding the list */
            int n;
            sds *sub = sdssplitargs(argv[1], &n);
            if (!sub) return "Unbalanced quotes in configuration line";
            int ok = directiveSet(d, sub, n, &err);
            sdsfreesplitres(sub, n);
            return ok ? NULL : err;
        }
        return directiveSet(d, argv + 1, argc - 1, &err) ? NULL : err;
    }
    if (!strcmp(argv[0], "include") && argc == 2) return loadInclude(argv[1], depth + 1);
    for (int k = 0; deprecatedDirectives[k]; k++)
        if (!strcmp(argv[0], deprecatedDirectives[k]) && argc == 2) return NULL;
    return "Bad directive or wrong number of arguments";
}

static void loadFromString(const char *text, const char *origin, int depth) {
    int n;
    sds *lines = sdssplitlen(text, (ssize_t)strlen(text), "\n", 1, &n);
    for (int k = 0; k < n; k++) {
        sds line = sdstrim(lines[k], " \t\r\n");
        if (line[0] == '\0' || line[0] == '#') continue;
        int argc;
        sds *argv = sdssplitargs(line, &argc);
        if (!argv) {
            loadFail(origin, k + 1, line, "Unbalanced quotes in configuration line");
            break;
        }
        if (argc > 0) {
            const char *err = loadDirective(argv, argc, depth);
            /* An included file's own error is already recorded: keep it. */
            if (err) loadFail(origin, k + 1, line, err);
        }
        sdsfreesplitres(argv, argc);
        if (loadErr.failed) break;
    }
    sdsfreesplitres(lines, n);
}

int configLoadText(const char *text, sds *err) {
    loadingFile = 1;
    saveLoaded = 0;
    loadErr.failed = 0;
    loadFromString(text, "the configuration text", 0);
    loadingFile = 0;
    *err = loadErr.msg;
    loadErr.msg = NULL;
    return loadErr.failed ? -1 : 0;
}

/* Prints the recorded load error and exits, as Redis does. */
static void loadExitIfFailed(void) {
    if (!loadErr.failed) return;
    fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (cairn) ***\n%s\n", loadErr.msg);
    exit(1);
}

void configLoad(const char *path, const char *overrides) {
    loadingFile = 1;
    loadErr.failed = 0;
    saveLoaded = 0; /* shared by file and overrides: `--save` adds to the file's */
    if (path) {
        zfree(configFile);
        if (path[0] == '/') {
            configFile = zstrdup(path);
        } else {
            /* Computed before reading: a `dir` line changes the cwd. */
            char cwd[PATH_MAX];
            const char *rel = path;
            while (rel[0] == '.' && rel[1] == '/') rel += 2;
            sds abs = getcwd(cwd, sizeof(cwd)) ? sdscatprintf(sdsempty(), "%s/%s", cwd, rel)
                                               : sdsnew(path);
            configFile = zstrdup(abs);
            sdsfree(abs);
        }
        const char *err = loadFile(path, 0);
        if (err) {
            fprintf(stderr, "Fatal error, %s\n", err);
            exit(1);
        }
        loadExitIfFailed();
    }
    if (overrides && *overrides) loadFromString(overrides, "the command line arguments", 0);
    loadExitIfFailed();
    loadingFile = 0;
}

const char *configFilePath(void) {
    return configFile;
}

/* Bare words stay bare so the override text reads like a config file;
 * anything sdssplitargs could misread is quoted. */
/* Every value is quoted, as Redis does: start-up errors then show the
 * line as 'port "6379" "6380"'. */
static sds catArg(sds s, const char *a) { return sdscatrepr(s, a, strlen(a)); }

sds configArgvToOverrides(int argc, char **argv, int start) {
    sds out = sdsempty(), in = NULL;
    int handled = 1; /* the last option got at least one argument */
    int open = 0;
    for (int j = start; j < argc; j++) {
        const char *a = argv[j];
        if (a[0] == '-' && a[1] == '\0' && (j == 1 || j == argc - 1)) {
            if (!in) {
                in = sdsempty();
                char buf[4096];
                size_t n;
                while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) in = sdscatlen(in, buf, n);
            }
        } else if (handled && a[0] == '-' && a[1] == '-') {
            if (open) out = sdscat(out, "\n");
            out = sdscat(out, a + 2);
            open = 1;
            int n;
            sds *t = sdssplitargs(a, &n);
            /* "--port 6380" as one argument already carries its value; a
             * bare "--name" takes the next argument even if it starts with
             * "--", except that `--save` followed by an option or nothing
             * means `--save ""` (pre-7.0 command lines rely on it). */
            handled = !(t && n == 1);
            if (!handled && !strcasecmp(a, "--save") &&
                (j == argc - 1 || (argv[j + 1][0] == '-' && argv[j + 1][1] == '-'))) {
                out = sdscat(out, " \"\"");
                handled = 1;
            }
            sdsfreesplitres(t, n);
        } else {
            out = sdscat(out, " ");
            out = catArg(out, a);
            open = 1;
            handled = 1;
        }
    }
    if (open) out = sdscat(out, "\n");
    if (in) {
        if (sdslen(in) && in[sdslen(in) - 1] != '\n') in = sdscat(in, "\n");
        in = sdscatsds(in, out);
        sdsfree(out);
        out = in;
    }
    return out;
}

static int rewrite_force_all; /* DEBUG CONFIG-REWRITE-FORCE-ALL */

static void rewriteDirective(rewriteState *st, int idx) {
    const directive *d = &directives[idx];
    if (d->rewrite) {
        d->rewrite(st, idx);
    } else if (d->type != T_STR || *(char **)d->ptr) { /* NULL strings: no line */
        sds val = directiveGet(d);
        int force = rewrite_force_all || (d->flags & F_ALWAYS) || !d->def || strcmp(val, d->def) != 0;
        sds line = sdscatprintf(sdsempty(), "%s ", d->name);
        if (d->type == T_NUM && (d->flags & F_MEMORY) && numRead(d) >= 0)
            line = formatMemory(line, numRead(d));
        else if (d->type == T_STR || (d->flags & F_QUOTE))
            line = sdscatrepr(line, val, sdslen(val));
        else
            line = sdslen(val) ? sdscatsds(line, val) : sdscat(line, "\"\"");
        sdsfree(val);
        rwLine(st, idx, line, force);
    }
    rwDone(st, idx);
}

static int writeFileAtomic(const char *path, const char *content, size_t len) {
    struct stat sb;
    int saved;
    mode_t mode = stat(path, &sb) == 0 ? (sb.st_mode & 07777) : 0644;
    sds tmp = sdscatprintf(sdsempty(), "%s.rewrite-%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd == -1) goto fail;
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, content + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) goto fail;
        off += (size_t)w;
    }
    /* umask may have narrowed the mode; keep the original file's. */
    if (fchmod(fd, mode) == -1 || fsync(fd) == -1) goto fail;
    if (close(fd) == -1) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) == -1) goto fail;
    sdsfree(tmp);
    /* Make the rename itself durable. */
    sds dir = sdsnew(path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *(slash == dir ? slash + 1 : slash) = '\0';
        int dfd = open(dir, O_RDONLY);
        if (dfd != -1) {
            fsync(dfd);
            close(dfd);
        }
    }
    sdsfree(dir);
    return 0;
fail:
    saved = errno;
    if (fd != -1) close(fd);
    unlink(tmp);
    sdsfree(tmp);
    errno = saved;
    return -1;
}

int configRewriteForceAll(const char *path) {
    rewrite_force_all = 1;
    int ret = configRewrite(path);
    rewrite_force_all = 0;
    return ret;
}

int configRewrite(const char *path) {
    rewriteState st = {.needs_signature = 1};
    char *real = realpath(path, NULL); /* write through symlinks, not over them */
    const char *target = real ? real : path;
    int ret = -1, e = 0;

    sds old = readWholeFile(target);
    if (!old && errno != ENOENT) {
        e = errno;
        goto done;
    }
    if (old) {
        int n;
        sds *lines = sdssplitlen(old, (ssize_t)sdslen(old), "\n", 1, &n);
        for (int k = 0; k < n; k++) {
            sds line = sdstrim(lines[k], " \t\r\n");
            lines[k] = NULL;
            int owner = RW_NONE;
            if (line[0] == '#' || line[0] == '\0') {
                if (!strcmp(line, RW_SIGNATURE)) st.needs_signature = 0;
            } else {
                int argc;
                sds *argv = sdssplitargs(line, &argc);
                if (argv && argc > 0) owner = lookupDirective(argv[0], NULL);
                sdsfreesplitres(argv, argc);
            }
            rwAppend(&st, line, owner);
        }
        sdsfreesplitres(lines, n);
        sdsfree(old);
    }
    for (int i = 0; i < NDIRS; i++) rewriteDirective(&st, i);

    sds content = sdsempty();
    int was_empty = 0;
    for (int k = 0; k < st.n; k++) {
        int empty = sdslen(st.lines[k]) == 0;
        if (empty && was_empty) continue; /* runs of blank lines become one */
        was_empty = empty;
        content = sdscatsds(content, st.lines[k]);
        content = sdscatlen(content, "\n", 1);
    }
    ret = writeFileAtomic(target, content, sdslen(content));
    e = errno;
    sdsfree(content);
done:
    for (int k = 0; k < st.n; k++) sdsfree(st.lines[k]);
    zfree(st.lines);
    zfree(st.owner);
    free(real);
    errno = e;
    return ret;
}
