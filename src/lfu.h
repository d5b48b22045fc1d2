/* lfu: Redis' LFU counter, kept in a value's 24-bit clock field (robj.lru)
 * while an LFU maxmemory policy (allkeys-lfu, volatile-lfu) is selected:
 * the high 16 bits are the minute of the last access (modulo 2^16), the
 * low 8 a logarithmic access counter. A new value starts at LFU_INIT_VAL;
 * an access first decays the counter by one per lfu-decay-time minutes
 * since the last one, then increments it with probability
 * 1 / ((counter - LFU_INIT_VAL) * lfu-log-factor + 1), saturating at 255.
 * Under the other policies the field is the LRU clock (object.h).
 *
 * Values enter through objectNewClock (creation), objectTouch (a lookup)
 * and lfuSetFreq (RESTORE FREQ, the RDB FREQ opcode); lfuFreq reads the
 * decayed counter (OBJECT FREQ, the RDB FREQ opcode). Nothing is
 * allocated. Eviction itself is not here yet. */
#ifndef CAIRN_LFU_H
#define CAIRN_LFU_H
#include "config.h"
#include "object.h"

#define LFU_INIT_VAL 5

/* The clock field of a new value under an LFU policy. */
unsigned int lfuInitialClock(void);
/* One access under an LFU policy. */
void lfuTouch(robj *o);
/* The counter with the decay since the last access applied (not stored). */
unsigned int lfuFreq(const robj *o);
/* Set the counter (0..255) as of now. */
void lfuSetFreq(robj *o, unsigned int freq);

/* The clock field a new value starts with, for the policy in force. */
static inline unsigned int objectNewClock(void) {
    return MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy) ? lfuInitialClock() : lruClock();
}

/* A lookup's access: one branch on the policy, the LRU case inline. */
static inline void objectTouch(robj *o) {
    if (MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy)) lfuTouch(o);
    else o->lru = lruClock();
}

#endif
