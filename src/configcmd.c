/* configcmd: the CONFIG command (GET, SET, RESETSTAT, REWRITE, HELP) and the
 * enable-*-command / enable-protected-configs checks. Values enter through
 * directiveSetString() and leave through directiveGet() (directive.h), so
 * CONFIG SET validates exactly like the config file; the table, the parser
 * and the rewriter live in config.c. */
#include "args.h"
#include "client.h"
#include "config.h"
#include "log.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "directive.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#define NDIRS directiveCount

/* ------------------------------------------------------------------------
 * CONFIG command
 * --------------------------------------------------------------------- */

static int clientIsLocal(client *c) {
    if (c->flags & CLIENT_UNIX_SOCKET) return 1;
    return !strncmp(c->peer, "127.", 4) || !strncmp(c->peer, "[::1]:", 6) ||
           !strncmp(c->peer, "::1:", 4);
}

int configAllowProtectedAction(int setting, client *c) {
    return setting == DEBUG_CMD_YES || (setting == DEBUG_CMD_LOCAL && clientIsLocal(c));
}

static int nameSeen(const char **names, int n, const char *name) {
    for (int k = 0; k < n; k++)
        if (!strcasecmp(names[k], name)) return 1;
    return 0;
}

static void configGet(client *c) {
    int max = NDIRS * 2 + c->argc, n = 0;
    const char **names = zmalloc(sizeof(char *) * (size_t)max);
    int *idx = zmalloc(sizeof(int) * (size_t)max);
    for (int j = 2; j < c->argc; j++) {
        sds pat = c->argv[j]->ptr;
        if (!strpbrk(pat, "[*?")) {
            /* An exact name is echoed as typed, like Redis. */
            int i = lookupDirective(pat, NULL);
            if (i >= 0 && !(directives[i].flags & F_NOGET) && !nameSeen(names, n, pat)) {
                names[n] = pat;
                idx[n++] = i;
            }
            continue;
        }
        for (int i = 0; i < NDIRS; i++) {
            const char *cand[2] = {directives[i].name, directives[i].alias};
            if (directives[i].flags & (F_HIDDEN | F_NOGET)) continue;
            for (int k = 0; k < 2; k++) {
                if (!cand[k] || nameSeen(names, n, cand[k])) continue;
                if (!stringmatchlen(pat, (int)sdslen(pat), cand[k], (int)strlen(cand[k]), 1))
                    continue;
                names[n] = cand[k];
                idx[n++] = i;
            }
        }
    }
    replyMapLen(c, n);
    for (int k = 0; k < n; k++) {
        replyBulkCString(c, names[k]);
        replyBulkSds(c, directiveGet(&directives[idx[k]]));
    }
    zfree(names);
    zfree(idx);
}

/* Put back the values saved before a failed CONFIG SET. */
static void restoreValues(const int *idx, const char **shown, sds *old, int count) {
    for (int i = 0; i < count; i++) {
        const char *err = NULL;
        if (!directiveSetString(&directives[idx[i]], old[i], &err))
            serverLog(LL_WARNING,
                      "Failed restoring failed CONFIG SET command. Error setting %s to '%s': %s",
                      shown[i], old[i], err ? err : "");
    }
}

/* All-or-nothing: every name is checked before anything is stored, every
 * value is stored before any hook runs, and any failure puts every value of
 * this call back (and re-runs the hooks for the restored values). */
static void configSet(client *c) {
    if (c->argc < 4) {
        replyError(c, "ERR wrong number of arguments for 'config|set' command");
        return;
    }
    if (c->argc & 1) {
        replyErrorSyntax(c);
        return;
    }
    int n = (c->argc - 2) / 2, nfns = 0, unknown = 0;
    int *idx = zmalloc(sizeof(int) * (size_t)n), *fnOwner = zmalloc(sizeof(int) * (size_t)n);
    const char **shown = zmalloc(sizeof(char *) * (size_t)n);
    configApplyFn **fns = zmalloc(sizeof(configApplyFn *) * (size_t)n);
    sds *old = zcalloc(sizeof(sds) * (size_t)n), msg = NULL;
    const char *err = NULL, *errname = NULL;
    int deny_loading = 0;

    /* Secrets never reach SLOWLOG or MONITOR, even in a failing call. */
    for (int i = 0; i < n; i++) {
        int k = lookupDirective(c->argv[2 + 2 * i]->ptr, NULL);
        if (k >= 0 && (directives[k].flags & F_SENSITIVE)) clientRedactArg(c, 3 + 2 * i);
    }
    for (int i = 0; i < n && !errname; i++) {
        const char *name = c->argv[2 + 2 * i]->ptr;
        idx[i] = lookupDirective(name, &shown[i]);
        const directive *d = idx[i] >= 0 ? &directives[idx[i]] : NULL;
        if (!d)
            unknown = 1;
        else if (d->flags & F_IMMUTABLE)
            err = "can't set immutable config";
        else if ((d->flags & F_PROTECTED) &&
                 !configAllowProtectedAction(cfg.enable_protected_configs, c))
            err = "can't set protected config";
        for (int j = 0; j < i && d && !err; j++)
            if (idx[j] == idx[i]) err = "duplicate parameter";
        if (unknown || err) errname = name;
        if (d && (d->flags & F_NOLOADING) && server.loading) deny_loading = 1;
    }
    /* As Redis: after the name checks, -LOADING comes before value errors
     * (clients may retry on it). */
    if (deny_loading && !errname) {
        errname = "";
        deny_loading = 2;
        replyError(c, "LOADING Redis is loading the dataset in memory");
    }
    for (int i = 0; i < n && !errname; i++) old[i] = directiveGet(&directives[idx[i]]);
    for (int i = 0; i < n && !errname; i++) {
        const directive *d = &directives[idx[i]];
        if (!directiveSetString(d, c->argv[3 + 2 * i]->ptr, &err)) {
            errname = shown[i];
            msg = sdsnew(err); /* err may point into errbuf, which restoring reuses */
            restoreValues(idx, shown, old, i + 1);
            break;
        }
        if (!d->apply) continue;
        sds now = directiveGet(d);
        int changed = strcmp(now, old[i]) != 0, known = 0;
        sdsfree(now);
        if (changed && !*d->apply && (d->flags & F_NEEDHOOK)) {
            /* Checked after parsing so bad values get their usual error. */
            errname = shown[i];
            msg = sdsnew("can't set immutable config");
            restoreValues(idx, shown, old, i + 1);
            break;
        }
        if (!*d->apply) continue;
        for (int j = 0; j < nfns; j++) known |= fns[j] == *d->apply;
        if ((changed || (d->flags & F_VOLATILE)) && !known) {
            fns[nfns] = *d->apply;
            fnOwner[nfns++] = i;
        }
    }
    for (int f = 0; f < nfns && !errname; f++) {
        err = NULL;
        if (fns[f](&err)) continue;
        errname = shown[fnOwner[f]];
        msg = err ? sdsnew(err) : NULL;
        serverLog(LL_WARNING,
                  "Failed applying new configuration. Possibly related to new %s setting. "
                  "Restoring previous settings.",
                  errname);
        restoreValues(idx, shown, old, n);
        for (int g = 0; g < nfns; g++) {
            const char *e2 = NULL;
            if (!fns[g](&e2))
                serverLog(LL_WARNING, "Failed applying restored configuration: %s", e2 ? e2 : "");
        }
        err = NULL;
    }

    if (!errname)
        replyOk(c);
    else if (deny_loading == 2)
        ; /* replied above */
    else if (unknown)
        replyErrorFormat(c, "ERR Unknown option or number of arguments for CONFIG SET - '%s'",
                         errname);
    else if (msg || err)
        replyErrorFormat(c, "ERR CONFIG SET failed (possibly related to argument '%s') - %s",
                         errname, msg ? msg : err);
    else
        replyErrorFormat(c, "ERR CONFIG SET failed (possibly related to argument '%s')", errname);
    for (int i = 0; i < n; i++) sdsfree(old[i]);
    sdsfree(msg);
    zfree(old);
    zfree(idx);
    zfree(fnOwner);
    zfree(shown);
    zfree(fns);
}

static void configRewriteCommand(client *c) {
    const char *path = configFilePath();
    if (!path) {
        replyError(c, "ERR The server is running without a config file");
        return;
    }
    if (configRewrite(path) == -1) {
        const char *why = strerror(errno);
        serverLog(LL_WARNING, "CONFIG REWRITE failed: %s", why);
        replyErrorFormat(c, "ERR Rewriting config file: %s", why);
        return;
    }
    serverLog(LL_NOTICE, "CONFIG REWRITE executed with success.");
    replyOk(c);
}

static const char *configHelp[] = {
    "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET <pattern>",
    "    Return parameters matching the glob-like <pattern> and their values.",
    "SET <directive> <value>",
    "    Set the configuration <directive> to <value>.",
    "RESETSTAT",
    "    Reset statistics reported by the INFO command.",
    "REWRITE",
    "    Rewrite the configuration file.",
    "HELP",
    "    Prints this help.",
    NULL,
};

void configCommand(client *c) {
    if (c->argc < 2) {
        replyError(c, "ERR wrong number of arguments for 'config' command");
        return;
    }
    robj *sub = c->argv[1];
    const char *arity = NULL;
    if (argEq(sub, "get")) {
        if (c->argc >= 3)
            configGet(c);
        else
            arity = "get";
    } else if (argEq(sub, "set")) {
        configSet(c);
    } else if (argEq(sub, "resetstat")) {
        if (c->argc == 2) {
            resetServerStats();
            replyOk(c);
        } else {
            arity = "resetstat";
        }
    } else if (argEq(sub, "rewrite")) {
        if (c->argc == 2)
            configRewriteCommand(c);
        else
            arity = "rewrite";
    } else if (argEq(sub, "help")) {
        if (c->argc == 2) {
            int n = 0;
            while (configHelp[n]) n++;
            replyArrayLen(c, n);
            for (int k = 0; k < n; k++) replyStatusC(c, configHelp[k]);
        } else {
            arity = "help";
        }
    } else {
        replyErrorFormat(c, "ERR unknown subcommand '%.128s'. Try CONFIG HELP.", (char *)sub->ptr);
    }
    if (arity) replyErrorFormat(c, "ERR wrong number of arguments for 'config|%s' command", arity);
}
