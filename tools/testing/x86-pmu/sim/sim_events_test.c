// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of sim_events.c, the PMU models and event lists of the scheduling
 * simulator: model lookup, events from perf's JSON tables of a kernel tree
 * (argv[1], default ../../../build/linux), raw codes, perf's generic
 * names, explicit masks, the error messages, and the JSON reader on a
 * small hand-made tree with the awkward corners of the format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_events.h"
#include "tap.h"

#define FIX(k)		(1ULL << (SIM_FIXED_BASE + (k)))
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static const char *ksrc = "../../../build/linux";

/* A PMU for the tests; a lookup failure is fatal. */
static struct sim_pmu pmu_of(const char *model, bool ht, int counters)
{
	struct sim_pmu pmu;
	char err[256];

	if (sim_pmu_lookup(model, ht, counters, &pmu, err, sizeof(err))) {
		tap_diag("%s", err);
		tap_result(false, "PMU lookup for the tests");
		exit(tap_finish());
	}
	return pmu;
}

/* @list on @pmu in @tree parses into exactly one event @mask/@corrupting. */
static void one(const struct sim_pmu *pmu, const char *tree,
		const char *list, u64 mask, bool corrupting)
{
	struct sim_event ev[SIM_MAX_EVENTS];
	char err[256] = "", name[160];
	int n;

	n = sim_events_parse(pmu, tree, list, ev, SIM_MAX_EVENTS, err,
			     sizeof(err));
	snprintf(name, sizeof(name), "%s %s -> %#llx%s", pmu->name, list,
		 (unsigned long long)mask, corrupting ? ", corrupting" : "");
	if (n != 1) {
		tap_diag("returned %d: %s", n, err);
		tap_result(false, name);
		return;
	}
	if (ev[0].mask != mask || ev[0].corrupting != corrupting ||
	    strcmp(ev[0].name, list))
		tap_diag("got '%s' %#llx%s", ev[0].name,
			 (unsigned long long)ev[0].mask,
			 ev[0].corrupting ? ", corrupting" : "");
	tap_result(ev[0].mask == mask && ev[0].corrupting == corrupting &&
		   !strcmp(ev[0].name, list), name);
}

/*
 * @list on @pmu fails, leaves @ev alone, and the message holds @needle
 * (the bad token, or a path).
 */
static void bad(const struct sim_pmu *pmu, const char *tree,
		const char *list, const char *needle)
{
	struct sim_event ev[2];
	char err[256] = "", name[160];
	bool ok;
	int n;

	memset(ev, 0x5a, sizeof(ev));
	n = sim_events_parse(pmu, tree, list, ev, 2, err, sizeof(err));
	ok = n == -1 && strstr(err, needle) && ev[0].name[0] == 0x5a;
	snprintf(name, sizeof(name), "%s '%s' is an error naming %s",
		 pmu->name, list, needle);
	if (!ok)
		tap_diag("returned %d: %s", n, err);
	else
		tap_diag("%s", err);
	tap_result(ok, name);
}

static void test_lookup(void)
{
	struct sim_pmu pmu;
	char err[128];
	int r;

	r = sim_pmu_lookup("hsw", true, 0, &pmu, err, sizeof(err));
	tap_result(!r && !strcmp(pmu.name, "hsw") &&
		   !strcmp(pmu.json_dir, "haswell") && pmu.ht &&
		   pmu.nr_gp == 4 && pmu.nr_fixed == 3 && pmu.erratum,
		   "hsw with HT: haswell, 4 GP, 3 fixed, erratum");
	r = sim_pmu_lookup("snb", false, 0, &pmu, err, sizeof(err));
	tap_result(!r && !strcmp(pmu.json_dir, "sandybridge") && !pmu.ht &&
		   pmu.nr_gp == 8 && pmu.nr_fixed == 3 && !pmu.erratum,
		   "snb without HT: sandybridge, 8 GP, no erratum");
	r = sim_pmu_lookup("ivb", true, 0, &pmu, err, sizeof(err));
	tap_result(!r && !strcmp(pmu.json_dir, "ivybridge") &&
		   pmu.nr_gp == 4 && pmu.erratum, "ivb: ivybridge");
	r = sim_pmu_lookup("generic", true, 6, &pmu, err, sizeof(err));
	tap_result(!r && !pmu.json_dir && !strcmp(pmu.name, "generic") &&
		   pmu.ht && pmu.nr_gp == 6 && pmu.nr_fixed == 0 &&
		   !pmu.erratum, "generic --counters 6: 6 GP, no fixed");
	r = sim_pmu_lookup("generic", false, 32, &pmu, err, sizeof(err));
	tap_result(!r && pmu.nr_gp == 32, "generic takes 32 counters");

	r = sim_pmu_lookup("xyz", true, 0, &pmu, err, sizeof(err));
	tap_result(r == -1 && strstr(err, "'xyz'") && strstr(err, "generic"),
		   "unknown model is an error naming it and the models");
	r = sim_pmu_lookup("generic", true, 0, &pmu, err, sizeof(err));
	tap_result(r == -1, "generic without counters is an error");
	r = sim_pmu_lookup("generic", true, 33, &pmu, err, sizeof(err));
	tap_result(r == -1, "generic with 33 counters is an error");
	r = sim_pmu_lookup("hsw", true, 6, &pmu, err, sizeof(err));
	tap_result(r == -1, "counters on an Intel model is an error");
	r = sim_pmu_lookup("hsw", true, 0, &pmu, err, 8);
	tap_result(r == 0, "a short message buffer does no harm");
	r = sim_pmu_lookup("a-very-long-model-name", true, 0, &pmu, err, 8);
	tap_result(r == -1 && strlen(err) == 7,
		   "messages are cut to the buffer");
}

static void test_tables(void)
{
	struct sim_pmu hsw = pmu_of("hsw", true, 0);
	struct sim_pmu hsw8 = pmu_of("hsw", false, 0);
	struct sim_pmu snb = pmu_of("snb", true, 0);
	struct sim_pmu ivb = pmu_of("ivb", true, 0);
	struct sim_pmu ivb8 = pmu_of("ivb", false, 0);

	one(&hsw, ksrc, "MEM_UOPS_RETIRED.ALL_LOADS", 0xf, true);
	one(&hsw, ksrc, "mem_uops_retired.all_loads", 0xf, true);
	one(&hsw, ksrc, "Mem_Uops_Retired.All_Loads:ukp", 0xf, true);
	one(&hsw, ksrc, "r81d0:u", 0xf, true);
	one(&hsw, ksrc, "R81D0", 0xf, true);
	one(&hsw, ksrc, "r08d1", 0xf, true);
	one(&hsw, ksrc, "r20cc", 0xf, false);
	one(&hsw, ksrc, "ROB_MISC_EVENTS.LBR_INSERTS", 0xf, false);
	one(&hsw, ksrc, "resource_stalls.any", 0xf, false);
	one(&hsw, ksrc, "r0148", 0x4, false);	/* L1D_PEND_MISS.PENDING */
	one(&hsw, ksrc, "l1d_pend_miss.pending", 0x4, false);
	one(&hsw, ksrc, "r01c0", 0x2, false); /* INST_RETIRED.PREC_DIST */
	one(&hsw, ksrc, "r01cd", 0x8, false);	/* LOAD_LATENCY_GT_4 */
	one(&hsw, ksrc, "r00d3", 0xf, true);	/* not in the tables */
	one(&hsw, ksrc, "rd4", 0xf, false);
	/*
	 * perf opens these as event=0xc0 and event=0x3c (jevents.py), whose
	 * kernel constraints take the fixed counter and every GP counter;
	 * REF_TSC is the pseudo event 0x0300, fixed counter 2 alone, and
	 * THREAD_ANY (any=1) matches no fixed constraint. The emulated host
	 * showed the first two: InsType's three {INST_RETIRED.ANY, x} groups
	 * ran two at a time.
	 */
	one(&hsw, ksrc, "INST_RETIRED.ANY", FIX(0) | 0xf, false);
	one(&hsw, ksrc, "cpu_clk_unhalted.thread", FIX(1) | 0xf, false);
	one(&hsw, ksrc, "CPU_CLK_UNHALTED.REF_TSC", FIX(2), false);
	one(&hsw, ksrc, "CPU_CLK_UNHALTED.THREAD_ANY", 0xf, false);
	one(&hsw8, ksrc, "MEM_UOPS_RETIRED.ALL_LOADS", 0xff, true);
	one(&hsw8, ksrc, "r20cc", 0xff, false);
	one(&hsw8, ksrc, "r0148", 0x4, false);

	one(&snb, ksrc, "r0148", 0x4, false);	/* L1D_PEND_MISS.PENDING */
	one(&snb, ksrc, "CYCLE_ACTIVITY.CYCLES_L1D_PENDING", 0x4, false);
	one(&snb, ksrc, "MEM_UOPS_RETIRED.ALL_LOADS", 0xf, true);
	one(&snb, ksrc, "r01cd", 0x8, false);
	one(&snb, ksrc, "r01c0", 0x2, false); /* INST_RETIRED.PREC_DIST */
	/* Uncore tables are not read. */
	bad(&snb, ksrc, "UNC_ARB_COH_TRK_OCCUPANCY.ALL",
	    "'UNC_ARB_COH_TRK_OCCUPANCY.ALL'");

	one(&ivb, ksrc, "MEM_UOPS_RETIRED.ALL_LOADS", 0xf, true);
	one(&ivb, ksrc, "mem_uops_retired.all_loads:pp", 0xf, true);
	one(&ivb, ksrc, "r81d0", 0xf, true);
	one(&ivb, ksrc, "MEM_LOAD_UOPS_RETIRED.L1_MISS", 0xf, true);
	one(&ivb, ksrc, "r08a3", 0x4, false);	/* CYCLE_ACTIVITY... */
	one(&ivb8, ksrc, "MEM_UOPS_RETIRED.ALL_LOADS", 0xff, true);
	/* An offcore event: "EventCode": "0xB7, 0xBB", the first counts. */
	one(&ivb, ksrc, "OFFCORE_RESPONSE.ALL_CODE_RD.LLC_HIT.ANY_RESPONSE",
	    0xf, false);
}

static void test_generic_names(void)
{
	struct sim_pmu hsw = pmu_of("hsw", true, 0);
	struct sim_pmu hsw8 = pmu_of("hsw", false, 0);
	struct sim_pmu gen = pmu_of("generic", true, 6), *g = &gen;

	one(&hsw, ksrc, "cycles", 0xf | FIX(1), false);
	one(&hsw, ksrc, "cpu-cycles:u", 0xf | FIX(1), false);
	one(&hsw, ksrc, "CYCLES", 0xf | FIX(1), false);
	one(&hsw, ksrc, "instructions", 0xf | FIX(0), false);
	one(&hsw, ksrc, "ref-cycles", FIX(2), false);
	one(&hsw, ksrc, "branches", 0xf, false);
	one(&hsw, ksrc, "branch-instructions:k", 0xf, false);
	one(&hsw, ksrc, "branch-misses", 0xf, false);
	one(&hsw, ksrc, "cache-references", 0xf, false);
	one(&hsw, ksrc, "cache-misses", 0xf, false);
	one(&hsw, ksrc, "bus-cycles", 0xf, false);
	one(&hsw8, ksrc, "instructions", 0xff | FIX(0), false);

	one(g, ksrc, "r81d0", 0x3f, true);
	one(g, ksrc, "r20cc", 0x3f, false);
	one(g, "/nonexistent", "r0148", 0x3f, false);
	one(g, ksrc, "cycles", 0x3f, false);
	one(g, ksrc, "instructions", 0x3f, false);
	one(g, ksrc, "branches", 0x3f, false);
	bad(g, ksrc, "ref-cycles", "'ref-cycles'");
	bad(g, ksrc, "MEM_UOPS_RETIRED.ALL_LOADS",
	    "'MEM_UOPS_RETIRED.ALL_LOADS'");
}

static void test_lists(void)
{
	struct sim_pmu hsw = pmu_of("hsw", true, 0);
	struct sim_event ev[SIM_MAX_EVENTS];
	char err[256] = "", longname[200];
	int n;

	n = sim_events_parse(&hsw, ksrc,
			     " cycles , r81d0:u,instructions ,\tr20cc", ev,
			     SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == 4 && !strcmp(ev[0].name, "cycles") &&
		   !strcmp(ev[1].name, "r81d0:u") && ev[1].corrupting &&
		   !strcmp(ev[2].name, "instructions") &&
		   ev[2].mask == (0xf | FIX(0)) &&
		   !strcmp(ev[3].name, "r20cc") && !ev[3].corrupting,
		   "a list with blanks around its tokens");

	n = sim_events_parse(&hsw, ksrc, "cycles,cycles", ev, 2, err,
			     sizeof(err));
	tap_result(n == 2, "exactly max events");
	n = sim_events_parse(&hsw, ksrc, "cycles,cycles,branches", ev, 2,
			     err, sizeof(err));
	tap_result(n == -1 && strstr(err, "branches"),
		   "more than max events is an error");
	tap_diag("%s", err);
	n = sim_events_parse(&hsw, ksrc, "cycles", ev, 0, err, sizeof(err));
	tap_result(n == -1, "max 0 takes no event");
	n = sim_events_parse(&hsw, ksrc, "cycles", ev, -1, err, sizeof(err));
	tap_result(n == -1, "max -1 takes no event");

	/* A long token is kept cut, and still looked up in full. */
	snprintf(longname, sizeof(longname), "%s",
		 "OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_HIT.HIT_OTHER_CORE_NO_FWD"
		 ":ukpHGSIDeW");
	n = sim_events_parse(&hsw, ksrc, longname, ev, 1, err, sizeof(err));
	tap_result(n == 1 && strlen(ev[0].name) == 63 &&
		   !strncmp(ev[0].name, longname, 63),
		   "a long token is looked up in full, its name cut to 63");

	bad(&hsw, ksrc, "nosuchevent", "'nosuchevent'");
	bad(&hsw, ksrc, "cycles,nosuchevent:u", "'nosuchevent:u'");
	bad(&hsw, ksrc, "r8x1d0", "'r8x1d0'");
	bad(&hsw, ksrc, "r", "'r'");
	bad(&hsw, ksrc, "r12345", "'r12345'");
	bad(&hsw, ksrc, "r81d0:", "'r81d0:'");
	bad(&hsw, ksrc, "cycles:q", "'cycles:q'");
	bad(&hsw, ksrc, "cycles:u:k", "'cycles:u:k'");
	bad(&hsw, ksrc, ":u", "':u'");
	bad(&hsw, ksrc, "a,,b", "'a,,b'");
	bad(&hsw, ksrc, "x,y,z", "'z'");	/* too many, before unknown */
	bad(&hsw, ksrc, "cycles,", "'cycles,'");
	bad(&hsw, ksrc, "", "empty");
	bad(&hsw, ksrc, "  ", "empty");
	bad(&hsw, ksrc, "mem_uops_retired", "'mem_uops_retired'");
	bad(&hsw, "/nonexistent/tree", "cycles",
	    "/nonexistent/tree/tools/perf/pmu-events/arch/x86/haswell");

	n = sim_events_parse(&hsw, ksrc, "nosuchevent", ev, 1, err, 10);
	tap_result(n == -1 && strlen(err) == 9,
		   "event messages are cut to the buffer");
}

static void test_masks(void)
{
	struct sim_event ev[SIM_MAX_EVENTS];
	char err[128] = "";
	int n;

	n = sim_masks_parse("0x6,0x8,0x9,0xb", ev, SIM_MAX_EVENTS, err,
			    sizeof(err));
	tap_result(n == 4 && ev[0].mask == 0x6 && ev[1].mask == 0x8 &&
		   ev[2].mask == 0x9 && ev[3].mask == 0xb &&
		   !ev[0].corrupting && !ev[3].corrupting &&
		   !strcmp(ev[2].name, "0x9"), "-C 0x6,0x8,0x9,0xb");
	n = sim_masks_parse("0xf:c, 6 ,0x100000000", ev, SIM_MAX_EVENTS, err,
			    sizeof(err));
	tap_result(n == 3 && ev[0].mask == 0xf && ev[0].corrupting &&
		   !strcmp(ev[0].name, "0xf:c") && ev[1].mask == 6 &&
		   !ev[1].corrupting && !strcmp(ev[1].name, "6") &&
		   ev[2].mask == FIX(0), "0xf:c corrupting, decimal, fixed");

	n = sim_masks_parse("0x0", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1 && strstr(err, "'0x0'"), "mask 0x0 is an error");
	n = sim_masks_parse("0x6,zz", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1 && strstr(err, "'zz'"), "mask zz is an error");
	n = sim_masks_parse("0x6q", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1 && strstr(err, "'0x6q'"), "mask 0x6q is an error");
	tap_diag("%s", err);
	n = sim_masks_parse("0x6:x", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1 && strstr(err, "'0x6:x'"),
		   "mask modifier other than c is an error");
	n = sim_masks_parse("-1", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1 && strstr(err, "'-1'"), "negative mask is an error");
	n = sim_masks_parse("0x", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1 && strstr(err, "'0x'"), "mask 0x is an error");
	n = sim_masks_parse("0x1ffffffffffffffff", ev, SIM_MAX_EVENTS, err,
			    sizeof(err));
	tap_result(n == -1, "mask beyond 64 bits is an error");
	n = sim_masks_parse("0x1,,0x2", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1, "empty mask is an error");
	n = sim_masks_parse("", ev, SIM_MAX_EVENTS, err, sizeof(err));
	tap_result(n == -1, "empty mask list is an error");
	n = sim_masks_parse("1,2,3", ev, 2, err, sizeof(err));
	tap_result(n == -1 && strstr(err, "'3'"),
		   "more than max masks is an error");
}

/* ---- a hand-made tree for the JSON reader ---- */

static char fake[64];

static const char *const fake_files[][2] = {
	{ "pipeline.json",
	  "\xef\xbb\xbf[\n"
	  "  {\n"
	  "    \"BriefDescription\": \"quote \\\" brace } bracket ] \\\\\",\n"
	  "    \"Counter\": \"2\",\n"
	  "    \"EventCode\": \"0x3c\",\n"
	  "    \"EventName\": \"ESC.\\u0041\\u00e9\\ud83d\\ude00\",\n"
	  "    \"Errata\": \"XHSD290, HSD29\",\n"
	  "    \"UMask\": \"0x1\"\n"
	  "  },\n"
	  "  {\"EventName\":\"NUM.EV\",\"EventCode\":60,\"UMask\":2,"
	  "\"Counter\":1,\"Deprecated\":true,"
	  "\"Nested\":{\"a\":[1,{\"b\":null}]},"
	  "\"Extra\":-1.5e3},\n"
	  "  {\"EventName\": \"ERR.NEAR\", \"EventCode\": \"0x3c\","
	  " \"UMask\": \"0x4\", \"Errata\": \"HSD290, BJ1220\"},\n"
	  "  {\"EventName\": \"ERR.BJ\", \"EventCode\": \"0x3c\","
	  " \"UMask\": \"0x8\", \"Errata\": \"bj122\"},\n"
	  "  {\"EventName\": \"DUP\", \"Counter\": \"1\", \"Counter\": \"3\","
	  " \"EventCode\": \"0x3c\", \"UMask\": \"0x10\"},\n"
	  "  {\"EventName\": \"OFF\", \"EventCode\": \"0xd1, 0xBB\","
	  " \"UMask\": \"0x20\", \"Counter\": \"0,1\"},\n"
	  "  {\"EventName\": \"\\/SLASH\\/\","
	  " \"Counter\": \"Fixed counter 1\"},\n"
	  "  {\"BriefDescription\": \"no name\"},\n"
	  "  {},\n"
	  "  \"not an object\",\n"
	  "  [1, 2]\n"
	  "]\n" },
	/* Files the reader must not even open: they would not parse. */
	{ "hsw-metrics.json", "{ broken" },
	{ "metricgroups.json", "{ broken" },
	{ "counter.json", "{ broken" },
	{ "uncore-cache.json", "{ broken" },
	{ "notes.txt", "{ broken" },
	{ "empty.json", "[ ]" },
};

/* The directories above the model directories, outermost first. */
static const char *const fake_dirs[] = {
	"", "/tools", "/tools/perf", "/tools/perf/pmu-events",
	"/tools/perf/pmu-events/arch", "/tools/perf/pmu-events/arch/x86",
};
static const char *const fake_models[] = {
	"haswell", "ivybridge", "sandybridge",
};

/* Path of @file (or the directory, if NULL) of @model in the fake tree. */
static char *fake_path(const char *model, const char *file)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s%s/%s%s%s", fake,
		 fake_dirs[ARRAY_LEN(fake_dirs) - 1], model, file ? "/" : "",
		 file ? file : "");
	return path;
}

static bool fake_write(const char *model, const char *file, const char *text)
{
	FILE *f = fopen(fake_path(model, file), "w");

	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

/* Make the tree: haswell as above, ivybridge and sandybridge broken. */
static bool fake_make(void)
{
	char path[256];
	size_t i;

	snprintf(fake, sizeof(fake), "/tmp/sim_events_test.XXXXXX");
	if (!mkdtemp(fake))
		return false;
	for (i = 1; i < ARRAY_LEN(fake_dirs); i++) {
		snprintf(path, sizeof(path), "%s%s", fake, fake_dirs[i]);
		if (mkdir(path, 0700))
			return false;
	}
	for (i = 0; i < ARRAY_LEN(fake_models); i++)
		if (mkdir(fake_path(fake_models[i], NULL), 0700))
			return false;
	for (i = 0; i < ARRAY_LEN(fake_files); i++)
		if (!fake_write("haswell", fake_files[i][0], fake_files[i][1]))
			return false;
	return fake_write("ivybridge", "cache.json",
			  "[\n{\"EventName\": \"A\"},\n"
			  "{\"EventName\" \"B\"}\n]") &&
	       fake_write("sandybridge", "cache.json",
			  "[{\"EventName\": \"A\\q\"}]");
}

/* Remove whatever fake_make() made. */
static void fake_remove(void)
{
	char path[256];
	size_t i;

	if (!fake[0])
		return;
	for (i = 0; i < ARRAY_LEN(fake_files); i++)
		unlink(fake_path("haswell", fake_files[i][0]));
	unlink(fake_path("ivybridge", "cache.json"));
	unlink(fake_path("sandybridge", "cache.json"));
	for (i = 0; i < ARRAY_LEN(fake_models); i++)
		rmdir(fake_path(fake_models[i], NULL));
	for (i = ARRAY_LEN(fake_dirs); i-- > 0; ) {
		snprintf(path, sizeof(path), "%s%s", fake, fake_dirs[i]);
		rmdir(path);
	}
}

static void test_json(void)
{
	struct sim_pmu hsw = pmu_of("hsw", true, 0);
	struct sim_pmu ivb = pmu_of("ivb", true, 0);
	struct sim_pmu snb = pmu_of("snb", true, 0);

	if (!tap_result(fake_make(), "make a hand-made table tree")) {
		fake_remove();
		return;
	}
	one(&hsw, fake, "ESC.A\xc3\xa9\xf0\x9f\x98\x80", 0x4, true);
	one(&hsw, fake, "r013c", 0x4, true);
	one(&hsw, fake, "NUM.EV", 0x2, false);
	one(&hsw, fake, "r023c", 0x2, false);
	one(&hsw, fake, "ERR.NEAR", 0xf, false);
	one(&hsw, fake, "err.bj", 0xf, true);
	one(&hsw, fake, "DUP", 0x8, false);
	one(&hsw, fake, "OFF", 0x3, true);
	one(&hsw, fake, "r20d1", 0x3, true);
	one(&hsw, fake, "/SLASH/", FIX(1), false);
	one(&hsw, fake, "r20cc", 0xf, false);
	bad(&hsw, fake, "MEM_UOPS_RETIRED.ALL_LOADS",
	    "'MEM_UOPS_RETIRED.ALL_LOADS'");
	bad(&ivb, fake, "cycles", "ivybridge/cache.json:3");
	bad(&snb, fake, "cycles", "sandybridge/cache.json");

	/* The real tree again, after the cache held the hand-made one. */
	one(&hsw, ksrc, "MEM_UOPS_RETIRED.ALL_LOADS", 0xf, true);
	one(&ivb, ksrc, "r81d0", 0xf, true);
	fake_remove();
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ksrc = argv[1];
	tap_diag("kernel tree %s", ksrc);

	test_lookup();
	test_tables();
	test_generic_names();
	test_lists();
	test_masks();
	test_json();
	return tap_finish();
}
