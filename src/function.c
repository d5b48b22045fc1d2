/* function: the library store and the FUNCTION / FCALL commands.
 *
 * Data in: FUNCTION LOAD's code ("#!lua name=<lib>" then Lua), FUNCTION
 * RESTORE's payload, and FUNCTION2 records from a snapshot (through the
 * rdb.h hook). A library's code runs once in function_lua.c's state, which
 * calls back fnStoreRegister for each redis.register_function; the
 * library is linked into the store only when the whole load succeeded and
 * none of its function names is taken. Data out: FUNCTION LIST / DUMP
 * replies, the hook's records, and the FCALL runs (script.c's path, so
 * flags, -BUSY, KILL and propagation are EVAL's).
 *
 * Ownership: a store owns its libraries (name -> fnLibrary), a library
 * owns its functions (name -> fnFunction) and each function's Lua
 * reference; the store's function index borrows them. The writes (LOAD,
 * DELETE, FLUSH, RESTORE) count in server.dirty, so the command core
 * propagates them as they were sent. */
#include "function.h"
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "dump.h"
#include "function_lua.h"
#include "log.h"
#include "rdb.h"
#include "reply.h"
#include "script.h"
#include "server_state.h"
#include "slowlog.h"
#include "util.h"
#include "zmalloc.h"

#include <string.h>
#include <strings.h>

#define FN_LOAD_TIMEOUT_MS 500
#define FN_ENGINE          "LUA"
#define FN_BAD_NAME                                                                                \
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one " \
    "character long"

typedef struct fnLibrary fnLibrary;
typedef struct fnFunction {
    sds name;
    sds desc;  /* NULL: none */
    int flags; /* SCRIPT_FLAG_* */
    int ref;   /* the callback in the Lua registry */
    fnLibrary *lib;
} fnFunction;

struct fnLibrary {
    sds name;
    sds code; /* as loaded, shebang line included */
    dict *functions;
};

typedef struct fnStore {
    dict *libraries; /* name -> fnLibrary (owned) */
    dict *functions; /* name -> fnFunction (borrowed from the libraries) */
} fnStore;

static fnStore *store;

static void fnFunctionFree(dict *d, void *val) {
    (void)d;
    fnFunction *f = val;
    functionLuaUnref(f->ref);
    sdsfree(f->name);
    sdsfree(f->desc);
    zfree(f);
}
static void fnLibraryFree(fnLibrary *lib) {
    if (!lib) return;
    sdsfree(lib->name);
    sdsfree(lib->code);
    dictRelease(lib->functions);
    zfree(lib);
}
static void fnLibraryDestructor(dict *d, void *val) {
    (void)d;
    fnLibraryFree(val);
}
/* Keys are borrowed from the values (the name each one holds). */
static dictType fnFunctionsDictType = {dictSdsHash, NULL,           NULL, dictSdsKeyCompare,
                                       NULL,        fnFunctionFree, NULL};
static dictType fnLibrariesDictType = {dictSdsHash,         NULL, NULL, dictSdsKeyCompare, NULL,
                                       fnLibraryDestructor, NULL};
/* FCALL finds a function whatever the case of its name, as in Redis. */
static dictType fnIndexDictType = {
    dictSdsCaseHash, NULL, NULL, dictSdsKeyCaseCompare, NULL, NULL, NULL};

static fnStore *fnStoreCreate(void) {
    fnStore *s = zmalloc(sizeof(*s));
    s->libraries = dictCreate(&fnLibrariesDictType);
    s->functions = dictCreate(&fnIndexDictType);
    return s;
}
static void fnStoreFree(fnStore *s) {
    dictRelease(s->functions);
    dictRelease(s->libraries);
    zfree(s);
}

static int fnNameValid(const char *s, size_t len) {
    if (len == 0) return 0;
    for (size_t j = 0; j < len; j++) {
        char ch = s[j];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_'))
            return 0;
    }
    return 1;
}

/* Take lib out of s (it stays allocated) / put it in. */
static void fnUnlink(fnStore *s, fnLibrary *lib) {
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, lib->functions);
    while ((de = dictNext(&di))) dictDelete(s->functions, ((fnFunction *)dictGetVal(de))->name);
    dictResetIterator(&di);
    dictEntry *le = dictUnlink(s->libraries, lib->name);
    dictSetVal(s->libraries, le, NULL); /* the entry goes, not the library */
    dictFreeUnlinkedEntry(s->libraries, le);
}
static void fnLink(fnStore *s, fnLibrary *lib) {
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, lib->functions);
    while ((de = dictNext(&di))) {
        fnFunction *f = dictGetVal(de);
        dictAdd(s->functions, f->name, f);
    }
    dictResetIterator(&di);
    dictAdd(s->libraries, lib->name, lib);
}

/* The name of a function of lib already in s, or NULL. */
static const char *fnCollision(fnStore *s, fnLibrary *lib) {
    dictIterator di;
    dictEntry *de;
    const char *hit = NULL;
    dictInitIterator(&di, lib->functions);
    while (!hit && (de = dictNext(&di))) {
        fnFunction *f = dictGetVal(de);
        if (dictFind(s->functions, f->name)) hit = f->name;
    }
    dictResetIterator(&di);
    return hit;
}

/* redis.register_function during a load: into the library being built. */
static sds fnStoreRegister(void *ctx, sds name, sds desc, int flags, int ref) {
    fnLibrary *lib = ctx;
    if (!fnNameValid(name, sdslen(name))) return sdsnew(FN_BAD_NAME);
    if (dictFind(lib->functions, name)) return sdsnew("Function already exists in the library");
    fnFunction *f = zcalloc(sizeof(*f));
    f->name = name;
    f->desc = desc;
    f->flags = flags;
    f->ref = ref;
    f->lib = lib;
    dictAdd(lib->functions, f->name, f);
    return NULL;
}

/* The shebang "#!<engine> name=<lib>": the library name (new sds) and in
 * *body the offset of the code after the line (its newline), or NULL with
 * *err. */
static sds fnParseShebang(const char *code, size_t len, size_t *body, sds *err) {
    if (len < 2 || strncmp(code, "#!", 2)) {
        *err = sdsnew("Missing library metadata");
        return NULL;
    }
    const char *nl = memchr(code, '\n', len);
    if (!nl) {
        *err = sdsnew("Invalid library metadata");
        return NULL;
    }
    sds line = sdsnewlen(code, nl - code);
    int n = 0;
    sds *parts = sdssplitargs(line, &n);
    sdsfree(line);
    if (!parts || n == 0) {
        *err = sdsnew("Invalid library metadata");
        if (parts) sdsfreesplitres(parts, n);
        return NULL;
    }
    sds name = NULL;
    for (int j = 1; j < n && !*err; j++) {
        if (!strncasecmp(parts[j], "name=", 5)) {
            if (name)
                *err = sdsnew("Invalid metadata value, name argument was given multiple times");
            else
                name = sdsnew(parts[j] + 5);
        } else {
            *err = sdscatprintf(sdsempty(), "Invalid metadata value given: %s", parts[j]);
        }
    }
    if (!*err && !name) *err = sdsnew("Library name was not given");
    if (!*err && !fnNameValid(name, sdslen(name))) *err = sdsnew(FN_BAD_NAME);
    if (!*err && strcasecmp(parts[0] + 2, FN_ENGINE))
        *err = sdscatprintf(sdsempty(), "Engine '%s' not found", parts[0] + 2);
    sdsfreesplitres(parts, n);
    if (*err) {
        sdsfree(name);
        return NULL;
    }
    *body = nl - code;
    return name;
}

/* Load one library into s. replace: a library of the same name goes (and
 * comes back if the new one fails). The library's name, or NULL with *err
 * (the reply text without "ERR "). */
static sds fnStoreLoad(fnStore *s, const char *code, size_t len, int replace, long long timeout_ms,
                       sds *err) {
    *err = NULL;
    size_t body;
    sds name = fnParseShebang(code, len, &body, err);
    if (!name) return NULL;
    fnLibrary *old = dictFetchValue(s->libraries, name);
    if (old && !replace) {
        *err = sdscatprintf(sdsempty(), "Library '%s' already exists", name);
        sdsfree(name);
        return NULL;
    }
    if (old) fnUnlink(s, old);
    fnLibrary *lib = zcalloc(sizeof(*lib));
    lib->name = sdsdup(name);
    lib->code = sdsnewlen(code, len);
    lib->functions = dictCreate(&fnFunctionsDictType);
    const char *hit;
    if ((*err = functionLuaLoad(code + body, len - body, timeout_ms, fnStoreRegister, lib))) {
        /* the load's own message */
    } else if (dictSize(lib->functions) == 0) {
        *err = sdsnew("No functions registered");
    } else if ((hit = fnCollision(s, lib))) {
        *err = sdscatprintf(sdsempty(), "Function %s already exists", hit);
    }
    if (*err) {
        fnLibraryFree(lib);
        if (old) fnLink(s, old);
        sdsfree(name);
        return NULL;
    }
    fnLink(s, lib);
    fnLibraryFree(old);
    return name;
}

/* Move every library of src into dst (RESTORE APPEND/REPLACE); on a
 * collision nothing moves: 0, or -1 with *err. src is freed on success. */
static int fnStoreJoin(fnStore *dst, fnStore *src, int replace, sds *err) {
    dictIterator di;
    dictEntry *de;
    fnLibrary **olds = zcalloc(sizeof(*olds) * (dictSize(src->libraries) + 1));
    int nold = 0;
    dictInitIterator(&di, src->libraries);
    while (!*err && (de = dictNext(&di))) {
        fnLibrary *lib = dictGetVal(de), *old = dictFetchValue(dst->libraries, lib->name);
        if (!old) continue;
        if (!replace) {
            *err = sdscatprintf(sdsempty(), "Library %s already exists", lib->name);
        } else {
            fnUnlink(dst, old);
            olds[nold++] = old;
        }
    }
    dictResetIterator(&di);
    if (!*err) {
        const char *hit;
        dictInitIterator(&di, src->libraries);
        while (!*err && (de = dictNext(&di)))
            if ((hit = fnCollision(dst, dictGetVal(de))))
                *err = sdscatprintf(sdsempty(), "Function %s already exists", hit);
        dictResetIterator(&di);
    }
    if (*err) {
        for (int j = 0; j < nold; j++) fnLink(dst, olds[j]);
        zfree(olds);
        return -1;
    }
    for (int j = 0; j < nold; j++) fnLibraryFree(olds[j]);
    zfree(olds);
    dictInitIterator(&di, src->libraries);
    while ((de = dictNext(&di))) fnLink(dst, dictGetVal(de));
    dictResetIterator(&di);
    /* The libraries now belong to dst: src lets go of them, then goes. */
    dictInitIterator(&di, src->libraries);
    while ((de = dictNext(&di))) dictSetVal(src->libraries, de, NULL);
    dictResetIterator(&di);
    fnStoreFree(src);
    return 0;
}

/* ---- the rdb.h hook ---- */

static int fnEach(int (*emit)(void *ctx, const char *code, size_t len), void *ctx) {
    dictIterator di;
    dictEntry *de;
    int ret = 0;
    dictInitIterator(&di, store->libraries);
    while (ret == 0 && (de = dictNext(&di))) {
        fnLibrary *lib = dictGetVal(de);
        ret = emit(ctx, lib->code, sdslen(lib->code));
    }
    dictResetIterator(&di);
    return ret;
}

static sds fnHookLoad(const char *code, size_t len, int replace) {
    sds err = NULL, name = fnStoreLoad(store, code, len, replace, 0, &err);
    sdsfree(name);
    return err;
}

static void fnClear(void) {
    fnStoreFree(store);
    store = fnStoreCreate();
}

static void *fnTake(void) {
    fnStore *kept = store;
    store = fnStoreCreate();
    return kept;
}

static void fnGiveBack(void *kept, int restore) {
    if (restore) {
        fnStoreFree(store);
        store = kept;
    } else {
        fnStoreFree(kept);
    }
}

static void *fnSwap(void *kept) {
    fnStore *cur = store;
    store = kept;
    return cur;
}

static const rdbFunctionsStore fnHook = {fnEach, fnHookLoad, fnClear, fnTake, fnGiveBack, fnSwap};

void functionsInit(void) {
    functionLuaInit();
    store = fnStoreCreate();
    rdbSetFunctionsStore(&fnHook);
}

long long functionsLibraryCount(void) {
    return (long long)dictSize(store->libraries);
}
long long functionsCount(void) {
    return (long long)dictSize(store->functions);
}
static size_t fnDictOverhead(dict *d) {
    return dictSize(d) * sizeof(dictEntry) + dictSlots(d) * sizeof(dictEntry *);
}

/* What the store holds outside the Lua state: libraries, functions, their
 * names, code and descriptions, and the dicts indexing them. Counted when
 * asked (INFO), not kept up to date on every change. */
long long functionsCacheMemory(void) {
    size_t n =
        zmalloc_size(store) + fnDictOverhead(store->libraries) + fnDictOverhead(store->functions);
    dictIterator li, fi;
    dictEntry *de, *fe;
    dictInitIterator(&li, store->libraries);
    while ((de = dictNext(&li))) {
        fnLibrary *lib = dictGetVal(de);
        n += zmalloc_size(lib) + sdsAllocSize(lib->name) + sdsAllocSize(lib->code) +
             fnDictOverhead(lib->functions);
        dictInitIterator(&fi, lib->functions);
        while ((fe = dictNext(&fi))) {
            fnFunction *f = dictGetVal(fe);
            n += zmalloc_size(f) + sdsAllocSize(f->name) + (f->desc ? sdsAllocSize(f->desc) : 0);
        }
        dictResetIterator(&fi);
    }
    dictResetIterator(&li);
    return (long long)n;
}

long long functionsLuaMemory(void) {
    return functionLuaMemory();
}

/* ---- FCALL ---- */

int functionFlagsByName(const char *name) {
    fnFunction *f = store ? dictFetchValue(store->functions, name) : NULL;
    return f ? f->flags : -1;
}

static void fcallGeneric(client *c, int ro) {
    /* MONITOR shows the FCALL before the commands it runs. */
    if (server.monitors) monitorFeed(c, c->db, c->argv, c->argc);
    fnFunction *f = dictFetchValue(store->functions, c->argv[1]->ptr);
    if (!f) {
        replyError(c, "ERR Function not found");
        return;
    }
    long long numkeys;
    if (scriptNumKeys(c, &numkeys, "ERR Bad number of keys provided") == -1) return;
    scriptRun run = {0};
    run.sha = f->name;
    run.function = 1;
    if (scriptPrepareRun(&run, c, f->flags, ro) == -1) return;
    /* A FUNCTION DELETE cannot run meanwhile (it is not allow-busy), so
     * f outlives the call. */
    scriptExecute(&run, functionLuaCall, f->ref, (int)numkeys);
}

void fcallCommand(client *c) {
    fcallGeneric(c, 0);
}
void fcallRoCommand(client *c) {
    fcallGeneric(c, 1);
}

/* ---- FUNCTION ---- */

static const char *functionHelp[] = {
    "LOAD [REPLACE] <FUNCTION CODE>",
    "    Create a new library with the given library name and code.",
    "DELETE <LIBRARY NAME>",
    "    Delete the given library.",
    "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
    "    Return general information on all the libraries:",
    "    * Library name",
    "    * The engine used to run the Library",
    "    * Library description",
    "    * Functions list",
    "    * Library code (if WITHCODE is given)",
    "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
    "STATS",
    "    Return information about the current function running:",
    "    * Function name",
    "    * Command used to run the function",
    "    * Duration in MS that the function is running",
    "    If no function is running, return nil",
    "    In addition, returns a list of available engines.",
    "KILL",
    "    Kill the current running function.",
    "FLUSH [ASYNC|SYNC]",
    "    Delete all the libraries.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the libraries.",
    "    * SYNC: Synchronously flush the libraries.",
    "DUMP",
    "    Return a serialized payload representing the current libraries, can be restored using "
    "FUNCTION RESTORE command",
    "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
    "    Restore the libraries represented by the given payload, it is possible to give a restore "
    "policy to",
    "    control how to handle existing libraries (default APPEND):",
    "    * FLUSH: delete all existing libraries.",
    "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
    "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
    "replace "
    "the old",
    "      libraries with the new libraries (notice that even on this option there is a chance of "
    "failure",
    "      in case of functions name collision with another library).",
    NULL};

static void functionLoad(client *c) {
    int replace = 0, pos = 2;
    while (pos < c->argc - 1) {
        const char *a = c->argv[pos++]->ptr;
        if (strcasecmp(a, "replace")) {
            replyErrorFormat(c, "ERR Unknown option given: %s", a);
            return;
        }
        replace = 1;
    }
    if (pos >= c->argc) {
        replyError(c, "ERR Function code is missing");
        return;
    }
    sds code = c->argv[pos]->ptr, err = NULL;
    /* What the primary or the AOF sent has loaded once already: no deadline. */
    long long timeout = (c->flags & (CLIENT_MASTER | CLIENT_FAKE)) ? 0 : FN_LOAD_TIMEOUT_MS;
    sds name = fnStoreLoad(store, code, sdslen(code), replace, timeout, &err);
    if (!name) {
        replyErrorFormat(c, "ERR %s", err);
        sdsfree(err);
        return;
    }
    server.dirty++;
    replyBulkSds(c, name);
}

static void functionReplyFlags(client *c, int flags) {
    int n = 0, f;
    const char *name;
    for (int j = 0; (name = scriptFlagName(j, &f)); j++) n += (flags & f) != 0;
    replySetLen(c, n);
    for (int j = 0; (name = scriptFlagName(j, &f)); j++)
        if (flags & f) replyStatus(c, name, strlen(name));
}

static void functionList(client *c) {
    int withcode = 0;
    sds pattern = NULL;
    for (int j = 2; j < c->argc; j++) {
        const char *a = c->argv[j]->ptr;
        if (!withcode && !strcasecmp(a, "withcode")) {
            withcode = 1;
        } else if (!pattern && !strcasecmp(a, "libraryname")) {
            if (j >= c->argc - 1) {
                replyError(c, "ERR library name argument was not given");
                return;
            }
            pattern = c->argv[++j]->ptr;
        } else {
            replyErrorFormat(c, "ERR Unknown argument %s", a);
            return;
        }
    }
    void *len = replyDeferredLen(c);
    long n = 0;
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, store->libraries);
    while ((de = dictNext(&di))) {
        fnLibrary *lib = dictGetVal(de);
        if (pattern &&
            !stringmatchlen(pattern, (int)sdslen(pattern), lib->name, (int)sdslen(lib->name), 1))
            continue;
        n++;
        replyMapLen(c, withcode ? 4 : 3);
        replyBulkCString(c, "library_name");
        replyBulkBuf(c, lib->name, sdslen(lib->name));
        replyBulkCString(c, "engine");
        replyBulkCString(c, FN_ENGINE);
        replyBulkCString(c, "functions");
        replyArrayLen(c, (long)dictSize(lib->functions));
        dictIterator fi;
        dictEntry *fe;
        dictInitIterator(&fi, lib->functions);
        while ((fe = dictNext(&fi))) {
            fnFunction *f = dictGetVal(fe);
            replyMapLen(c, 3);
            replyBulkCString(c, "name");
            replyBulkBuf(c, f->name, sdslen(f->name));
            replyBulkCString(c, "description");
            if (f->desc)
                replyBulkBuf(c, f->desc, sdslen(f->desc));
            else
                replyNull(c);
            replyBulkCString(c, "flags");
            functionReplyFlags(c, f->flags);
        }
        dictResetIterator(&fi);
        if (withcode) {
            replyBulkCString(c, "library_code");
            replyBulkBuf(c, lib->code, sdslen(lib->code));
        }
    }
    dictResetIterator(&di);
    replySetDeferredArrayLen(c, len, n);
}

static void functionStats(client *c) {
    scriptRun *r = scriptLuaCurrent();
    if (r && !r->function) {
        replyError(c, SCRIPT_BUSY_ERROR);
        return;
    }
    replyMapLen(c, 2);
    replyBulkCString(c, "running_script");
    if (!r) {
        replyNull(c);
    } else {
        replyMapLen(c, 3);
        replyBulkCString(c, "name");
        replyBulkCString(c, r->sha);
        replyBulkCString(c, "command");
        client *caller = r->caller;
        replyArrayLen(c, caller->argc);
        for (int j = 0; j < caller->argc; j++) {
            char num[LONG_STR_SIZE];
            size_t l;
            const char *p = stringObjectPtr(caller->argv[j], num, &l);
            replyBulkBuf(c, p, l);
        }
        replyBulkCString(c, "duration_ms");
        replyLongLong(c, mstime() - r->start_ms);
    }
    replyBulkCString(c, "engines");
    replyMapLen(c, 1);
    replyBulkCString(c, FN_ENGINE);
    replyMapLen(c, 2);
    replyBulkCString(c, "libraries_count");
    replyLongLong(c, functionsLibraryCount());
    replyBulkCString(c, "functions_count");
    replyLongLong(c, functionsCount());
}

static void functionRestore(client *c) {
    if (c->argc > 4) {
        replyErrorSubcommand(c);
        return;
    }
    enum { APPEND, REPLACE, FLUSH } policy = APPEND;
    if (c->argc == 4) {
        const char *p = c->argv[3]->ptr;
        if (!strcasecmp(p, "append"))
            policy = APPEND;
        else if (!strcasecmp(p, "replace"))
            policy = REPLACE;
        else if (!strcasecmp(p, "flush"))
            policy = FLUSH;
        else {
            replyError(
                c,
                "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            return;
        }
    }
    sds payload = c->argv[2]->ptr, err = NULL, *codes;
    int n = dumpFunctionsParse(payload, sdslen(payload), 0, &codes, &err);
    if (n == -1) {
        replyErrorLen(c, err, sdslen(err));
        sdsfree(err);
        return;
    }
    fnStore *tmp = fnStoreCreate();
    for (int j = 0; j < n; j++) {
        if (!err) {
            sds name = fnStoreLoad(tmp, codes[j], sdslen(codes[j]), 0, 0, &err);
            sdsfree(name);
        }
        sdsfree(codes[j]);
    }
    zfree(codes);
    if (!err && policy == FLUSH) {
        fnStoreFree(store);
        store = tmp;
        tmp = NULL;
    } else if (!err && fnStoreJoin(store, tmp, policy == REPLACE, &err) == 0) {
        tmp = NULL;
    }
    if (tmp) fnStoreFree(tmp);
    if (err) {
        replyErrorFormat(c, "ERR %s", err);
        sdsfree(err);
        return;
    }
    server.dirty++;
    replyOk(c);
}

void functionCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        replyHelp(c, functionHelp);
    } else if (!strcasecmp(sub, "load")) {
        functionLoad(c);
    } else if (!strcasecmp(sub, "delete")) {
        fnLibrary *lib = dictFetchValue(store->libraries, c->argv[2]->ptr);
        if (!lib) {
            replyError(c, "ERR Library not found");
            return;
        }
        fnUnlink(store, lib);
        fnLibraryFree(lib);
        server.dirty++;
        replyOk(c);
    } else if (!strcasecmp(sub, "flush")) {
        if (c->argc > 3) {
            replyErrorSubcommand(c);
        } else if (c->argc == 3 && strcasecmp(c->argv[2]->ptr, "sync") &&
                   strcasecmp(c->argv[2]->ptr, "async")) {
            replyError(c, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        } else {
            /* The store is small next to its Lua state, which the lazy-free
             * thread closes under ASYNC (the default with
             * lazyfree-lazy-user-flush), as Redis does. */
            int async =
                c->argc == 3 ? !strcasecmp(c->argv[2]->ptr, "async") : cfg.lazyfree_lazy_user_flush;
            unsigned long n = (unsigned long)functionsCount();
            fnClear();
            functionLuaReset(async, n);
            server.dirty++;
            replyOk(c);
        }
    } else if (!strcasecmp(sub, "list")) {
        functionList(c);
    } else if (!strcasecmp(sub, "stats")) {
        functionStats(c);
    } else if (!strcasecmp(sub, "kill")) {
        scriptKill(c, 0);
    } else if (!strcasecmp(sub, "dump")) {
        replyBulkSds(c, dumpFunctionsCreate());
    } else if (!strcasecmp(sub, "restore")) {
        functionRestore(c);
    } else {
        replyErrorSubcommand(c);
    }
}
