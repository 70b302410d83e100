// SPDX-License-Identifier: GPL-2.0
/* fc_err: one-line messages on stderr and the exit statuses; see fc_err.h. */
#include <stdarg.h>
#include <stdio.h>
#include "fc_err.h"
#include "fc_json.h"

int fc_verbose;

static void say(const char *who, const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", who, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int fc_err(const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(who, "", fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

int fc_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("fcachectl", "", fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

int fc_usage(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("fcachectl", "", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'fcachectl %s --help'.\n", verb ? verb : "");
	return EXIT_USAGE;
}

int fc_fail_json(const char *schema, const char *fmt, ...)
{
	struct fc_json j;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fc_fail("%s", msg);
	if (schema) {
		fflush(stdout);
		fj_init(&j, stdout);
		fj_obj(&j, NULL);
		fj_schema(&j, schema);
		fj_str(&j, "error", msg);
		fj_end(&j);
		fflush(stdout);
	}
	return EXIT_FAIL;
}

void fc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("fcachectl", "warning: ", fmt, ap);
	va_end(ap);
}

void fc_info(const char *fmt, ...)
{
	va_list ap;

	if (!fc_verbose)
		return;
	va_start(ap, fmt);
	say("fcachectl", "", fmt, ap);
	va_end(ap);
}
