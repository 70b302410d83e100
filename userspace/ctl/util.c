// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl helpers: sizes, device paths, time, signals, the progress bar,
 * the JSON error document.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fcachectl.h"
#include "fc_json.h"

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

int fc_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int fc_fail_json(const char *schema, const char *fmt, ...)
{
	struct fc_json j;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fcachectl: %s\n", msg);
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

int fc_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long x;
	uint64_t mul = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 0:
		break;
	case 'K':
		mul = 1024;
		break;
	case 'M':
		mul = 1024 * 1024;
		break;
	case 'G':
		mul = 1024ull * 1024 * 1024;
		break;
	case 'S':	/* sectors */
		mul = 512;
		break;
	default:
		return -1;
	}
	if (*end) {
		end++;
		if (mul != 512 && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
			end += strlen(end);
		if (*end)
			return -1;
	}
	if (x > UINT64_MAX / mul)
		return -1;
	*bytes = x * mul;
	return 0;
}

/*
 * A number given to an option: decimal (strtod without hex, nan or inf),
 * all of @s (no trailing garbage), within [@min, @max], and a whole number
 * if @integer.  strtod alone takes "nan", "1e300" and "16.9" happily, and a
 * NaN then passes every "< min" and "> max" check: each value is checked
 * here once for every caller.  0, or -1 with *@v untouched.
 */
int fc_parse_num(const char *s, double min, double max, int integer, double *v)
{
	char *end;
	double x;

	if (!s || !*s || isspace((unsigned char)*s) || strpbrk(s, "xX"))
		return -1;
	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x) || x < min || x > max ||
	    (integer && x != floor(x)))
		return -1;
	*v = x;
	return 0;
}

void fc_fmt_bytes(char *buf, size_t len, double b)
{
	static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int i = 0;

	while (b >= 1024 && i < 5) {
		b /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.0f %s", b, u[i]);
	else
		snprintf(buf, len, "%.1f %s", b, u[i]);
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

int fc_dev_sectors(int fd, uint64_t *sectors)
{
	struct stat st;
	uint64_t bytes;

	if (fstat(fd, &st))
		return -1;
	if (S_ISREG(st.st_mode)) {
		*sectors = (uint64_t)st.st_size / 512;
		return 0;
	}
	if (!S_ISBLK(st.st_mode)) {
		errno = ENOTBLK;
		return -1;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes))
		return -1;
	*sectors = bytes / 512;
	return 0;
}

int fc_block_dev(const char *path, dev_t *dev)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	if (!S_ISBLK(st.st_mode)) {
		errno = ENOTBLK;
		return -1;
	}
	*dev = st.st_rdev;
	return 0;
}

const char *fc_dev_str(dev_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", major(dev), minor(dev));
	return buf;
}

int fc_parse_devstr(const char *s, dev_t *dev)
{
	unsigned int ma, mi;
	char c;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &c) != 2)
		return -1;
	*dev = makedev(ma, mi);
	return 0;
}

const char *fc_dev_kname(dev_t dev)
{
	static char name[256];
	char link[PATH_MAX], path[64];
	ssize_t n;
	const char *b;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		snprintf(name, sizeof(name), "%u-%u", major(dev), minor(dev));
		return name;
	}
	link[n] = 0;
	b = strrchr(link, '/');
	b = b ? b + 1 : link;
	n = (ssize_t)strlen(b);
	if (n >= (ssize_t)sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, b, n);
	name[n] = 0;
	return name;
}

const char *fc_dev_path(dev_t dev)
{
	static char path[300];
	dev_t d;

	snprintf(path, sizeof(path), "/dev/%s", fc_dev_kname(dev));
	if (!fc_block_dev(path, &d) && d == dev)
		return path;
	snprintf(path, sizeof(path), "/dev/block/%u:%u", major(dev), minor(dev));
	return path;
}

double fc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
