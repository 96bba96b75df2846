// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the simulator's SVG timeline (sim_svg.c): synthetic timelines
 * are written, parsed as XML, rendered with rsvg-convert, and searched for
 * the marks they must carry; bad timelines and paths must fail cleanly.
 * Usage: sim_svg_test [output directory, default /tmp]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_svg.h"
#include "tap.h"

#define NR_GP		4
#define NR_FIXED	3
#define ROWS		(NR_GP + NR_FIXED)
#define EXAMPLE_PNG	"/tmp/sim_svg_example.png"

/* Read a whole file into a NUL-terminated buffer (NULL on failure). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf) {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* Run a shell command; true if it exited 0. */
static bool run(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd) == 0;
}

/* The file parses as XML (Python's minidom, i.e. expat). */
static bool parses(const char *svg)
{
	return run("python3 -c 'import sys,xml.dom.minidom; "
		   "xml.dom.minidom.parse(sys.argv[1])' '%s'%s", svg, "");
}

/* rsvg-convert renders the file to a PNG larger than 1 KB. */
static bool renders(const char *svg, const char *png)
{
	remove(png);
	if (!run("rsvg-convert -o '%s' '%s'", png, svg))
		return false;
	return file_size(png) > 1024;
}

static void set(struct sim_timeline *tl, int th, int r, int from, int to,
		int event)
{
	int t;

	for (t = from; t <= to; t++)
		SIM_CELL(tl, t, th, r).event = event;
}

static void set_state(struct sim_timeline *tl, int th, int r, int from,
		      int to, int state)
{
	int t;

	for (t = from; t <= to; t++)
		SIM_CELL(tl, t, th, r).state = state;
}

static void clear(struct sim_timeline *tl)
{
	int i, n = tl->ticks * 2 * (tl->nr_gp + tl->nr_fixed);

	for (i = 0; i < n; i++) {
		tl->cells[i].event = -1;
		tl->cells[i].state = SIM_U;
	}
}

static const struct sim_event ev0[] = {
	{ "MEM_UOPS_RETIRED.ALL_LOADS", 0xf, true },
	{ "cycles", 0xfULL | 1ULL << (SIM_FIXED_BASE + 1), false },
	{ "instructions", 0xfULL | 1ULL << SIM_FIXED_BASE, false },
};

static const struct sim_event ev1[] = {
	{ "branches", 0xf, false },
	{ "r01d1", 0xf, true },
	{ "cycles", 0xfULL | 1ULL << (SIM_FIXED_BASE + 1), false },
};

/*
 * 40 ticks. HT0: a corrupting load event on c0 for ticks 0-29, cycles on
 * f1 throughout, instructions on c1 then f0. HT1: branches on c0 during
 * ticks 20-35 (exposed during 20-29), a corrupting r01d1 on c2, cycles on
 * c3. XSU: HT1's c0 is X while HT0 counts the corrupting event, HT0's c2
 * is X while HT1 counts r01d1 and S on some idle cells.
 */
static void build_xsu(struct sim_timeline *tl)
{
	clear(tl);
	set(tl, 0, 0, 0, 29, 0);
	set(tl, 0, NR_GP + 1, 0, 39, 1);
	set(tl, 0, 1, 5, 24, 2);
	set(tl, 0, NR_GP + 0, 25, 39, 2);
	set(tl, 1, 0, 20, 35, 0);
	set(tl, 1, 2, 8, 17, 1);
	set(tl, 1, 3, 0, 39, 2);

	set_state(tl, 1, 0, 0, 19, SIM_X);
	set_state(tl, 0, 2, 8, 17, SIM_X);
	set_state(tl, 1, 1, 30, 39, SIM_S);
	set_state(tl, 0, 3, 0, 9, SIM_S);
	set_state(tl, 0, 1, 5, 14, SIM_S);
}

static void test_xsu(const char *dir)
{
	static struct sim_cell cells[40 * 2 * ROWS];
	struct sim_timeline tl = {
		.title = "hsw, HT on, matcher hk, XSU series",
		.ticks = 40, .nr_gp = NR_GP, .nr_fixed = NR_FIXED,
		.xsu = true,
		.nr_events = { 3, 3 }, .events = { ev0, ev1 },
		.cells = cells,
	};
	char svg[512], png[512], err[256] = "junk";
	char *s;

	build_xsu(&tl);
	snprintf(svg, sizeof(svg), "%s/sim_svg_xsu.svg", dir);
	snprintf(png, sizeof(png), "%s/sim_svg_xsu.png", dir);
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == 0,
		   "xsu timeline: written");
	tap_result(!err[0], "xsu timeline: no message on success");
	tap_result(parses(svg), "xsu timeline: well-formed XML");
	tap_result(renders(svg, png), "xsu timeline: rsvg-convert renders it");
	tap_result(renders(svg, EXAMPLE_PNG), "example PNG " EXAMPLE_PNG);

	s = slurp(svg);
	if (!tap_result(s, "xsu timeline: read back"))
		return;
	tap_result(strstr(s, "xmlns=\"http://www.w3.org/2000/svg\"") &&
		   strstr(s, "viewBox=\"0 0 ") && strstr(s, " width=\""),
		   "xsu timeline: xmlns, width and viewBox set");
	tap_result(strstr(s, "hsw, HT on, matcher hk, XSU series"),
		   "xsu timeline: title");
	tap_result(strstr(s, ">MEM_UOPS_RETIRED.ALL_LOADS (corrupting)<") &&
		   strstr(s, ">r01d1 (corrupting)<") &&
		   strstr(s, ">branches<") && strstr(s, ">instructions<") &&
		   count(s, ">cycles<") == 2,
		   "xsu timeline: legend names every event");
	tap_result(strstr(s, ">HT0 c0<") && strstr(s, ">HT0 f2<") &&
		   strstr(s, ">HT1 c3<") && strstr(s, ">HT1 f0<"),
		   "xsu timeline: row labels");
	/* runs: HT0 c0, HT1 c2 */
	tap_result(count(s, "class=\"ev corrupting\"") == 2,
		   "xsu timeline: corrupting runs hatched");
	/* only HT1 c0, ticks 20-29: one run */
	tap_result(count(s, "class=\"exposed\"") == 1 &&
		   strstr(s, "exposed: ticks 20-29"),
		   "xsu timeline: the exposure window is marked");
	tap_result(count(s, "class=\"state-x\"") == 2 &&
		   count(s, "class=\"state-s\"") == 3,
		   "xsu timeline: X and S runs tinted (idle cells too)");
	tap_result(count(s, ">X</text>") == 20 + 10 + 1 &&
		   count(s, ">S</text>") == 10 + 10 + 10 + 1,
		   "xsu timeline: a letter per X/S cell, plus the legend's");
	free(s);
}

static void test_plain(const char *dir)
{
	static struct sim_cell cells[40 * 2 * ROWS];
	static const struct sim_event odd[] = {
		{ "a<&>\"b'", 0x3, false },
		{ "caf\xc3\xa9 \xff bad", 0x3, true },
	};
	struct sim_timeline tl = {
		.title = "generic <&> \"quoted\"",
		.ticks = 40, .nr_gp = NR_GP, .nr_fixed = NR_FIXED,
		.xsu = false,
		.nr_events = { 2, 0 }, .events = { odd, NULL },
		.cells = cells,
	};
	char svg[512], png[512], err[256];
	char *s;

	/* states set, but XSU is off: they must not be drawn */
	clear(&tl);
	set(&tl, 0, 0, 0, 39, 0);
	set(&tl, 0, 1, 10, 19, 1);
	set_state(&tl, 1, 0, 0, 39, SIM_X);
	set_state(&tl, 0, 2, 5, 9, SIM_S);
	snprintf(svg, sizeof(svg), "%s/sim_svg_plain.svg", dir);
	snprintf(png, sizeof(png), "%s/sim_svg_plain.png", dir);
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == 0,
		   "plain timeline: written");
	tap_result(parses(svg), "plain timeline: well-formed XML");
	tap_result(renders(svg, png), "plain timeline: rsvg-convert renders it");

	s = slurp(svg);
	if (!tap_result(s, "plain timeline: read back"))
		return;
	tap_result(strstr(s, "a&lt;&amp;&gt;&quot;b&#39;") &&
		   !strstr(s, "a<&>"),
		   "plain timeline: event name escaped");
	tap_result(strstr(s, "generic &lt;&amp;&gt; &quot;quoted&quot;"),
		   "plain timeline: title escaped");
	tap_result(strstr(s, "caf\xc3\xa9 ? bad"),
		   "plain timeline: malformed UTF-8 replaced");
	tap_result(!strstr(s, "state-") && !strstr(s, ">X</text>"),
		   "plain timeline: no states drawn without XSU");
	tap_result(!strstr(s, "class=\"exposed\""),
		   "plain timeline: no exposure without a sibling event");
	tap_result(strstr(s, ">(none)<"), "plain timeline: empty HT1 legend");
	free(s);
}

/* A long run: 1 px cells, no letters, still well-formed and renderable. */
static void test_long(const char *dir)
{
	enum { TICKS = 2000 };
	static struct sim_cell cells[TICKS * 2 * ROWS];
	struct sim_timeline tl = {
		.title = "long run",
		.ticks = TICKS, .nr_gp = NR_GP, .nr_fixed = NR_FIXED,
		.xsu = true,
		.nr_events = { 3, 3 }, .events = { ev0, ev1 },
		.cells = cells,
	};
	char svg[512], png[512], err[256];
	unsigned int seed = 1;
	int t, th, r;
	char *s;

	clear(&tl);
	for (t = 0; t < TICKS; t++)
		for (th = 0; th < 2; th++)
			for (r = 0; r < ROWS; r++) {
				seed = seed * 1103515245 + 12345;
				if ((t / 37 + r + th) % 3)
					continue;
				SIM_CELL(&tl, t, th, r).event =
					(t / 50 + r) % 3;
				SIM_CELL(&tl, t, th, r).state =
					(seed >> 16) % 3;
			}
	/* two exposure windows: 3 ticks (3 px) and 60 ticks */
	for (t = 1000; t < 1003; t++) {
		SIM_CELL(&tl, t, 0, 0).event = 0;
		SIM_CELL(&tl, t, 1, 0).event = 0;
	}
	for (t = 1100; t < 1160; t++) {
		SIM_CELL(&tl, t, 1, 1).event = 1;
		SIM_CELL(&tl, t, 0, 1).event = 2;
	}
	SIM_CELL(&tl, 999, 0, 0).event = -1;
	SIM_CELL(&tl, 1003, 0, 0).event = -1;
	SIM_CELL(&tl, 1099, 1, 1).event = -1;
	SIM_CELL(&tl, 1160, 1, 1).event = -1;
	snprintf(svg, sizeof(svg), "%s/sim_svg_long.svg", dir);
	snprintf(png, sizeof(png), "%s/sim_svg_long.png", dir);
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == 0,
		   "long timeline: written");
	tap_result(parses(svg), "long timeline: well-formed XML");
	tap_result(renders(svg, png), "long timeline: rsvg-convert renders it");
	s = slurp(svg);
	if (!tap_result(s, "long timeline: read back"))
		return;
	tap_result(strstr(s, "width=\"1\" height"),
		   "long timeline: 1 px per tick");
	tap_result(count(s, ">X</text>") == 1 && count(s, ">S</text>") == 1,
		   "long timeline: no per-cell letters in 1 px cells");
	tap_result(count(s, "class=\"exposed\"") == 2 &&
		   strstr(s, "exposed: ticks 1000-1002") &&
		   strstr(s, "exposed: ticks 1100-1159"),
		   "long timeline: both exposure windows marked");
	tap_result(strstr(s, "class=\"state-x\""),
		   "long timeline: states still tinted");
	free(s);
}

static void test_errors(const char *dir)
{
	static struct sim_cell cells[10 * 2 * ROWS];
	struct sim_timeline tl = {
		.title = "bad", .ticks = 10, .nr_gp = NR_GP,
		.nr_fixed = NR_FIXED, .nr_events = { 3, 3 },
		.events = { ev0, ev1 }, .cells = cells,
	};
	char svg[512], err[256], small[9];
	int i;

	clear(&tl);
	snprintf(svg, sizeof(svg), "%s/sim_svg_bad.svg", dir);

	tl.ticks = 0;
	err[0] = '\0';
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == -1 && err[0],
		   "0 ticks: -1 with a message");
	tap_diag("%s", err);
	tl.ticks = 10;

	tl.nr_gp = 0;
	tl.nr_fixed = 0;
	err[0] = '\0';
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == -1 && err[0],
		   "no counters: -1 with a message");
	tl.nr_gp = NR_GP;
	tl.nr_fixed = NR_FIXED;

	tl.cells = NULL;
	err[0] = '\0';
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == -1 && err[0],
		   "no cells: -1 with a message");
	tl.cells = cells;

	SIM_CELL(&tl, 3, 1, 2).event = 3;
	err[0] = '\0';
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == -1 && err[0],
		   "event index out of range: -1 with a message");
	tap_diag("%s", err);
	SIM_CELL(&tl, 3, 1, 2).event = -1;

	tap_result(sim_svg_write(NULL, svg, err, sizeof(err)) == -1 && err[0],
		   "NULL timeline: -1 with a message");

	err[0] = '\0';
	tap_result(sim_svg_write(&tl, "/nonexistent-dir/x.svg", err,
				 sizeof(err)) == -1 && err[0],
		   "unwritable path: -1 with a message");
	tap_diag("%s", err);

	memset(small, 'Z', sizeof(small));
	tap_result(sim_svg_write(&tl, "/nonexistent-dir/x.svg", small,
				 sizeof(small) - 1) == -1 &&
		   strlen(small) == sizeof(small) - 2 &&
		   small[sizeof(small) - 1] == 'Z',
		   "short error buffer: truncated, NUL-terminated, no overflow");
	tap_result(sim_svg_write(&tl, "/nonexistent-dir/x.svg", NULL, 0) == -1,
		   "no error buffer: still -1");

	if (file_size("/dev/full") >= 0) {
		err[0] = '\0';
		tap_result(sim_svg_write(&tl, "/dev/full", err,
					 sizeof(err)) == -1 && err[0],
			   "write error (/dev/full): -1 with a message");
		tap_diag("%s", err);
	}

	/* the valid timeline still writes */
	for (i = 0; i < 10; i++)
		SIM_CELL(&tl, i, 0, 0).event = 0;
	tap_result(sim_svg_write(&tl, svg, err, sizeof(err)) == 0 &&
		   parses(svg), "small timeline after the errors: written");
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";

	if (strchr(dir, '\'')) {
		printf("Bail out! output directory must not contain a quote\n");
		return 1;
	}
	test_xsu(dir);
	test_plain(dir);
	test_long(dir);
	test_errors(dir);
	return tap_finish();
}
