/* function_lua: the functions' Lua state, its load-time sandbox and
 * redis.register_function.
 *
 * Data in: a library's code (functionLuaLoad) and, for a call, the
 * registry reference of a function plus KEYS/ARGV (functionLuaCall).
 * Data out: each registered function, handed to function.c's callback,
 * and a call's reply through script_lua.c's runner.
 *
 * Every library chunk runs in one environment table whose metatable is
 * switched: while a library loads, its globals are only the load API
 * (redis.register_function, redis.log and the LOG_* and version fields;
 * any other name raises); while a function runs, they are the full
 * sandbox of EVAL (script_lua.c's globals proxy). The callbacks keep that
 * environment, so a function sees the full API whenever it is called.
 *
 * Ownership: this module owns the state; function references are released
 * by functionLuaUnref when function.c drops the function. */
#include "function_lua.h"
#include "script.h"
#include "util.h"

#include <lauxlib.h>
#include <lua.h>
#include <string.h>
#include <strings.h>

#define FN_LOAD_HOOK_INSTRUCTIONS 100000

static lua_State *fl;
/* Registry keys: the chunk environment, its metatable, the load API. */
static char reg_env, reg_env_mt, reg_load_api;

typedef struct fnLoad {
    fnRegisterFn *reg;
    void *ctx;
    long long start_ms, timeout_ms;
} fnLoad;
static fnLoad *loading; /* the load in progress, or NULL */

/* Raise {err = "ERR msg"}, as the load API's errors are tables. */
static int fnRaise(lua_State *L, const char *msg) {
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushfstring(L, "ERR %s", msg);
    lua_settable(L, -3);
    return lua_error(L);
}

static int fnMissing(lua_State *L) {
    const char *n = lua_tostring(L, 2);
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                      n ? n : "?");
}

static int fnReadonly(lua_State *L) {
    return luaL_error(L, "Attempt to modify a readonly table");
}

/* Give the table at the top the load API's metatable: misses and writes raise. */
static void fnProtect(lua_State *L) {
    lua_newtable(L);
    lua_pushcfunction(L, fnMissing);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, fnReadonly);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

/* The flags table at the top: SCRIPT_FLAG_* in *flags, or -1 on a name no
 * flag has (or a value that is no string). */
static int fnReadFlags(lua_State *L, int *flags) {
    *flags = 0;
    for (int j = 1;; j++) {
        lua_rawgeti(L, -1, j);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            return 0;
        }
        int f = lua_type(L, -1) == LUA_TSTRING ? scriptFlagFromName(lua_tostring(L, -1), 1) : 0;
        lua_pop(L, 1);
        if (!f) return -1;
        *flags |= f;
    }
}

/* A string or a number (Lua's lua_isstring), as Redis takes names. */
static sds fnStringArg(lua_State *L, int idx) {
    if (!lua_isstring(L, idx)) return NULL;
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    return sdsnewlen(s, len);
}

/* redis.register_function(name, callback) or
 * redis.register_function{function_name=, callback=, flags=, description=}. */
static int fnRegister(lua_State *L) {
    if (!loading)
        return fnRaise(L, "redis.register_function can only be called on FUNCTION LOAD command");
    int argc = lua_gettop(L);
    sds name = NULL, desc = NULL;
    const char *err = NULL;
    int flags = 0, ref = LUA_NOREF;
    if (argc < 1 || argc > 2)
        return fnRaise(L, "wrong number of arguments to redis.register_function");
    if (argc == 2) {
        if (!(name = fnStringArg(L, 1)))
            err = "first argument to redis.register_function must be a string";
        else if (!lua_isfunction(L, 2))
            err = "second argument to redis.register_function must be a function";
        else
            ref = luaL_ref(L, LUA_REGISTRYINDEX); /* pops the callback */
    } else if (!lua_istable(L, 1)) {
        err = "calling redis.register_function with a single argument is only applicable to Lua "
              "table (representing named arguments).";
    } else {
        lua_pushnil(L);
        while (!err && lua_next(L, 1)) {
            const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            if (!key) {
                err = "named argument key given to redis.register_function is not a string";
            } else if (!strcasecmp(key, "function_name")) {
                sdsfree(name);
                if (!(name = fnStringArg(L, -1)))
                    err =
                        "function_name argument given to redis.register_function must be a string";
            } else if (!strcasecmp(key, "description")) {
                sdsfree(desc);
                if (!(desc = fnStringArg(L, -1)))
                    err = "description argument given to redis.register_function must be a string";
            } else if (!strcasecmp(key, "callback")) {
                if (!lua_isfunction(L, -1)) {
                    err = "callback argument given to redis.register_function must be a function";
                } else {
                    if (ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, ref);
                    ref = luaL_ref(L, LUA_REGISTRYINDEX); /* pops the value */
                    continue;
                }
            } else if (!strcasecmp(key, "flags")) {
                if (!lua_istable(L, -1))
                    err = "flags argument to redis.register_function must be a table representing "
                          "function flags";
                else if (fnReadFlags(L, &flags) == -1)
                    err = "unknown flag given";
            } else {
                err = "unknown argument given to redis.register_function";
            }
            lua_pop(L, 1);
        }
        if (!err && !name) err = "redis.register_function must get a function name argument";
        if (!err && ref == LUA_NOREF) err = "redis.register_function must get a callback argument";
    }
    sds e = NULL;
    if (!err) {
        e = loading->reg(loading->ctx, name, desc, flags, ref);
        if (!e) return 0;
        err = e;
    }
    sdsfree(name);
    sdsfree(desc);
    if (ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, ref);
    lua_settop(L, 0);
    lua_pushstring(L, err); /* the message outlives e */
    sdsfree(e);
    return fnRaise(L, lua_tostring(L, -1));
}

/* Switch the chunk environment's globals: the load API or the sandbox. */
static void fnSetGlobals(int load) {
    luaRegistryGet(fl, &reg_env_mt);
    if (load) {
        luaRegistryGet(fl, &reg_load_api);
    } else {
        lua_getfield(fl, LUA_REGISTRYINDEX, "cairn_env");
    }
    lua_pushvalue(fl, -1);
    lua_setfield(fl, -3, "__index");
    lua_setfield(fl, -2, "__newindex");
    lua_pop(fl, 1);
}

void functionLuaInit(void) {
    fl = scriptLuaNewState();
    lua_State *L = fl;
    /* The load API: a protected globals table holding a protected redis. */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushcfunction(L, fnRegister);
    lua_setfield(L, -2, "register_function");
    lua_getglobal(L, "redis"); /* the sandbox's, for the fields both share */
    const char *shared[] = {"log",         "LOG_DEBUG",     "LOG_VERBOSE",       "LOG_NOTICE",
                            "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM", NULL};
    for (int j = 0; shared[j]; j++) {
        lua_getfield(L, -1, shared[j]);
        lua_setfield(L, -3, shared[j]);
    }
    lua_pop(L, 1);
    fnProtect(L);
    lua_setfield(L, -2, "redis");
    fnProtect(L);
    luaRegistrySet(L, &reg_load_api);
    /* The environment of every chunk: empty, its metatable switched. */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, -1);
    lua_setmetatable(L, -3);
    luaRegistrySet(L, &reg_env_mt);
    luaRegistrySet(L, &reg_env);
    fnSetGlobals(0);
}

/* A long load is cut at its deadline (the primary's and the AOF's have none). */
static void fnLoadHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    if (loading && loading->timeout_ms > 0 && mstime() - loading->start_ms > loading->timeout_ms) {
        lua_sethook(L, fnLoadHook, LUA_MASKLINE, 0); /* raise again on every line */
        fnRaise(L, "FUNCTION LOAD timeout");
    }
}

sds functionLuaLoad(const char *code, size_t len, long long timeout_ms, fnRegisterFn *reg,
                    void *ctx) {
    lua_State *L = fl;
    if (luaL_loadbuffer(L, code, len, "@user_function")) {
        sds err = sdscatprintf(sdsempty(), "Error compiling function: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return err;
    }
    luaRegistryGet(L, &reg_env);
    lua_setfenv(L, -2);
    fnLoad ld = {reg, ctx, mstime(), timeout_ms};
    loading = &ld;
    fnSetGlobals(1);
    lua_sethook(L, fnLoadHook, LUA_MASKCOUNT, FN_LOAD_HOOK_INSTRUCTIONS);
    sds err = NULL;
    if (lua_pcall(L, 0, 0, 0)) {
        const char *msg = NULL;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            msg = lua_tostring(L, -1);
            err = sdscatprintf(sdsempty(), "Error registering functions: %s",
                               msg ? msg : "ERR unknown error");
            lua_pop(L, 1);
        } else {
            msg = lua_tostring(L, -1);
            err = sdscatprintf(sdsempty(), "Error registering functions: ERR %s",
                               msg ? msg : "unknown error");
        }
        lua_pop(L, 1);
    }
    lua_sethook(L, NULL, 0, 0);
    fnSetGlobals(0);
    loading = NULL;
    lua_gc(L, LUA_GCSTEP, 1);
    return err;
}

void functionLuaCall(scriptRun *run, int ref, robj **keys, int nkeys, robj **args, int nargs) {
    lua_rawgeti(fl, LUA_REGISTRYINDEX, ref);
    scriptLuaCall(fl, run, keys, nkeys, args, nargs);
}

void functionLuaUnref(int ref) {
    luaL_unref(fl, LUA_REGISTRYINDEX, ref);
}

void functionLuaReset(int async, unsigned long objects) {
    lua_State *old = fl;
    functionLuaInit();
    scriptLuaClose(old, async, objects);
}

long long functionLuaMemory(void) {
    return (long long)lua_gc(fl, LUA_GCCOUNT, 0) * 1024 + lua_gc(fl, LUA_GCCOUNTB, 0);
}
