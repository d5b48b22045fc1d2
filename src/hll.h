/* hll: Redis' HyperLogLog value format, bit for bit (see hll.c for the
 * layout). Pure functions over the bytes of a value: no keys, no clients,
 * no configuration, so the C unit tests can drive them directly. The PF*
 * commands in hyperloglog.c own keys, replies and the hll-sparse-max-bytes
 * setting, which they pass in.
 *
 * Values are sds strings owned by the caller. Functions taking `sds *` may
 * grow or replace the string (sparse edits, promotion to dense) and store
 * the new pointer back; the old one must not be used afterwards. */
#ifndef CAIRN_HLL_H
#define CAIRN_HLL_H

#include <stddef.h>
#include <stdint.h>

#include "sds.h"

#define HLL_P 14
#define HLL_Q (64 - HLL_P)
#define HLL_REGISTERS (1 << HLL_P)
#define HLL_BITS 6
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + (HLL_REGISTERS * HLL_BITS + 7) / 8)
#define HLL_DENSE 0
#define HLL_SPARSE 1
#define HLL_RAW 255 /* internal only: one byte per register, for unions */
#define HLL_MAX_ENCODING 1
#define HLL_ENC_OFFSET 4
#define HLL_CARD_OFFSET 8

/* The sparse opcodes (PFDEBUG DECODE prints them). */
#define HLL_OP_IS_ZERO(p) (((p)[0] & 0xc0) == 0x00)
#define HLL_OP_IS_XZERO(p) (((p)[0] & 0xc0) == 0x40)
#define HLL_OP_IS_VAL(p) (((p)[0] & 0x80) != 0)
#define HLL_ZERO_LEN(p) (((p)[0] & 0x3f) + 1)
/* An XZERO cut off at the very end reads the sds terminator as its second
 * byte, as Redis does; the NUL is always there. */
#define HLL_XZERO_LEN(p) (((((p)[0] & 0x3f) << 8) | (p)[1]) + 1)
#define HLL_VAL_VALUE(p) ((((p)[0] >> 2) & 0x1f) + 1)
#define HLL_VAL_LEN(p) (((p)[0] & 0x3) + 1)

/* Decodes the opcode at *p: the number of registers it covers and their
 * value (0 for the zero runs), and moves *p past it. Every walk over a
 * sparse value goes through here; the return value says which opcode it
 * was, for PFDEBUG DECODE. */
enum { HLL_OPCODE_ZERO, HLL_OPCODE_XZERO, HLL_OPCODE_VAL };
static inline int hllSparseNext(const uint8_t **p, long *run, int *val) {
    const uint8_t *op = *p;
    if (HLL_OP_IS_ZERO(op)) {
        *run = HLL_ZERO_LEN(op);
        *val = 0;
        *p += 1;
        return HLL_OPCODE_ZERO;
    }
    if (HLL_OP_IS_XZERO(op)) {
        *run = HLL_XZERO_LEN(op);
        *val = 0;
        *p += 2;
        return HLL_OPCODE_XZERO;
    }
    *run = HLL_VAL_LEN(op);
    *val = HLL_VAL_VALUE(op);
    *p += 1;
    return HLL_OPCODE_VAL;
}

/* An empty HyperLogLog: sparse, one XZERO covering every register. */
sds hllNew(void);

/* The header checks every PF command makes: magic, a known encoding, the
 * exact length when dense. 1 if they pass. The sparse body is only checked
 * when it is walked (the functions below report -1 then). */
int hllHeaderValid(const uint8_t *h, size_t len);

static inline int hllEncodingOf(const uint8_t *h) { return h[HLL_ENC_OFFSET]; }

/* The cached cardinality: valid unless the top bit of its last byte is set. */
static inline void hllInvalidateCache(uint8_t *h) { h[HLL_CARD_OFFSET + 7] |= 0x80; }
static inline int hllCacheValid(const uint8_t *h) { return !(h[HLL_CARD_OFFSET + 7] & 0x80); }
uint64_t hllCacheGet(const uint8_t *h);
void hllCacheSet(uint8_t *h, uint64_t card);

/* Dense registers: 6 bits each, packed from the low bit of each byte. */
unsigned hllDenseGet(const uint8_t *regs, long i);
void hllDensePut(uint8_t *regs, long i, unsigned val);

/* Sparse to dense (header copied, cache included): 0, or -1 if the opcodes
 * do not describe exactly 16384 registers. A dense value is left alone. */
int hllToDense(sds *s);

/* Raise register index to count: 1 if it changed, 0 if it already was >=
 * count, -1 if the sparse opcodes are corrupt. A sparse value becomes dense
 * when count is above 32 or the edit would grow it past sparse_max bytes. */
int hllSetRegister(sds *s, long index, int count, size_t sparse_max);

/* Add one element (hash, then hllSetRegister): 1, 0 or -1 as above. */
int hllAdd(sds *s, const unsigned char *ele, size_t len, size_t sparse_max);

/* max[i] = MAX(max[i], register i of the value h of len bytes), for the
 * HLL_REGISTERS bytes of max. -1 if a sparse value does not cover exactly
 * 16384 registers. */
int hllMergeMax(uint8_t *max, const uint8_t *h, size_t len);

/* Cardinality estimate of the value h (len bytes) in encoding enc (HLL_RAW:
 * HLL_REGISTERS bytes after the header). *invalid is set if a sparse value
 * does not cover 16384 registers (invalid may be NULL). */
uint64_t hllCount(const uint8_t *h, size_t len, int enc, int *invalid);

#endif
