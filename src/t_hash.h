/* t_hash: command declarations and command-table rows for hashes (listpack while small, dict after).
 *
 * HASH_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). The hash value
 * helpers below are for the modules that will load and save hashes
 * (snapshots, RESTORE) without knowing the encodings' details. */
#ifndef CAIRN_T_HASH_H
#define CAIRN_T_HASH_H

#include "dict.h"
#include "object.h"
#include "sds.h"

/* COMMAND INFO's @hash category: the bit is commands.h's; this fallback only
 * serves files that include this header without commands.h. */
#ifndef ACL_CAT_HASH
#define ACL_CAT_HASH 0
#endif

struct client;

/* sds field -> sds value, both owned by the dict. */
extern dictType hashDictType;

robj *hashCreate(void);                  /* empty, listpack-encoded */
unsigned long hashLength(const robj *o);
void hashConvertToDict(robj *o);         /* listpack -> hashtable */

void hsetCommand(struct client *c);
void hsetnxCommand(struct client *c);
void hgetCommand(struct client *c);
void hmgetCommand(struct client *c);
void hdelCommand(struct client *c);
void hlenCommand(struct client *c);
void hstrlenCommand(struct client *c);
void hexistsCommand(struct client *c);
void hkeysCommand(struct client *c);
void hvalsCommand(struct client *c);
void hgetallCommand(struct client *c);
void hincrbyCommand(struct client *c);
void hincrbyfloatCommand(struct client *c);
void hrandfieldCommand(struct client *c);
void hscanCommand(struct client *c);

#define HASH_COMMANDS \
    CMD("hset", hsetCommand, -4, W | M | F, ACL_CAT_HASH, 1, 1, 1, "Set the string value of a hash field", "2.0.0", "hash", KS("RW update|i1|r0,1,0")), \
    CMD("hsetnx", hsetnxCommand, 4, W | M | F, ACL_CAT_HASH, 1, 1, 1, "Set the value of a hash field, only if the field does not exist", "2.0.0", "hash", KS("RW insert|i1|r0,1,0")), \
    CMD("hget", hgetCommand, 3, R | F, ACL_CAT_HASH, 1, 1, 1, "Get the value of a hash field", "2.0.0", "hash", KS("RO access|i1|r0,1,0")), \
    CMD("hmget", hmgetCommand, -3, R | F, ACL_CAT_HASH, 1, 1, 1, "Get the values of all the given hash fields", "2.0.0", "hash", KS("RO access|i1|r0,1,0")), \
    CMD("hmset", hsetCommand, -4, W | M | F, ACL_CAT_HASH, 1, 1, 1, "Set multiple hash fields to multiple values", "2.0.0", "hash", KS("RW update|i1|r0,1,0")), \
    CMD("hdel", hdelCommand, -3, W | F, ACL_CAT_HASH, 1, 1, 1, "Delete one or more hash fields", "2.0.0", "hash", KS("RW delete|i1|r0,1,0")), \
    CMD("hlen", hlenCommand, 2, R | F, ACL_CAT_HASH, 1, 1, 1, "Get the number of fields in a hash", "2.0.0", "hash", KS("RO|i1|r0,1,0")), \
    CMD("hstrlen", hstrlenCommand, 3, R | F, ACL_CAT_HASH, 1, 1, 1, "Get the length of the value of a hash field", "3.2.0", "hash", KS("RO|i1|r0,1,0")), \
    CMD("hexists", hexistsCommand, 3, R | F, ACL_CAT_HASH, 1, 1, 1, "Determine if a hash field exists", "2.0.0", "hash", KS("RO|i1|r0,1,0")), \
    CMD("hkeys", hkeysCommand, 2, R, ACL_CAT_HASH, 1, 1, 1, "Get all the fields in a hash", "2.0.0", "hash", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output_order")), \
    CMD("hvals", hvalsCommand, 2, R, ACL_CAT_HASH, 1, 1, 1, "Get all the values in a hash", "2.0.0", "hash", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output_order")), \
    CMD("hgetall", hgetallCommand, 2, R, ACL_CAT_HASH, 1, 1, 1, "Get all the fields and values in a hash", "2.0.0", "hash", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output_order")), \
    CMD("hincrby", hincrbyCommand, 4, W | M | F, ACL_CAT_HASH, 1, 1, 1, "Increment the integer value of a hash field by the given number", "2.0.0", "hash", KS("RW access update|i1|r0,1,0")), \
    CMD("hincrbyfloat", hincrbyfloatCommand, 4, W | M | F, ACL_CAT_HASH, 1, 1, 1, "Increment the float value of a hash field by the given amount", "2.6.0", "hash", KS("RW access update|i1|r0,1,0")), \
    CMD("hrandfield", hrandfieldCommand, -2, R, ACL_CAT_HASH, 1, 1, 1, "Get one or multiple random fields from a hash", "6.2.0", "hash", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")), \
    CMD("hscan", hscanCommand, -3, R, ACL_CAT_HASH, 1, 1, 1, "Incrementally iterate hash fields and associated values", "2.8.0", "hash", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")),

#endif
