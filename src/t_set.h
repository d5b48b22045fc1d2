/* t_set: command declarations and command-table rows for sets (intset while
 * every member is an integer and the set is small, a dict otherwise; Redis
 * 7.0 has no listpack encoding for sets).
 *
 * SET_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). Flags, arity and
 * key positions are those COMMAND INFO shows on Redis 7.0. SINTERCARD's keys
 * follow a numkeys argument, which the classic (first, last, step) triple
 * cannot express: like Redis' legacy triple it reports 0, 0, 0. */
#ifndef CAIRN_T_SET_H
#define CAIRN_T_SET_H

/* COMMAND INFO's @set category: the bit is commands.h's; this fallback only
 * serves files that include this header without commands.h. */
#ifndef ACL_CAT_SET
#define ACL_CAT_SET 0
#endif

#include "dict.h"
#include "object.h"
#include <stddef.h>
#include <stdint.h>

struct client;

/* Reading a set from other modules (ZUNION & co. take plain sets as inputs;
 * snapshots and RESTORE later) without knowing its encodings. */
typedef struct setTypeIterator {
    robj *set;
    uint32_t pos;
    dictIterator di;
} setTypeIterator;

unsigned long setTypeSize(const robj *set);
/* The set must not change while it is iterated. */
void setTypeInitIterator(setTypeIterator *it, robj *set);
/* The next member; 0 at the end. A hashtable member comes out as *str and
 * *len (valid until the set changes), an intset member as *ll with *str
 * set to NULL. */
int setTypeNext(setTypeIterator *it, const char **str, size_t *len, long long *ll);
void setTypeResetIterator(setTypeIterator *it);
int setTypeIsMember(robj *set, const char *str, size_t len);
int setTypeIsMemberInt(robj *set, long long ll);
/* Building a set from outside (snapshots, RESTORE): an empty intset, or a
 * dict sized for `size` members. setTypeAddSds converts the set as SADD
 * does (to a dict when a member is not an integer or the intset passes
 * set-max-intset-entries); the member is copied. */
robj *setTypeCreateIntset(void);
robj *setTypeCreateDict(unsigned long size);
int setTypeAddSds(robj *set, sds member); /* 1 added, 0 already a member */
/* The same, taking ownership of member (made by sdsnewkey, as the set's own
 * members are): a dict set keeps it, otherwise it is freed. */
int setTypeAddSdsOwned(robj *set, sds member);
void setTypeConvertToDict(robj *set);     /* intset -> hashtable */

void saddCommand(struct client *c);
void sremCommand(struct client *c);
void scardCommand(struct client *c);
void sismemberCommand(struct client *c);
void smismemberCommand(struct client *c);
void smembersCommand(struct client *c);
void spopCommand(struct client *c);
void srandmemberCommand(struct client *c);
void smoveCommand(struct client *c);
void sinterCommand(struct client *c);
void sintercardCommand(struct client *c);
void sinterstoreCommand(struct client *c);
void sunionCommand(struct client *c);
void sunionstoreCommand(struct client *c);
void sdiffCommand(struct client *c);
void sdiffstoreCommand(struct client *c);
void sscanCommand(struct client *c);

#define SET_COMMANDS                                                                                                                              \
    CMD("sadd", saddCommand, -3, W | M | F, ACL_CAT_SET, 1, 1, 1, "Add one or more members to a set", "1.0.0", "set", KS("RW insert|i1|r0,1,0")),                                     \
    CMD("srem", sremCommand, -3, W | F, ACL_CAT_SET, 1, 1, 1, "Remove one or more members from a set", "1.0.0", "set", KS("RW delete|i1|r0,1,0")),                                   \
    CMD("scard", scardCommand, 2, R | F, ACL_CAT_SET, 1, 1, 1, "Get the number of members in a set", "1.0.0", "set", KS("RO|i1|r0,1,0")),                                      \
    CMD("sismember", sismemberCommand, 3, R | F, ACL_CAT_SET, 1, 1, 1, "Determine if a given value is a member of a set", "1.0.0", "set", KS("RO|i1|r0,1,0")),               \
    CMD("smismember", smismemberCommand, -3, R | F, ACL_CAT_SET, 1, 1, 1, "Returns the membership associated with the given elements for a set", "6.2.0", "set", KS("RO access|i1|r0,1,0")), \
    CMD("smembers", smembersCommand, 2, R, ACL_CAT_SET, 1, 1, 1, "Get all the members in a set", "1.0.0", "set", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output_order")),                                          \
    CMD("spop", spopCommand, -2, W | F, ACL_CAT_SET, 1, 1, 1, "Remove and return one or multiple random members from a set", "1.0.0", "set", KS("RW access delete|i1|r0,1,0"), TIPS("nondeterministic_output")),            \
    CMD("srandmember", srandmemberCommand, -2, R, ACL_CAT_SET, 1, 1, 1, "Get one or multiple random members from a set", "1.0.0", "set", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")),                \
    CMD("smove", smoveCommand, 4, W | F, ACL_CAT_SET, 1, 2, 1, "Move a member from one set to another", "1.0.0", "set", KS("RW access delete|i1|r0,1,0;RW insert|i2|r0,1,0")),                                  \
    CMD("sinter", sinterCommand, -2, R, ACL_CAT_SET, 1, -1, 1, "Intersect multiple sets", "1.0.0", "set", KS("RO access|i1|r-1,1,0"), TIPS("nondeterministic_output_order")),                                                \
    CMD("sintercard", sintercardCommand, -3, R, ACL_CAT_SET, 0, 0, 0, "Intersect multiple sets and return the cardinality of the result", "7.0.0", "set", KS("RO access|i1|n0,1,1"), GETKEYS(commandNumkeysAt1GetKeys)), \
    CMD("sinterstore", sinterstoreCommand, -3, W | M, ACL_CAT_SET, 1, -1, 1, "Intersect multiple sets and store the resulting set in a key", "1.0.0", "set", KS("RW update|i1|r0,1,0;RO access|i2|r-1,1,0")), \
    CMD("sunion", sunionCommand, -2, R, ACL_CAT_SET, 1, -1, 1, "Add multiple sets", "1.0.0", "set", KS("RO access|i1|r-1,1,0"), TIPS("nondeterministic_output_order")),                                                      \
    CMD("sunionstore", sunionstoreCommand, -3, W | M, ACL_CAT_SET, 1, -1, 1, "Add multiple sets and store the resulting set in a key", "1.0.0", "set", KS("OW update|i1|r0,1,0;RO access|i2|r-1,1,0")),  \
    CMD("sdiff", sdiffCommand, -2, R, ACL_CAT_SET, 1, -1, 1, "Subtract multiple sets", "1.0.0", "set", KS("RO access|i1|r-1,1,0"), TIPS("nondeterministic_output_order")),                                                   \
    CMD("sdiffstore", sdiffstoreCommand, -3, W | M, ACL_CAT_SET, 1, -1, 1, "Subtract multiple sets and store the resulting set in a key", "1.0.0", "set", KS("OW update|i1|r0,1,0;RO access|i2|r-1,1,0")), \
    CMD("sscan", sscanCommand, -3, R, ACL_CAT_SET, 1, 1, 1, "Incrementally iterate Set elements", "2.8.0", "set", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")),

#endif
