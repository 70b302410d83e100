// SPDX-License-Identifier: GPL-2.0
/*
 * Replays inputs through a libFuzzer target without libFuzzer: each
 * argument is a file or a directory of files, each file one input handed
 * to LLVMFuzzerTestOneInput().  Built with the system compiler and
 * ASan/UBSan by `make fuzz-replay` (suite 10), so every `make check` runs
 * the seed corpora through the harnesses: a message or option the parsers
 * learn without the harness learning it fails there, not months later in
 * `make fuzz` (docs/testing-details.md, "Fuzzing").  A broken invariant
 * aborts, as under libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long inputs;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		fclose(f);
		return -1;
	}
	/* one byte more: an empty input is still a buffer */
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	inputs++;
	return 0;
}

static int replay(const char *path)
{
	struct dirent *d;
	struct stat st;
	char sub[4096];
	DIR *dir;
	int r = 0;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	dir = opendir(path);
	if (!dir) {
		perror(path);
		return -1;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name);
		if (replay(sub))
			r = -1;
	}
	closedir(dir);
	return r;
}

int main(int argc, char **argv)
{
	int i, r = 0;

	for (i = 1; i < argc; i++)
		if (replay(argv[i]))
			r = 1;
	printf("%lu inputs replayed\n", inputs);
	return r || !inputs;
}
