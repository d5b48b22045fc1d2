/* t_zset: command declarations and command-table rows for sorted sets (listpack while small, skiplist + dict after).
 *
 * ZSET_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). */
#ifndef CAIRN_T_ZSET_H
#define CAIRN_T_ZSET_H

#define ZSET_COMMANDS

#endif
