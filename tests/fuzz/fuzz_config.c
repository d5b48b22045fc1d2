/* fuzz_config.c -- libFuzzer target for the config file parser (src/config.c):
 * the line splitter, quoting, every directive's value parser, `include`.
 *
 * Input: the text of a config file, loaded by configLoadText onto the
 * defaults. Then, if it loaded, every directive's value goes through the
 * CONFIG GET -> CONFIG SET path: the text directiveGet shows must be
 * accepted by directiveSetString and show the same again (so CONFIG
 * REWRITE and a replica of the config never hold a value they cannot read
 * back). A failed load must come with the "Reading ..., at line N" text.
 * Any violation traps after a line on stderr.
 *
 * Sandbox: a scratch directory holds a few small files to include
 * (inc1.conf includes inc2.conf, loop.conf includes itself, bad.conf has a
 * bad line). While an input loads, fopen and glob see only plain names,
 * resolved in that directory, and chdir goes nowhere but "." (linked with
 * -Wl,--wrap; see the Makefile), so `include /dev/zero` or `dir /` cannot
 * reach the machine. directive.h is config.c's private table: used here to
 * walk every directive. */
#include "fuzz_common.h"
#include "config.h"
#include "directive.h"
#include "sds.h"

#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK FUZZ_CHECK

static int sandboxed;
static char scratch[256];

/* A plain name (resolved in the scratch directory), or a path glob()
 * returned for one: the scratch directory, '/', a plain name. */
static int sandboxPath(const char *path, char *out, size_t size) {
    size_t sl = strlen(scratch);
    const char *name = !strncmp(path, scratch, sl) && path[sl] == '/' ? path + sl + 1 : path;
    if (!name[0] || name[0] == '.' || strchr(name, '/')) return 0;
    snprintf(out, size, "%s/%s", scratch, name);
    return 1;
}

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode) {
    char p[768];
    if (!sandboxed) return __real_fopen(path, mode);
    if (!sandboxPath(path, p, sizeof(p))) {
        errno = EACCES;
        return NULL;
    }
    return __real_fopen(p, mode);
}

int __real_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *pglob);
int __wrap_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *pglob) {
    char p[768];
    if (!sandboxed) return __real_glob(pattern, flags, errfunc, pglob);
    if (!sandboxPath(pattern, p, sizeof(p))) return GLOB_NOMATCH;
    return __real_glob(p, flags, errfunc, pglob);
}

int __real_chdir(const char *path);
int __wrap_chdir(const char *path) {
    if (sandboxed && strcmp(path, ".") && strcmp(path, "./")) {
        errno = EACCES;
        return -1;
    }
    return __real_chdir(path);
}

static void removeScratch(void) {
    static const char *files[] = {"inc1.conf", "inc2.conf", "loop.conf", "bad.conf", NULL};
    for (int j = 0; files[j]; j++) {
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", scratch, files[j]);
        unlink(p);
    }
    rmdir(scratch);
}

static void writeFile(const char *name, const char *text) {
    char p[768];
    snprintf(p, sizeof(p), "%s/%s", scratch, name);
    FILE *f = __real_fopen(p, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write a scratch file");
}

static void fuzzInit(void) {
    static int done;
    if (done) return;
    done = 1;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                       : getenv("TMPDIR")            ? getenv("TMPDIR")
                                                     : "/tmp";
    snprintf(scratch, sizeof(scratch), "%s/fuzz-config-%d", base, (int)getpid());
    mkdir(scratch, 0700);
    atexit(removeScratch);
    writeFile("inc1.conf", "maxmemory 10mb\ninclude inc2.conf\n");
    writeFile("inc2.conf", "port 7000\nsave \"60 1\"\n");
    writeFile("loop.conf", "include loop.conf\n");
    writeFile("bad.conf", "hz 1\nno-such-directive yes\n");
    configInitDefaults();
}

/* Directives whose value is not a plain setting: the working directory,
 * the replication link, renames applied only at start-up. */
static int skipRoundTrip(const directive *d) {
    static const char *names[] = {"dir", "replicaof", "rename-command", NULL};
    if (d->flags & F_NOGET) return 1;
    for (int j = 0; names[j]; j++)
        if (!strcmp(d->name, names[j])) return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInit();
    /* The parser reads C strings: a NUL ends the text, as in a file read
     * with fgets-style tools; keep the fuzzer's bytes up to it. */
    sds text = sdsnewlen(data, strnlen((const char *)data, size));
    sds err = NULL;
    sandboxed = 1;
    int rc = configLoadText(text, &err);
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "fuzz_config: %s\n", rc ? err : "loaded");
    if (rc != 0) {
        CHECK(err && !strncmp(err, "Reading ", 8) && strstr(err, ", at line "), "error text");
    } else {
        CHECK(err == NULL, "an error text without an error");
        for (int i = 0; i < directiveCount; i++) {
            const directive *d = &directives[i];
            if (skipRoundTrip(d)) continue;
            sds v = directiveGet(d);
            const char *why = NULL;
            if (!directiveSetString(d, v, &why)) {
                fprintf(stderr,
                        "fuzz_config: %s: CONFIG GET shows '%s', which CONFIG SET refuses: %s\n",
                        d->name, v, why ? why : "?");
                CHECK(0, "a shown value is refused");
            }
            sds v2 = directiveGet(d);
            if (sdscmp(v, v2))
                fprintf(stderr, "fuzz_config: %s: '%s' became '%s'\n", d->name, v, v2);
            CHECK(!sdscmp(v, v2), "a value changed when set to itself");
            sdsfree(v);
            sdsfree(v2);
        }
    }
    sandboxed = 0;
    sdsfree(err);
    sdsfree(text);
    configInitDefaults();
    return 0;
}
