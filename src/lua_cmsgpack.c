/* lua_cmsgpack: the `cmsgpack` table scripts see, MessagePack encoding and
 * decoding that behaves as the lua-cmsgpack 0.4.0 Redis 7.0 embeds.
 *
 * Data in: Lua values (pack) or a string of MessagePack (unpack*), on the
 * Lua stack. Data out: one string, or the decoded values, on the stack.
 * pack encodes into a module-owned scratch buffer (no Lua error can be
 * raised while it is filled, so nothing leaks) which it shrinks back after
 * a big value. Decoding pushes values as it goes; a malformed input raises
 * a Lua error, leaving the partly built values to the garbage collector.
 *
 * What Redis' copy does and scripts may rely on, reproduced here: numbers
 * that are exact int64 values are encoded as the smallest integer format,
 * others as float when the float reads back equal, else double; a table
 * whose keys are exactly 1..n is an array, anything else a map; tables
 * nested deeper than 16 levels are encoded as nil; uint64 values above
 * INT64_MAX decode wrapped to negative numbers; bin and ext formats are
 * "Bad data format". */
#include "lua_cmsgpack.h"

#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MP_MAX_NESTING 16
#define MP_KEEP_BYTES  (64 * 1024) /* scratch kept between calls */

/* ---- encoding ---- */

typedef struct mpOut {
    unsigned char *b;
    size_t len, cap;
} mpOut;

static mpOut out; /* scripts do not nest: one scratch buffer */

static void mpReserve(size_t n) {
    if (out.cap - out.len >= n) return;
    size_t cap = out.cap ? out.cap : 256;
    while (cap - out.len < n) cap *= 2;
    unsigned char *b = realloc(out.b, cap);
    if (!b) abort();
    out.b = b;
    out.cap = cap;
}

static void mpPut(const void *p, size_t n) {
    mpReserve(n);
    memcpy(out.b + out.len, p, n);
    out.len += n;
}

/* A type byte followed by the low `bytes` bytes of v, big endian. */
static void mpPutTagged(unsigned char tag, uint64_t v, int bytes) {
    unsigned char b[9];
    b[0] = tag;
    for (int j = 0; j < bytes; j++) b[bytes - j] = (unsigned char)(v >> (8 * j));
    mpPut(b, (size_t)bytes + 1);
}

static void mpPutInt(int64_t n) {
    if (n >= 0) {
        if (n < 128) {
            unsigned char b = (unsigned char)n;
            mpPut(&b, 1);
        } else if (n <= 0xff) {
            mpPutTagged(0xcc, (uint64_t)n, 1);
        } else if (n <= 0xffff) {
            mpPutTagged(0xcd, (uint64_t)n, 2);
        } else if (n <= 0xffffffffLL) {
            mpPutTagged(0xce, (uint64_t)n, 4);
        } else {
            mpPutTagged(0xcf, (uint64_t)n, 8);
        }
    } else if (n >= -32) {
        unsigned char b = (unsigned char)(n & 0xff);
        mpPut(&b, 1);
    } else if (n >= -128) {
        mpPutTagged(0xd0, (uint64_t)n, 1);
    } else if (n >= -32768) {
        mpPutTagged(0xd1, (uint64_t)n, 2);
    } else if (n >= INT32_MIN) {
        mpPutTagged(0xd2, (uint64_t)n, 4);
    } else {
        mpPutTagged(0xd3, (uint64_t)n, 8);
    }
}

/* Exactly representable as an int64 (the range test keeps the cast defined). */
static int mpIsInt64(double d) {
    return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d;
}

static void mpPutNumber(double d) {
    if (mpIsInt64(d)) {
        mpPutInt((int64_t)d);
        return;
    }
    /* Single precision when it loses nothing: infinities do, NaN never does. */
    int as_float = isinf(d) || (!isnan(d) && fabs(d) <= FLT_MAX && (double)(float)d == d);
    if (as_float) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        mpPutTagged(0xca, u, 4);
    } else {
        uint64_t u;
        memcpy(&u, &d, 8);
        mpPutTagged(0xcb, u, 8);
    }
}

static void mpPutHeader(size_t n, unsigned char fix, unsigned fixmax, unsigned char t8,
                        unsigned char t16, unsigned char t32) {
    if (n <= fixmax) {
        unsigned char b = (unsigned char)(fix | n);
        mpPut(&b, 1);
    } else if (t8 && n <= 0xff) {
        mpPutTagged(t8, n, 1);
    } else if (n <= 0xffff) {
        mpPutTagged(t16, n, 2);
    } else {
        mpPutTagged(t32, n, 4);
    }
}

/* Keys exactly 1..n (n >= 0), each a number that fits an int. */
static int mpTableIsArray(lua_State *L, int idx) {
    long count = 0, max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        double k;
        if (lua_type(L, -1) != LUA_TNUMBER || (k = lua_tonumber(L, -1)) <= 0 || k > INT_MAX ||
            (double)(int)k != k) {
            lua_pop(L, 1);
            return 0;
        }
        if (k > max) max = (long)k;
        count++;
    }
    return max == count;
}

static void mpEncode(lua_State *L, int idx, int level);

static void mpEncodeTable(lua_State *L, int idx, int level) {
    if (mpTableIsArray(L, idx)) {
        size_t n = lua_objlen(L, idx);
        mpPutHeader(n, 0x90, 15, 0, 0xdc, 0xdd);
        for (size_t j = 1; j <= n; j++) {
            lua_rawgeti(L, idx, (int)j);
            mpEncode(L, lua_gettop(L), level + 1);
            lua_pop(L, 1);
        }
        return;
    }
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        n++;
    }
    mpPutHeader(n, 0x80, 15, 0, 0xde, 0xdf);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int top = lua_gettop(L);
        mpEncode(L, top - 1, level + 1);
        mpEncode(L, top, level + 1);
        lua_pop(L, 1);
    }
}

/* The value at absolute index idx; the stack is left as found. Each
 * nesting level needs three slots, checked by the caller for all 16. */
static void mpEncode(lua_State *L, int idx, int level) {
    switch (lua_type(L, idx)) {
        case LUA_TBOOLEAN: {
            unsigned char b = lua_toboolean(L, idx) ? 0xc3 : 0xc2;
            mpPut(&b, 1);
            break;
        }
        case LUA_TNUMBER:
            mpPutNumber(lua_tonumber(L, idx));
            break;
        case LUA_TSTRING: {
            size_t len;
            const char *s = lua_tolstring(L, idx, &len);
            mpPutHeader(len, 0xa0, 31, 0xd9, 0xda, 0xdb);
            mpPut(s, len);
            break;
        }
        case LUA_TTABLE:
            if (level < MP_MAX_NESTING) {
                mpEncodeTable(L, idx, level);
                break;
            }
            mpPut("\xc0", 1); /* too deep (a cycle, perhaps): nil */
            break;
        default:
            mpPut("\xc0", 1); /* nil, functions, userdata, threads */
    }
}

static int mpPack(lua_State *L) {
    int nargs = lua_gettop(L);
    if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
    if (!lua_checkstack(L, nargs))
        return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
    luaL_checkstack(L, 3 * MP_MAX_NESTING + 2, "in function mp_pack");
    out.len = 0;
    for (int j = 1; j <= nargs; j++) mpEncode(L, j, 0);
    lua_pushlstring(L, (const char *)out.b, out.len);
    if (out.cap > MP_KEEP_BYTES) {
        free(out.b);
        out.b = NULL;
        out.cap = 0;
    }
    out.len = 0;
    return 1;
}

/* ---- decoding ---- */

enum { MP_OK, MP_EOF, MP_BADFMT };

typedef struct mpIn {
    const unsigned char *p;
    size_t left;
    int err;
} mpIn;

static uint64_t mpBE(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int j = 0; j < bytes; j++) v = (v << 8) | p[j];
    return v;
}

/* Need n bytes; else the input is short. */
static int mpHave(mpIn *in, size_t n) {
    if (in->left >= n) return 1;
    in->err = MP_EOF;
    return 0;
}

static void mpSkip(mpIn *in, size_t n) {
    in->p += n;
    in->left -= n;
}

static void mpDecode(lua_State *L, mpIn *in);

static void mpDecodeArray(lua_State *L, mpIn *in, uint64_t n) {
    lua_newtable(L);
    luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
    for (uint64_t j = 1; j <= n; j++) {
        lua_pushnumber(L, (lua_Number)j);
        mpDecode(L, in);
        if (in->err) return;
        lua_settable(L, -3);
    }
}

static void mpDecodeMap(lua_State *L, mpIn *in, uint64_t n) {
    lua_newtable(L);
    while (n--) {
        mpDecode(L, in);
        if (in->err) return;
        mpDecode(L, in);
        if (in->err) return;
        lua_settable(L, -3);
    }
}

/* A string whose length takes `bytes` bytes after the type byte. */
static void mpDecodeStr(lua_State *L, mpIn *in, int bytes) {
    if (!mpHave(in, 1 + (size_t)bytes)) return;
    size_t len = (size_t)mpBE(in->p + 1, bytes);
    mpSkip(in, 1 + (size_t)bytes);
    if (!mpHave(in, len)) return;
    lua_pushlstring(L, (const char *)in->p, len);
    mpSkip(in, len);
}

/* A container whose count takes `bytes` bytes after the type byte. */
static void mpDecodeCount(lua_State *L, mpIn *in, int bytes, int map) {
    if (!mpHave(in, 1 + (size_t)bytes)) return;
    uint64_t n = mpBE(in->p + 1, bytes);
    mpSkip(in, 1 + (size_t)bytes);
    if (map)
        mpDecodeMap(L, in, n);
    else
        mpDecodeArray(L, in, n);
}

/* An integer of `bytes` bytes; signed ones are sign-extended. uint64
 * values wrap to negative, as lua_Integer is int64. */
static void mpDecodeInt(lua_State *L, mpIn *in, int bytes, int is_signed) {
    if (!mpHave(in, 1 + (size_t)bytes)) return;
    uint64_t v = mpBE(in->p + 1, bytes);
    if (is_signed && bytes < 8 && (v >> (8 * bytes - 1)) & 1) v |= ~0ULL << (8 * bytes);
    lua_pushinteger(L, (lua_Integer)(int64_t)v);
    mpSkip(in, 1 + (size_t)bytes);
}

/* A float (4 bytes) or double (8) after the type byte. */
static void mpDecodeReal(lua_State *L, mpIn *in, int bytes) {
    if (!mpHave(in, 1 + (size_t)bytes)) return;
    uint64_t u = mpBE(in->p + 1, bytes);
    if (bytes == 4) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        lua_pushnumber(L, f);
    } else {
        double d;
        memcpy(&d, &u, 8);
        lua_pushnumber(L, d);
    }
    mpSkip(in, 1 + (size_t)bytes);
}

/* Push one value, or set in->err. */
static void mpDecode(lua_State *L, mpIn *in) {
    if (!mpHave(in, 1)) return;
    luaL_checkstack(L, 1,
                    "too many return values at once; use unpack_one or unpack_limit instead.");
    unsigned char t = in->p[0];
    if (t < 0x80 || t >= 0xe0) { /* positive and negative fixint */
        lua_pushinteger(L, t < 0x80 ? (lua_Integer)t : (lua_Integer)(signed char)t);
        mpSkip(in, 1);
        return;
    }
    if (t >= 0xa0 && t <= 0xbf) { /* fixstr */
        size_t len = t & 0x1f;
        if (!mpHave(in, 1 + len)) return;
        lua_pushlstring(L, (const char *)in->p + 1, len);
        mpSkip(in, 1 + len);
        return;
    }
    if (t <= 0x9f) { /* fixmap 0x80-0x8f, fixarray 0x90-0x9f */
        mpSkip(in, 1);
        if (t < 0x90)
            mpDecodeMap(L, in, t & 0xf);
        else
            mpDecodeArray(L, in, t & 0xf);
        return;
    }
    switch (t) {
        case 0xc0:
            lua_pushnil(L);
            mpSkip(in, 1);
            break;
        case 0xc2:
        case 0xc3:
            lua_pushboolean(L, t == 0xc3);
            mpSkip(in, 1);
            break;
        case 0xca:
            mpDecodeReal(L, in, 4);
            break;
        case 0xcb:
            mpDecodeReal(L, in, 8);
            break;
        case 0xcc:
            mpDecodeInt(L, in, 1, 0);
            break;
        case 0xcd:
            mpDecodeInt(L, in, 2, 0);
            break;
        case 0xce:
            mpDecodeInt(L, in, 4, 0);
            break;
        case 0xcf:
            mpDecodeInt(L, in, 8, 0);
            break;
        case 0xd0:
            mpDecodeInt(L, in, 1, 1);
            break;
        case 0xd1:
            mpDecodeInt(L, in, 2, 1);
            break;
        case 0xd2:
            mpDecodeInt(L, in, 4, 1);
            break;
        case 0xd3:
            mpDecodeInt(L, in, 8, 1);
            break;
        case 0xd9:
            mpDecodeStr(L, in, 1);
            break;
        case 0xda:
            mpDecodeStr(L, in, 2);
            break;
        case 0xdb:
            mpDecodeStr(L, in, 4);
            break;
        case 0xdc:
            mpDecodeCount(L, in, 2, 0);
            break;
        case 0xdd:
            mpDecodeCount(L, in, 4, 0);
            break;
        case 0xde:
            mpDecodeCount(L, in, 2, 1);
            break;
        case 0xdf:
            mpDecodeCount(L, in, 4, 1);
            break;
        default:
            in->err = MP_BADFMT; /* 0xc1, bin, ext */
    }
}

/* Decode up to limit values from byte offset; limit and offset both 0
 * means everything, with no offset returned. Otherwise the next offset
 * (-1 at the end) comes first. */
static int mpUnpackFrom(lua_State *L, lua_Integer limit, lua_Integer offset) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int all = limit == 0 && offset == 0;
    /* Redis' copy prints the low 32 bits of each number, and the input
     * length where it says "limit". */
    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                          (int)offset, (int)len);
    if ((size_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", (int)offset,
                          (int)len);
    if (all) limit = INT_MAX;
    mpIn in = {(const unsigned char *)s + offset, len - (size_t)offset, MP_OK};
    int n = 0;
    while (in.left > 0 && (lua_Integer)n < limit) {
        mpDecode(L, &in);
        if (in.err == MP_EOF) return luaL_error(L, "Missing bytes in input.");
        if (in.err == MP_BADFMT) return luaL_error(L, "Bad data format in input.");
        n++;
    }
    if (all) return n;
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    lua_pushinteger(L, in.left == 0 ? -1 : (lua_Integer)(len - in.left));
    lua_insert(L, 2);
    return n + 1;
}

/* Keep only the string argument (or nothing, so the check reports "no value"). */
static void mpKeepFirst(lua_State *L) {
    if (lua_gettop(L) > 1) lua_settop(L, 1);
}

static int mpUnpack(lua_State *L) {
    return mpUnpackFrom(L, 0, 0);
}

static int mpUnpackOne(lua_State *L) {
    lua_Integer offset = luaL_optinteger(L, 2, 0);
    mpKeepFirst(L);
    return mpUnpackFrom(L, 1, offset);
}

static int mpUnpackLimit(lua_State *L) {
    lua_Integer limit = luaL_checkinteger(L, 2);
    lua_Integer offset = luaL_optinteger(L, 3, 0);
    mpKeepFirst(L);
    return mpUnpackFrom(L, limit, offset);
}

int luaopen_cairn_cmsgpack(lua_State *L) {
    static const luaL_Reg funcs[] = {{"pack", mpPack},
                                     {"unpack", mpUnpack},
                                     {"unpack_one", mpUnpackOne},
                                     {"unpack_limit", mpUnpackLimit},
                                     {NULL, NULL}};
    lua_newtable(L);
    luaL_register(L, NULL, funcs);
    lua_pushliteral(L, "cmsgpack");
    lua_setfield(L, -2, "_NAME");
    lua_pushliteral(L, "lua-cmsgpack 0.4.0");
    lua_setfield(L, -2, "_VERSION");
    lua_pushliteral(L, "Copyright (C) 2012, Salvatore Sanfilippo");
    lua_setfield(L, -2, "_COPYRIGHT");
    lua_pushliteral(L, "MessagePack C implementation for Lua");
    lua_setfield(L, -2, "_DESCRIPTION");
    return 1;
}
