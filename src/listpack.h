/* listpack: a compact, single-allocation sequence of strings and integers,
 * byte-compatible with Redis' listpack (so the snapshot work can write and
 * read it as-is, RDB_TYPE_*_LISTPACK).
 *
 * Layout: <total-bytes u32><num-elements u16><entry>...<0xFF>. Each entry is
 * <encoding+data><backlen>, integers stored in the smallest of 7/13/16/24/32/
 * 64-bit forms, strings with 6/12/32-bit lengths; backlen lets iteration run
 * backwards. num-elements saturates at 65535 (then lpLength counts).
 *
 * Ownership: a listpack is one zmalloc'ed block owned by whoever holds the
 * pointer; every function that may reallocate returns the new pointer. Entry
 * pointers (p) are invalidated by any modification. */
#ifndef CAIRN_LISTPACK_H
#define CAIRN_LISTPACK_H
#include <stddef.h>
#include <stdint.h>

#define LP_INTBUF_SIZE 21 /* enough for any int64 in decimal */
#define LP_BEFORE 0
#define LP_AFTER  1
#define LP_REPLACE 2

unsigned char *lpNew(size_t capacity);
void lpFree(unsigned char *lp);
/* Shrink the allocation to the used size. */
unsigned char *lpShrinkToFit(unsigned char *lp);
/* Insert a string (or, with lpInsertInteger, an integer) before/after/in
 * place of the entry at p; *newp (if not NULL) gets the inserted entry. */
unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, uint32_t slen,
                              unsigned char *p, int where, unsigned char **newp);
unsigned char *lpInsertInteger(unsigned char *lp, long long lval, unsigned char *p, int where,
                               unsigned char **newp);
/* Strings that look like canonical integers (string2ll) are stored as
 * integers by lpAppend/lpPrepend/lpReplace, as Redis does. */
unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, uint32_t slen);
unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, uint32_t slen);
unsigned char *lpAppendInteger(unsigned char *lp, long long lval);
unsigned char *lpPrependInteger(unsigned char *lp, long long lval);
unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s,
                         uint32_t slen);
unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long lval);
/* Delete the entry at p; *newp gets the entry that followed (or NULL). */
unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp);
unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long num);
unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long num);
/* Append every element of `second` to `first`; frees `second`. */
unsigned char *lpMerge(unsigned char *first, unsigned char *second);
unsigned long lpLength(unsigned char *lp);
size_t lpBytes(unsigned char *lp);
/* Read the entry at p: returns a pointer to the string bytes and sets *count
 * to the length, or, for integers, returns NULL... see lpGetValue. When
 * intbuf is not NULL integers are rendered into it and returned as strings. */
unsigned char *lpGet(unsigned char *p, int64_t *count, unsigned char *intbuf);
/* Returns the string pointer (with *slen) or NULL with *lval set for an
 * integer entry. */
unsigned char *lpGetValue(unsigned char *p, unsigned int *slen, long long *lval);
unsigned char *lpFirst(unsigned char *lp);
unsigned char *lpLast(unsigned char *lp);
unsigned char *lpNext(unsigned char *lp, unsigned char *p);
unsigned char *lpPrev(unsigned char *lp, unsigned char *p);
/* Entry at index (negative from the end) or NULL. */
unsigned char *lpSeek(unsigned char *lp, long index);
/* 1 if the entry at p equals s (integers compare by value when s parses). */
int lpCompare(unsigned char *p, const unsigned char *s, uint32_t slen);
/* Find s starting at p, comparing every skip+1-th entry (skip=1 for the keys
 * of a field/value listpack). NULL if absent. */
unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s, uint32_t slen,
                      unsigned int skip);
/* Would adding `add` bytes keep the listpack within a safe size (1GB)? */
int lpSafeToAdd(unsigned char *lp, size_t add);
/* Validate a listpack from an untrusted source (snapshots, RESTORE):
 * header, every entry's encoding and backlen, terminator. deep=0 checks the
 * header only. Returns 1 if valid. */
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep);
/* Random entries (for HRANDFIELD/SRANDMEMBER/ZRANDMEMBER). */
unsigned char *lpRandomEntry(unsigned char *lp, unsigned long *index);

#endif
