/* directive: the configuration directive table as config.c and configcmd.c
 * share it. Private to those two files: the rest of the server reads plain
 * `cfg` fields (config.h). One row describes a directive's type, bounds,
 * default (in CONFIG GET form), validation and rewrite rule; config.c owns
 * the rows and the string <-> value conversions, configcmd.c the CONFIG
 * GET/SET/RESETSTAT/REWRITE command on top of them. */
#ifndef CAIRN_DIRECTIVE_H
#define CAIRN_DIRECTIVE_H

#include "config.h"
#include "sds.h"

enum { T_BOOL, T_NUM, T_ENUM, T_STR, T_SPECIAL };

#define F_IMMUTABLE (1 << 0) /* file / command line only */
#define F_PROTECTED (1 << 1) /* CONFIG SET needs enable-protected-configs */
#define F_SENSITIVE (1 << 2) /* secrets (requirepass, masterauth) */
#define F_MULTIARG  (1 << 3) /* the value is a list of words */
#define F_EMPTYNULL (1 << 4) /* string: "" stores NULL (means "none") */
#define F_MEMORY    (1 << 5) /* number: accepts 1k, 5mb, 2gb ... */
#define F_OCTAL     (1 << 6)
#define F_PERCENT   (1 << 7)  /* memory or "N%", stored as -N */
#define F_BITFLAGS  (1 << 8)  /* enum: several names OR'ed together */
#define F_NEEDHOOK  (1 << 9)  /* can only change once its apply hook is set */
#define F_QUOTE     (1 << 10) /* special: CONFIG REWRITE quotes the value */
#define F_ALWAYS    (1 << 11) /* CONFIG REWRITE writes it even if default */
#define F_BASENAME  (1 << 12) /* string: a file name, not a path */
#define F_NONEMPTY  (1 << 13) /* string: "" refused */
#define F_HIDDEN    (1 << 14) /* CONFIG GET shows it only when asked by its exact name */
#define F_BINARY    (1 << 15) /* string: binary safe, the field holds an sds */
#define F_NOGET     (1 << 16) /* file only, never shown by CONFIG GET */
#define F_VOLATILE  (1 << 17) /* CONFIG SET applies it even when unchanged (file contents may be new) */
#define F_NOLOADING (1 << 18) /* CONFIG SET refused with -LOADING while the dataset loads */

/* Storage width of a numeric field, so one table row serves int, unsigned,
 * long long ... fields without per-type code. */
enum { W_INT, W_UINT, W_LONG, W_ULONG, W_LL, W_ULL };
// clang-format off
#define WIDTH(f) _Generic((f), int: W_INT, unsigned int: W_UINT, long: W_LONG, \
    unsigned long: W_ULONG, long long: W_LL, unsigned long long: W_ULL)
// clang-format on

typedef struct configEnum {
    const char *name;
    int val;
} configEnum;

struct rewriteState;

typedef struct directive {
    const char *name, *alias;
    int type, flags;
    void *ptr; /* into cfg */
    int width;
    long long min, max;
    const char *def; /* default in CONFIG GET form; NULL = null string */
    const configEnum *enums;
    /* bool/number/enum: veto or adjust a parsed value */
    int (*check)(long long *v, const char **err);
    const char *refuse; /* bool: why "yes" is not accepted (yet) */
    /* string: validate */
    int (*valid)(const char *s, const char **err);
    /* special */
    int (*set)(sds *argv, int argc, const char **err);
    sds (*get)(void);
    void (*rewrite)(struct rewriteState *st, int idx);
    configApplyFn **apply; /* slot in cfgHooks */
} directive;

extern const directive directives[];
extern const int directiveCount;

/* Index of the directive called `name` (or an alias of it), -1 if none;
 * *shown (if not NULL) gets the spelling that matched. */
int lookupDirective(const char *name, const char **shown);
/* The value in CONFIG GET form; the caller frees it. */
sds directiveGet(const directive *d);
/* Parse and store one value (the CONFIG SET path); 0 and *err on failure. */
int directiveSetString(const directive *d, sds value, const char **err);

#endif
