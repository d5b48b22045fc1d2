/* ziplist: read-only decoders for the two compact encodings Redis wrote
 * before 7.0 (ziplist, RDB types 10/12/13/14) and before 2.6 (zipmap, RDB
 * type 9). cairn never creates either: a snapshot's blob is validated and
 * turned into a listpack holding the same entries in the same order, the
 * way Redis 7.0 converts them when it loads an old file.
 *
 * Input is an untrusted byte blob owned by the caller (only read, every
 * read bounds-checked); output is a new zmalloc'ed listpack the caller
 * owns, or NULL if the blob is malformed. */
#ifndef CAIRN_ZIPLIST_H
#define CAIRN_ZIPLIST_H
#include <stddef.h>

/* Every entry of the ziplist, in order. *count gets the number of entries
 * and *maxlen the longest string form of any entry. */
unsigned char *ziplistToListpack(const unsigned char *zl, size_t size, unsigned long *count,
                                 size_t *maxlen);
/* The zipmap's pairs as field, value, field, value ... */
unsigned char *zipmapToListpack(const unsigned char *zm, size_t size, unsigned long *pairs,
                                size_t *maxlen);

#endif
