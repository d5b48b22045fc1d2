/* check_rdb: cairn-check-rdb, the snapshot checker built on the loader
 * (see check_rdb.c). main.c calls checkRdbMain with the arguments after
 * the mode switch, once config defaults, shared objects and the databases
 * exist. Returns the process exit status. */
#ifndef CAIRN_CHECK_RDB_H
#define CAIRN_CHECK_RDB_H

int checkRdbMain(int argc, char **argv);

#endif
