/* sort: command declarations and command-table rows for SORT and SORT_RO
 * (sort.c).
 *
 * SORT_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there; the short flag
 * names W, R, M are the ones commands.c defines). Flags, arity, key
 * positions, categories and texts are those COMMAND INFO / COMMAND DOCS
 * show on Redis 7.0.15. Redis also marks both commands "movablekeys": the
 * STORE destination and the BY/GET keys are not described by the classic
 * (first, last, step) triple, which reports the sorted key only. */
#ifndef CAIRN_SORT_H
#define CAIRN_SORT_H

struct client;

void sortCommand(struct client *c);
void sortroCommand(struct client *c);

#define SORT_CATS (ACL_CAT_SET | ACL_CAT_SORTEDSET | ACL_CAT_LIST | ACL_CAT_DANGEROUS)
#define SORT_COMMANDS \
    CMD("sort", sortCommand, -2, W | M, SORT_CATS, 1, 1, 1, "Sort the elements in a list, set or sorted set", "1.0.0", "generic"), \
    CMD("sort_ro", sortroCommand, -2, R, SORT_CATS, 1, 1, 1, "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", "7.0.0", "generic"),

#endif
