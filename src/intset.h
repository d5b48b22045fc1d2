/* intset: a sorted array of unique integers in the narrowest width (16, 32
 * or 64 bits) that holds them all, byte-compatible with Redis' intset
 * (little-endian header: encoding u32, length u32, then the values), so the
 * snapshot work can write it as RDB_TYPE_SET_INTSET.
 *
 * Ownership: one zmalloc'ed block; functions that may reallocate return the
 * new pointer. */
#ifndef CAIRN_INTSET_H
#define CAIRN_INTSET_H
#include <stddef.h>
#include <stdint.h>

typedef struct intset {
    uint32_t encoding; /* sizeof(int16_t), sizeof(int32_t) or sizeof(int64_t) */
    uint32_t length;
    int8_t contents[];
} intset;

intset *intsetNew(void);
/* *success is 0 if value was already present. */
intset *intsetAdd(intset *is, int64_t value, uint8_t *success);
intset *intsetRemove(intset *is, int64_t value, int *success);
uint8_t intsetFind(intset *is, int64_t value);
int64_t intsetRandom(intset *is);
/* Value at position pos (0-based, sorted order); returns 0 if out of range. */
uint8_t intsetGet(intset *is, uint32_t pos, int64_t *value);
uint32_t intsetLen(const intset *is);
size_t intsetBlobLen(intset *is);
int64_t intsetMax(intset *is);
int64_t intsetMin(intset *is);
int intsetValidateIntegrity(const unsigned char *is, size_t size, int deep);

#endif
