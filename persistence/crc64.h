/* crc64: the CRC-64 Redis uses for RDB checksums and DUMP payloads (the
 * "Jones" polynomial 0xad93d23594c935a9, reflected input and output, initial
 * value 0, no final xor). crc64(0, "123456789", 9) is 0xe9c6d914c4b8d9ca.
 *
 * Pure functions over caller-owned bytes; the lookup table is built on the
 * first call (or by crc64Init) and never freed. */
#ifndef CAIRN_CRC64_H
#define CAIRN_CRC64_H
#include <stddef.h>
#include <stdint.h>

/* Build the table now (optional: crc64 does it on first use). */
void crc64Init(void);
/* Continue the running checksum crc over len bytes at p. */
uint64_t crc64(uint64_t crc, const void *p, size_t len);

#endif
