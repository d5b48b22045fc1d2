/* keys: the generic key commands (keys.c); declared here is what others
 * reuse: the SCAN option parsing HSCAN/SSCAN/ZSCAN share. */
#ifndef CAIRN_KEYS_H
#define CAIRN_KEYS_H
#include "object.h"
#include "sds.h"

typedef struct client client;

/* SCAN family (keys.c): HSCAN/SSCAN/ZSCAN parse with the same rules. */
typedef struct scanOptions {
    long count;
    sds pattern;      /* NULL: match everything */
    const char *type; /* SCAN TYPE filter, NULL: none */
} scanOptions;
int scanParseCursorOrReply(client *c, robj *o, unsigned long *cursor);
int scanParseOptionsOrReply(client *c, int start, scanOptions *opt, int allow_type);
int scanMatches(const scanOptions *opt, const char *s, size_t len);

#endif
