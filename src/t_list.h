/* t_list: command declarations and command-table rows for lists (quicklist of listpacks) and the blocking list commands.
 *
 * LIST_COMMANDS expands to the rows of the single command table in
 * commands.c (same CMD(...) row format as the rows there). The list value
 * helpers below are for modules that build or read lists without the
 * commands (snapshots, RESTORE, SORT ... STORE). */
#ifndef CAIRN_T_LIST_H
#define CAIRN_T_LIST_H

#include "object.h"
#include <stddef.h>

struct client;

/* An empty list (encoding quicklist) with the current
 * list-max-listpack-size and list-compress-depth; refcount 1. */
robj *listTypeCreate(void);
unsigned long listTypeLength(const robj *o);
void listTypePush(robj *o, const char *s, size_t len, int where);

void lpushCommand(struct client *c);
void rpushCommand(struct client *c);
void lpushxCommand(struct client *c);
void rpushxCommand(struct client *c);
void lpopCommand(struct client *c);
void rpopCommand(struct client *c);
void llenCommand(struct client *c);
void lrangeCommand(struct client *c);
void lindexCommand(struct client *c);
void lsetCommand(struct client *c);
void linsertCommand(struct client *c);
void lremCommand(struct client *c);
void ltrimCommand(struct client *c);
void lposCommand(struct client *c);
void lmoveCommand(struct client *c);
void rpoplpushCommand(struct client *c);
void lmpopCommand(struct client *c);
void blpopCommand(struct client *c);
void brpopCommand(struct client *c);
void blmoveCommand(struct client *c);
void brpoplpushCommand(struct client *c);
void blmpopCommand(struct client *c);

#define LIST_COMMANDS \
    CMD("lpush", lpushCommand, -3, W | M | F, ACL_CAT_LIST, 1, 1, 1, "Prepend one or multiple elements to a list", "1.0.0", "list", KS("RW insert|i1|r0,1,0")), \
    CMD("rpush", rpushCommand, -3, W | M | F, ACL_CAT_LIST, 1, 1, 1, "Append one or multiple elements to a list", "1.0.0", "list", KS("RW insert|i1|r0,1,0")), \
    CMD("lpushx", lpushxCommand, -3, W | M | F, ACL_CAT_LIST, 1, 1, 1, "Prepend an element to a list, only if the list exists", "2.2.0", "list", KS("RW insert|i1|r0,1,0")), \
    CMD("rpushx", rpushxCommand, -3, W | M | F, ACL_CAT_LIST, 1, 1, 1, "Append an element to a list, only if the list exists", "2.2.0", "list", KS("RW insert|i1|r0,1,0")), \
    CMD("lpop", lpopCommand, -2, W | F, ACL_CAT_LIST, 1, 1, 1, "Remove and get the first elements in a list", "1.0.0", "list", KS("RW access delete|i1|r0,1,0")), \
    CMD("rpop", rpopCommand, -2, W | F, ACL_CAT_LIST, 1, 1, 1, "Remove and get the last elements in a list", "1.0.0", "list", KS("RW access delete|i1|r0,1,0")), \
    CMD("llen", llenCommand, 2, R | F, ACL_CAT_LIST, 1, 1, 1, "Get the length of a list", "1.0.0", "list", KS("RO|i1|r0,1,0")), \
    CMD("lrange", lrangeCommand, 4, R, ACL_CAT_LIST, 1, 1, 1, "Get a range of elements from a list", "1.0.0", "list", KS("RO access|i1|r0,1,0")), \
    CMD("lindex", lindexCommand, 3, R, ACL_CAT_LIST, 1, 1, 1, "Get an element from a list by its index", "1.0.0", "list", KS("RO access|i1|r0,1,0")), \
    CMD("lset", lsetCommand, 4, W | M, ACL_CAT_LIST, 1, 1, 1, "Set the value of an element in a list by its index", "1.0.0", "list", KS("RW update|i1|r0,1,0")), \
    CMD("linsert", linsertCommand, 5, W | M, ACL_CAT_LIST, 1, 1, 1, "Insert an element before or after another element in a list", "2.2.0", "list", KS("RW insert|i1|r0,1,0")), \
    CMD("lrem", lremCommand, 4, W, ACL_CAT_LIST, 1, 1, 1, "Remove elements from a list", "1.0.0", "list", KS("RW delete|i1|r0,1,0")), \
    CMD("ltrim", ltrimCommand, 4, W, ACL_CAT_LIST, 1, 1, 1, "Trim a list to the specified range", "1.0.0", "list", KS("RW delete|i1|r0,1,0")), \
    CMD("lpos", lposCommand, -3, R, ACL_CAT_LIST, 1, 1, 1, "Return the index of matching elements on a list", "6.0.6", "list", KS("RO access|i1|r0,1,0")), \
    CMD("lmove", lmoveCommand, 5, W | M, ACL_CAT_LIST, 1, 2, 1, "Pop an element from a list, push it to another list and return it", "6.2.0", "list", KS("RW access delete|i1|r0,1,0;RW insert|i2|r0,1,0")), \
    CMD("rpoplpush", rpoplpushCommand, 3, W | M, ACL_CAT_LIST, 1, 2, 1, "Remove the last element in a list, prepend it to another list and return it", "1.2.0", "list", KS("RW access delete|i1|r0,1,0;RW insert|i2|r0,1,0")), \
    CMD("lmpop", lmpopCommand, -4, W, ACL_CAT_LIST, 0, 0, 0, "Pop elements from a list", "7.0.0", "list", KS("RW access delete|i1|n0,1,1"), GETKEYS(commandNumkeysAt1GetKeys)), \
    CMD("blpop", blpopCommand, -3, W | NS | CMD_BLOCKING, ACL_CAT_LIST | ACL_CAT_BLOCKING, 1, -2, 1, "Remove and get the first element in a list, or block until one is available", "2.0.0", "list", KS("RW access delete|i1|r-2,1,0")), \
    CMD("brpop", brpopCommand, -3, W | NS | CMD_BLOCKING, ACL_CAT_LIST | ACL_CAT_BLOCKING, 1, -2, 1, "Remove and get the last element in a list, or block until one is available", "2.0.0", "list", KS("RW access delete|i1|r-2,1,0")), \
    CMD("blmove", blmoveCommand, 6, W | M | NS | CMD_BLOCKING, ACL_CAT_LIST | ACL_CAT_BLOCKING, 1, 2, 1, "Pop an element from a list, push it to another list and return it; or block until one is available", "6.2.0", "list", KS("RW access delete|i1|r0,1,0;RW insert|i2|r0,1,0")), \
    CMD("brpoplpush", brpoplpushCommand, 4, W | M | NS | CMD_BLOCKING, ACL_CAT_LIST | ACL_CAT_BLOCKING, 1, 2, 1, "Pop an element from a list, push it to another list and return it; or block until one is available", "2.2.0", "list", KS("RW access delete|i1|r0,1,0;RW insert|i2|r0,1,0")), \
    CMD("blmpop", blmpopCommand, -5, W | CMD_BLOCKING, ACL_CAT_LIST | ACL_CAT_BLOCKING, 0, 0, 0, "Pop elements from a list, or block until one is available", "7.0.0", "list", KS("RW access delete|i2|n0,1,1"), GETKEYS(commandNumkeysAt2GetKeys)),

#endif
