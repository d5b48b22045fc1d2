/* standalone.c -- runs a fuzz target without libFuzzer.
 *
 *   ./replay-<name> [-mutate SECONDS] FILE|DIR ...
 *
 * Runs the target's LLVMFuzzerTestOneInput (fuzz_<name>.c) once per file; a
 * directory argument means every regular file in it (not recursive, sorted
 * by name). With -mutate, it then runs random mutations of those inputs
 * (bytes flipped, inserted, deleted, chunks copied between inputs) for that
 * many seconds, with a fixed seed so a failure reproduces: the fallback for
 * a machine without libFuzzer. Built with gcc -fsanitize=address,undefined.
 * An invariant violation traps (SIGILL) and a sanitizer report aborts; the
 * mutated input that failed is written to ./standalone-crash first.
 * Otherwise the exit status is 0, or 2 if an argument could not be read.
 *
 * The inputs are read into memory and owned here; the target sees an
 * exactly sized copy of each, so ASan reports reads past its end. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct input {
    uint8_t *data;
    size_t len;
} input;

static input *inputs;
static size_t ninputs, capinputs;
static const char *prog = "replay";

static uint8_t *readAll(const char *path, size_t *lenp) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    size_t cap = 4096, len = 0, n;
    uint8_t *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    int err = ferror(f);
    fclose(f);
    if (buf == NULL || err) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        return NULL;
    }
    *lenp = len;
    return buf;
}

static void runOne(const uint8_t *buf, size_t len) {
    uint8_t *data = malloc(len ? len : 1);
    memcpy(data, buf, len);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
}

static int replayFile(const char *path) {
    size_t len;
    uint8_t *buf = readAll(path, &len);
    if (buf == NULL) return -1;
    fprintf(stderr, "%s: %s (%zu bytes)\n", prog, path, len);
    runOne(buf, len);
    if (ninputs == capinputs)
        inputs = realloc(inputs, (capinputs = capinputs ? capinputs * 2 : 64) * sizeof(*inputs));
    inputs[ninputs++] = (input){buf, len};
    return 0;
}

static int cmpstr(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replayDir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (count == cap) names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));
        size_t plen = strlen(dir) + strlen(de->d_name) + 2;
        names[count] = malloc(plen);
        snprintf(names[count], plen, "%s/%s", dir, de->d_name);
        count++;
    }
    closedir(d);
    if (count) qsort(names, count, sizeof(*names), cmpstr);
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && replayFile(names[i]) != 0) rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

/* ---- mutations ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(uint64_t n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return n ? rng % n : 0;
}

static uint8_t *cur;
static size_t curlen;

static void saveCrash(int sig) {
    FILE *f = fopen("standalone-crash", "wb");
    if (f) {
        fwrite(cur, 1, curlen, f);
        fclose(f);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Bytes a parser is likely to care about. */
static const char *interesting[] = {"\r\n",
                                    "*",
                                    "$",
                                    "-1",
                                    "0",
                                    "2147483647",
                                    "4294967296",
                                    "9223372036854775807",
                                    "-9223372036854775808",
                                    "\"",
                                    " ",
                                    "\n",
                                    "\xff",
                                    "\0",
                                    "EOF:",
                                    "\\x"};

static size_t mutate(uint8_t *buf, size_t len, size_t max) {
    int rounds = 1 + (int)rnd(8);
    for (int r = 0; r < rounds; r++) {
        switch (rnd(6)) {
            case 0: /* flip a bit */
                if (len) buf[rnd(len)] ^= (uint8_t)(1 << rnd(8));
                break;
            case 1: /* a random byte */
                if (len) buf[rnd(len)] = (uint8_t)rnd(256);
                break;
            case 2: { /* delete a run */
                if (!len) break;
                size_t at = rnd(len), n = 1 + rnd(len - at < 16 ? len - at : 16);
                memmove(buf + at, buf + at + n, len - at - n);
                len -= n;
                break;
            }
            case 3: { /* insert an interesting token */
                const char *t = interesting[rnd(sizeof(interesting) / sizeof(*interesting))];
                size_t n = strlen(t) ? strlen(t) : 1, at = rnd(len + 1);
                if (len + n > max) break;
                memmove(buf + at + n, buf + at, len - at);
                memcpy(buf + at, t, n);
                len += n;
                break;
            }
            case 4: { /* copy a chunk of another input in */
                const input *o = &inputs[rnd(ninputs)];
                if (!o->len) break;
                size_t from = rnd(o->len), n = 1 + rnd(o->len - from), at = rnd(len + 1);
                if (len + n > max) n = max - len;
                memmove(buf + at + n, buf + at, len - at);
                memcpy(buf + at, o->data + from, n);
                len += n;
                break;
            }
            case 5: /* cut the tail */
                len = rnd(len + 1);
                break;
        }
    }
    return len;
}

static long mutateFor(int seconds) {
    if (ninputs == 0) return 0;
    size_t max = 0;
    for (size_t i = 0; i < ninputs; i++)
        if (inputs[i].len > max) max = inputs[i].len;
    max = max * 2 + 64;
    cur = malloc(max);
    signal(SIGABRT, saveCrash);
    signal(SIGSEGV, saveCrash);
    signal(SIGILL, saveCrash);
    time_t end = time(NULL) + seconds;
    long runs = 0;
    while (time(NULL) < end) {
        for (int k = 0; k < 64; k++, runs++) {
            const input *in = &inputs[rnd(ninputs)];
            memcpy(cur, in->data, in->len);
            curlen = mutate(cur, in->len, max);
            runOne(cur, curlen);
        }
    }
    free(cur);
    return runs;
}

/* The server-linking targets rename the server's main() with -Dmain=...;
 * this one is the replayer's own. */
#undef main
int main(int argc, char **argv) {
    const char *slash = strrchr(argv[0], '/');
    prog = slash ? slash + 1 : argv[0];
    int seconds = 0, first = 1;
    if (argc > 2 && !strcmp(argv[1], "-mutate")) {
        seconds = atoi(argv[2]);
        first = 3;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: %s [-mutate SECONDS] FILE|DIR ...\n", argv[0]);
        return 2;
    }
    int rc = 0;
    for (int i = first; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            rc = 2;
            continue;
        }
        int r = S_ISDIR(st.st_mode) ? replayDir(argv[i]) : replayFile(argv[i]);
        if (r != 0) rc = 2;
    }
    printf("%s: %zu input%s replayed without a failure\n", prog, ninputs, ninputs == 1 ? "" : "s");
    if (seconds > 0)
        printf("%s: %ld mutated inputs ran without a failure\n", prog, mutateFor(seconds));
    for (size_t i = 0; i < ninputs; i++) free(inputs[i].data);
    free(inputs);
    return rc;
}
