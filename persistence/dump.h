/* dump: the DUMP/RESTORE payload, Redis' serialization of one value.
 *
 * A payload is the value's RDB type byte and its RDB encoding (rdb.h),
 * then a 2-byte little-endian RDB version and a little-endian CRC64 of
 * everything before it. Payloads therefore move between Redis and cairn in
 * both directions: Redis 7.0 writes version 10, 7.2 writes 11.
 *
 * Pure functions over caller-owned bytes; the command layer (src/dumpcmd.c)
 * owns the keyspace side. */
#ifndef CAIRN_DUMP_H
#define CAIRN_DUMP_H
#include "object.h"
#include "sds.h"

/* The payload of o; the caller frees the sds. */
sds dumpPayloadCreate(robj *o);

/* Checks the footer (version, CRC64 unless skip_crc) and decodes the value.
 * Returns the value (refcount 1, owned by the caller), or NULL with *err
 * set to the reply's error text (without the leading '-'); the caller
 * frees *err. */
robj *dumpPayloadLoad(const char *p, size_t len, int skip_crc, sds *err);

/* FUNCTION DUMP: a FUNCTION2 record per library, then the same footer. */
sds dumpFunctionsCreate(void);
/* FUNCTION RESTORE: checks the footer and splits the records into the
 * libraries' code: their count, with *codes a zmalloc'd array of sds the
 * caller frees (each, then the array); or -1 with *err, the error reply. */
int dumpFunctionsParse(const char *p, size_t len, int skip_crc, sds **codes, sds *err);

#endif
