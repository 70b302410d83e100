// SPDX-License-Identifier: GPL-2.0
/*
 * fc_dm: libdevmapper wrapper (see fc_dm.h).  Each call builds one dm_task,
 * runs it and destroys it.  libdevmapper's log messages are captured into a
 * buffer so callers can print one line of their own; fc_dm_verbose also
 * echoes them to stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <libdevmapper.h>
#include "fc_dm.h"

int fc_dm_verbose;
static char last_error[512];
static int last_errno;		/* of the last failed message ioctl, else 0 */

static void dm_logger(int level, const char *file, int line, int dm_errno_or_class,
		      const char *f, ...)
{
	va_list ap;
	int lvl = level & 7;

	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	if (lvl > 4 && fc_dm_verbose < 2)
		return;
	va_start(ap, f);
	if (lvl <= 3)
		vsnprintf(last_error, sizeof(last_error), f, ap);
	else if (fc_dm_verbose) {
		vfprintf(stderr, f, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
	if (lvl <= 3 && fc_dm_verbose)
		fprintf(stderr, "libdevmapper: %s\n", last_error);
}

void fc_dm_init(void)
{
	dm_log_with_errno_init(dm_logger);
	/* honours DM_DISABLE_UDEV; falls back to creating nodes without udev */
	dm_udev_set_sync_support(1);
}

const char *fc_dm_error(void)
{
	return last_error;
}

static void set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

static struct dm_task *task(int type, const char *name)
{
	struct dm_task *dmt;

	last_error[0] = 0;
	last_errno = 0;
	dmt = dm_task_create(type);
	if (!dmt) {
		set_error("/dev/mapper/control is unavailable (is dm_mod loaded? are you root?)");
		return NULL;
	}
	if (name && !dm_task_set_name(dmt, name)) {
		dm_task_destroy(dmt);
		set_error("invalid device name '%s'", name);
		return NULL;
	}
	return dmt;
}

static uint16_t udev_flags(const char *name)
{
	size_t n = name ? strlen(name) : 0, k = strlen(FC_DM_HIDDEN_SUFFIX);

	if (n > k && !strcmp(name + n - k, FC_DM_HIDDEN_SUFFIX))
		return DM_UDEV_DISABLE_DISK_RULES_FLAG | DM_UDEV_DISABLE_OTHER_RULES_FLAG;
	return 0;
}

/* Run @dmt on device @name, with a udev cookie when @udev. Destroys @dmt. */
static int run_named(struct dm_task *dmt, int udev, const char *name)
{
	uint32_t cookie = 0;
	int ok;

	if (udev && !dm_task_set_cookie(dmt, &cookie, udev_flags(name))) {
		dm_task_destroy(dmt);
		return -1;
	}
	ok = dm_task_run(dmt);
	if (udev)
		dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	if (!ok && !last_error[0])
		set_error("device-mapper operation failed");
	return ok ? 0 : -1;
}

#define run(dmt, udev) run_named(dmt, udev, name)

static int add_targets(struct dm_task *dmt, const struct fc_dm_target *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!dm_task_add_target(dmt, t[i].start, t[i].length, t[i].type,
					t[i].params ? t[i].params : ""))
			return -1;
	return 0;
}

int fc_dm_create(const char *name, const char *uuid, const struct fc_dm_target *t, int n)
{
	struct dm_task *dmt = task(DM_DEVICE_CREATE, name);

	if (!dmt)
		return -1;
	if ((uuid && !dm_task_set_uuid(dmt, uuid)) || add_targets(dmt, t, n)) {
		dm_task_destroy(dmt);
		return -1;
	}
	return run(dmt, 1);
}

int fc_dm_create_empty(const char *name, const char *uuid)
{
	return fc_dm_create(name, uuid, NULL, 0);
}

int fc_dm_load(const char *name, const struct fc_dm_target *t, int n)
{
	struct dm_task *dmt = task(DM_DEVICE_RELOAD, name);

	if (!dmt)
		return -1;
	if (add_targets(dmt, t, n)) {
		dm_task_destroy(dmt);
		return -1;
	}
	return run(dmt, 0);
}

int fc_dm_clear(const char *name)
{
	struct dm_task *dmt = task(DM_DEVICE_CLEAR, name);

	return dmt ? run(dmt, 0) : -1;
}

int fc_dm_suspend(const char *name, int noflush)
{
	struct dm_task *dmt = task(DM_DEVICE_SUSPEND, name);

	if (!dmt)
		return -1;
	if (noflush)
		dm_task_no_flush(dmt);
	return run(dmt, 0);
}

int fc_dm_resume(const char *name)
{
	struct dm_task *dmt = task(DM_DEVICE_RESUME, name);

	return dmt ? run(dmt, 1) : -1;
}

int fc_dm_remove(const char *name)
{
	struct dm_task *dmt = task(DM_DEVICE_REMOVE, name);

	if (!dmt)
		return -1;
	dm_task_retry_remove(dmt);
	return run(dmt, 1);
}

int fc_dm_rename(const char *name, const char *newname)
{
	struct dm_task *dmt = task(DM_DEVICE_RENAME, name);

	if (!dmt)
		return -1;
	if (!dm_task_set_newname(dmt, newname)) {
		dm_task_destroy(dmt);
		return -1;
	}
	return run(dmt, 1);
}

int fc_dm_message_errno(void)
{
	return last_errno;
}

int fc_dm_message(const char *name, const char *msg, char **resp)
{
	struct dm_task *dmt = task(DM_DEVICE_TARGET_MSG, name);
	const char *r;

	if (resp)
		*resp = NULL;
	if (!dmt)
		return -1;
	if (!dm_task_set_sector(dmt, 0) || !dm_task_set_message(dmt, msg) ||
	    !dm_task_run(dmt)) {
		/* libdevmapper logs EINTR only verbosely: say it here */
		last_errno = dm_task_get_errno(dmt);
		dm_task_destroy(dmt);
		if (!last_error[0])
			set_error("message '%s' to %s failed: %s", msg, name,
				  last_errno ? strerror(last_errno) : "no reason given");
		return -1;
	}
	r = dm_task_get_message_response(dmt);
	if (resp && r && *r)
		*resp = strdup(r);
	dm_task_destroy(dmt);
	return 0;
}

static int get_targets(const char *name, int type, int inactive,
		       struct fc_dm_target **out, int *n)
{
	struct dm_task *dmt = task(type, name);
	struct fc_dm_target *t = NULL, *nt;
	uint64_t start, length;
	char *ttype, *params;
	void *next = NULL;
	int cnt = 0;

	*out = NULL;
	*n = 0;
	if (!dmt)
		return -1;
	if (inactive)
		dm_task_query_inactive_table(dmt);
	if (!dm_task_run(dmt)) {
		dm_task_destroy(dmt);
		if (!last_error[0])
			set_error("cannot read the table of %s", name);
		return -1;
	}
	do {
		next = dm_get_next_target(dmt, next, &start, &length, &ttype, &params);
		if (!ttype)
			break;
		nt = realloc(t, (cnt + 1) * sizeof(*t));
		if (!nt)
			break;
		t = nt;
		t[cnt].start = start;
		t[cnt].length = length;
		t[cnt].type = strdup(ttype);
		t[cnt].params = strdup(params ? params : "");
		cnt++;
	} while (next);
	dm_task_destroy(dmt);
	*out = t;
	*n = cnt;
	return 0;
}

int fc_dm_status(const char *name, struct fc_dm_target **t, int *n)
{
	return get_targets(name, DM_DEVICE_STATUS, 0, t, n);
}

int fc_dm_table(const char *name, struct fc_dm_target **t, int *n)
{
	return get_targets(name, DM_DEVICE_TABLE, 0, t, n);
}

int fc_dm_table_inactive(const char *name, struct fc_dm_target **t, int *n)
{
	return get_targets(name, DM_DEVICE_TABLE, 1, t, n);
}

void fc_dm_free_targets(struct fc_dm_target *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(t[i].type);
		free(t[i].params);
	}
	free(t);
}

int fc_dm_info(const char *name, struct fc_dm_info *info)
{
	struct dm_task *dmt = task(DM_DEVICE_INFO, name);
	struct dm_info di;
	const char *uuid;

	memset(info, 0, sizeof(*info));
	if (!dmt)
		return -1;
	if (!dm_task_run(dmt) || !dm_task_get_info(dmt, &di)) {
		dm_task_destroy(dmt);
		return -1;
	}
	info->exists = di.exists;
	if (di.exists) {
		info->suspended = di.suspended;
		info->live_table = di.live_table;
		info->inactive_table = di.inactive_table;
		info->open_count = di.open_count;
		info->major = di.major;
		info->minor = di.minor;
		info->target_count = di.target_count;
		uuid = dm_task_get_uuid(dmt);
		if (uuid)
			snprintf(info->uuid, sizeof(info->uuid), "%s", uuid);
	}
	dm_task_destroy(dmt);
	return 0;
}

int fc_dm_deps(const char *name, dev_t **devs, int *n)
{
	struct dm_task *dmt = task(DM_DEVICE_DEPS, name);
	struct dm_deps *deps;
	uint32_t i;
	dev_t *d;

	*devs = NULL;
	*n = 0;
	if (!dmt)
		return -1;
	if (!dm_task_run(dmt) || !(deps = dm_task_get_deps(dmt))) {
		dm_task_destroy(dmt);
		return -1;
	}
	d = calloc(deps->count + 1, sizeof(*d));
	if (!d) {
		dm_task_destroy(dmt);
		return -1;
	}
	for (i = 0; i < deps->count; i++) {
		uint64_t k = deps->device[i];	/* kernel huge_encode_dev */

		d[i] = makedev((unsigned int)((k & 0xfff00) >> 8),
			       (unsigned int)((k & 0xff) | ((k >> 12) & 0xfff00)));
	}
	*devs = d;
	*n = (int)deps->count;
	dm_task_destroy(dmt);
	return 0;
}

int fc_dm_list(char ***out, int *n)
{
	struct dm_task *dmt = task(DM_DEVICE_LIST, NULL);
	struct dm_names *names;
	char **v = NULL, **nv;
	unsigned int next = 0;
	int cnt = 0;

	*out = NULL;
	*n = 0;
	if (!dmt)
		return -1;
	if (!dm_task_run(dmt) || !(names = dm_task_get_names(dmt))) {
		dm_task_destroy(dmt);
		return -1;
	}
	if (names->dev) {
		do {
			names = (struct dm_names *)((char *)names + next);
			nv = realloc(v, (cnt + 1) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			v[cnt++] = strdup(names->name);
			next = names->next;
		} while (next);
	}
	dm_task_destroy(dmt);
	*out = v;
	*n = cnt;
	return 0;
}

void fc_dm_free_names(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int fc_dm_dev_name(dev_t dev, char *name, size_t len)
{
	struct dm_task *dmt;
	struct dm_info di;
	const char *nm;

	if (!dm_is_dm_major(major(dev)))
		return 0;
	dmt = task(DM_DEVICE_INFO, NULL);
	if (!dmt)
		return -1;
	if (!dm_task_set_major(dmt, major(dev)) || !dm_task_set_minor(dmt, minor(dev)) ||
	    !dm_task_run(dmt) || !dm_task_get_info(dmt, &di) || !di.exists) {
		dm_task_destroy(dmt);
		return -1;
	}
	nm = dm_task_get_name(dmt);
	if (name && len)
		snprintf(name, len, "%s", nm ? nm : "");
	dm_task_destroy(dmt);
	return 1;
}

int fc_dm_has_target(const char *type)
{
	struct dm_task *dmt = task(DM_DEVICE_LIST_VERSIONS, NULL);
	struct dm_versions *v, *last;
	int found = 0;

	if (!dmt)
		return 0;
	if (!dm_task_run(dmt) || !(v = dm_task_get_versions(dmt))) {
		dm_task_destroy(dmt);
		return 0;
	}
	do {
		last = v;
		if (!strcmp(v->name, type))
			found = 1;
		v = (struct dm_versions *)((char *)v + v->next);
	} while (last != v);
	dm_task_destroy(dmt);
	return found;
}
