// SPDX-License-Identifier: GPL-2.0
/*
 * Confirmation of the steps that destroy data (pool create --force on a
 * pool, forget --discard-dirty): asked on a terminal ("type yes"), given
 * with --yes by a script.  Without a terminal and without --yes the verb
 * refuses with exit 2 and prints the command to run, built here from its
 * own arguments.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fcachectl.h"

int fc_have_tty(void)
{
	return isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
}

int fc_confirm(const char *question)
{
	char line[64];
	size_t n;

	fprintf(stderr, "%s\nType 'yes' to go on: ", question);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	n = strcspn(line, "\r\n");
	line[n] = 0;
	return !strcmp(line, "yes");
}

/* Characters that need no quoting in a shell word. */
static int plain_word(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-", *w))
			return 0;
	return 1;
}

static size_t add(char *buf, size_t len, size_t o, const char *s)
{
	size_t n = strlen(s);

	if (o + n + 1 < len) {
		memcpy(buf + o, s, n);
		buf[o + n] = 0;
	}
	return o + n;
}

static size_t add_word(char *buf, size_t len, size_t o, const char *w)
{
	char c[2] = { 0, 0 };

	o = add(buf, len, o, " ");
	if (plain_word(w))
		return add(buf, len, o, w);
	o = add(buf, len, o, "'");
	for (; *w; w++) {
		c[0] = *w;
		o = add(buf, len, o, *w == '\'' ? "'\\''" : c);
	}
	return add(buf, len, o, "'");
}

void fc_cmdline(char *buf, size_t len, int argc, char **argv, const char *extra)
{
	size_t o = 0;
	int i, dashdash = argc;

	buf[0] = 0;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	o = add(buf, len, o, "fcachectl");
	for (i = 0; i < argc; i++) {
		if (i == dashdash && extra)
			o = add_word(buf, len, o, extra);
		o = add_word(buf, len, o, argv[i]);
	}
	if (dashdash == argc && extra)
		o = add_word(buf, len, o, extra);
	if (o >= len && len > 4)
		strcpy(buf + len - 4, "...");
}
