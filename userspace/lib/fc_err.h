/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_err: the one error convention of fcachectl and its benchmark.
 *
 * Messages: one line on stderr, "WHO: MESSAGE".  WHO names who speaks:
 * "fcachectl" for the control tool's verbs (fc_fail, fc_usage, fc_warn,
 * fc_info), "fcachectl bench" for the benchmark's command line, "bench" for
 * its engine, a file name where perror() would have said it (fc_err).
 * Nothing else prints errors (not counting the writeback progress line,
 * and libdevmapper's own messages that fc_dm.c echoes with -v -v).
 *
 * Results: a verb, and what it calls to do its work, returns an exit status
 * below; a lower layer (lib/, the benchmark's engine) returns 0 or -1, and
 * its header says whether it said why or left errno (fc_dm: fc_dm_error();
 * the checker's results are its own, fc_check.h).  The printing helpers
 * return EXIT_FAIL (fc_usage EXIT_USAGE), so that "return fc_fail(...);"
 * says and fails at once.
 */
#ifndef FC_ERR_H
#define FC_ERR_H

#define EXIT_OK		0
#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define EXIT_NOT_POOL	3	/* check, dump: the device holds no fcache metadata */

extern int fc_verbose;		/* -v: fc_info() prints */

/* "@who: <msg>" on stderr; returns EXIT_FAIL. */
int fc_err(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "fcachectl: <msg>" on stderr; returns EXIT_FAIL. */
int fc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fc_fail(), then "Try 'fcachectl @verb --help'."; returns EXIT_USAGE. */
int fc_usage(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * fc_fail(), and with --json (@schema not NULL) also the document
 * {"schema": @schema, "schema_version": 1, "error": "<msg>"} on stdout, so
 * that a program reading the JSON learns why there is no result.
 */
int fc_fail_json(const char *schema, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "fcachectl: warning: <msg>" */
void fc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fcachectl: <msg>", only with -v */
void fc_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
