// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the verbs: their option parser (fc_opt_next, and
 * fc_opt_next_conf for the config file options), dm names, words in a
 * list, SIGINT/SIGTERM, the progress line of a writeback.
 */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fcachectl.h"

volatile int fc_interrupted;

void fc_opt_init(struct fc_opt *o, int argc, char **argv, const char *shortopts,
		 const struct option *longopts, const char *verb, const char *what)
{
	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	/* "-": operands come back in order (code 1) whatever POSIXLY_CORRECT says */
	snprintf(o->shortopts, sizeof(o->shortopts), "-:%s", shortopts);
	o->longopts = longopts;
	o->verb = verb;
	o->what = what;
	optind = 0;	/* 0, not 1: glibc then forgets an earlier parse entirely */
	opterr = 0;
}

/* The option getopt_long just refused, as the user wrote it. */
static const char *bad_option(struct fc_opt *o, char *buf, size_t len)
{
	const char *a = optind > 0 && optind <= o->argc ? o->argv[optind - 1] : NULL;
	size_t n;

	/* "--opt VALUE": the option is the word before its argument */
	if (optarg && optind > 1 && optind <= o->argc && optarg == o->argv[optind - 1])
		a = o->argv[optind - 2];
	if (a && a[0] == '-' && a[1] == '-') {
		n = strcspn(a, "=");
		snprintf(buf, len, "%.*s", (int)(n < 60 ? n : 60), a);
	} else if (optopt > ' ' && optopt < 0x7f) {
		snprintf(buf, len, "-%c", optopt);
	} else {
		snprintf(buf, len, "%.60s", a ? a : "?");
	}
	return buf;
}

/* Was long option @lo written in full (not as an abbreviation)? */
static int full_name(struct fc_opt *o, const struct option *lo)
{
	const char *a;
	size_t n;
	int i = optind - 1;

	/* "--opt VALUE": the option is the word before its argument */
	if (optarg && i > 0 && optarg == o->argv[i])
		i--;
	if (i < 1 || i >= o->argc)
		return 1;
	a = o->argv[i];
	if (a[0] != '-' || a[1] != '-')
		return 1;
	a += 2;
	n = strcspn(a, "=");
	return n == strlen(lo->name) && !strncmp(a, lo->name, n);
}

int fc_opt_operand(struct fc_opt *o, const char **ops, int n, const char *unit)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!ops[i]) {
			ops[i] = o->arg;
			return 0;
		}
	}
	return fc_usage(o->verb, "%s: unexpected argument '%s' (one %s at a time)", o->what, o->arg, unit);
}

int fc_vol_is(unsigned int id, const char *label, const char *which)
{
	uint64_t n;

	if (!fc_parse_u64(which, &n) && n)
		return n == id;
	return !strcmp(label, which);
}

int fc_opt_next(struct fc_opt *o)
{
	char buf[64];
	int c, li;

	o->arg = NULL;
	if (o->rest) {
		if (o->rest >= o->argc)
			return FC_OPT_END;
		o->arg = o->argv[o->rest++];
		return FC_OPT_OPERAND;
	}
	li = -1;
	c = getopt_long(o->argc, o->argv, o->shortopts, o->longopts, &li);
	if (li >= 0 && c != '?' && c != ':' && !full_name(o, &o->longopts[li])) {
		/* no abbreviations: "--d" must not mean --discard */
		fc_usage(o->verb, "%s: unknown option '%s' (give options in full: --%s)",
			 o->what, bad_option(o, buf, sizeof(buf)), o->longopts[li].name);
		return FC_OPT_ERROR;
	}
	switch (c) {
	case -1:	/* the end, or "--": the words after it are operands */
		o->rest = optind > 0 ? optind : o->argc;
		return fc_opt_next(o);
	case 1:
		o->arg = optarg;
		return FC_OPT_OPERAND;
	case ':':
		fc_usage(o->verb, "%s: option '%s' needs a value", o->what,
			 bad_option(o, buf, sizeof(buf)));
		return FC_OPT_ERROR;
	case '?':
		fc_usage(o->verb, "%s: unknown option '%s'", o->what, bad_option(o, buf, sizeof(buf)));
		return FC_OPT_ERROR;
	default:
		o->arg = optarg;
		return c;
	}
}

int fc_opt_next_conf(struct fc_opt *o, struct fc_conf_opt *co)
{
	int c;

	while ((c = fc_opt_next(o)) == FC_OPT_CONFIG || c == FC_OPT_NO_PERSIST) {
		if (c == FC_OPT_CONFIG)
			co->file = o->arg;
		else
			co->no_persist = 1;
	}
	return c;
}

int fc_valid_name(const char *name)
{
	const char *p;

	if (!name || !*name || strlen(name) > 100 || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.+", *p))
			return 0;
	return 1;
}

static void on_signal(int sig)
{
	(void)sig;
	fc_interrupted = 1;
}

void fc_install_sigint(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void fc_progress_start(struct fc_progress *p, uint64_t left)
{
	memset(p, 0, sizeof(*p));
	p->start = p->last_t = fc_now();
	p->first = p->last = left;
	p->tty = isatty(2);
}

void fc_progress_update(struct fc_progress *p, uint64_t left)
{
	double t = fc_now(), dt = t - p->last_t, r;
	char lb[32], rb[32], eta[32];

	if (dt >= 0.5) {
		r = left < p->last ? (p->last - left) / dt : 0;
		p->rate = p->rate ? 0.6 * p->rate + 0.4 * r : r;
		p->last = left;
		p->last_t = t;
	}
	if (t - p->last_print < (p->tty ? 0.25 : 10))
		return;
	p->last_print = t;
	fc_fmt_bytes(lb, sizeof(lb), left);
	fc_fmt_bytes(rb, sizeof(rb), p->rate);
	if (p->rate > 0) {
		unsigned long s = (unsigned long)(left / p->rate);

		snprintf(eta, sizeof(eta), "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	} else {
		snprintf(eta, sizeof(eta), "--:--:--");
	}
	if (p->tty) {
		int width = 30, done = p->first ? (int)((p->first - (left < p->first ? left : p->first)) * width / p->first) : width;

		fprintf(stderr, "\r[%.*s%*s] %s left, %s/s, ETA %s   ", done,
			"##############################", width - done, "", lb, rb, eta);
	} else {
		fprintf(stderr, "writeback: %s left, %s/s, ETA %s\n", lb, rb, eta);
	}
	p->printed = 1;
}

void fc_progress_done(struct fc_progress *p, const char *msg)
{
	char b[32];

	if (p->printed && p->tty)
		fputc('\n', stderr);
	fc_fmt_bytes(b, sizeof(b), p->first);
	if (msg)
		fprintf(stderr, "%s (%s written back in %.1f s)\n", msg, b, fc_now() - p->start);
}
