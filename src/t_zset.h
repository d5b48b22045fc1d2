/* t_zset: command declarations and command-table rows for sorted sets
 * (listpack while small, skiplist + dict after; see zset.h).
 *
 * ZSET_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there; the short flag
 * names W, R, M, F, NS are the ones commands.c defines). Flags, arity and
 * key positions are those COMMAND INFO shows on Redis 7.0. The commands
 * whose keys follow a numkeys argument (ZUNION, ZINTER, ZDIFF, ZINTERCARD,
 * ZMPOP, BZMPOP and the *STORE forms past the destination) cannot be
 * described by the classic (first, last, step) triple; like Redis' legacy
 * triple they report 0, 0, 0 (or the destination only). */
#ifndef CAIRN_T_ZSET_H
#define CAIRN_T_ZSET_H

/* COMMAND INFO's @sortedset category: the bit is commands.h's; this fallback
 * only serves files that include this header without commands.h. */
#ifndef ACL_CAT_SORTEDSET
#define ACL_CAT_SORTEDSET 0
#endif

struct client;

/* t_zset.c */
void zaddCommand(struct client *c);
void zincrbyCommand(struct client *c);
void zremCommand(struct client *c);
void zcardCommand(struct client *c);
void zcountCommand(struct client *c);
void zlexcountCommand(struct client *c);
void zscoreCommand(struct client *c);
void zmscoreCommand(struct client *c);
void zrankCommand(struct client *c);
void zrevrankCommand(struct client *c);
void zrangeCommand(struct client *c);
void zrangestoreCommand(struct client *c);
void zrevrangeCommand(struct client *c);
void zrangebyscoreCommand(struct client *c);
void zrevrangebyscoreCommand(struct client *c);
void zrangebylexCommand(struct client *c);
void zrevrangebylexCommand(struct client *c);
void zremrangebyrankCommand(struct client *c);
void zremrangebyscoreCommand(struct client *c);
void zremrangebylexCommand(struct client *c);
void zscanCommand(struct client *c);
/* t_zset_ops.c */
void zpopminCommand(struct client *c);
void zpopmaxCommand(struct client *c);
void zmpopCommand(struct client *c);
void bzpopminCommand(struct client *c);
void bzpopmaxCommand(struct client *c);
void bzmpopCommand(struct client *c);
void zunionCommand(struct client *c);
void zunionstoreCommand(struct client *c);
void zinterCommand(struct client *c);
void zinterstoreCommand(struct client *c);
void zintercardCommand(struct client *c);
void zdiffCommand(struct client *c);
void zdiffstoreCommand(struct client *c);
void zrandmemberCommand(struct client *c);

#define ZSS ACL_CAT_SORTEDSET
#define ZSET_COMMANDS \
    CMD("zadd", zaddCommand, -4, W | M | F, ZSS, 1, 1, 1, "Add one or more members to a sorted set, or update its score if it already exists", "1.2.0", "sorted-set", KS("RW update|i1|r0,1,0")), \
    CMD("zincrby", zincrbyCommand, 4, W | M | F, ZSS, 1, 1, 1, "Increment the score of a member in a sorted set", "1.2.0", "sorted-set", KS("RW access update|i1|r0,1,0")), \
    CMD("zrem", zremCommand, -3, W | F, ZSS, 1, 1, 1, "Remove one or more members from a sorted set", "1.2.0", "sorted-set", KS("RW delete|i1|r0,1,0")), \
    CMD("zcard", zcardCommand, 2, R | F, ZSS, 1, 1, 1, "Get the number of members in a sorted set", "1.2.0", "sorted-set", KS("RO|i1|r0,1,0")), \
    CMD("zcount", zcountCommand, 4, R | F, ZSS, 1, 1, 1, "Count the members in a sorted set with scores within the given values", "2.0.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zlexcount", zlexcountCommand, 4, R | F, ZSS, 1, 1, 1, "Count the number of members in a sorted set between a given lexicographical range", "2.8.9", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zscore", zscoreCommand, 3, R | F, ZSS, 1, 1, 1, "Get the score associated with the given member in a sorted set", "1.2.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zmscore", zmscoreCommand, -3, R | F, ZSS, 1, 1, 1, "Get the score associated with the given members in a sorted set", "6.2.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrank", zrankCommand, 3, R | F, ZSS, 1, 1, 1, "Determine the index of a member in a sorted set", "2.0.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrevrank", zrevrankCommand, 3, R | F, ZSS, 1, 1, 1, "Determine the index of a member in a sorted set, with scores ordered from high to low", "2.0.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrange", zrangeCommand, -4, R, ZSS, 1, 1, 1, "Return a range of members in a sorted set", "1.2.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrangestore", zrangestoreCommand, -5, W | M, ZSS, 1, 2, 1, "Store a range of members from sorted set into another key", "6.2.0", "sorted-set", KS("OW update|i1|r0,1,0;RO access|i2|r0,1,0")), \
    CMD("zrevrange", zrevrangeCommand, -4, R, ZSS, 1, 1, 1, "Return a range of members in a sorted set, by index, with scores ordered from high to low", "1.2.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrangebyscore", zrangebyscoreCommand, -4, R, ZSS, 1, 1, 1, "Return a range of members in a sorted set, by score", "1.0.5", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrevrangebyscore", zrevrangebyscoreCommand, -4, R, ZSS, 1, 1, 1, "Return a range of members in a sorted set, by score, with scores ordered from high to low", "2.2.0", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrangebylex", zrangebylexCommand, -4, R, ZSS, 1, 1, 1, "Return a range of members in a sorted set, by lexicographical range", "2.8.9", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zrevrangebylex", zrevrangebylexCommand, -4, R, ZSS, 1, 1, 1, "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", "2.8.9", "sorted-set", KS("RO access|i1|r0,1,0")), \
    CMD("zremrangebyrank", zremrangebyrankCommand, 4, W, ZSS, 1, 1, 1, "Remove all members in a sorted set within the given indexes", "2.0.0", "sorted-set", KS("RW delete|i1|r0,1,0")), \
    CMD("zremrangebyscore", zremrangebyscoreCommand, 4, W, ZSS, 1, 1, 1, "Remove all members in a sorted set within the given scores", "1.2.0", "sorted-set", KS("RW delete|i1|r0,1,0")), \
    CMD("zremrangebylex", zremrangebylexCommand, 4, W, ZSS, 1, 1, 1, "Remove all members in a sorted set between the given lexicographical range", "2.8.9", "sorted-set", KS("RW delete|i1|r0,1,0")), \
    CMD("zpopmin", zpopminCommand, -2, W | F, ZSS, 1, 1, 1, "Remove and return members with the lowest scores in a sorted set", "5.0.0", "sorted-set", KS("RW access delete|i1|r0,1,0")), \
    CMD("zpopmax", zpopmaxCommand, -2, W | F, ZSS, 1, 1, 1, "Remove and return members with the highest scores in a sorted set", "5.0.0", "sorted-set", KS("RW access delete|i1|r0,1,0")), \
    CMD("zmpop", zmpopCommand, -4, W, ZSS, 0, 0, 0, "Remove and return members with scores in a sorted set", "7.0.0", "sorted-set", KS("RW access delete|i1|n0,1,1"), GETKEYS(commandNumkeysAt1GetKeys)), \
    CMD("bzpopmin", bzpopminCommand, -3, W | NS | CMD_BLOCKING | F, ZSS, 1, -2, 1, "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", "5.0.0", "sorted-set", KS("RW access delete|i1|r-2,1,0")), \
    CMD("bzpopmax", bzpopmaxCommand, -3, W | NS | CMD_BLOCKING | F, ZSS, 1, -2, 1, "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", "5.0.0", "sorted-set", KS("RW access delete|i1|r-2,1,0")), \
    CMD("bzmpop", bzmpopCommand, -5, W | CMD_BLOCKING, ZSS, 0, 0, 0, "Remove and return members with scores in a sorted set or block until one is available", "7.0.0", "sorted-set", KS("RW access delete|i2|n0,1,1"), GETKEYS(commandNumkeysAt2GetKeys)), \
    CMD("zunion", zunionCommand, -3, R, ZSS, 0, 0, 0, "Add multiple sorted sets", "6.2.0", "sorted-set", KS("RO access|i1|n0,1,1"), GETKEYS(commandNumkeysAt1GetKeys)), \
    CMD("zunionstore", zunionstoreCommand, -4, W | M, ZSS, 1, 1, 1, "Add multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "sorted-set", KS("OW update|i1|r0,1,0;RO access|i2|n0,1,1"), GETKEYS(commandStoreNumkeysGetKeys)), \
    CMD("zinter", zinterCommand, -3, R, ZSS, 0, 0, 0, "Intersect multiple sorted sets", "6.2.0", "sorted-set", KS("RO access|i1|n0,1,1"), GETKEYS(commandNumkeysAt1GetKeys)), \
    CMD("zinterstore", zinterstoreCommand, -4, W | M, ZSS, 1, 1, 1, "Intersect multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "sorted-set", KS("OW update|i1|r0,1,0;RO access|i2|n0,1,1"), GETKEYS(commandStoreNumkeysGetKeys)), \
    CMD("zintercard", zintercardCommand, -3, R, ZSS, 0, 0, 0, "Intersect multiple sorted sets and return the cardinality of the result", "7.0.0", "sorted-set", KS("RO access|i1|n0,1,1"), GETKEYS(commandNumkeysAt1GetKeys)), \
    CMD("zdiff", zdiffCommand, -3, R, ZSS, 0, 0, 0, "Subtract multiple sorted sets", "6.2.0", "sorted-set", KS("RO access|i1|n0,1,1"), GETKEYS(commandNumkeysAt1GetKeys)), \
    CMD("zdiffstore", zdiffstoreCommand, -4, W | M, ZSS, 1, 1, 1, "Subtract multiple sorted sets and store the resulting sorted set in a new key", "6.2.0", "sorted-set", KS("OW update|i1|r0,1,0;RO access|i2|n0,1,1"), GETKEYS(commandStoreNumkeysGetKeys)), \
    CMD("zrandmember", zrandmemberCommand, -2, R, ZSS, 1, 1, 1, "Get one or multiple random elements from a sorted set", "6.2.0", "sorted-set", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")), \
    CMD("zscan", zscanCommand, -3, R, ZSS, 1, 1, 1, "Incrementally iterate sorted sets elements and associated scores", "2.8.0", "sorted-set", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")),

#endif
