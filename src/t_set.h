/* t_set: command declarations and command-table rows for sets (intset, listpack, dict).
 *
 * SET_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). */
#ifndef CAIRN_T_SET_H
#define CAIRN_T_SET_H

#define SET_COMMANDS

#endif
