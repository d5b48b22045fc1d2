/* lua_cmsgpack: the MessagePack library scripts see as `cmsgpack`. */
#ifndef CAIRN_LUA_CMSGPACK_H
#define CAIRN_LUA_CMSGPACK_H
#include <lua.h>

/* Pushes the library table (pack, unpack, unpack_one, unpack_limit); sets no global. */
int luaopen_cairn_cmsgpack(lua_State *L);

#endif
