/* slowlog: the slow log (commands slower than slowlog-log-slower-than) and
 * the MONITOR feed.
 *
 * Entries enter from commandCall with copies of the arguments (trimmed like
 * Redis: at most 32 arguments of at most 128 bytes) and leave through
 * SLOWLOG GET; the list owns its entries. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "slowlog.h"
#include "util.h"
#include "zmalloc.h"

#include <stdio.h>
#include <sys/time.h>

#define SLOWLOG_ENTRY_MAX_ARGC   32
#define SLOWLOG_ENTRY_MAX_STRING 128

struct slowlogEntry {
    robj **argv;
    int argc;
    long long id;
    long long duration;
    time_t time;
    sds cname, peerid;
    struct slowlogEntry *next, *prev; /* newest first */
};

static void slowlogFreeEntry(slowlogEntry *e) {
    for (int j = 0; j < e->argc; j++) decrRefCount(e->argv[j]);
    zfree(e->argv);
    sdsfree(e->cname);
    sdsfree(e->peerid);
    zfree(e);
}

void slowlogPush(client *c, robj **argv, int argc, long long duration) {
    slowlogEntry *e = zmalloc(sizeof(*e));
    int slargc = argc > SLOWLOG_ENTRY_MAX_ARGC ? SLOWLOG_ENTRY_MAX_ARGC : argc;
    e->argc = slargc;
    e->argv = zmalloc(sizeof(robj *) * slargc);
    for (int j = 0; j < slargc; j++) {
        if (slargc != argc && j == slargc - 1) {
            e->argv[j] = createObject(OBJ_STRING, sdscatprintf(sdsempty(), "... (%d more arguments)",
                                                               argc - slargc + 1));
        } else {
            char num[LONG_STR_SIZE];
            size_t len;
            const char *p = stringObjectPtr(argv[j], num, &len);
            if (len > SLOWLOG_ENTRY_MAX_STRING) {
                sds s = sdsnewlen(p, SLOWLOG_ENTRY_MAX_STRING);
                s = sdscatprintf(s, "... (%lu more bytes)", (unsigned long)(len - SLOWLOG_ENTRY_MAX_STRING));
                e->argv[j] = createObject(OBJ_STRING, s);
            } else {
                e->argv[j] = createStringObject(p, len);
            }
        }
    }
    e->time = time(NULL);
    e->duration = duration;
    e->id = server.slowlog_entry_id++;
    e->peerid = sdsnew(c->peer);
    e->cname = c->name ? sdsdup(c->name) : sdsempty();
    e->prev = NULL;
    e->next = server.slowlog_head;
    if (server.slowlog_head) server.slowlog_head->prev = e;
    server.slowlog_head = e;
    if (!server.slowlog_tail) server.slowlog_tail = e;
    server.slowlog_len++;
    while (server.slowlog_len > cfg.slowlog_max_len) {
        slowlogEntry *t = server.slowlog_tail;
        server.slowlog_tail = t->prev;
        if (t->prev) t->prev->next = NULL;
        else server.slowlog_head = NULL;
        slowlogFreeEntry(t);
        server.slowlog_len--;
    }
}

void slowlogReset(void) {
    while (server.slowlog_head) {
        slowlogEntry *e = server.slowlog_head;
        server.slowlog_head = e->next;
        slowlogFreeEntry(e);
    }
    server.slowlog_tail = NULL;
    server.slowlog_len = 0;
}

void slowlogCommand(client *c) {
    static const char *help[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (c->argc == 2 && !strcasecmp(sub, "help")) {
        replyHelp(c, help);
    } else if (c->argc == 2 && !strcasecmp(sub, "reset")) {
        slowlogReset();
        replyOk(c);
    } else if (c->argc == 2 && !strcasecmp(sub, "len")) {
        replyLongLong(c, (long long)server.slowlog_len);
    } else if ((c->argc == 2 || c->argc == 3) && !strcasecmp(sub, "get")) {
        long count = 10;
        if (c->argc == 3) {
            if (getRangeLongFromObjectOrReply(c, c->argv[2], -1, LONG_MAX, &count,
                                              "count should be greater than or equal to -1") != C_OK)
                return;
            if (count == -1) count = (long)server.slowlog_len;
        }
        if (count > (long)server.slowlog_len) count = (long)server.slowlog_len;
        replyArrayLen(c, count);
        slowlogEntry *e = server.slowlog_head;
        for (long n = 0; n < count && e; n++, e = e->next) {
            replyArrayLen(c, 6);
            replyLongLong(c, e->id);
            replyLongLong(c, (long long)e->time);
            replyLongLong(c, e->duration);
            replyArrayLen(c, e->argc);
            for (int j = 0; j < e->argc; j++) replyBulk(c, e->argv[j]);
            replyBulkBuf(c, e->peerid, sdslen(e->peerid));
            replyBulkBuf(c, e->cname, sdslen(e->cname));
        }
    } else {
        replyErrorSubcommand(c);
    }
}

/* MONITOR: every command as one status line to each monitor. */
void monitorFeed(client *c, serverDb *db, robj **argv, int argc) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    sds s = sdscatprintf(sdsempty(), "+%ld.%06ld ", (long)tv.tv_sec, (long)tv.tv_usec);
    if (c->flags & CLIENT_UNIX_SOCKET) s = sdscatprintf(s, "[%d unix:%s] ", db->id, cfg.unixsocket);
    else s = sdscatprintf(s, "[%d %s] ", db->id, c->peer);
    /* Credentials never reach a monitor: AUTH's arguments and HELLO's AUTH
     * pair are shown redacted, as Redis does. */
    int is_auth = argEq(argv[0], "auth"), is_hello = argEq(argv[0], "hello");
    int redact_from = is_auth ? 1 : argc, redact_to = argc;
    for (int j = 2; is_hello && j + 2 < argc; j++)
        if (argEq(argv[j], "auth")) {
            redact_from = j + 1;
            redact_to = j + 3;
            break;
        }
    for (int j = 0; j < argc; j++) {
        if (j >= redact_from && j < redact_to) {
            s = sdscat(s, "\"(redacted)\"");
            if (j != argc - 1) s = sdscatlen(s, " ", 1);
            continue;
        }
        char num[LONG_STR_SIZE];
        size_t len;
        const char *p = stringObjectPtr(argv[j], num, &len);
        s = sdscatrepr(s, p, len);
        if (j != argc - 1) s = sdscatlen(s, " ", 1);
    }
    s = sdscatlen(s, "\r\n", 2);
    for (client *m = server.monitors; m; m = m->monitor_next) {
        replyBegin(m);
        replyRaw(m, s, sdslen(s));
    }
    sdsfree(s);
}

void monitorCommand(client *c) {
    if (c->flags & CLIENT_MONITOR) return;
    c->flags |= CLIENT_MONITOR;
    c->monitor_next = server.monitors;
    server.monitors = c;
    replyOk(c);
}
