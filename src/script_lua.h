/* script_lua: the one Lua 5.1 state scripts run in, its sandbox, the
 * redis.* library and the conversions between RESP replies and Lua values.
 *
 * script.c owns the cache (sha -> body) and the commands; it hands a body
 * to scriptLuaCompile, which leaves a function f_<sha> in the registry, and
 * runs it with scriptLuaRun, which writes the script's reply (or error) to
 * the caller. Commands the script calls run on a fake client through the
 * command core (commandCall), with the caller's ACL user. */
#ifndef CAIRN_SCRIPT_LUA_H
#define CAIRN_SCRIPT_LUA_H
#include "object.h"
#include "sds.h"

typedef struct client client;

/* Shebang flags (#!lua flags=...) and the run's own state. */
#define SCRIPT_FLAG_NO_WRITES        (1 << 0)
#define SCRIPT_FLAG_ALLOW_OOM        (1 << 1)
#define SCRIPT_FLAG_ALLOW_STALE      (1 << 2)
#define SCRIPT_FLAG_NO_CLUSTER       (1 << 3)
#define SCRIPT_FLAG_ALLOW_CROSS_SLOT (1 << 4)
#define SCRIPT_FLAG_COMPAT           (1 << 8) /* no shebang: EVAL as before 7.0 */

/* The script running now (at most one: scripts do not nest). */
typedef struct scriptRun {
    client *caller;
    int flags;    /* SCRIPT_FLAG_* of the script */
    int readonly; /* EVAL_RO / EVALSHA_RO, or no-writes */
    int wrote;    /* a write command ran: SCRIPT KILL refuses */
    int oom;      /* over maxmemory when the script started */
    long long start_ms;
    int timedout;    /* past busy-reply-threshold: others get -BUSY */
    int killed;      /* SCRIPT KILL asked */
    const char *sha; /* EVAL: the sha; FCALL: the function's name */
    int function;    /* FCALL: KEYS and ARGV are the function's arguments */
} scriptRun;

void scriptLuaInit(void);
/* Drop every compiled function (SCRIPT FLUSH): a fresh state; the old one
 * is closed at once or (async) on the lazy-free thread, counted there as
 * `objects`. */
void scriptLuaReset(int async, unsigned long objects);
typedef struct lua_State lua_State;
void scriptLuaClose(lua_State *L, int async, unsigned long objects);
/* Compile body as f_<sha>; NULL, or the error text (caller frees). The
 * shebang line (shebang_len bytes) is skipped, its newline kept. */
sds scriptLuaCompile(const char *sha, const char *body, size_t len, size_t shebang_len);
/* Run f_<sha> with KEYS/ARGV; the reply goes to run->caller. */
void scriptLuaRun(scriptRun *run, robj **keys, int nkeys, robj **args, int nargs);
/* A new state with the sandbox and redis.* (FUNCTION's state is one). */
lua_State *scriptLuaNewState(void);
/* Run the function at the top of L's stack (popped) as run, with KEYS and
 * ARGV; the reply goes to run->caller. */
void scriptLuaCall(lua_State *L, scriptRun *run, robj **keys, int nkeys, robj **args, int nargs);
/* registry[key] = the value at the top of L's stack (popped); push
 * registry[key]. Keys are addresses of the module's own statics. */
void luaRegistrySet(lua_State *L, void *key);
void luaRegistryGet(lua_State *L, void *key);
/* DEBUG SET-DISABLE-DENY-SCRIPTS <0|1>. */
void scriptLuaAllowNoscript(int on);
/* Bytes the Lua state holds (INFO used_memory_lua). */
long long scriptLuaMemory(void);
/* The run in progress, or NULL. */
scriptRun *scriptLuaCurrent(void);
/* 40 lowercase hex digits of SHA1(p) into out[41]. */
void scriptSha1Hex(char *out, const char *p, size_t len);

#endif
