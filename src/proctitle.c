/* proctitle: the process title ps and /proc/PID/cmdline show
 * (set-proc-title, proc-title-template).
 *
 * Linux has no setproctitle(3): the title is written over the memory that
 * held the program's arguments and, past them, its environment strings
 * (one contiguous area the kernel reports as the command line). So at
 * start-up, before anything reads them, proctitleInit moves every argv
 * and environ string to the heap and points the arrays there; the old
 * area becomes ours to overwrite. The template's {variables} are expanded
 * from the live configuration each time it is applied (start-up, CONFIG
 * SET proc-title-template).
 *
 * Data enters as argv/environ (once) and cfg; leaves as bytes in the
 * argument area. The heap copies live as long as the process. */
#include "config.h"
#include "log.h"
#include "sds.h"
#include "proctitle.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

static char *area;       /* start of the old argv/environ strings */
static size_t area_len;  /* their contiguous length */
static char *title_arg0; /* {title}: argv[0] as the program was started */

void proctitleInit(int argc, char **argv) {
    if (argc < 1 || !argv[0]) return;
    char *start = argv[0];
    char *end = argv[0] + strlen(argv[0]) + 1;
    for (int j = 1; j < argc; j++) {
        if (argv[j] != end) break; /* not contiguous: the area stops here */
        end = argv[j] + strlen(argv[j]) + 1;
    }
    size_t n = 0;
    while (environ && environ[n]) n++;
    for (size_t j = 0; j < n && environ[j] == end; j++) end = environ[j] + strlen(environ[j]) + 1;
    char **env = malloc(sizeof(char *) * (n + 1));
    if (!env) return;
    for (size_t j = 0; j < n; j++) env[j] = strdup(environ[j]);
    env[n] = NULL;
    environ = env;
    for (int j = 0; j < argc; j++) argv[j] = strdup(argv[j]);
    title_arg0 = argv[0];
    area = start;
    area_len = (size_t)(end - start);
}

/* The value of one {variable}, as Redis expands it; NULL if unknown. */
static sds proctitleVar(const char *name, size_t len) {
#define IS(v) (len == strlen(v) && !memcmp(name, v, len))
    if (IS("title")) return sdsnew(title_arg0 ? title_arg0 : "");
    if (IS("listen-addr")) {
        if (cfg.port || cfg.tls_port)
            return sdscatprintf(sdsempty(), "%s:%d", cfg.bindaddr_count ? cfg.bindaddr[0] : "*",
                                cfg.port ? cfg.port : cfg.tls_port);
        return sdscatprintf(sdsempty(), "unixsocket:%s", cfg.unixsocket ? cfg.unixsocket : "");
    }
    if (IS("server-mode")) return sdsempty(); /* no cluster or sentinel mode here */
    if (IS("config-file")) return sdsnew(configFilePath() ? configFilePath() : "-");
    if (IS("port")) return sdscatprintf(sdsempty(), "%d", cfg.port);
    if (IS("tls-port")) return sdscatprintf(sdsempty(), "%d", cfg.tls_port);
    if (IS("unixsocket")) return sdsnew(cfg.unixsocket ? cfg.unixsocket : "");
    return NULL;
#undef IS
}

sds proctitleExpand(const char *tpl) {
    sds out = sdsempty();
    for (const char *p = tpl; *p; p++) {
        /* As Redis: "{{" is a literal '{'; a '}' is always itself. */
        if (*p == '{' && p[1] == '{') {
            out = sdscatlen(out, p, 1);
            p++;
        } else if (*p == '{') {
            const char *close = strchr(p, '}');
            sds v = close ? proctitleVar(p + 1, (size_t)(close - p - 1)) : NULL;
            if (!v) {
                sdsfree(out);
                return NULL;
            }
            out = sdscatsds(out, v);
            sdsfree(v);
            p = close;
        } else {
            out = sdscatlen(out, p, 1);
        }
    }
    return sdstrim(out, " ");
}

/* As Redis, set-proc-title is read at start-up only: a template set
 * later is shown either way. */
int proctitleApply(const char **err) {
    (void)err;
    if (!area || !cfg.proc_title_template) return 1;
    sds t = proctitleExpand(cfg.proc_title_template);
    if (!t) return 1; /* the template was validated: not reached */
    size_t len = sdslen(t) < area_len - 1 ? sdslen(t) : area_len - 1;
    memcpy(area, t, len);
    /* NULs after it: the kernel shows the title alone. */
    memset(area + len, 0, area_len - len);
    sdsfree(t);
    return 1;
}
