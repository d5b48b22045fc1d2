/* crc64: Redis' RDB CRC-64 (Jones polynomial, reflected), table driven.
 *
 * In the reflected form every step shifts right and, when the bit that
 * falls out is set, xors in the bit-reversed polynomial. The table holds
 * the effect of eight such steps for every byte value; seven more tables
 * (each the previous one advanced by a zero byte) let the loop consume eight
 * bytes per iteration with "slicing". Data enters as bytes, leaves as the
 * updated 64-bit checksum; nothing is allocated. */
#include "crc64.h"

#include <pthread.h>

/* Bit-reversal of 0xad93d23594c935a9. */
#define CRC64_POLY_REFLECTED 0x95ac9329ac4bc9b5ULL

static uint64_t crc64_table[8][256];
static int crc64_ready; /* read without the once-lock on every call: the loader calls crc64 per field */
static pthread_once_t crc64_once = PTHREAD_ONCE_INIT;

static void crc64BuildTable(void) {
    for (int b = 0; b < 256; b++) {
        uint64_t c = (uint64_t)b;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ CRC64_POLY_REFLECTED : c >> 1;
        crc64_table[0][b] = c;
    }
    for (int b = 0; b < 256; b++) {
        uint64_t c = crc64_table[0][b];
        for (int t = 1; t < 8; t++) {
            c = crc64_table[0][c & 0xff] ^ (c >> 8);
            crc64_table[t][b] = c;
        }
    }
}

static void crc64BuildOnce(void) {
    crc64BuildTable();
    __atomic_store_n(&crc64_ready, 1, __ATOMIC_RELEASE);
}

void crc64Init(void) { pthread_once(&crc64_once, crc64BuildOnce); }

uint64_t crc64(uint64_t crc, const void *p, size_t len) {
    if (!__atomic_load_n(&crc64_ready, __ATOMIC_ACQUIRE)) crc64Init();
    const unsigned char *s = p;
    while (len >= 8) {
        /* Little-endian assembly of the next eight bytes, whatever the host. */
        uint64_t w = (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 |
                     (uint64_t)s[3] << 24 | (uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 |
                     (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
        crc ^= w;
        crc = crc64_table[7][crc & 0xff] ^ crc64_table[6][(crc >> 8) & 0xff] ^
              crc64_table[5][(crc >> 16) & 0xff] ^ crc64_table[4][(crc >> 24) & 0xff] ^
              crc64_table[3][(crc >> 32) & 0xff] ^ crc64_table[2][(crc >> 40) & 0xff] ^
              crc64_table[1][(crc >> 48) & 0xff] ^ crc64_table[0][crc >> 56];
        s += 8;
        len -= 8;
    }
    while (len--) crc = crc64_table[0][(crc ^ *s++) & 0xff] ^ (crc >> 8);
    return crc;
}
