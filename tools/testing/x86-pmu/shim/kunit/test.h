/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <kunit/test.h>, so that the kernel's KUnit
 * suites (arch/x86/events/counter_match_kunit.c, intel/xsu_kunit.c) build
 * unchanged into programs of the harness. kunit_test_suites() registers
 * the suites from a constructor; kunit_main.c runs every case and prints
 * KTAP as the kernel does; the program exits non-zero when a case failed.
 *
 * What behaves as in the kernel: KUNIT_CASE, struct kunit_suite with its
 * init/exit hooks, the EXPECT/ASSERT macros and their _MSG forms (each
 * argument evaluated once; an ASSERT ends the case), KUNIT_FAIL,
 * kunit_skip()/kunit_mark_skipped(), kunit_kzalloc() and friends (freed
 * when the case ends), the failure messages and the KTAP layout.
 *
 * Where it differs: a case runs on the program's main thread, not in a
 * kthread, and an ASSERT leaves it by longjmp(); a kernel warning (WARN_ON,
 * the shim's lock check) during a case fails the case, as the project
 * fails a boot whose console shows one; a case that crashes ends the
 * program; at most KUNIT_SHIM_MAX_REPORTS failure reports are printed per
 * case, the rest are counted; no parameterised cases, attributes or
 * static stubs.
 */
#ifndef _SHIM_KUNIT_TEST_H
#define _SHIM_KUNIT_TEST_H

#include <setjmp.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

#define KUNIT_SHIM_MAX_REPORTS	20

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

struct kunit;

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	/* private: set by the runner */
	enum kunit_status status;
};

#define KUNIT_CASE(test_name)	{ .run_case = test_name, .name = #test_name }
#define KUNIT_CASE_SLOW(test_name)	KUNIT_CASE(test_name)

struct kunit_suite {
	const char name[256];
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
};

struct kunit_shim_alloc;

struct kunit {
	void *priv;
	/* private: the runner's */
	const char *name;
	enum kunit_status status;
	char status_comment[256];
	struct kunit_shim_alloc *allocs;
	jmp_buf *abort;
	unsigned long reports;
};

void kunit_shim_register(struct kunit_suite *const *suites, int n);

#define __kunit_shim_cat2(a, b)	a##b
#define __kunit_shim_cat(a, b)	__kunit_shim_cat2(a, b)
#define __kunit_shim_id(prefix)	__kunit_shim_cat(prefix, __LINE__)

/* Registers the suites when the program starts; takes the trailing ';'. */
#define kunit_test_suites(...)						\
	static struct kunit_suite *const __kunit_shim_id(__kunit_suites_)[] = \
		{ __VA_ARGS__ };					\
	static void __attribute__((constructor))			\
	__kunit_shim_id(__kunit_register_)(void)			\
	{								\
		kunit_shim_register(__kunit_shim_id(__kunit_suites_),	\
				    ARRAY_SIZE(__kunit_shim_id(__kunit_suites_))); \
	}								\
	extern int shim_module_info

#define kunit_test_suite(suite)	kunit_test_suites(&suite)

/* Memory that lives until the case ends. */
void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp);
void kunit_kfree(struct kunit *test, const void *ptr);

static inline void *kunit_kmalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	void *p = kunit_kmalloc(test, size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  gfp_t gfp)
{
	void *p = kunit_kmalloc_array(test, n, size, gfp);

	if (p)
		memset(p, 0, n * size);
	return p;
}

/* The runner's side of a failure; see kunit_main.c. */
void __kunit_shim_fail_begin(struct kunit *test, bool assert,
			     const char *file, int line);
void __kunit_shim_log(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void __kunit_shim_msg(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void __kunit_shim_fail_end(struct kunit *test, bool assert);
void __kunit_shim_abort(struct kunit *test) __attribute__((noreturn));
void kunit_shim_mark_skipped(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The user's message of a _MSG form, if any: no format, no message. */
#define __kunit_shim_user_msg(test, ...)				\
	__VA_OPT__(__kunit_shim_msg(test, __VA_ARGS__))

#define KUNIT_SHIM_BINARY_INT(test, assert, left, op, right, ...) do {	\
	const typeof(left) __left = (left);				\
	const typeof(right) __right = (right);				\
									\
	if (!(__left op __right)) {					\
		__kunit_shim_fail_begin(test, assert, __FILE__, __LINE__); \
		__kunit_shim_log(test, "Expected %s %s %s, but",	\
				 #left, #op, #right);			\
		__kunit_shim_log(test, "    %s == %lld (%#llx)", #left,	\
				 (long long)__left,			\
				 (unsigned long long)__left);		\
		__kunit_shim_log(test, "    %s == %lld (%#llx)", #right,	\
				 (long long)__right,			\
				 (unsigned long long)__right);		\
		__kunit_shim_user_msg(test, __VA_ARGS__);		\
		__kunit_shim_fail_end(test, assert);			\
	}								\
} while (0)

#define KUNIT_SHIM_BINARY_PTR(test, assert, left, op, right, ...) do {	\
	const void *const __left = (left);				\
	const void *const __right = (right);				\
									\
	if (!(__left op __right)) {					\
		__kunit_shim_fail_begin(test, assert, __FILE__, __LINE__); \
		__kunit_shim_log(test, "Expected %s %s %s, but",	\
				 #left, #op, #right);			\
		__kunit_shim_log(test, "    %s == %p", #left, __left);	\
		__kunit_shim_log(test, "    %s == %p", #right, __right);	\
		__kunit_shim_user_msg(test, __VA_ARGS__);		\
		__kunit_shim_fail_end(test, assert);			\
	}								\
} while (0)

#define KUNIT_SHIM_BOOL(test, assert, cond, expect, ...) do {		\
	if ((!!(cond)) != (expect)) {					\
		__kunit_shim_fail_begin(test, assert, __FILE__, __LINE__); \
		__kunit_shim_log(test, "Expected %s to be %s, but is %s",	\
				 #cond, (expect) ? "true" : "false",	\
				 (expect) ? "false" : "true");		\
		__kunit_shim_user_msg(test, __VA_ARGS__);		\
		__kunit_shim_fail_end(test, assert);			\
	}								\
} while (0)

#define KUNIT_SHIM_STR(test, assert, left, op, right, ...) do {		\
	const char *__left = (left);					\
	const char *__right = (right);					\
									\
	if (!(strcmp(__left, __right) op 0)) {				\
		__kunit_shim_fail_begin(test, assert, __FILE__, __LINE__); \
		__kunit_shim_log(test, "Expected %s %s %s, but",	\
				 #left, #op, #right);			\
		__kunit_shim_log(test, "    %s == \"%s\"", #left, __left);	\
		__kunit_shim_log(test, "    %s == \"%s\"", #right, __right); \
		__kunit_shim_user_msg(test, __VA_ARGS__);		\
		__kunit_shim_fail_end(test, assert);			\
	}								\
} while (0)

#define KUNIT_SUCCEED(test)	do { } while (0)

#define KUNIT_FAIL(test, ...) do {					\
	__kunit_shim_fail_begin(test, false, __FILE__, __LINE__);	\
	__kunit_shim_msg(test, __VA_ARGS__);				\
	__kunit_shim_fail_end(test, false);				\
} while (0)

#define kunit_mark_skipped(test, ...)					\
	kunit_shim_mark_skipped(test, __VA_ARGS__)

#define kunit_skip(test, ...) do {					\
	kunit_shim_mark_skipped(test, __VA_ARGS__);			\
	__kunit_shim_abort(test);					\
} while (0)

/* Expectations: a failure is reported and the case goes on. */
#define KUNIT_EXPECT_TRUE(test, c)	KUNIT_SHIM_BOOL(test, false, c, true)
#define KUNIT_EXPECT_FALSE(test, c)	KUNIT_SHIM_BOOL(test, false, c, false)
#define KUNIT_EXPECT_EQ(test, l, r)	KUNIT_SHIM_BINARY_INT(test, false, l, ==, r)
#define KUNIT_EXPECT_NE(test, l, r)	KUNIT_SHIM_BINARY_INT(test, false, l, !=, r)
#define KUNIT_EXPECT_LT(test, l, r)	KUNIT_SHIM_BINARY_INT(test, false, l, <, r)
#define KUNIT_EXPECT_LE(test, l, r)	KUNIT_SHIM_BINARY_INT(test, false, l, <=, r)
#define KUNIT_EXPECT_GT(test, l, r)	KUNIT_SHIM_BINARY_INT(test, false, l, >, r)
#define KUNIT_EXPECT_GE(test, l, r)	KUNIT_SHIM_BINARY_INT(test, false, l, >=, r)
#define KUNIT_EXPECT_PTR_EQ(test, l, r)	KUNIT_SHIM_BINARY_PTR(test, false, l, ==, r)
#define KUNIT_EXPECT_PTR_NE(test, l, r)	KUNIT_SHIM_BINARY_PTR(test, false, l, !=, r)
#define KUNIT_EXPECT_NULL(test, p)	KUNIT_SHIM_BINARY_PTR(test, false, p, ==, NULL)
#define KUNIT_EXPECT_NOT_NULL(test, p)	KUNIT_SHIM_BINARY_PTR(test, false, p, !=, NULL)
#define KUNIT_EXPECT_STREQ(test, l, r)	KUNIT_SHIM_STR(test, false, l, ==, r)
#define KUNIT_EXPECT_STRNEQ(test, l, r)	KUNIT_SHIM_STR(test, false, l, !=, r)

#define KUNIT_EXPECT_TRUE_MSG(test, c, ...)	KUNIT_SHIM_BOOL(test, false, c, true, __VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(test, c, ...)	KUNIT_SHIM_BOOL(test, false, c, false, __VA_ARGS__)
#define KUNIT_EXPECT_EQ_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, false, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, false, l, !=, r, __VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, false, l, <, r, __VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, false, l, <=, r, __VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, false, l, >, r, __VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, false, l, >=, r, __VA_ARGS__)
#define KUNIT_EXPECT_PTR_EQ_MSG(test, l, r, ...) KUNIT_SHIM_BINARY_PTR(test, false, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_NULL_MSG(test, p, ...)	KUNIT_SHIM_BINARY_PTR(test, false, p, ==, NULL, __VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL_MSG(test, p, ...)	KUNIT_SHIM_BINARY_PTR(test, false, p, !=, NULL, __VA_ARGS__)
#define KUNIT_EXPECT_STREQ_MSG(test, l, r, ...)	KUNIT_SHIM_STR(test, false, l, ==, r, __VA_ARGS__)

/* Assertions: a failure is reported and the case ends. */
#define KUNIT_ASSERT_TRUE(test, c)	KUNIT_SHIM_BOOL(test, true, c, true)
#define KUNIT_ASSERT_FALSE(test, c)	KUNIT_SHIM_BOOL(test, true, c, false)
#define KUNIT_ASSERT_EQ(test, l, r)	KUNIT_SHIM_BINARY_INT(test, true, l, ==, r)
#define KUNIT_ASSERT_NE(test, l, r)	KUNIT_SHIM_BINARY_INT(test, true, l, !=, r)
#define KUNIT_ASSERT_LT(test, l, r)	KUNIT_SHIM_BINARY_INT(test, true, l, <, r)
#define KUNIT_ASSERT_LE(test, l, r)	KUNIT_SHIM_BINARY_INT(test, true, l, <=, r)
#define KUNIT_ASSERT_GT(test, l, r)	KUNIT_SHIM_BINARY_INT(test, true, l, >, r)
#define KUNIT_ASSERT_GE(test, l, r)	KUNIT_SHIM_BINARY_INT(test, true, l, >=, r)
#define KUNIT_ASSERT_PTR_EQ(test, l, r)	KUNIT_SHIM_BINARY_PTR(test, true, l, ==, r)
#define KUNIT_ASSERT_PTR_NE(test, l, r)	KUNIT_SHIM_BINARY_PTR(test, true, l, !=, r)
#define KUNIT_ASSERT_NULL(test, p)	KUNIT_SHIM_BINARY_PTR(test, true, p, ==, NULL)
#define KUNIT_ASSERT_NOT_NULL(test, p)	KUNIT_SHIM_BINARY_PTR(test, true, p, !=, NULL)
#define KUNIT_ASSERT_STREQ(test, l, r)	KUNIT_SHIM_STR(test, true, l, ==, r)

#define KUNIT_ASSERT_TRUE_MSG(test, c, ...)	KUNIT_SHIM_BOOL(test, true, c, true, __VA_ARGS__)
#define KUNIT_ASSERT_FALSE_MSG(test, c, ...)	KUNIT_SHIM_BOOL(test, true, c, false, __VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, true, l, ==, r, __VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, true, l, !=, r, __VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, true, l, <, r, __VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, true, l, <=, r, __VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, true, l, >, r, __VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(test, l, r, ...)	KUNIT_SHIM_BINARY_INT(test, true, l, >=, r, __VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL_MSG(test, p, ...)	KUNIT_SHIM_BINARY_PTR(test, true, p, !=, NULL, __VA_ARGS__)

#endif
