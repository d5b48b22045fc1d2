/* aof_prealloc: the preallocated tail of the open incremental file under
 * appendfsync always (aof_prealloc.c). Private to persistence/aof*.c. */
#ifndef CAIRN_AOF_PREALLOC_H
#define CAIRN_AOF_PREALLOC_H
#include <stddef.h>
#include <sys/types.h>

/* Bytes written ahead at a time. */
#define AOF_PAD_CHUNK (1 << 20)
/* How far a torn write may reach past the damage it left and still be
 * recognised as one (aofPadTorn). */
#define AOF_PAD_TORN (128 * 1024)

/* Where a pad written so that at least `need` bytes exist ends: a line
 * boundary of the pattern, so the file ends with a whole pad line. */
off_t aofPadEnd(off_t need);
/* Fill [from, to) of fd with the pad pattern (positioned writes, any
 * thread). 0, or -1 with errno (the range may be partly written). */
int aofPadWrite(int fd, off_t from, off_t to);
/* Is line (len bytes, ending in '\n') a pad line: '#' only, then '\n'? */
int aofPadLine(const char *line, size_t len);
/* Does the file fd (size bytes) end with a pad line? (pread: the file
 * position stays.) */
int aofPadTail(int fd, off_t size);
/* Is the damage at offset e of a file of size bytes that ends in pad the
 * torn last write: is everything from AOF_PAD_TORN bytes past e to the end
 * untouched pad? */
int aofPadTorn(int fd, off_t size, off_t e);

#endif
