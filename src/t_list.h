/* t_list: command declarations and command-table rows for lists (quicklist of listpacks) and the blocking list commands.
 *
 * LIST_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). */
#ifndef CAIRN_T_LIST_H
#define CAIRN_T_LIST_H

#define LIST_COMMANDS

#endif
