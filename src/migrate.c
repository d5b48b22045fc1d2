/* migrate: MIGRATE host port key|"" db timeout [COPY] [REPLACE]
 * [AUTH pass | AUTH2 user pass] [KEYS key ...], as Redis 7.0 does it.
 *
 * The command blocks the server while it talks to the target, as in
 * Redis: it writes one buffer holding [AUTH] [SELECT] and a RESTORE per
 * key (a DUMP payload with the remaining TTL), then reads the replies one
 * line each. Keys the target acknowledged are deleted here (unless COPY)
 * and the command is propagated as DEL of exactly those keys.
 *
 * Connections are cached per "host:port" (at most MIGRATE_CACHE_MAX, the
 * least recently used one closed to make room) and remember the database
 * last selected, so a run of MIGRATEs to one target sends SELECT once;
 * migrateCron closes those unused for MIGRATE_CACHE_TTL seconds. This file
 * owns the cache and its file descriptors. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "db.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "dump.h"
#include "migrate.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MIGRATE_CACHE_MAX   64
#define MIGRATE_CACHE_TTL   10    /* seconds unused before the cron closes it */
#define MIGRATE_WRITE_CHUNK 65536 /* each chunk gets the full timeout */

typedef struct migrateConn {
    sds name; /* "host:port" */
    int fd;
    int last_dbid; /* -1: SELECT before the next RESTORE */
    time_t last_use;
} migrateConn;

static migrateConn cache[MIGRATE_CACHE_MAX];
static int ncached;

int migrateCachedSockets(void) {
    return ncached;
}

static void migrateConnClose(int i) {
    close(cache[i].fd);
    sdsfree(cache[i].name);
    cache[i] = cache[--ncached];
}

static int migrateConnFind(const char *name) {
    for (int i = 0; i < ncached; i++)
        if (!strcmp(cache[i].name, name)) return i;
    return -1;
}

static void migrateConnForget(const char *host, const char *port) {
    sds name = sdscatprintf(sdsempty(), "%s:%s", host, port);
    int i = migrateConnFind(name);
    if (i >= 0) migrateConnClose(i);
    sdsfree(name);
}

void migrateCron(void) {
    for (int i = 0; i < ncached;) {
        if (server.unixtime - cache[i].last_use > MIGRATE_CACHE_TTL)
            migrateConnClose(i);
        else
            i++;
    }
}

/* Wait for fd to become readable or writable before deadline (ms). */
static int migrateWait(int fd, short events, long long deadline) {
    struct pollfd pfd = {.fd = fd, .events = events};
    int r;
    do {
        long long left = deadline - mstime();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return 0;
        }
        r = poll(&pfd, 1, (int)left);
    } while (r == -1 && errno == EINTR);
    if (r == 0) errno = ETIMEDOUT;
    return r > 0;
}

/* A non-blocking TCP connection to host:port made within timeout ms, or -1. */
static int migrateConnect(const char *host, const char *port, long timeout) {
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
    long long deadline = mstime() + timeout;
    int fd = -1;
    for (struct addrinfo *p = res; p && fd == -1; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, p->ai_protocol);
        if (fd == -1) continue;
        if (connect(fd, p->ai_addr, p->ai_addrlen) == 0) break;
        /* A connect that completes with an error (refused) is left for the
         * first write to report, as Redis does: the reply is then the
         * "writing" IOERR, not the "connecting" one kept for timeouts. */
        if (errno != EINPROGRESS || !migrateWait(fd, POLLOUT, deadline)) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd != -1) {
        int yes = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    }
    return fd;
}

/* The cached connection to host:port, connecting if there is none. NULL
 * (with the error replied) if the connection cannot be made. */
static migrateConn *migrateConnGet(client *c, const char *host, const char *port, long timeout) {
    sds name = sdscatprintf(sdsempty(), "%s:%s", host, port);
    int i = migrateConnFind(name);
    if (i >= 0) {
        sdsfree(name);
        cache[i].last_use = server.unixtime;
        return &cache[i];
    }
    int fd = migrateConnect(host, port, timeout);
    if (fd == -1) {
        sdsfree(name);
        replyError(c, "IOERR error or timeout connecting to the client");
        return NULL;
    }
    if (ncached == MIGRATE_CACHE_MAX) {
        int oldest = 0;
        for (int j = 1; j < ncached; j++)
            if (cache[j].last_use < cache[oldest].last_use) oldest = j;
        migrateConnClose(oldest);
    }
    migrateConn *mc = &cache[ncached++];
    mc->name = name;
    mc->fd = fd;
    mc->last_dbid = -1;
    mc->last_use = server.unixtime;
    return mc;
}

static int migrateWriteAll(int fd, const char *buf, size_t len, long timeout) {
    size_t done = 0;
    while (done < len) {
        size_t chunk = len - done < MIGRATE_WRITE_CHUNK ? len - done : MIGRATE_WRITE_CHUNK;
        long long deadline = mstime() + timeout;
        size_t sent = 0;
        while (sent < chunk) {
            ssize_t n = write(fd, buf + done + sent, chunk - sent);
            if (n > 0) {
                sent += (size_t)n;
            } else if (n == -1 && errno != EAGAIN && errno != EINTR) {
                return -1;
            } else if (!migrateWait(fd, POLLOUT, deadline)) {
                return -1;
            }
        }
        done += chunk;
    }
    return 0;
}

/* One reply line (CRLF stripped, cut to size - 1) within timeout ms.
 * Replies to AUTH, SELECT and RESTORE are all single lines. */
static int migrateReadLine(int fd, char *buf, size_t size, long timeout) {
    long long deadline = mstime() + timeout;
    size_t len = 0;
    while (1) {
        char ch;
        ssize_t n = read(fd, &ch, 1);
        if (n == 0) {
            errno = ECONNRESET;
            return -1;
        }
        if (n == -1) {
            if (errno != EAGAIN && errno != EINTR) return -1;
            if (!migrateWait(fd, POLLIN, deadline)) return -1;
            continue;
        }
        if (ch == '\n') break;
        if (len + 1 < size) buf[len++] = ch;
    }
    if (len && buf[len - 1] == '\r') len--;
    buf[len] = '\0';
    return (int)len;
}

static sds migrateAppendBulk(sds s, const char *p, size_t len) {
    s = sdscatprintf(s, "$%zu\r\n", len);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

static sds migrateAppendCommand(sds s, int argc, const char **argv) {
    s = sdscatprintf(s, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) s = migrateAppendBulk(s, argv[j], strlen(argv[j]));
    return s;
}

int migrateGetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    for (int j = 6; j < argc; j++) {
        const char *arg = argv[j]->ptr;
        if (!strcasecmp(arg, "auth")) {
            j++;
        } else if (!strcasecmp(arg, "auth2")) {
            j += 2;
        } else if (!strcasecmp(arg, "keys") && sdslen(argv[3]->ptr) == 0) {
            int n = 0;
            for (int k = j + 1; k < argc; k++, n++) {
                keys[n].pos = k;
                keys[n].flags = CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_DELETE;
            }
            return n;
        }
    }
    keys[0].pos = 3;
    keys[0].flags = CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_DELETE;
    return 1;
}

typedef struct migrateArgs {
    int copy, replace;
    const char *user, *pass; /* NULL: no AUTH / AUTH2 */
    int first_key, num_keys;
    long timeout, dbid;
} migrateArgs;

static int migrateParseOrReply(client *c, migrateArgs *a) {
    memset(a, 0, sizeof(*a));
    a->first_key = 3;
    a->num_keys = 1;
    for (int j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (argEq(c->argv[j], "copy")) {
            a->copy = 1;
        } else if (argEq(c->argv[j], "replace")) {
            a->replace = 1;
        } else if (argEq(c->argv[j], "auth") && more >= 1) {
            a->pass = c->argv[++j]->ptr;
            clientRedactArg(c, j);
        } else if (argEq(c->argv[j], "auth2") && more >= 2) {
            a->user = c->argv[++j]->ptr;
            clientRedactArg(c, j);
            a->pass = c->argv[++j]->ptr;
            clientRedactArg(c, j);
        } else if (argEq(c->argv[j], "keys")) {
            if (sdslen(c->argv[3]->ptr) != 0) {
                replyError(
                    c,
                    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
                    "string");
                return C_ERR;
            }
            a->first_key = j + 1;
            a->num_keys = c->argc - j - 1;
            break;
        } else {
            replyErrorSyntax(c);
            return C_ERR;
        }
    }
    if (getLongFromObjectOrReply(c, c->argv[5], &a->timeout, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[4], &a->dbid, NULL) != C_OK)
        return C_ERR;
    if (a->timeout <= 0) a->timeout = 1000;
    return C_OK;
}

/* The buffer for one attempt: [AUTH] [SELECT] and a RESTORE per key that
 * has not expired meanwhile; the keys sent are compacted to the front of
 * keys/vals and their number returned in *nsent. */
static sds migrateBuildRequest(client *c, const migrateArgs *a, int select, robj **keys,
                               robj **vals, int nkeys, int *nsent) {
    sds req = sdsempty();
    if (a->pass) {
        const char *auth[3] = {"AUTH", a->user ? a->user : a->pass, a->pass};
        req = migrateAppendCommand(req, a->user ? 3 : 2, auth);
    }
    if (select) {
        char db[32];
        snprintf(db, sizeof(db), "%ld", a->dbid);
        const char *sel[2] = {"SELECT", db};
        req = migrateAppendCommand(req, 2, sel);
    }
    int n = 0;
    for (int j = 0; j < nkeys; j++) {
        long long ttl = 0, at = dbGetExpire(c->db, keys[j]);
        if (at != -1) {
            ttl = at - mstime();
            if (ttl < 0) continue;
            if (ttl < 1) ttl = 1;
        }
        keys[n] = keys[j];
        vals[n++] = vals[j];
        req = sdscatprintf(req, "*%d\r\n$7\r\nRESTORE\r\n", a->replace ? 5 : 4);
        req = migrateAppendBulk(req, keys[j]->ptr, sdslen(keys[j]->ptr));
        char num[32];
        int len = snprintf(num, sizeof(num), "%lld", ttl);
        req = migrateAppendBulk(req, num, (size_t)len);
        sds payload = dumpPayloadCreate(vals[j]);
        req = migrateAppendBulk(req, payload, sdslen(payload));
        sdsfree(payload);
        if (a->replace) req = migrateAppendBulk(req, "REPLACE", 7);
    }
    *nsent = n;
    return req;
}

void migrateCommand(client *c) {
    migrateArgs a;
    if (migrateParseOrReply(c, &a) != C_OK) return;

    /* Only keys that exist go; none at all is NOKEY, not an error (they
     * often expired just before). */
    robj **keys = zmalloc(sizeof(robj *) * a.num_keys);
    robj **vals = zmalloc(sizeof(robj *) * a.num_keys);
    int nkeys = 0;
    for (int j = 0; j < a.num_keys; j++) {
        robj *k = c->argv[a.first_key + j];
        robj *v = dbLookupRead(c->db, k);
        if (v) {
            keys[nkeys] = k;
            vals[nkeys++] = v;
        }
    }
    if (nkeys == 0) {
        zfree(keys);
        zfree(vals);
        replyStatusC(c, "NOKEY");
        return;
    }
    /* argv may be rewritten to DEL below: keep host and port. */
    sds host = sdsdup(c->argv[1]->ptr), port = sdsdup(c->argv[2]->ptr);
    robj **delv = NULL;
    int may_retry = 1;

    while (1) {
        migrateConn *mc = migrateConnGet(c, host, port, a.timeout);
        if (!mc) break;
        int select = mc->last_dbid != a.dbid;
        int nsent;
        sds req = migrateBuildRequest(c, &a, select, keys, vals, nkeys, &nsent);
        nkeys = nsent;
        int write_failed = migrateWriteAll(mc->fd, req, sdslen(req), a.timeout) == -1;
        int io_errno = errno;
        sdsfree(req);

        char auth_reply[1024] = "", select_reply[1024] = "", reply[1024];
        int io_failed = write_failed;
        if (!io_failed && a.pass &&
            migrateReadLine(mc->fd, auth_reply, sizeof(auth_reply), a.timeout) == -1)
            io_failed = 1, io_errno = errno;
        if (!io_failed && select &&
            migrateReadLine(mc->fd, select_reply, sizeof(select_reply), a.timeout) == -1)
            io_failed = 1, io_errno = errno;
        if (io_failed) {
            /* Nothing was applied: a stale cached connection is retried
             * once on a fresh one, a timeout is not. */
            int timed_out = io_errno == ETIMEDOUT;
            migrateConnForget(host, port);
            if (!timed_out && may_retry) {
                may_retry = 0;
                continue;
            }
            replyErrorFormat(c, "IOERR error or timeout %s to target instance",
                             write_failed ? "writing" : "reading");
            break;
        }

        int target_error = 0, read_failed = 0, ndel = 0, j;
        if (!a.copy) delv = zmalloc(sizeof(robj *) * (nkeys + 1));
        for (j = 0; j < nkeys; j++) {
            if (migrateReadLine(mc->fd, reply, sizeof(reply), a.timeout) == -1) {
                read_failed = 1;
                io_errno = errno;
                break;
            }
            const char *err = auth_reply[0] == '-'     ? auth_reply
                              : select_reply[0] == '-' ? select_reply
                              : reply[0] == '-'        ? reply
                                                       : NULL;
            if (err) {
                /* The first error is the reply; the database selected on
                 * the target is no longer known. */
                if (!target_error) {
                    mc->last_dbid = -1;
                    target_error = 1;
                    replyErrorFormat(c, "ERR Target instance replied with error: %s", err + 1);
                }
            } else if (!a.copy) {
                dbDelete(c->db, keys[j]);
                signalModifiedKey(c, c->db, keys[j]);
                notifyKeyspaceEvent(NOTIFY_GENERIC, "del", keys[j], c->db->id);
                server.dirty++;
                incrRefCount(keys[j]);
                delv[++ndel] = keys[j];
            }
        }
        if (read_failed && !target_error && j == 0 && may_retry && io_errno != ETIMEDOUT) {
            /* Not even the first RESTORE answered: as above, retry once. */
            zfree(delv);
            delv = NULL;
            migrateConnForget(host, port);
            may_retry = 0;
            continue;
        }
        if (read_failed) migrateConnForget(host, port);
        if (ndel > 0) {
            /* Replicas and the AOF delete what the target acknowledged. */
            delv[0] = createStringObject("DEL", 3);
            clientReplaceArgv(c, delv, ndel + 1);
        } else {
            zfree(delv);
        }
        delv = NULL;
        if (read_failed && !target_error) {
            replyError(c, "IOERR error or timeout reading to target instance");
        } else if (!target_error) {
            mc->last_dbid = (int)a.dbid;
            replyOk(c);
        }
        break;
    }
    sdsfree(host);
    sdsfree(port);
    zfree(keys);
    zfree(vals);
}
