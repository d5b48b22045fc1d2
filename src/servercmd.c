/* servercmd: small server-wide commands: TIME, SHUTDOWN, MEMORY, LOLWUT and
 * MODULE (LASTSAVE is persistence/snapshot.c's). */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "log.h"
#include "object.h"
#include "reply.h"
#include "script.h"
#include "sds.h"
#include "server_state.h"
#include "shutdown_wait.h"
#include "util.h"
#include "zmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/time.h>

void timeCommand(client *c) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    replyArrayLen(c, 2);
    replyBulkLongLong(c, tv.tv_sec);
    replyBulkLongLong(c, tv.tv_usec);
}

void shutdownCommand(client *c) {
    int flags = SHUTDOWN_NOFLAGS, abort = 0;
    for (int j = 1; j < c->argc; j++) {
        if (argEq(c->argv[j], "nosave")) flags |= SHUTDOWN_NOSAVE;
        else if (argEq(c->argv[j], "save")) flags |= SHUTDOWN_SAVE;
        else if (argEq(c->argv[j], "now")) flags |= SHUTDOWN_NOW;
        else if (argEq(c->argv[j], "force")) flags |= SHUTDOWN_FORCE;
        else if (argEq(c->argv[j], "abort")) abort = 1;
        else {
            replyErrorSyntax(c);
            return;
        }
    }
    if ((abort && flags != SHUTDOWN_NOFLAGS) ||
        ((flags & SHUTDOWN_NOSAVE) && (flags & SHUTDOWN_SAVE))) {
        replyErrorSyntax(c);
        return;
    }
    /* A script is half-way through its writes: only NOSAVE may end it. */
    if (!(flags & SHUTDOWN_NOSAVE) && scriptIsBusy()) {
        replyError(c, scriptBusyError());
        return;
    }
    /* Saving now would write the half-loaded dataset over the file. */
    if (server.loading) flags = (flags & ~SHUTDOWN_SAVE) | SHUTDOWN_NOSAVE;
    if (abort) {
        /* Only a shutdown requested by SIGTERM/SIGINT can still be pending:
         * the cron carries it out on its next tick (or never, while DEBUG
         * PAUSE-CRON holds it). SHUTDOWN itself runs to completion. */
        if (!server.shutdown_asap && !shutdownWaitActive()) {
            replyError(c, "ERR No shutdown in progress.");
            return;
        }
        server.shutdown_asap = 0;
        shutdownWaitAbort();
        serverLog(LL_NOTICE, "Shutdown manually aborted.");
        replyOk(c);
        return;
    }
    /* With lagging replicas the reply (an error) comes from shutdown_wait.c,
     * or never when the process exits. */
    if (shutdownWaitBegin(flags, c)) return;
    if (prepareForShutdown(flags) == C_OK) exit(0);
    replyError(c, "ERR Errors trying to SHUTDOWN. Check logs.");
}

void memoryCommand(client *c) {
    static const char *help[] = {
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help") && c->argc == 2) {
        replyHelp(c, help);
    } else if (!strcasecmp(sub, "usage") && c->argc >= 3) {
        for (int j = 3; j < c->argc; j++) {
            long long samples;
            if (argEq(c->argv[j], "samples") && j + 1 < c->argc) {
                if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &samples, NULL) != C_OK) return;
                if (samples < 0) {
                    replyErrorSyntax(c);
                    return;
                }
                j++;
            } else {
                replyErrorSyntax(c);
                return;
            }
        }
        /* As Redis: the entry as stored, expired or not (no expiry, no
         * hit or miss counted, no keymiss event). */
        dictEntry *de = dictFind(c->db->dict, c->argv[2]->ptr);
        if (!de) {
            replyNull(c);
            return;
        }
        robj *o = dictGetVal(de);
        size_t usage = objectComputeSize(o) + sizeof(dictEntry) + sdslen(c->argv[2]->ptr) + 2;
        replyLongLong(c, (long long)usage);
    } else if (!strcasecmp(sub, "stats") && c->argc == 2) {
        replyMapLen(c, 4);
        replyBulkCString(c, "peak.allocated");
        replyLongLong(c, (long long)zmalloc_used_memory());
        replyBulkCString(c, "total.allocated");
        replyLongLong(c, (long long)zmalloc_used_memory());
        replyBulkCString(c, "keys.count");
        replyLongLong(c, dbTotalKeys());
        replyBulkCString(c, "dataset.bytes");
        replyLongLong(c, (long long)zmalloc_used_memory());
    } else if (!strcasecmp(sub, "doctor") && c->argc == 2) {
        /* Redis' detector says nothing below 5 MB of allocations. */
        const char *msg =
            zmalloc_used_memory() < 5 * 1024 * 1024
                ? "Hi Sam, this instance is empty or is using very little memory, my issues "
                  "detector can't be used in these conditions. Please, leave for your mission on "
                  "Earth and fill it with some data. The new Sam and I will be back to our "
                  "programming as soon as I finished rebooting."
                : "Hi Sam, I can't find any memory issue in your instance. I can only account for "
                  "what occurs on this base.";
        replyVerbatim(c, msg, strlen(msg), "txt");
    } else if (!strcasecmp(sub, "malloc-stats") && c->argc == 2) {
        const char *msg = "Stats not supported for the current allocator";
        replyVerbatim(c, msg, strlen(msg), "txt");
    } else if (!strcasecmp(sub, "purge") && c->argc == 2) {
        replyOk(c);
    } else {
        replyErrorSubcommand(c);
    }
}

/* LOLWUT [VERSION v] [arg ...]: Redis 7.0 answers every version with just
 * its own version line (the art of versions 5 and 6 is not reproduced);
 * clients and tools only look for "Redis ver.". */
void lolwutCommand(client *c) {
    const char *ver = CAIRN_VERSION;
    char buf[64];
    if (c->argc >= 3 && argEq(c->argv[1], "version")) {
        long long v;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &v, NULL) != C_OK) return;
        snprintf(buf, sizeof(buf), "%u.0.0", (unsigned int)v);
        ver = buf;
    }
    char line[96];
    int n = snprintf(line, sizeof(line), "Redis ver. %s\n", ver);
    replyVerbatim(c, line, (size_t)n, "txt");
}

/* MODULE: cairn has no module loader. LIST is empty; LOAD and LOADEX fail
 * as a library that does not load fails on Redis (once
 * enable-module-command lets them run at all, see commandProcess), and
 * UNLOAD finds no such module. */
void moduleCommand(client *c) {
    static const char *help[] = {
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module configurations and "
        "optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help") && c->argc == 2) {
        replyHelp(c, help);
    } else if ((!strcasecmp(sub, "load") || !strcasecmp(sub, "loadex")) && c->argc >= 3) {
        serverLog(LL_WARNING, "Module %s failed to load: this server has no module support",
                  (char *)c->argv[2]->ptr);
        replyError(c, "ERR Error loading the extension. Please check the server logs.");
    } else if (!strcasecmp(sub, "unload") && c->argc == 3) {
        replyError(c, "ERR Error unloading module: no such module with that name");
    } else if (!strcasecmp(sub, "list") && c->argc == 2) {
        replyArrayLen(c, 0);
    } else {
        replyErrorSubcommand(c);
    }
}
