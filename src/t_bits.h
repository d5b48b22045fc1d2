/* t_bits: command declarations and command-table rows for bitmaps (SETBIT ... BITFIELD), HyperLogLog (PF*) and SORT.
 *
 * BITS_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). */
#ifndef CAIRN_T_BITS_H
#define CAIRN_T_BITS_H

#define BITS_COMMANDS

#endif
