/* t_bits: command declarations and command-table rows for bitmaps (SETBIT ... BITFIELD), HyperLogLog (PF*) and SORT.
 *
 * BITS_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). The bitmap
 * commands live in bitops.c, the HyperLogLog ones in hyperloglog.c; both
 * work on plain string values. */
#ifndef CAIRN_T_BITS_H
#define CAIRN_T_BITS_H

/* The rows use ACL_CAT_BITMAP / ACL_CAT_HYPERLOGLOG from commands.h, which
 * commands.c includes first. */
struct client;

/* bitops.c */
void setbitCommand(struct client *c);
void getbitCommand(struct client *c);
void bitcountCommand(struct client *c);
void bitposCommand(struct client *c);
void bitopCommand(struct client *c);
void bitfieldCommand(struct client *c);
void bitfieldroCommand(struct client *c);

/* hyperloglog.c */
void pfaddCommand(struct client *c);
void pfcountCommand(struct client *c);
void pfmergeCommand(struct client *c);
void pfdebugCommand(struct client *c);
void pfselftestCommand(struct client *c);

#define BITS_COMMANDS \
    CMD("setbit", setbitCommand, 4, W | M, ACL_CAT_BITMAP, 1, 1, 1, "Sets or clears the bit at offset in the string value stored at key", "2.2.0", "bitmap", KS("RW access update|i1|r0,1,0")), \
    CMD("getbit", getbitCommand, 3, R | F, ACL_CAT_BITMAP, 1, 1, 1, "Returns the bit value at offset in the string value stored at key", "2.2.0", "bitmap", KS("RO access|i1|r0,1,0")), \
    CMD("bitcount", bitcountCommand, -2, R, ACL_CAT_BITMAP, 1, 1, 1, "Count set bits in a string", "2.6.0", "bitmap", KS("RO access|i1|r0,1,0")), \
    CMD("bitpos", bitposCommand, -3, R, ACL_CAT_BITMAP, 1, 1, 1, "Find first bit set or clear in a string", "2.8.7", "bitmap", KS("RO access|i1|r0,1,0")), \
    CMD("bitop", bitopCommand, -4, W | M, ACL_CAT_BITMAP, 2, -1, 1, "Perform bitwise operations between strings", "2.6.0", "bitmap", KS("OW update|i2|r0,1,0;RO access|i3|r-1,1,0")), \
    CMD("bitfield", bitfieldCommand, -2, W | M, ACL_CAT_BITMAP, 1, 1, 1, "Perform arbitrary bitfield integer operations on strings", "3.2.0", "bitmap", KS("RW access update variable_flags|i1|r0,1,0|This command allows both access and modification of the key"), GETKEYS(commandBitfieldGetKeys)), \
    CMD("bitfield_ro", bitfieldroCommand, -2, R | F, ACL_CAT_BITMAP, 1, 1, 1, "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", "6.0.0", "bitmap", KS("RO access|i1|r0,1,0")), \
    CMD("pfadd", pfaddCommand, -2, W | M | F, ACL_CAT_HYPERLOGLOG, 1, 1, 1, "Adds the specified elements to the specified HyperLogLog.", "2.8.9", "hyperloglog", KS("RW insert|i1|r0,1,0")), \
    CMD("pfcount", pfcountCommand, -2, R | CMD_MAY_REPLICATE, ACL_CAT_HYPERLOGLOG, 1, -1, 1, "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", "2.8.9", "hyperloglog", KS("RW access|i1|r-1,1,0|RW because it may change the internal representation of the key, and propagate to replicas")), \
    CMD("pfmerge", pfmergeCommand, -2, W | M, ACL_CAT_HYPERLOGLOG, 1, -1, 1, "Merge N different HyperLogLogs into a single one.", "2.8.9", "hyperloglog", KS("RW access insert|i1|r0,1,0;RO access|i2|r-1,1,0")), \
    CMD("pfdebug", pfdebugCommand, 3, W | M | A, ACL_CAT_HYPERLOGLOG, 2, 2, 1, "Internal commands for debugging HyperLogLog values", "2.8.9", "hyperloglog", KS("RW access|i2|r0,1,0")), \
    CMD("pfselftest", pfselftestCommand, 1, A, ACL_CAT_HYPERLOGLOG, 0, 0, 0, "An internal command for testing HyperLogLog values", "2.8.9", "hyperloglog"),

#endif
