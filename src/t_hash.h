/* t_hash: command declarations and command-table rows for hashes (listpack while small, dict after).
 *
 * HASH_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). */
#ifndef CAIRN_T_HASH_H
#define CAIRN_T_HASH_H

#define HASH_COMMANDS

#endif
