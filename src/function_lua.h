/* function_lua: the Lua state FUNCTION libraries live in, apart from the
 * EVAL state (SCRIPT FLUSH leaves functions alone, as in Redis 7.0).
 *
 * function.c owns the libraries; it hands a library's code to
 * functionLuaLoad, whose run calls back (fnRegisterFn) for each
 * redis.register_function, and later runs a function by its registry
 * reference with functionLuaCall. */
#ifndef CAIRN_FUNCTION_LUA_H
#define CAIRN_FUNCTION_LUA_H
#include "object.h"
#include "sds.h"
#include "script_lua.h"

/* One redis.register_function during a load. name and desc (NULL: none)
 * pass to the callee; ref is the callback's registry reference. NULL, or
 * the error text (the caller frees it; the callee then owns nothing). */
typedef sds fnRegisterFn(void *ctx, sds name, sds desc, int flags, int ref);

void functionLuaInit(void);
/* Run a library's code (the text after its shebang line, newline kept),
 * which may only register functions. timeout_ms 0: no limit. NULL, or the
 * error reply text without "ERR " (caller frees). */
sds functionLuaLoad(const char *code, size_t len, long long timeout_ms, fnRegisterFn *reg,
                    void *ctx);
/* Run the function registered as ref; the reply goes to run->caller. */
void functionLuaCall(scriptRun *run, int ref, robj **keys, int nkeys, robj **args, int nargs);
/* A function is gone: release its callback. */
void functionLuaUnref(int ref);
/* FUNCTION FLUSH, once every function's reference is released: a fresh
 * state, the old one closed at once or on the lazy-free thread. */
void functionLuaReset(int async, unsigned long objects);
/* Bytes the state holds (INFO used_memory_vm_functions). */
long long functionLuaMemory(void);

#endif
