/* script: EVAL and friends, SCRIPT, the script cache and the busy state.
 *
 * Data in: the command's argv. EVAL takes the body, hashes it, compiles it
 * once (the cache maps sha -> body sds and owns both) and runs it through
 * script_lua.c; EVALSHA looks the sha up. The script's writes propagate as
 * their own commands (commandCall on the fake client), wrapped in
 * MULTI/EXEC by propagate.c when there is more than one.
 *
 * A run's life:
 *
 *   EVAL --> running --(busy-reply-threshold)--> timed out: the Lua hook
 *              |                                  serves other clients
 *              |                                  (-BUSY), SCRIPT KILL
 *              v                                  sets killed (if no write)
 *            reply to the caller <--------------- error raised in Lua
 */
#include "script.h"
#include "blocked.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "evict.h"
#include "function.h"
#include "log.h"
#include "propagate.h"
#include "repl.h"
#include "snapshot.h"
#include "aof.h"
#include "reply.h"
#include "script_lua.h"
#include "server_state.h"
#include "slowlog.h"
#include "util.h"
#include "zmalloc.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static void scriptBodyDestructor(dict *d, void *val) {
    (void)d;
    sdsfree(val);
}
static dictType scriptDictType = {
    dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor, scriptBodyDestructor, NULL};
static dict *scripts;            /* sha -> body */
static long long scripts_memory; /* bytes of the bodies and shas */

void scriptInit(void) {
    scripts = dictCreate(&scriptDictType);
    scriptLuaInit();
}

int scriptIsBusy(void) {
    scriptRun *r = scriptLuaCurrent();
    return r && r->timedout;
}

client *scriptCaller(void) {
    scriptRun *r = scriptLuaCurrent();
    return r ? r->caller : NULL;
}

/* The cache's keys are sds: look a plain sha up through one. */
static sds scriptBody(const char *sha) {
    static sds key; /* the lookup key, kept: EVALSHA runs this every call */
    if (!key) key = sdsempty();
    key = sdscpy(key, sha);
    return dictFetchValue(scripts, key);
}

long long scriptCacheCount(void) {
    return (long long)dictSize(scripts);
}
/* The bodies and their shas, and the dict holding them (Redis' count). */
long long scriptCacheMemory(void) {
    return scripts_memory + (long long)(dictSize(scripts) * sizeof(dictEntry) +
                                        dictSlots(scripts) * sizeof(dictEntry *));
}

/* Redis' flag names, in the order FUNCTION LIST shows them. */
static const struct {
    int flag;
    const char *name;
} scriptFlagTable[] = {{SCRIPT_FLAG_NO_WRITES, "no-writes"},
                       {SCRIPT_FLAG_ALLOW_OOM, "allow-oom"},
                       {SCRIPT_FLAG_ALLOW_STALE, "allow-stale"},
                       {SCRIPT_FLAG_NO_CLUSTER, "no-cluster"},
                       {SCRIPT_FLAG_ALLOW_CROSS_SLOT, "allow-cross-slot-keys"},
                       {0, NULL}};

int scriptFlagFromName(const char *name, int nocase) {
    for (int j = 0; scriptFlagTable[j].name; j++)
        if (!(nocase ? strcasecmp : strcmp)(name, scriptFlagTable[j].name))
            return scriptFlagTable[j].flag;
    return 0;
}

const char *scriptFlagName(int i, int *flag) {
    if (i < 0 || i >= (int)(sizeof(scriptFlagTable) / sizeof(scriptFlagTable[0])) - 1) return NULL;
    *flag = scriptFlagTable[i].flag;
    return scriptFlagTable[i].name;
}

/* The "#!lua flags=..." first line: 0 with *flags and *len (bytes of the
 * line, its newline excluded), or -1 with the error in *err. No shebang:
 * SCRIPT_FLAG_COMPAT. */
static int scriptParseShebang(const char *body, size_t blen, int *flags, size_t *len, sds *err) {
    *flags = SCRIPT_FLAG_COMPAT;
    *len = 0;
    if (blen < 2 || body[0] != '#' || body[1] != '!') return 0;
    const char *nl = memchr(body, '\n', blen);
    size_t l = nl ? (size_t)(nl - body) : blen;
    sds line = sdsnewlen(body, l);
    int n = 0;
    sds *parts = sdssplitlen(line, sdslen(line), " ", 1, &n);
    int ok = 1;
    if (n == 0 || strcmp(parts[0], "#!lua")) {
        *err = sdscatprintf(sdsempty(), "ERR Unexpected engine in script shebang: %s",
                            n ? parts[0] : line);
        ok = 0;
    }
    *flags = 0;
    for (int j = 1; ok && j < n; j++) {
        if (sdslen(parts[j]) == 0) continue;
        if (strncmp(parts[j], "flags=", 6)) {
            *err = sdscatprintf(sdsempty(), "ERR Unknown lua shebang option: %s", parts[j]);
            ok = 0;
            break;
        }
        int nf = 0;
        sds *fl = sdssplitlen(parts[j] + 6, sdslen(parts[j]) - 6, ",", 1, &nf);
        for (int k = 0; k < nf; k++) {
            int f = scriptFlagFromName(fl[k], 0);
            if (f) {
                *flags |= f;
            } else if (sdslen(fl[k])) {
                *err = sdscatprintf(sdsempty(), "ERR Unexpected flag in script shebang: %s", fl[k]);
                ok = 0;
                break;
            }
        }
        sdsfreesplitres(fl, nf);
    }
    sdsfreesplitres(parts, n);
    sdsfree(line);
    *len = l;
    return ok ? 0 : -1;
}

/* The shebang flags of the script an EVAL, EVALSHA or their _RO forms
 * (cmd) would run: 0 with *flags, or -1 when it is not cached or its
 * shebang is bad. */
static int scriptCommandShebang(cairnCommand *cmd, robj **argv, int argc, int *flags) {
    const char *body = NULL;
    if (argc < 2) return -1;
    if (cmd->proc == evalCommand || cmd->proc == evalRoCommand) {
        body = argv[1]->ptr;
    } else if (sdslen(argv[1]->ptr) == 40) {
        char sha[41];
        const char *s = argv[1]->ptr;
        for (int j = 0; j < 40; j++) sha[j] = (char)tolower((unsigned char)s[j]);
        sha[40] = '\0';
        body = scriptBody(sha);
    }
    if (!body) return -1;
    size_t shebang;
    sds err = NULL;
    int ok = scriptParseShebang(body, sdslen((sds)body), flags, &shebang, &err) == 0;
    sdsfree(err);
    return ok ? 0 : -1;
}

static int scriptIsEval(cairnCommand *cmd) {
    return cmd->proc == evalCommand || cmd->proc == evalShaCommand;
}

int scriptCommandMayWrite(cairnCommand *cmd, robj **argv, int argc) {
    int declared = (cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE)) != 0;
    int is_eval_ro = cmd->proc == evalRoCommand || cmd->proc == evalShaRoCommand;
    int flags;
    /* A function's own flags decide, as in Redis (FCALL_RO of a function
     * without no-writes counts as a write; an unknown one keeps the
     * command's). */
    if (cmd->proc == fcallCommand || cmd->proc == fcallRoCommand) {
        if (argc < 2 || (flags = functionFlagsByName(argv[1]->ptr)) == -1) return declared;
        return !(flags & SCRIPT_FLAG_NO_WRITES);
    }
    if (!scriptIsEval(cmd) && !is_eval_ro) return declared;
    /* EVAL and EVALSHA may always replicate unless the script says
     * otherwise; the _RO forms only if it declares writes. A script not
     * cached may be anything. */
    int fallback = is_eval_ro ? declared : 1;
    if (scriptCommandShebang(cmd, argv, argc, &flags) == -1 || (flags & SCRIPT_FLAG_COMPAT))
        return fallback;
    return !(flags & SCRIPT_FLAG_NO_WRITES);
}

int scriptCommandDeclaresWrite(cairnCommand *cmd, robj **argv, int argc) {
    int flags;
    if (scriptIsEval(cmd))
        return scriptCommandShebang(cmd, argv, argc, &flags) == 0 &&
               !(flags & SCRIPT_FLAG_COMPAT) && !(flags & SCRIPT_FLAG_NO_WRITES);
    if (cmd->proc == fcallCommand && argc >= 2) {
        flags = functionFlagsByName(argv[1]->ptr);
        return flags != -1 && !(flags & SCRIPT_FLAG_NO_WRITES);
    }
    return 0;
}

/* Cache and compile body; its sha into sha[41]. 0, or -1 after replying. */
static int scriptCreate(client *c, const char *body, size_t blen, char *sha) {
    scriptSha1Hex(sha, body, blen);
    if (scriptBody(sha)) return 0;
    int flags;
    size_t shebang;
    sds err = NULL;
    if (scriptParseShebang(body, blen, &flags, &shebang, &err) == -1 ||
        (err = scriptLuaCompile(sha, body, blen, shebang)) != NULL) {
        if (!strncmp(err, "Error compiling", 15))
            replyErrorFormat(c, "ERR %s", err);
        else
            replyErrorLen(c, err, sdslen(err));
        sdsfree(err);
        return -1;
    }
    sds key = sdsnew(sha), val = sdsnewlen(body, blen);
    dictAdd(scripts, key, val);
    scripts_memory += (long long)(sdsAllocSize(key) + sdsAllocSize(val));
    return 0;
}

int scriptNumKeys(client *c, long long *numkeys, const char *notint) {
    if (getLongLongFromObject(c->argv[2], numkeys) != 0) {
        if (notint)
            replyError(c, notint);
        else
            replyErrorNotInt(c);
        return -1;
    }
    if (*numkeys > c->argc - 3) {
        replyError(c, "ERR Number of keys can't be greater than number of args");
        return -1;
    }
    if (*numkeys < 0) {
        replyError(c, "ERR Number of keys can't be negative");
        return -1;
    }
    return 0;
}

static void evalGeneric(client *c, int evalsha, int ro) {
    /* MONITOR shows the EVAL before the commands it runs (it is
     * skip_monitor, so commandCall would show it after them). */
    if (server.monitors) monitorFeed(c, c->db, c->argv, c->argc);
    long long numkeys;
    if (scriptNumKeys(c, &numkeys, NULL) == -1) return;
    char sha[41];
    const char *body;
    if (evalsha) {
        sds s = c->argv[1]->ptr;
        size_t l = sdslen(s);
        if (l != 40) {
            replyError(c, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
        for (int j = 0; j < 40; j++) sha[j] = (char)tolower((unsigned char)s[j]);
        sha[40] = '\0';
        body = scriptBody(sha);
        if (!body) {
            replyError(c, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
    } else {
        if (scriptCreate(c, c->argv[1]->ptr, sdslen(c->argv[1]->ptr), sha) == -1) return;
        body = scriptBody(sha);
    }
    int flags;
    size_t shebang;
    sds err = NULL;
    scriptParseShebang(body, sdslen((sds)body), &flags, &shebang, &err);
    sdsfree(err);
    scriptRun run = {0};
    run.sha = sha;
    if (scriptPrepareRun(&run, c, flags, ro) == -1) return;
    scriptExecute(&run, NULL, -1, (int)numkeys);
}

int scriptPrepareRun(scriptRun *run, client *c, int flags, int ro) {
    run->caller = c;
    run->flags = flags;
    run->readonly = ro || (flags & SCRIPT_FLAG_NO_WRITES);
    run->oom = cfg.maxmemory && evictPerform() == EVICT_FAIL;
    run->start_ms = mstime();
    int obey = (c->flags & CLIENT_MASTER) != 0;
    int stale = replIsReplica() && !replicaLinkUp() && !cfg.replica_serve_stale_data;
    if (flags & SCRIPT_FLAG_COMPAT) {
        if (stale) {
            replyError(
                c,
                "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
            return -1;
        }
        return 0;
    }
    /* The flags stand for the command's own (Redis' scriptFlagsToCmdFlags),
     * so the refusals are those the command core gives a command. */
    int may_write = !(flags & SCRIPT_FLAG_NO_WRITES);
    if (!obey) {
        const char *err = NULL;
        cairnCommand eff = *c->cmd;
        eff.flags &= ~(CMD_WRITE | CMD_STALE);
        if (may_write) eff.flags |= CMD_WRITE;
        if (flags & SCRIPT_FLAG_ALLOW_STALE) eff.flags |= CMD_STALE;
        if (run->oom && !(flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)))
            err = EVICT_OOM_ERROR;
        else if (may_write && rdbWritesDenied())
            err = RDB_MISCONF_ERROR;
        else if (may_write && aofWritesDenied())
            err = aofWritesDenied();
        else
            err = replCommandDenied(c, &eff);
        if (err) {
            replyError(c, err);
            return -1;
        }
    }
    if (ro && may_write) {
        replyError(c, "ERR Can not execute a script with write flag using *_ro command.");
        return -1;
    }
    return 0;
}

void scriptExecute(scriptRun *run,
                   void (*call)(scriptRun *run, int ref, robj **keys, int nkeys, robj **args,
                                int nargs),
                   int ref, int numkeys) {
    client *c = run->caller;
    /* Inside EXEC the transaction's MULTI/EXEC already wraps the writes. */
    int own = !propagateTransactionActive();
    if (own) propagateTransactionBeginLazy();
    robj **keys = c->argv + 3, **args = c->argv + 3 + numkeys;
    int nargs = c->argc - 3 - numkeys;
    if (call)
        call(run, ref, keys, numkeys, args, nargs);
    else
        scriptLuaRun(run, keys, numkeys, args, nargs);
    propagateSetTargets(STREAM_TO_ALL); /* redis.set_repl lasts for the run */
    if (own) propagateTransactionEnd();
    if (run->timedout) {
        serverLog(LL_WARNING, "Slow script finished after %lld milliseconds",
                  mstime() - run->start_ms);
        /* The primary's stream waited in its buffer (clientProcessInput). */
        for (client *p = server.clients; p; p = p->next)
            if (p->flags & CLIENT_MASTER) blockedQueueInput(p);
        /* The events served meanwhile flushed the caller's (empty) output
         * and dropped it from the pending writes: queue the reply again. */
        replyBegin(c);
    }
}

void evalCommand(client *c) {
    evalGeneric(c, 0, 0);
}
void evalShaCommand(client *c) {
    evalGeneric(c, 1, 0);
}
void evalRoCommand(client *c) {
    evalGeneric(c, 0, 1);
}
void evalShaRoCommand(client *c) {
    evalGeneric(c, 1, 1);
}

const char *scriptBusyError(void) {
    scriptRun *r = scriptLuaCurrent();
    return r && r->function ? SCRIPT_BUSY_FUNCTION_ERROR : SCRIPT_BUSY_ERROR;
}

void scriptKill(client *c, int eval) {
    scriptRun *r = scriptLuaCurrent();
    if (!r) {
        replyError(c, "NOTBUSY No scripts in execution right now.");
    } else if (r->caller->flags & CLIENT_MASTER) {
        replyError(c, "UNKILLABLE The busy script was sent by a master instance in the context of "
                      "replication and cannot be killed.");
    } else if (r->wrote) {
        replyError(c, "UNKILLABLE Sorry the script already executed write commands against the "
                      "dataset. You can either wait the script termination or kill the server in a "
                      "hard way using the SHUTDOWN NOSAVE command.");
    } else if (eval && r->function) {
        replyError(c, SCRIPT_BUSY_FUNCTION_ERROR);
    } else if (!eval && !r->function) {
        replyError(c, SCRIPT_BUSY_ERROR);
    } else {
        r->killed = 1;
        replyOk(c);
    }
}

static const char *scriptHelp[] = {
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
    NULL};

void scriptCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        replyHelp(c, scriptHelp);
    } else if (!strcasecmp(sub, "load")) {
        char sha[41];
        if (scriptCreate(c, c->argv[2]->ptr, sdslen(c->argv[2]->ptr), sha) == 0)
            replyBulkCString(c, sha);
    } else if (!strcasecmp(sub, "exists")) {
        replyArrayLen(c, c->argc - 2);
        for (int j = 2; j < c->argc; j++) {
            sds s = sdsdup(c->argv[j]->ptr);
            sdstolower(s);
            replyLongLong(c, dictFind(scripts, s) != NULL);
            sdsfree(s);
        }
    } else if (!strcasecmp(sub, "flush")) {
        if (c->argc > 3 || (c->argc == 3 && strcasecmp(c->argv[2]->ptr, "sync") &&
                            strcasecmp(c->argv[2]->ptr, "async"))) {
            replyError(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            return;
        }
        /* The bodies are small next to the Lua state, which the lazy-free
         * thread closes under ASYNC (the default with
         * lazyfree-lazy-user-flush), as Redis does. */
        int async =
            c->argc == 3 ? !strcasecmp(c->argv[2]->ptr, "async") : cfg.lazyfree_lazy_user_flush;
        unsigned long n = dictSize(scripts);
        dictEmpty(scripts, NULL);
        scripts_memory = 0;
        scriptLuaReset(async, n);
        replyOk(c);
    } else if (!strcasecmp(sub, "kill")) {
        scriptKill(c, 1);
    } else if (!strcasecmp(sub, "debug")) {
        /* Redis' checks and replies, except that there is no debugger to
         * turn on: NO is accepted (debugging is never on), YES/SYNC refused. */
        const char *mode = c->argv[2]->ptr;
        if (clientHasPendingReplies(c))
            replyError(c, "ERR SCRIPT DEBUG must be called outside a pipeline");
        else if (!strcasecmp(mode, "no"))
            replyOk(c);
        else if (!strcasecmp(mode, "yes") || !strcasecmp(mode, "sync"))
            replyError(c, "ERR SCRIPT DEBUG is not supported by this server");
        else
            replyError(c, "ERR Use SCRIPT DEBUG YES/SYNC/NO");
    } else {
        replyErrorSubcommand(c);
    }
}
