/* function: Redis 7.0 functions: the library store, FUNCTION and
 * FCALL/FCALL_RO. The Lua side is function_lua.h; snapshots reach the
 * store only through persistence/rdb.h's rdbFunctionsStore hook, which
 * functionsInit registers. */
#ifndef CAIRN_FUNCTION_H
#define CAIRN_FUNCTION_H
#include "sds.h"

typedef struct client client;

void functionsInit(void);
/* INFO: libraries, functions, and the bytes of the functions' Lua state. */
long long functionsLibraryCount(void);
long long functionsCount(void);
long long functionsLuaMemory(void);
/* Bytes of the libraries outside Lua (INFO used_memory_functions). */
long long functionsCacheMemory(void);

/* SCRIPT_FLAG_* of the named function, -1 if there is none (the pause
 * asks whether an FCALL may write before running it). */
int functionFlagsByName(const char *name);

void functionCommand(client *c);
void fcallCommand(client *c);
void fcallRoCommand(client *c);

#endif
