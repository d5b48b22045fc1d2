/* standalone.c -- replays fuzzer inputs without libFuzzer.
 *
 *   ./replay-resp FILE|DIR ...
 *
 * Runs LLVMFuzzerTestOneInput (fuzz_resp.c) once per file; a directory
 * argument means every regular file in it (not recursive, sorted by name).
 * Built with gcc -fsanitize=address,undefined, so a corpus or crash file can
 * be checked in the normal test suite. An invariant violation traps (SIGILL)
 * and a sanitizer report aborts; otherwise the exit status is 0, or 2 if an
 * argument could not be read. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replayed = 0;

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    int err = ferror(f);
    fclose(f);
    if (buf == NULL || err) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        return -1;
    }
    /* An exactly sized copy, so ASan sees reads past the input's end. */
    uint8_t *data = malloc(len ? len : 1);
    memcpy(data, buf, len);
    free(buf);
    fprintf(stderr, "replay-resp: %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    replayed++;
    return 0;
}

static int cmpstr(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir) {
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
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof(*names));
        }
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
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(names[i]) != 0) rc = -1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

/* The server-linking targets rename the server's main() with -Dmain=...;
 * this one is the replayer's own. */
#undef main
int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR ...\n", argv[0]);
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            rc = 2;
            continue;
        }
        int r = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
        if (r != 0) rc = 2;
    }
    printf("replay-resp: %d input%s replayed without a failure\n", replayed,
           replayed == 1 ? "" : "s");
    return rc;
}
