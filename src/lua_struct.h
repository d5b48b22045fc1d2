/* lua_struct: the binary packing library scripts see as `struct`. */
#ifndef CAIRN_LUA_STRUCT_H
#define CAIRN_LUA_STRUCT_H
#include <lua.h>

/* Pushes the library table (pack, unpack, size); sets no global. */
int luaopen_cairn_struct(lua_State *L);

#endif
