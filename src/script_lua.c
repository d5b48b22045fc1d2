/* script_lua: the Lua 5.1 state (Debian's liblua5.1, with its lua-cjson and
 * lua-bitop), the sandbox, redis.* and the RESP <-> Lua conversions.
 *
 * Data in: a script body (scriptLuaCompile) and KEYS/ARGV (scriptLuaRun).
 * Data out: the script's reply, written to the caller. redis.call builds
 * an argv, runs it on a fake client through commandCall (so stats, slowlog,
 * keyspace events and propagation are the network path's), then parses the
 * fake client's RESP output back into Lua values.
 *
 * Sandbox: script functions run with an environment that is a proxy of the
 * globals table: reading a missing name and every write raise Redis 7.0's
 * errors; the library tables the scripts see are read-only proxies too, and
 * setmetatable refuses them. Debian's Lua has no read-only tables (Redis
 * patches its copy), so rawset() on a proxy is not refused: a script can
 * only hurt its own run (the proxies are made fresh at SCRIPT FLUSH).
 *
 * Ownership: the module owns the state and the fake client; argv objects
 * built for a call belong to the fake client until the call returns. */
#include "script_lua.h"
#include "acl.h"
#include "aof.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "evict.h"
#include "lazyfree.h"
#include "log.h"
#include "lua_cmsgpack.h"
#include "propagate.h"
#include "lua_struct.h"
#include "reply.h"
#include "repl.h"
#include "server_state.h"
#include "snapshot.h"
#include "util.h"
#include "zmalloc.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <lua5.1/lua-bitop.h>
#include <lua5.1/lua-cjson.h>
#include <math.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRIPT_HOOK_INSTRUCTIONS 100000

static lua_State *lua;
static client *fake; /* runs the commands scripts call */
static scriptRun *current;
static int lua_resp = 2; /* redis.setresp */
/* Registry keys: the table of compiled functions and the set of read-only tables. */
static char reg_funcs, reg_readonly, reg_globals, reg_errh;

void luaRegistrySet(lua_State *L, void *key) {
    lua_pushlightuserdata(L, key);
    lua_insert(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
}

void luaRegistryGet(lua_State *L, void *key) {
    lua_pushlightuserdata(L, key);
    lua_rawget(L, LUA_REGISTRYINDEX);
}

scriptRun *scriptLuaCurrent(void) {
    return current;
}

long long scriptLuaMemory(void) {
    return (long long)lua_gc(lua, LUA_GCCOUNT, 0) * 1024 + lua_gc(lua, LUA_GCCOUNTB, 0);
}

void scriptSha1Hex(char *out, const char *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    unsigned char h[20];
    SHA1((const unsigned char *)p, len, h);
    for (int j = 0; j < 20; j++) {
        out[j * 2] = hex[h[j] >> 4];
        out[j * 2 + 1] = hex[h[j] & 15];
    }
    out[40] = '\0';
}

/* ---- errors ---- */

/* Push {err = "CODE msg"}: "-CODE msg" keeps its code, "msg" gets ERR. */
static void luaPushErrorTable(lua_State *L, const char *e, size_t len) {
    sds code, msg;
    if (len && e[0] == '-') {
        const char *sp = memchr(e, ' ', len);
        if (sp) {
            code = sdsnewlen(e + 1, sp - e - 1);
            msg = sdsnewlen(sp + 1, len - (sp - e) - 1);
        } else {
            code = sdsnew("ERR");
            msg = sdsnewlen(e + 1, len - 1);
        }
    } else {
        code = sdsnew("ERR");
        msg = sdsnewlen(e, len);
    }
    msg = sdstrim(msg, "\r\n");
    code = sdscatprintf(code, " %s", msg);
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushlstring(L, code, sdslen(code));
    lua_settable(L, -3);
    sdsfree(code);
    sdsfree(msg);
}

/* An error table (at the top) whose error was counted where it arose
 * (a command's reply, a refusal): Redis' field name, which scripts see. */
static void luaMarkCounted(lua_State *L) {
    lua_pushstring(L, "ignore_error_stats_update");
    lua_pushboolean(L, 1);
    lua_settable(L, -3);
}

/* Reply the error of the table at the top of L to c: counted unless it
 * was already (then only the script's failed_calls), as in Redis. */
static void luaReplyError(client *c, lua_State *L, const char *msg, size_t len) {
    lua_getfield(L, -1, "ignore_error_stats_update");
    int counted = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!counted) {
        replyErrorLen(c, msg, len);
        return;
    }
    replyErrorLenNoStats(c, msg, len);
    if (c->cmd) c->cmd->failed_calls++;
}

static int luaRaise(lua_State *L, const char *e) {
    luaPushErrorTable(L, e, strlen(e));
    return lua_error(L);
}

/* The pcall error handler: a string error becomes {err='ERR ...'}; the
 * source and line of the script frame (the caller, when a C function
 * raised it) are added, as Redis reports them. */
static int luaErrorHandler(lua_State *L) {
    lua_Debug ar;
    int have = 0;
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar)) {
        have = 1;
        if (!strcmp(ar.what, "C")) have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
    }
    if (!lua_istable(L, 1)) {
        const char *s = lua_tostring(L, 1);
        sds e = sdscat(sdsnew("ERR "), s ? s : "unknown error");
        lua_newtable(L);
        lua_pushstring(L, "err");
        lua_pushlstring(L, e, sdslen(e));
        lua_settable(L, -3);
        sdsfree(e);
        lua_replace(L, 1);
    }
    if (have && ar.currentline > 0) {
        lua_pushstring(L, "source");
        lua_pushstring(L, ar.source);
        lua_settable(L, 1);
        lua_pushstring(L, "line");
        lua_pushinteger(L, ar.currentline);
        lua_settable(L, 1);
    }
    lua_settop(L, 1);
    return 1;
}

/* ---- sandbox ---- */

static int luaReadonlyNewindex(lua_State *L) {
    return luaL_error(L, "Attempt to modify a readonly table");
}

static int luaGlobalsIndex(lua_State *L) {
    luaRegistryGet(L, &reg_globals);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    if (lua_isnil(L, -1)) {
        const char *n = lua_tostring(L, 2);
        return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                          n ? n : "?");
    }
    return 1;
}

/* A proxy of the table at idx: reads go through, writes raise. */
static void luaPushReadonlyProxy(lua_State *L, int idx, lua_CFunction index) {
    idx = lua_gettop(L) + 1 + idx; /* idx is negative */
    lua_newtable(L);
    lua_newtable(L); /* metatable */
    lua_pushstring(L, "__index");
    if (index)
        lua_pushcfunction(L, index);
    else
        lua_pushvalue(L, idx);
    lua_settable(L, -3);
    lua_pushstring(L, "__newindex");
    lua_pushcfunction(L, luaReadonlyNewindex);
    lua_settable(L, -3);
    lua_pushstring(L, "__metatable");
    lua_pushboolean(L, 0);
    lua_settable(L, -3);
    lua_setmetatable(L, -2);
    luaRegistryGet(L, &reg_readonly);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* loadstring without precompiled chunks (their bytecode is not checked):
 * nil and a message, as Redis' Lua answers them. */
static int luaLoadstring(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
        lua_pushnil(L);
        lua_pushliteral(L, "binary chunks are not allowed");
        return 2;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static int luaSetmetatable(lua_State *L) {
    luaRegistryGet(L, &reg_readonly);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    if (lua_toboolean(L, -1)) {
        lua_pushstring(L, "Attempt to modify a readonly table");
        return lua_error(L);
    }
    lua_pop(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    int t = lua_type(L, 2);
    luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
    if (luaL_getmetafield(L, 1, "__metatable"))
        luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* ---- Lua -> command argv, command reply -> Lua ---- */

/* The shortest "%.*g" that reads back as the same double; integers plain. */
static int luaFormatNumber(char *buf, size_t size, lua_Number n) {
    if (n == floor(n) && fabs(n) < 1e17) return snprintf(buf, size, "%lld", (long long)n);
    for (int prec = 15; prec <= 17; prec++) {
        int l = snprintf(buf, size, "%.*g", prec, n);
        if (strtod(buf, NULL) == n || prec == 17) return l;
    }
    return 0;
}

static const char *respParseToLua(lua_State *L, const char *p, const char *end, int depth);

static const char *respLine(const char *p, const char *end, const char **eol) {
    const char *e = memchr(p, '\r', end - p);
    if (!e) e = end;
    *eol = e;
    return e + 2 <= end ? e + 2 : end;
}

static const char *respAggregate(lua_State *L, const char *p, const char *end, long long n,
                                 int pairs, int depth) {
    lua_newtable(L);
    for (long long j = 0; j < n && p < end; j++) {
        if (pairs == 1) { /* map: key, value */
            p = respParseToLua(L, p, end, depth + 1);
            p = respParseToLua(L, p, end, depth + 1);
            lua_settable(L, -3);
        } else if (pairs == 2) { /* set: member = true */
            p = respParseToLua(L, p, end, depth + 1);
            lua_pushboolean(L, 1);
            lua_settable(L, -3);
        } else {
            lua_pushnumber(L, (lua_Number)(j + 1));
            p = respParseToLua(L, p, end, depth + 1);
            lua_settable(L, -3);
        }
    }
    return p;
}

static void luaWrapField(lua_State *L, const char *field) {
    lua_newtable(L);
    lua_pushstring(L, field);
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    lua_remove(L, -2);
}

/* One RESP value at p onto the Lua stack, with Redis' conversion rules. */
static const char *respParseToLua(lua_State *L, const char *p, const char *end, int depth) {
    const char *eol, *next;
    if (p >= end) {
        lua_pushboolean(L, 0);
        return end;
    }
    lua_checkstack(L, 8);
    next = respLine(p + 1, end, &eol);
    char type = *p++;
    size_t len = eol - p;
    switch (type) {
        case '+':
            lua_newtable(L);
            lua_pushstring(L, "ok");
            lua_pushlstring(L, p, len);
            lua_settable(L, -3);
            return next;
        case '-': {
            lua_newtable(L);
            lua_pushstring(L, "err");
            lua_pushlstring(L, p, len);
            lua_settable(L, -3);
            luaMarkCounted(L); /* the command's own reply counted it */
            return next;
        }
        case ':':
            lua_pushnumber(L, (lua_Number)strtoll(p, NULL, 10));
            return next;
        case '$':
        case '=': {
            long long bl = strtoll(p, NULL, 10);
            if (bl < 0) {
                lua_pushboolean(L, 0);
                return next;
            }
            if (next + bl > end) bl = end - next;
            if (type == '=' && bl >= 4) {
                lua_newtable(L);
                lua_pushstring(L, "format");
                lua_pushlstring(L, next, 3);
                lua_settable(L, -3);
                lua_pushstring(L, "string");
                lua_pushlstring(L, next + 4, bl - 4);
                lua_settable(L, -3);
                luaWrapField(L, "verbatim_string");
            } else {
                lua_pushlstring(L, next, bl);
            }
            return next + bl + 2 <= end ? next + bl + 2 : end;
        }
        case '*':
        case '~':
        case '%':
        case '>': {
            long long n = strtoll(p, NULL, 10);
            if (n < 0) {
                lua_pushboolean(L, 0);
                return next;
            }
            next = respAggregate(L, next, end, n, type == '%' ? 1 : type == '~' ? 2 : 0, depth);
            if (type == '%')
                luaWrapField(L, "map");
            else if (type == '~')
                luaWrapField(L, "set");
            return next;
        }
        case '|': { /* attributes are dropped: the value follows */
            long long n = strtoll(p, NULL, 10);
            next = respAggregate(L, next, end, n, 1, depth);
            lua_pop(L, 1);
            return respParseToLua(L, next, end, depth);
        }
        case '_':
            lua_pushnil(L);
            return next;
        case '#':
            lua_pushboolean(L, len && *p == 't');
            return next;
        case ',':
            lua_pushnumber(L, strtod(p, NULL));
            luaWrapField(L, "double");
            return next;
        case '(':
            lua_pushlstring(L, p, len);
            luaWrapField(L, "big_number");
            return next;
        default:
            lua_pushboolean(L, 0);
            return end;
    }
}

/* The string at the top (popped) as a status line or a big number: a
 * line cannot hold CR or LF, so they become spaces, as in Redis. */
static void luaReplyLine(client *c, lua_State *L, int bignum) {
    sds s = sdsnew(lua_tostring(L, -1));
    for (size_t j = 0; j < sdslen(s); j++)
        if (s[j] == '\r' || s[j] == '\n') s[j] = ' ';
    if (bignum)
        replyBigNum(c, s, sdslen(s));
    else
        replyStatus(c, s, sdslen(s));
    sdsfree(s);
    lua_pop(L, 1);
}

/* Push t[name] (t at the top) when it has the given type: 1; else 0,
 * nothing pushed. */
static int luaGetTyped(lua_State *L, const char *name, int type) {
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    if (lua_type(L, -1) == type) return 1;
    lua_pop(L, 1);
    return 0;
}

/* Lua value at the top -> reply to c (Redis' luaReplyToRedisReply). */
static void luaReplyTo(client *c, lua_State *L, int depth) {
    int t = lua_type(L, -1);
    lua_checkstack(L, 4);
    switch (t) {
        case LUA_TSTRING: {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            replyBulkBuf(c, s, len);
            break;
        }
        case LUA_TBOOLEAN:
            if (lua_resp == 2) {
                if (lua_toboolean(L, -1))
                    replyLongLong(c, 1);
                else
                    replyNull(c);
            } else {
                replyBool(c, lua_toboolean(L, -1));
            }
            break;
        case LUA_TNUMBER:
            replyLongLong(c, (long long)lua_tonumber(L, -1));
            break;
        case LUA_TTABLE: {
            if (depth > 1000) {
                replyError(c, "ERR reached lua stack limit");
                break;
            }
            if (luaGetTyped(L, "err", LUA_TSTRING)) {
                size_t len;
                const char *s = lua_tolstring(L, -1, &len);
                lua_pop(L, 1);
                luaReplyError(c, L, s, len);
                break;
            }
            if (luaGetTyped(L, "ok", LUA_TSTRING)) {
                luaReplyLine(c, L, 0);
                break;
            }
            if (luaGetTyped(L, "double", LUA_TNUMBER)) {
                replyDouble(c, lua_tonumber(L, -1));
                lua_pop(L, 1);
                break;
            }
            if (luaGetTyped(L, "big_number", LUA_TSTRING)) {
                luaReplyLine(c, L, 1);
                break;
            }
            if (luaGetTyped(L, "verbatim_string", LUA_TTABLE)) {
                int done = 0;
                if (luaGetTyped(L, "format", LUA_TSTRING)) {
                    lua_pushvalue(L, -2);
                    if (luaGetTyped(L, "string", LUA_TSTRING)) {
                        size_t len;
                        const char *s = lua_tolstring(L, -1, &len);
                        replyVerbatim(c, s, len, lua_tostring(L, -3));
                        done = 1;
                        lua_pop(L, 1);
                    }
                    lua_pop(L, 2);
                }
                lua_pop(L, 1);
                if (done) break;
            }
            const char *agg[] = {"map", "set"};
            int done = 0;
            for (int k = 0; k < 2 && !done; k++) {
                lua_pushstring(L, agg[k]);
                lua_rawget(L, -2);
                if (lua_type(L, -1) == LUA_TTABLE) {
                    void *len = replyDeferredLen(c);
                    long n = 0;
                    lua_pushnil(L);
                    while (lua_next(L, -2)) {
                        if (k == 0) {
                            lua_pushvalue(L, -2);
                            luaReplyTo(c, L, depth + 1); /* key (pops its copy) */
                            luaReplyTo(c, L, depth + 1); /* value */
                        } else {
                            lua_pop(L, 1);
                            lua_pushvalue(L, -1);
                            luaReplyTo(c, L, depth + 1);
                        }
                        n++;
                    }
                    if (k == 0)
                        replySetDeferredMapLen(c, len, n);
                    else
                        replySetDeferredSetLen(c, len, n);
                    done = 1;
                }
                lua_pop(L, 1);
            }
            if (done) break;
            void *len = replyDeferredLen(c);
            long n = 0;
            for (int j = 1;; j++) {
                lua_pushnumber(L, j);
                lua_rawget(L, -2);
                if (lua_isnil(L, -1)) {
                    lua_pop(L, 1);
                    break;
                }
                luaReplyTo(c, L, depth + 1);
                n++;
            }
            replySetDeferredArrayLen(c, len, n);
            break;
        }
        default:
            replyNull(c);
    }
    lua_pop(L, 1);
}

/* ---- redis.call / redis.pcall ---- */

/* The checks Redis makes before a script's command runs; NULL when it may. */
/* DEBUG SET-DISABLE-DENY-SCRIPTS: tests let scripts call noscript commands
 * (the fake client still never blocks). */
static int noscript_allowed;
void scriptLuaAllowNoscript(int on) {
    noscript_allowed = on;
}

static const char *luaCallDenied(scriptRun *run, cairnCommand *cmd, robj **argv, int argc) {
    static char buf[512];
    if ((cmd->flags & (CMD_NOSCRIPT | CMD_BLOCKING)) && !noscript_allowed)
        return "This Redis command is not allowed from script";
    int pos = 0, res = aclCheckCommand(run->caller->user, cmd, argv, argc, &pos);
    if (res != ACL_OK) {
        /* The object is the script's command or argument, not the
         * caller's (EVAL and its arguments). */
        aclLogAdd(run->caller, res, ACL_LOG_CTX_LUA, pos, NULL,
                  res == ACL_DENIED_CMD ? cmd->fullname : (const char *)argv[pos]->ptr);
        return res == ACL_DENIED_CMD
                   ? "The user executing the script can't run this command or subcommand"
               : res == ACL_DENIED_KEY ? "The user executing the script can't access at least one "
                                         "of the keys mentioned in the command arguments"
                                       : "The user executing the script can't publish to the "
                                         "channel mentioned in the command";
    }
    /* A script allowed on a stale replica (allow-stale) still runs only
     * the commands that are. */
    if (replIsReplica() && !replicaLinkUp() && !cfg.replica_serve_stale_data &&
        !(cmd->flags & CMD_STALE) && !(run->caller->flags & CLIENT_MASTER))
        return "Can not execute the command on a stale replica";
    /* May-replicate commands (PUBLISH ...) count as writes here, as in
     * Redis: a read-only script is then safe to run under CLIENT PAUSE WRITE. */
    if (run->readonly && (cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE)))
        return "Write commands are not allowed from read-only scripts.";
    /* Once the script wrote, a state that changed meanwhile (a replica
     * gone under min-replicas-to-write, a failed save) does not stop it
     * half-way, as in Redis. */
    if ((cmd->flags & CMD_WRITE) && !run->wrote) {
        if (rdbWritesDenied()) {
            snprintf(buf, sizeof(buf), "-%s", RDB_MISCONF_ERROR);
            return buf;
        }
        const char *aof = aofWritesDenied();
        if (aof) {
            snprintf(buf, sizeof(buf), "-%s", aof);
            return buf;
        }
        const char *repl = replCommandDenied(run->caller, cmd);
        if (repl) {
            snprintf(buf, sizeof(buf), "-%s", repl);
            return buf;
        }
    }
    /* Over maxmemory at the start: refused until the script's first write
     * (after that, stopping half-way would be worse). */
    if (cfg.maxmemory && run->oom && !run->wrote && (cmd->flags & CMD_DENYOOM) &&
        !(run->flags & SCRIPT_FLAG_ALLOW_OOM) && !(run->caller->flags & CLIENT_MASTER))
        return "-" EVICT_OOM_ERROR;
    return NULL;
}

/* The call's arguments in the fake client's argv array (kept between calls,
 * as a network client's is): *argc of them, or NULL with *err (then no
 * object is left in it). */
static robj **luaArgsToArgv(lua_State *L, int *argc, const char **err) {
    *argc = lua_gettop(L);
    if (*argc == 0) {
        *err = "Please specify at least one argument for this redis lib call";
        return NULL;
    }
    if (fake->argv_len < *argc) {
        fake->argv = zrealloc(fake->argv, sizeof(robj *) * *argc);
        fake->argv_len = *argc;
    }
    robj **argv = fake->argv;
    for (int j = 0; j < *argc; j++) {
        char num[64];
        const char *s;
        size_t len;
        if (lua_type(L, j + 1) == LUA_TNUMBER) {
            len = luaFormatNumber(num, sizeof(num), lua_tonumber(L, j + 1));
            s = num;
        } else if (lua_type(L, j + 1) == LUA_TSTRING) {
            s = lua_tolstring(L, j + 1, &len);
        } else {
            for (int k = 0; k < j; k++) decrRefCount(argv[k]);
            *err = "Lua redis lib command arguments must be strings or integers";
            return NULL;
        }
        argv[j] = createStringObject(s, len);
    }
    return argv;
}

/* Releases the arguments; the array stays the fake client's. */
static void luaFreeArgv(robj **argv, int argc) {
    for (int k = 0; k < argc; k++) decrRefCount(argv[k]);
}

/* commandLookup with a small cache for scripts, which name the same few
 * commands over and over: keyed by the address of the (interned) Lua name
 * string, checked against a copy of the name, so a string freed and
 * another made at its address never matches wrongly. Containers are not
 * cached (their subcommand is in argv[1]). */
#define LUA_CMD_CACHE 64
static struct {
    const char *lua_name;
    char name[32];
    size_t len;
    cairnCommand *cmd;
} lua_cmd_cache[LUA_CMD_CACHE];

static cairnCommand *luaCommandLookup(lua_State *L, robj **argv, int argc) {
    if (lua_type(L, 1) != LUA_TSTRING) return commandLookup(argv, argc);
    size_t len;
    const char *p = lua_tolstring(L, 1, &len);
    unsigned slot = (unsigned)(((uintptr_t)p >> 4) % LUA_CMD_CACHE);
    if (lua_cmd_cache[slot].lua_name == p && lua_cmd_cache[slot].len == len &&
        !memcmp(lua_cmd_cache[slot].name, p, len))
        return lua_cmd_cache[slot].cmd;
    cairnCommand *cmd = commandLookup(argv, argc);
    /* A subcommand found through its container is not cached under the
     * container's name either: OBJECT HELP would answer for OBJECT IDLETIME
     * with OBJECT HELP's arity, and the command read a missing argument. */
    if (cmd && !cmd->subcommands && !cmd->parent && len < sizeof(lua_cmd_cache[slot].name)) {
        lua_cmd_cache[slot].lua_name = p;
        memcpy(lua_cmd_cache[slot].name, p, len);
        lua_cmd_cache[slot].len = len;
        lua_cmd_cache[slot].cmd = cmd;
    }
    return cmd;
}

static int luaRedisGenericCommand(lua_State *L, int raise) {
    scriptRun *run = current;
    int argc;
    const char *aerr = NULL;
    if (!run) return luaRaise(L, "redis.call can only be used inside a script");
    robj **argv = luaArgsToArgv(L, &argc, &aerr);
    if (!argv) return luaRaise(L, aerr);
    const char *err = NULL;
    cairnCommand *cmd = luaCommandLookup(L, argv, argc);
    if (!cmd || !cmd->proc)
        err = "Unknown Redis command called from script";
    else if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity)
        err = "Wrong number of args calling Redis command from script";
    else
        err = luaCallDenied(run, cmd, argv, argc);
    if (err) {
        /* Refused before it ran: counted here, as Redis counts it, and
         * not again when the script passes the error on. */
        commandCountScriptRefusal(cmd && cmd->proc ? cmd : NULL, err, strlen(err));
        luaFreeArgv(argv, argc);
        luaPushErrorTable(L, err, strlen(err));
        luaMarkCounted(L);
        if (raise) return lua_error(L);
        return 1;
    }
    if (cmd->flags & CMD_WRITE) run->wrote = 1;
    fake->argc = argc;
    fake->cmd = fake->realcmd = cmd;
    fake->resp = lua_resp;
    fake->user = run->caller->user;
    commandCall(fake);
    server.current_client = run->caller;
    clientFreeArgv(fake);
    /* The reply, in one piece, parsed into Lua: most fit the fake
     * client's buffer and are parsed where they are. */
    int is_err;
    if (!fake->reply_head) {
        is_err = fake->bufpos > 0 && fake->buf[0] == '-';
        respParseToLua(L, fake->buf, fake->buf + fake->bufpos, 0);
        fake->bufpos = 0;
    } else {
        sds out = sdsnewlen(fake->buf, fake->bufpos);
        for (replyBlock *b = fake->reply_head; b; b = b->next)
            out = sdscatlen(out, b->buf, b->used);
        fake->bufpos = 0;
        replyFreeBlocks(fake);
        is_err = out[0] == '-';
        respParseToLua(L, out, out + sdslen(out), 0);
        sdsfree(out);
    }
    if (is_err && raise) return lua_error(L);
    return 1;
}

/* redis.acl_check_cmd(cmd, ...): may the caller's user run it? */
static int luaRedisAclCheckCmd(lua_State *L) {
    if (!current)
        return luaRaise(L, "redis.acl_check_cmd can only be called inside a script invocation");
    int argc, pos = 0;
    const char *err = NULL;
    robj **argv = luaArgsToArgv(L, &argc, &err);
    if (!argv) return luaRaise(L, err);
    cairnCommand *cmd = commandLookup(argv, argc);
    int ok =
        cmd && cmd->proc && aclCheckCommand(current->caller->user, cmd, argv, argc, &pos) == ACL_OK;
    luaFreeArgv(argv, argc);
    if (!cmd || !cmd->proc) return luaRaise(L, "Invalid command passed to redis.acl_check_cmd()");
    lua_pushboolean(L, ok);
    return 1;
}

static int luaRedisCall(lua_State *L) {
    return luaRedisGenericCommand(L, 1);
}
static int luaRedisPcall(lua_State *L) {
    return luaRedisGenericCommand(L, 0);
}

static int luaRedisSha1hex(lua_State *L) {
    if (lua_gettop(L) != 1) return luaRaise(L, "wrong number of arguments");
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    char hex[41];
    scriptSha1Hex(hex, s ? s : "", s ? len : 0);
    lua_pushstring(L, hex);
    return 1;
}

static int luaRedisReplyTable(lua_State *L, const char *field) {
    if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING)
        return luaRaise(L, "wrong number or type of arguments");
    if (field[0] == 'e') {
        size_t len;
        const char *s = lua_tolstring(L, 1, &len);
        sds e = len && s[0] == '-' ? sdsnewlen(s, len) : sdscatlen(sdsnew("-"), s, len);
        luaPushErrorTable(L, e, sdslen(e));
        sdsfree(e);
        return 1;
    }
    lua_newtable(L);
    lua_pushstring(L, field);
    lua_pushvalue(L, 1);
    lua_settable(L, -3);
    return 1;
}
static int luaRedisErrorReply(lua_State *L) {
    return luaRedisReplyTable(L, "err");
}
static int luaRedisStatusReply(lua_State *L) {
    return luaRedisReplyTable(L, "ok");
}

static int luaRedisLog(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc < 2) return luaRaise(L, "redis.log() requires two arguments or more.");
    if (!lua_isnumber(L, 1)) return luaRaise(L, "First argument must be a number (log level).");
    int level = lua_tointeger(L, 1);
    if (level < LL_DEBUG || level > LL_WARNING) return luaRaise(L, "Invalid debug level.");
    if (level < cfg.verbosity) return 0;
    sds msg = sdsempty();
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(L, j, &len);
        if (!s) continue;
        if (j != 2) msg = sdscatlen(msg, " ", 1);
        msg = sdscatlen(msg, s, len);
    }
    serverLogRaw(level, msg);
    sdsfree(msg);
    return 0;
}

static int luaRedisSetresp(lua_State *L) {
    if (lua_gettop(L) != 1) return luaRaise(L, "redis.setresp() requires one argument.");
    int resp = lua_tointeger(L, 1);
    if (resp != 2 && resp != 3) return luaRaise(L, "RESP version must be 2 or 3.");
    lua_resp = resp;
    return 0;
}

/* Redis' REPL_AOF and REPL_REPLICA are the stream's own target bits. */
#define REPL_AOF     STREAM_TO_AOF
#define REPL_REPLICA STREAM_TO_REPLICAS
static int luaRedisSetRepl(lua_State *L) {
    if (!current)
        return luaRaise(L, "redis.set_repl can only be called inside a script invocation");
    if (lua_gettop(L) != 1)
        return luaRaise(L, "redis.set_repl() requires two arguments."); /* sic, as Redis */
    int flags = lua_tointeger(L, 1);
    if (flags & ~(REPL_AOF | REPL_REPLICA))
        return luaRaise(
            L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    /* The script's next writes are encoded for those readers only
     * (scriptExecute resets it when the script ends). */
    propagateSetTargets(flags);
    return 0;
}

static int luaRedisReplicateCommands(lua_State *L) {
    lua_pushboolean(L, 1);
    return 1;
}

static int luaRedisBreakpoint(lua_State *L) {
    lua_pushboolean(L, 0); /* no debugger session: Redis returns false */
    return 1;
}

static int luaRedisDebug(lua_State *L) {
    (void)L;
    return 0;
}

static void luaSetField(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushstring(L, name);
    lua_pushcfunction(L, f);
    lua_settable(L, -3);
}

static void luaSetNumber(lua_State *L, const char *name, lua_Number n) {
    lua_pushstring(L, name);
    lua_pushnumber(L, n);
    lua_settable(L, -3);
}

/* Interrupt a long script: serve other clients (they get -BUSY) and honour SCRIPT KILL. */
static void luaHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    scriptRun *run = current;
    if (!run) return;
    long long elapsed = mstime() - run->start_ms;
    if (!run->timedout && elapsed >= cfg.lua_time_limit) {
        run->timedout = 1;
        serverLog(
            LL_WARNING,
            "Slow script detected: still in execution after %lld milliseconds. You can try killing "
            "the script using the SCRIPT KILL command. Script name is: %s.",
            elapsed, run->sha);
    }
    if (run->timedout) processEventsWhileBlocked();
    if (run->killed) {
        serverLog(LL_WARNING, "Lua script killed by user with SCRIPT KILL.");
        /* Every line from now on raises again, so pcall cannot swallow it. */
        lua_sethook(L, luaHook, LUA_MASKLINE, 0);
        luaRaise(L, "Script killed by user with SCRIPT KILL...");
    }
}

/* Debian's cjson returns its table without setting a global: set it. */
static void luaOpenLib(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (name[0] && lua_istable(L, -1))
        lua_setglobal(L, name);
    else
        lua_pop(L, 1);
}

lua_State *scriptLuaNewState(void) {
    lua_State *L = luaL_newstate();
    luaOpenLib(L, "", luaopen_base);
    luaOpenLib(L, LUA_TABLIBNAME, luaopen_table);
    luaOpenLib(L, LUA_STRLIBNAME, luaopen_string);
    luaOpenLib(L, LUA_MATHLIBNAME, luaopen_math);
    luaOpenLib(L, "cjson", luaopen_cjson);
    luaOpenLib(L, "bit", luaopen_bit);
    luaOpenLib(L, "cmsgpack", luaopen_cairn_cmsgpack);
    luaOpenLib(L, "struct", luaopen_cairn_struct);
    lua_newtable(L);
    luaRegistrySet(L, &reg_readonly);
    lua_newtable(L);
    luaRegistrySet(L, &reg_funcs);
    /* One error handler for every run (pushing a C function allocates). */
    lua_pushcfunction(L, luaErrorHandler);
    luaRegistrySet(L, &reg_errh);
    /* What scripts may not reach. */
    const char *removed[] = {"loadfile", "dofile", "print",   "newproxy", "setfenv",
                             "getfenv",  "module", "require", NULL};
    for (int j = 0; removed[j]; j++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[j]);
    }
    lua_pushcfunction(L, luaSetmetatable);
    lua_setglobal(L, "setmetatable");
    lua_getglobal(L, "loadstring");
    lua_pushcclosure(L, luaLoadstring, 1);
    lua_setglobal(L, "loadstring");
    /* redis.* */
    lua_newtable(L);
    luaSetField(L, "call", luaRedisCall);
    luaSetField(L, "pcall", luaRedisPcall);
    luaSetField(L, "acl_check_cmd", luaRedisAclCheckCmd);
    luaSetField(L, "sha1hex", luaRedisSha1hex);
    luaSetField(L, "error_reply", luaRedisErrorReply);
    luaSetField(L, "status_reply", luaRedisStatusReply);
    luaSetField(L, "log", luaRedisLog);
    luaSetField(L, "setresp", luaRedisSetresp);
    luaSetField(L, "set_repl", luaRedisSetRepl);
    luaSetField(L, "replicate_commands", luaRedisReplicateCommands);
    luaSetField(L, "breakpoint", luaRedisBreakpoint);
    luaSetField(L, "debug", luaRedisDebug);
    luaSetNumber(L, "LOG_DEBUG", LL_DEBUG);
    luaSetNumber(L, "LOG_VERBOSE", LL_VERBOSE);
    luaSetNumber(L, "LOG_NOTICE", LL_NOTICE);
    luaSetNumber(L, "LOG_WARNING", LL_WARNING);
    luaSetNumber(L, "REPL_NONE", 0);
    luaSetNumber(L, "REPL_AOF", REPL_AOF);
    luaSetNumber(L, "REPL_SLAVE", REPL_REPLICA);
    luaSetNumber(L, "REPL_REPLICA", REPL_REPLICA);
    luaSetNumber(L, "REPL_ALL", REPL_AOF | REPL_REPLICA);
    lua_pushstring(L, "REDIS_VERSION");
    lua_pushstring(L, CAIRN_VERSION);
    lua_settable(L, -3);
    luaSetNumber(L, "REDIS_VERSION_NUM", 0x07000f);
    lua_setglobal(L, "redis");
    /* Library tables become read-only proxies in the globals. */
    const char *libs[] = {"redis", "string",   "table",  "math",      "cjson",
                          "bit",   "cmsgpack", "struct", "coroutine", NULL};
    for (int j = 0; libs[j]; j++) {
        lua_getglobal(L, libs[j]);
        luaPushReadonlyProxy(L, -1, NULL);
        lua_setglobal(L, libs[j]);
        lua_pop(L, 1);
    }
    /* The environment scripts run in: a read-only proxy of the globals
     * whose misses raise, and which _G names. The proxy indexes the globals
     * table itself (the VM follows it without a C call, which every
     * redis.call's `redis` would pay), whose own __index raises. */
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_pushvalue(L, -1);
    luaRegistrySet(L, &reg_globals);
    lua_newtable(L);
    lua_pushcfunction(L, luaGlobalsIndex);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    luaPushReadonlyProxy(L, -1, NULL);
    /* getmetatable(_G) is a read-only view of its metatable, as in Redis. */
    lua_getmetatable(L, -1);
    luaPushReadonlyProxy(L, -1, NULL);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    lua_pushstring(L, "_G");
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "cairn_env");
    lua_pop(L, 2);
    return L;
}

static void luaBuildState(void) {
    lua = scriptLuaNewState();
}

void scriptLuaInit(void) {
    fake = clientCreate(NULL, CLIENT_FAKE | CLIENT_AUTHENTICATED | CLIENT_DENY_BLOCKING);
    fake->flags |= CLIENT_SCRIPT; /* beyond clientCreate's int flags */
    strcpy(fake->peer, "lua");    /* how MONITOR names a script's commands */
    luaBuildState();
}

static void luaCloseJob(void *arg) {
    lua_close(arg);
}

void scriptLuaClose(lua_State *L, int async, unsigned long objects) {
    /* Nothing else refers to a state once it is replaced: the lazy-free
     * thread may take it (Lua allocates with the thread-safe malloc). */
    if (async)
        lazyfreeSubmit(luaCloseJob, L, objects);
    else
        lua_close(L);
}

void scriptLuaReset(int async, unsigned long objects) {
    lua_State *old = lua;
    luaBuildState();
    scriptLuaClose(old, async, objects);
}

sds scriptLuaCompile(const char *sha, const char *body, size_t len, size_t shebang_len) {
    lua_State *L = lua;
    if (luaL_loadbuffer(L, body + shebang_len, len - shebang_len, "@user_script")) {
        sds err = sdscatprintf(sdsempty(), "Error compiling script (new function): %s",
                               lua_tostring(L, -1));
        lua_pop(L, 1);
        return err;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "cairn_env");
    lua_setfenv(L, -2);
    luaRegistryGet(L, &reg_funcs);
    lua_pushstring(L, sha);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 2);
    return NULL;
}

static void luaPushArray(lua_State *L, robj **elev, int n);
static void luaSetArray(lua_State *L, const char *name, robj **elev, int n) {
    luaPushArray(L, elev, n);
    luaRegistryGet(L, &reg_globals);
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 2);
}

void scriptLuaRun(scriptRun *run, robj **keys, int nkeys, robj **args, int nargs) {
    luaRegistryGet(lua, &reg_funcs);
    lua_getfield(lua, -1, run->sha);
    lua_remove(lua, -2);
    scriptLuaCall(lua, run, keys, nkeys, args, nargs);
}

/* KEYS and ARGV as a table at the top of the stack. */
static void luaPushArray(lua_State *L, robj **elev, int n) {
    lua_newtable(L);
    for (int j = 0; j < n; j++) {
        char num[LONG_STR_SIZE];
        size_t len;
        const char *p = stringObjectPtr(elev[j], num, &len);
        lua_pushlstring(L, p, len);
        lua_rawseti(L, -2, j + 1);
    }
}

void scriptLuaCall(lua_State *L, scriptRun *run, robj **keys, int nkeys, robj **args, int nargs) {
    client *c = run->caller;
    luaRegistryGet(L, &reg_errh);
    lua_insert(L, -2);
    int nparams = 0;
    if (run->function) { /* FCALL: function(keys, args) */
        luaPushArray(L, keys, nkeys);
        luaPushArray(L, args, nargs);
        nparams = 2;
    } else {
        luaSetArray(L, "KEYS", keys, nkeys);
        luaSetArray(L, "ARGV", args, nargs);
    }
    fake->db = c->db;
    lua_resp = 2;
    current = run;
    lua_sethook(L, luaHook, LUA_MASKCOUNT, SCRIPT_HOOK_INSTRUCTIONS);
    int err = lua_pcall(L, nparams, 1, -2 - nparams);
    lua_sethook(L, NULL, 0, 0);
    current = NULL;
    if (err) {
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            lua_getfield(L, -2, "source");
            lua_getfield(L, -3, "line");
            const char *msg = lua_tostring(L, -3);
            sds e = sdsnew(msg ? msg : "ERR unknown error");
            if (lua_tostring(L, -2) && lua_isnumber(L, -1))
                e = sdscatprintf(e, " script: %s, on %s:%d.", run->sha, lua_tostring(L, -2),
                                 (int)lua_tointeger(L, -1));
            lua_pop(L, 3);
            luaReplyError(c, L, e, sdslen(e));
            sdsfree(e);
        } else {
            replyErrorFormat(c, "ERR Error running script %s, %.100s", run->sha,
                             lua_tostring(L, -1) ? lua_tostring(L, -1) : "execution failure");
        }
        lua_pop(L, 1);
    } else {
        luaReplyTo(c, L, 0);
    }
    lua_pop(L, 1); /* the error handler */
    lua_resp = 2;
    /* A collection step every 50 runs, of 50 units: stepping after every
     * run costs more than the scripts themselves (Redis' period too).
     * EVAL's state and the functions' count apart. */
    static int eval_runs, function_runs;
    int *runs = L == lua ? &eval_runs : &function_runs;
    if (++*runs == 50) {
        lua_gc(L, LUA_GCSTEP, 50);
        *runs = 0;
    }
}
