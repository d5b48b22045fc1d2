/* aof_check: the cairn-check-aof mode of the server binary (aof_check.c). */
#ifndef CAIRN_AOF_CHECK_H
#define CAIRN_AOF_CHECK_H

/* argv[0] is the program, then [--fix] PATH; returns the exit status. */
int aofCheckMain(int argc, char **argv);

#endif
