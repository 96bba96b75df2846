// SPDX-License-Identifier: GPL-2.0
/*
 * The runner of the user-space KUnit shim (shim/kunit/test.h): runs every
 * case of every suite the program's kunit_test_suites() registered and
 * prints KTAP as the kernel's KUnit does. Exits 1 when a case failed.
 *
 *   prog [GLOB]    only the suites, or "suite.case"s, that match GLOB
 *                  (as kunit.filter_glob)
 */
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kunit/test.h>

#define KUNIT_SHIM_MAX_SUITES	16

struct kunit_shim_alloc {
	struct kunit_shim_alloc *next;
	void *ptr;
};

static struct kunit_suite *suites[KUNIT_SHIM_MAX_SUITES];
static int nr_suites;

void kunit_shim_register(struct kunit_suite *const *list, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (nr_suites == KUNIT_SHIM_MAX_SUITES) {
			fprintf(stderr, "kunit shim: too many suites\n");
			exit(2);
		}
		suites[nr_suites++] = list[i];
	}
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp)
{
	struct kunit_shim_alloc *a;

	if (size && n > SIZE_MAX / size)
		return NULL;
	a = malloc(sizeof(*a));
	if (!a)
		return NULL;
	a->ptr = malloc(n && size ? n * size : 1);
	if (!a->ptr) {
		free(a);
		return NULL;
	}
	a->next = test->allocs;
	test->allocs = a;
	return a->ptr;
}

void kunit_kfree(struct kunit *test, const void *ptr)
{
	struct kunit_shim_alloc **p, *a;

	for (p = &test->allocs; (a = *p); p = &a->next) {
		if (a->ptr == ptr) {
			*p = a->next;
			free(a->ptr);
			free(a);
			return;
		}
	}
	KUNIT_FAIL(test, "kunit_kfree() of %p, which the test did not allocate",
		   ptr);
}

static void kunit_shim_free_all(struct kunit *test)
{
	struct kunit_shim_alloc *a;

	while ((a = test->allocs)) {
		test->allocs = a->next;
		free(a->ptr);
		free(a);
	}
}

static bool kunit_shim_quiet(struct kunit *test)
{
	return test->reports > KUNIT_SHIM_MAX_REPORTS;
}

void __kunit_shim_fail_begin(struct kunit *test, bool assert,
			     const char *file, int line)
{
	test->status = KUNIT_FAILURE;
	if (++test->reports > KUNIT_SHIM_MAX_REPORTS)
		return;
	printf("    # %s: %s FAILED at %s:%d\n", test->name,
	       assert ? "ASSERTION" : "EXPECTATION", file, line);
}

static void kunit_shim_vlog(struct kunit *test, const char *indent,
			    const char *fmt, va_list ap)
{
	if (kunit_shim_quiet(test))
		return;
	fputs(indent, stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
}

void __kunit_shim_log(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kunit_shim_vlog(test, "    ", fmt, ap);
	va_end(ap);
}

void __kunit_shim_msg(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kunit_shim_vlog(test, "    ", fmt, ap);
	va_end(ap);
}

void __kunit_shim_abort(struct kunit *test)
{
	longjmp(*test->abort, 1);
}

void __kunit_shim_fail_end(struct kunit *test, bool assert)
{
	fflush(stdout);
	if (assert)
		__kunit_shim_abort(test);
}

void kunit_shim_mark_skipped(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	if (test->status == KUNIT_FAILURE)
		return;
	test->status = KUNIT_SKIPPED;
	va_start(ap, fmt);
	vsnprintf(test->status_comment, sizeof(test->status_comment), fmt, ap);
	va_end(ap);
}

static const char *filter_suite = "*", *filter_case = "*";

/* The case running, for a crash to be reported against it. */
static const char *crash_case;
static int crash_nr;

/*
 * A case that crashes (a sanitizer's abort, a segfault) ends the program,
 * where the kernel would end the case's kthread, and so does one that is
 * killed (timeout(1)'s SIGTERM: it hangs): the case is reported failed
 * first, then the signal does what it would have done.
 */
static void crash_handler(int sig)
{
	static char buf[512];
	int n;

	fflush(stdout);
	n = snprintf(buf, sizeof(buf),
		     "    # %s: %s (signal %d), the program ends here\n    not ok %d %s\n",
		     crash_case ? crash_case : "?",
		     sig == SIGTERM ? "killed" : "crashed", sig, crash_nr,
		     crash_case ? crash_case : "?");
	if (crash_case && n > 0 && write(STDOUT_FILENO, buf, n) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A sanitizer's report ends in abort(), so that the case is named. */
const char *__asan_default_options(void)
{
	return "abort_on_error=1";
}

const char *__ubsan_default_options(void)
{
	return "abort_on_error=1:print_stacktrace=1";
}

static void catch_crashes(void)
{
	static const int sigs[] = {
		SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], crash_handler);
}

static bool suite_selected(const struct kunit_suite *suite)
{
	return !fnmatch(filter_suite, suite->name, 0);
}

static bool case_selected(const struct kunit_case *c)
{
	return !fnmatch(filter_case, c->name, 0);
}

/* Runs one case in @test; returns its status. */
static enum kunit_status run_case(struct kunit_suite *suite,
				  struct kunit_case *c, struct kunit *test)
{
	unsigned long warned = __atomic_load_n(&shim_warnings, __ATOMIC_RELAXED);
	jmp_buf abort;

	memset(test, 0, sizeof(*test));
	test->name = c->name;
	test->status = KUNIT_SUCCESS;
	test->abort = &abort;

	if (!setjmp(abort)) {
		if (!suite->init || !suite->init(test))
			c->run_case(test);
		else
			KUNIT_FAIL(test, "the suite's init failed");
	}
	/* An ASSERT may have left "interrupts" off. */
	shim_irqs_off = false;
	shim_in_hardirq = false;
	if (suite->exit && !setjmp(abort))
		suite->exit(test);
	shim_irqs_off = false;
	kunit_shim_free_all(test);

	if (__atomic_load_n(&shim_warnings, __ATOMIC_RELAXED) != warned) {
		test->status = KUNIT_FAILURE;
		printf("    # %s: a kernel warning was printed during the case (see stderr)\n",
		       c->name);
	}
	if (test->reports > KUNIT_SHIM_MAX_REPORTS)
		printf("    # %s: %lu failure reports, the first %d shown\n",
		       c->name, test->reports, KUNIT_SHIM_MAX_REPORTS);
	return test->status;
}

/* Returns true when every selected case passed or was skipped. */
static bool run_suite(struct kunit_suite *suite, int nr)
{
	unsigned long pass = 0, fail = 0, skip = 0;
	struct kunit_case *c;
	struct kunit test;
	int n = 0, i = 0;

	for (c = suite->test_cases; c->run_case; c++)
		n += case_selected(c);

	printf("    KTAP version 1\n");
	printf("    # Subtest: %s\n", suite->name);
	printf("    1..%d\n", n);
	fflush(stdout);

	if (suite->suite_init && suite->suite_init(suite)) {
		printf("    # %s: suite_init failed\n", suite->name);
		printf("not ok %d %s\n", nr, suite->name);
		return false;
	}
	for (c = suite->test_cases; c->run_case; c++) {
		if (!case_selected(c))
			continue;
		crash_case = c->name;
		crash_nr = ++i;
		c->status = run_case(suite, c, &test);
		crash_case = NULL;
		switch (c->status) {
		case KUNIT_SUCCESS:
			printf("    ok %d %s\n", i, c->name);
			pass++;
			break;
		case KUNIT_SKIPPED:
			printf("    ok %d %s # SKIP %s\n", i, c->name,
			       test.status_comment);
			skip++;
			break;
		case KUNIT_FAILURE:
			printf("    not ok %d %s\n", i, c->name);
			fail++;
			break;
		}
		fflush(stdout);
	}
	if (suite->suite_exit)
		suite->suite_exit(suite);

	printf("# %s: pass:%lu fail:%lu skip:%lu total:%d\n", suite->name,
	       pass, fail, skip, n);
	printf("# Totals: pass:%lu fail:%lu skip:%lu total:%d\n", pass, fail,
	       skip, n);
	if (fail)
		printf("not ok %d %s\n", nr, suite->name);
	else if (n && skip == (unsigned long)n)
		printf("ok %d %s # SKIP\n", nr, suite->name);
	else
		printf("ok %d %s\n", nr, suite->name);
	fflush(stdout);
	return !fail;
}

int main(int argc, char **argv)
{
	static char glob[512];
	bool ok = true;
	int i, n = 0, nr = 0;
	char *dot;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [SUITE_GLOB[.CASE_GLOB]]\n", argv[0]);
		return 2;
	}
	if (argc == 2) {
		snprintf(glob, sizeof(glob), "%s", argv[1]);
		filter_suite = glob;
		dot = strchr(glob, '.');
		if (dot) {
			*dot = '\0';
			filter_case = dot + 1;
		}
	}

	catch_crashes();
	for (i = 0; i < nr_suites; i++)
		n += suite_selected(suites[i]);
	printf("KTAP version 1\n1..%d\n", n);
	for (i = 0; i < nr_suites; i++)
		if (suite_selected(suites[i]))
			ok &= run_suite(suites[i], ++nr);
	return ok && n ? 0 : 1;
}
