/* Minimal unit-test helpers: every CHECK prints PASS:/FAIL: lines. */
#ifndef FC_UNIT_H
#define FC_UNIT_H
#include <stdio.h>

static int unit_failed;

#define CHECK(name, cond) do { \
	if (cond) { \
		printf("PASS: %s\n", name); \
	} else { \
		printf("FAIL: %s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
		unit_failed = 1; \
	} \
} while (0)

#endif
