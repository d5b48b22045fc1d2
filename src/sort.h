/* sort: command declarations and command-table rows for SORT and SORT_RO
 * (sort.c).
 *
 * SORT_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there; the short flag
 * names W, R, M are the ones commands.c defines). Flags, arity, key
 * positions, categories and texts are those COMMAND INFO / COMMAND DOCS
 * show on Redis 7.0.15. The key specs mark the STORE destination and the
 * BY/GET keys as unknown (so both commands are "movablekeys"); COMMAND
 * GETKEYS finds the destination with sortGetKeys. */
#ifndef CAIRN_SORT_H
#define CAIRN_SORT_H

struct client;

struct robj;
struct cmdKeyRef;

void sortCommand(struct client *c);
/* COMMAND GETKEYS: the sorted key and the STORE destination (cmdGetKeysProc). */
int sortGetKeys(struct robj **argv, int argc, struct cmdKeyRef *keys);
int sortroGetKeys(struct robj **argv, int argc, struct cmdKeyRef *keys);
void sortroCommand(struct client *c);

#define SORT_CATS (ACL_CAT_SET | ACL_CAT_SORTEDSET | ACL_CAT_LIST | ACL_CAT_DANGEROUS)
#define SORT_COMMANDS \
    CMD("sort", sortCommand, -2, W | M, SORT_CATS, 1, 1, 1, "Sort the elements in a list, set or sorted set", "1.0.0", "generic", KS("RO access|i1|r0,1,0;RO access|u|u|For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort;OW update|u|u|For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array"), GETKEYS(sortGetKeys)), \
    CMD("sort_ro", sortroCommand, -2, R, SORT_CATS, 1, 1, 1, "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", "7.0.0", "generic", KS("RO access|i1|r0,1,0;RO access|u|u|For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort"), GETKEYS(sortroGetKeys)),

#endif
