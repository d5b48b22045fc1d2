/* lfu: the LFU counter's arithmetic, as Redis 7.0 defines it (see lfu.h
 * for the layout). The minute clock is the server's cached unix time, so
 * an access costs no system call; the increment's coin is random(). */
#include "lfu.h"
#include "server_state.h"

#include <stdlib.h>

static unsigned int lfuMinutes(void) { return (unsigned int)((server.unixtime / 60) & 65535); }

unsigned int lfuInitialClock(void) { return (lfuMinutes() << 8) | LFU_INIT_VAL; }

/* Minutes since `then` on the 16-bit wrapping clock. */
static unsigned int lfuElapsed(unsigned int then) {
    unsigned int now = lfuMinutes();
    return now >= then ? now - then : 65535 - then + now;
}

unsigned int lfuFreq(const robj *o) {
    unsigned int counter = o->lru & 255;
    if (cfg.lfu_decay_time <= 0) return counter;
    unsigned int periods = lfuElapsed(o->lru >> 8) / (unsigned int)cfg.lfu_decay_time;
    return periods >= counter ? 0 : counter - periods;
}

/* The logarithmic increment: the higher the counter, the less likely. */
static unsigned int lfuLogIncr(unsigned int counter) {
    if (counter == 255) return 255;
    double r = (double)random() / RAND_MAX;
    double base = counter > LFU_INIT_VAL ? counter - LFU_INIT_VAL : 0;
    double p = 1.0 / (base * cfg.lfu_log_factor + 1);
    return r < p ? counter + 1 : counter;
}

void lfuTouch(robj *o) { o->lru = (lfuMinutes() << 8) | lfuLogIncr(lfuFreq(o)); }

void lfuSetFreq(robj *o, unsigned int freq) { o->lru = (lfuMinutes() << 8) | (freq > 255 ? 255 : freq); }
