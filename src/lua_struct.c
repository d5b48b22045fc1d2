/* lua_struct: the `struct` table scripts see, binary packing as Roberto
 * Ierusalimschy's struct library (the copy Redis 7.0 embeds) documents it:
 *   struct.pack(fmt, v1, ...)   -> string
 *   struct.unpack(fmt, s [, i]) -> v1, ..., next position
 *   struct.size(fmt)            -> bytes a format takes
 * Format: '>' big and '<' little endian, '![n]' maximum alignment n (a
 * power of 2; default 8), 'x' a zero byte, 'b'/'B' char, 'h'/'H' short,
 * 'l'/'L' long, 'T' size_t, 'i'/'I'[n] an n-byte int (n <= 32, default 4),
 * 'c'[n] n bytes (c0: the string's length when packing, the previous
 * number when unpacking), 's' a zero-terminated string, 'f' float,
 * 'd' double, ' ' ignored. Lowercase integers are signed. Alignment is off
 * (1) until a '!'.
 *
 * Data in and out is on the Lua stack; pack builds its result in a
 * luaL_Buffer (Lua owns it, so argument errors mid-way leak nothing).
 * Integers are 64-bit: wider 'i' fields pad with zero bytes, as Redis'
 * copy does, and number-to-integer conversions of out-of-range values give
 * what x86-64 code compiled from that copy gives, so results match. */
#include "lua_struct.h"

#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define ST_MAXINT   32 /* widest 'i' */
#define ST_MAXALIGN 8  /* '!' alone: a double's alignment */

typedef struct stFormat {
    const char *p;
    int little; /* byte order now in effect */
    int align;  /* maximum alignment now in effect */
} stFormat;

static int stDigit(int c) {
    return c >= '0' && c <= '9';
}
static int stAlnum(int c) {
    return stDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The number after an option, or def when there is none. */
static int stNumber(lua_State *L, stFormat *f, int def) {
    if (!stDigit((unsigned char)*f->p)) return def;
    int n = 0;
    while (stDigit((unsigned char)*f->p)) {
        int d = *f->p++ - '0';
        if (n > INT_MAX / 10 || n * 10 > INT_MAX - d) luaL_error(L, "integral size overflow");
        n = n * 10 + d;
    }
    return n;
}

/* Bytes the data option opt takes (0 for 's' and for the control
 * options), consuming its number. */
static size_t stSize(lua_State *L, int opt, stFormat *f) {
    switch (opt) {
        case 'b':
        case 'B':
        case 'x':
            return 1;
        case 'h':
        case 'H':
            return sizeof(short);
        case 'l':
        case 'L':
            return sizeof(long);
        case 'T':
            return sizeof(size_t);
        case 'f':
            return sizeof(float);
        case 'd':
            return sizeof(double);
        case 'c':
            return (size_t)stNumber(L, f, 1);
        case 'i':
        case 'I': {
            int n = stNumber(L, f, (int)sizeof(int));
            if (n > ST_MAXINT)
                luaL_error(L, "integral size %d is larger than limit of %d", n, ST_MAXINT);
            return (size_t)n;
        }
        default:
            return 0;
    }
}

/* Padding before a field of size bytes at offset pos. The mask arithmetic
 * is the library's: sizes that are not powers of two pad oddly, as there. */
static size_t stPadding(size_t pos, const stFormat *f, int opt, size_t size) {
    if (size == 0 || opt == 'c') return 0;
    if (size > (size_t)f->align) size = (size_t)f->align;
    return (size - (pos & (size - 1))) & (size - 1);
}

/* '<', '>', '!' and ' '; anything else is an invalid option. */
static void stControl(lua_State *L, int opt, stFormat *f) {
    switch (opt) {
        case ' ':
            return;
        case '<':
            f->little = 1;
            return;
        case '>':
            f->little = 0;
            return;
        case '!': {
            int a = stNumber(L, f, ST_MAXALIGN);
            if (a <= 0 || (a & (a - 1))) luaL_error(L, "alignment %d is not a power of 2", a);
            f->align = a;
            return;
        }
        default:
            luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
    }
}

static void stInit(stFormat *f, const char *fmt) {
    f->p = fmt;
    f->little = 1; /* x86-64 */
    f->align = 1;
}

static int stIsInteger(int opt) {
    return opt && strchr("bBhHlLTiI", opt) != NULL;
}

/* A double to the 64-bit pattern the library stores: what the x86-64
 * conversions give, including for NaN and out-of-range values. */
static uint64_t stToBits(double n) {
    const double two63 = 9223372036854775808.0;
    if (n < 0) return n >= -two63 ? (uint64_t)(int64_t)n : (uint64_t)INT64_MIN;
    if (!(n >= two63)) return isnan(n) ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)n;
    double m = n - two63;
    return (m < two63 ? (uint64_t)(int64_t)m : (uint64_t)INT64_MIN) ^ (1ULL << 63);
}

/* Bytes of v, size of them, in the format's order (bytes past 8 are 0). */
static void stPutBytes(luaL_Buffer *b, uint64_t v, size_t size, int little) {
    char buf[ST_MAXINT];
    for (size_t j = 0; j < size; j++) {
        buf[little ? j : size - 1 - j] = (char)(v & 0xff);
        v = j < 7 ? v >> 8 : 0;
    }
    luaL_addlstring(b, buf, size);
}

static uint64_t stGetBytes(const char *p, size_t size, int little) {
    uint64_t v = 0;
    for (size_t j = 0; j < size; j++) v = (v << 8) | (unsigned char)p[little ? size - 1 - j : j];
    return v;
}

static int stPack(lua_State *L) {
    stFormat f;
    stInit(&f, luaL_checkstring(L, 1));
    int arg = 2;
    size_t total = 0;
    luaL_Buffer b;
    lua_pushnil(L); /* keeps the buffer's slots apart from the arguments */
    luaL_buffinit(L, &b);
    while (*f.p) {
        int opt = (unsigned char)*f.p++;
        size_t size = stSize(L, opt, &f);
        size_t pad = stPadding(total, &f, opt, size);
        total += pad;
        while (pad--) luaL_addchar(&b, '\0');
        if (stIsInteger(opt)) {
            stPutBytes(&b, stToBits(luaL_checknumber(L, arg++)), size, f.little);
        } else if (opt == 'x') {
            luaL_addchar(&b, '\0');
        } else if (opt == 'f') {
            float v = (float)luaL_checknumber(L, arg++);
            uint32_t u;
            memcpy(&u, &v, 4);
            stPutBytes(&b, u, 4, f.little);
        } else if (opt == 'd') {
            double v = luaL_checknumber(L, arg++);
            uint64_t u;
            memcpy(&u, &v, 8);
            stPutBytes(&b, u, 8, f.little);
        } else if (opt == 'c' || opt == 's') {
            size_t len;
            const char *s = luaL_checklstring(L, arg++, &len);
            if (size == 0) size = len;
            /* The library names the argument after this one. */
            luaL_argcheck(L, len >= size, arg, "string too short");
            luaL_addlstring(&b, s, size);
            if (opt == 's') {
                luaL_addchar(&b, '\0');
                size++;
            }
        } else {
            stControl(L, opt, &f);
        }
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

static int stUnpack(lua_State *L) {
    stFormat f;
    stInit(&f, luaL_checkstring(L, 1));
    size_t len;
    const char *data = luaL_checklstring(L, 2, &len);
    size_t pos = (size_t)luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
    pos--;
    int n = 0;
    while (*f.p) {
        int opt = (unsigned char)*f.p++;
        size_t size = stSize(L, opt, &f);
        pos += stPadding(pos, &f, opt, size);
        luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
        luaL_checkstack(L, 2, "too many results");
        if (stIsInteger(opt)) {
            uint64_t v = stGetBytes(data + pos, size, f.little);
            if (opt >= 'a') { /* signed: extend from the field's top bit */
                uint64_t mask = ~0ULL << ((size * 8 - 1) & 63);
                if (v & mask) v |= mask;
                lua_pushnumber(L, (lua_Number)(int64_t)v);
            } else {
                lua_pushnumber(L, (lua_Number)v);
            }
            n++;
        } else if (opt == 'x') {
            /* skipped */
        } else if (opt == 'f') {
            uint32_t u = (uint32_t)stGetBytes(data + pos, 4, f.little);
            float v;
            memcpy(&v, &u, 4);
            lua_pushnumber(L, v);
            n++;
        } else if (opt == 'd') {
            uint64_t u = stGetBytes(data + pos, 8, f.little);
            double v;
            memcpy(&v, &u, 8);
            lua_pushnumber(L, v);
            n++;
        } else if (opt == 'c') {
            if (size == 0) { /* the length is the value just read */
                if (n == 0 || !lua_isnumber(L, -1))
                    luaL_error(L, "format 'c0' needs a previous size");
                size = (size_t)stToBits(lua_tonumber(L, -1));
                lua_pop(L, 1);
                n--;
                luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
            }
            lua_pushlstring(L, data + pos, size);
            n++;
        } else if (opt == 's') {
            const char *end = memchr(data + pos, '\0', len - pos);
            if (!end) luaL_error(L, "unfinished string in data");
            size = (size_t)(end - (data + pos)) + 1;
            lua_pushlstring(L, data + pos, size - 1);
            n++;
        } else {
            stControl(L, opt, &f);
        }
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)(pos + 1));
    return n + 1;
}

static int stSizeOf(lua_State *L) {
    stFormat f;
    stInit(&f, luaL_checkstring(L, 1));
    size_t pos = 0;
    while (*f.p) {
        int opt = (unsigned char)*f.p++;
        size_t size = stSize(L, opt, &f);
        pos += stPadding(pos, &f, opt, size);
        if (opt == 's') luaL_argerror(L, 1, "option 's' has no fixed size");
        if (opt == 'c' && size == 0) luaL_argerror(L, 1, "option 'c0' has no fixed size");
        /* Unknown letters count as nothing here, as in the library. */
        if (!stAlnum(opt)) stControl(L, opt, &f);
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos);
    return 1;
}

int luaopen_cairn_struct(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"pack", stPack}, {"unpack", stUnpack}, {"size", stSizeOf}, {NULL, NULL}};
    lua_newtable(L);
    luaL_register(L, NULL, funcs);
    return 1;
}
