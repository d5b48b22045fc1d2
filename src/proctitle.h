/* proctitle: the process title (set-proc-title, proc-title-template),
 * written over the argument area. See proctitle.c. */
#ifndef CAIRN_PROCTITLE_H
#define CAIRN_PROCTITLE_H
#include "sds.h"

/* First thing in main: moves argv's and environ's strings to the heap
 * (argv[] then points at the copies) so their area can hold the title. */
void proctitleInit(int argc, char **argv);
/* The template with its {variables} expanded and spaces trimmed; NULL
 * for an unknown variable. The caller frees it. */
sds proctitleExpand(const char *tpl);
/* Shows cfg.proc_title_template: the config hook, and once the listeners
 * are up if set-proc-title. */
int proctitleApply(const char **err);

#endif
