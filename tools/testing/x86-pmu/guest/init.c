// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the initramfs that scripts/boot.sh boots a kernel with, on one
 * host of the boot matrix. The KUnit suites (when enabled) have run by the
 * time it starts. It mounts the pseudo file systems, then runs the test
 * directories named by "x86pmu.run=dir1,dir2" on the kernel command line
 * (every directory under /tests when absent), in that order, less the
 * programs named by "x86pmu.skip=prog1,prog2" (reported as skipped): every
 * executable of a directory in name order, the way the kselftest runner
 * does (one TAP line per program, its output as "# " lines, exit 4 = skip,
 * a timeout from <dir>/settings). The kernel log is then printed whole
 * between marker lines, so that the host sees every warning whatever the
 * console level, and /init reboots: QEMU runs with -no-reboot, so that
 * ends it (there is no ACPI to power off with).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/klog.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KSFT_SKIP	4
#define MAX_TESTS	128
#define MAX_DIRS	16

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int timeout_of(const char *dir)
{
	char path[600], line[128];
	int t = 120;
	FILE *f;

	snprintf(path, sizeof(path), "%s/settings", dir);
	f = fopen(path, "r");
	if (!f)
		return t;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "timeout=%d", &t);
	fclose(f);
	return t;
}

/* The process group of the program running, and whether it timed out. */
static volatile sig_atomic_t running_pgid, timed_out;

/*
 * The timeout kills the program's whole process group: a script killed
 * alone would leave its background programs holding the output pipe open,
 * and the boot would wait for them until QEMU's own timeout.
 */
static void on_alarm(int sig)
{
	if (running_pgid > 0) {
		timed_out = 1;
		kill(-running_pgid, SIGKILL);
	}
}

/*
 * Run one program in a process group of its own, its output prefixed with
 * "# "; returns its wait status (killed by SIGKILL after @timeout seconds).
 * NUL bytes in the output are dropped, not taken for the end of a line: a
 * program that writes binary (remove_on_exec's children write an int) would
 * otherwise hide the rest of the line, a failure message included.
 */
static int run(const char *dir, const char *name, int timeout)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len, i;
	int pipefd[2], status;
	pid_t pid;
	FILE *out;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setpgid(0, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		if (chdir(dir))
			_exit(127);
		execl(name, name, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	running_pgid = pid;
	timed_out = 0;
	sigaction(SIGALRM, &sa, NULL);
	alarm(timeout);
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	while (out && (len = getline(&line, &cap, out)) > 0) {
		fputs("# ", stdout);
		for (i = 0; i < len; i++)
			if (line[i])
				putchar(line[i]);
	}
	free(line);
	if (out)
		fclose(out);
	waitpid(pid, &status, 0);
	alarm(0);
	running_pgid = 0;
	if (timed_out)
		printf("# timed out after %d s: process group killed\n", timeout);
	return status;
}

/*
 * The comma-separated values of "@key" on the kernel command line, into
 * @vals (at most @max). Returns their number.
 */
static int cmdline_list(const char *key, char **vals, int max)
{
	char cmdline[4096], *p, *tok, *save, *save2;
	size_t len = strlen(key);
	int n = 0;
	FILE *f;

	f = fopen("/proc/cmdline", "r");
	if (f && fgets(cmdline, sizeof(cmdline), f)) {
		for (tok = strtok_r(cmdline, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save)) {
			if (strncmp(tok, key, len))
				continue;
			for (p = strtok_r(tok + len, ",", &save2); p && n < max;
			     p = strtok_r(NULL, ",", &save2))
				vals[n++] = strdup(p);
		}
	}
	if (f)
		fclose(f);
	return n;
}

/*
 * The directories to run: from "x86pmu.run=a,b" on the kernel command line,
 * else every directory under @root in name order. Returns their number.
 */
static int test_dirs(const char *root, char **dirs)
{
	struct dirent *de;
	int n;
	DIR *d;

	n = cmdline_list("x86pmu.run=", dirs, MAX_DIRS);
	if (n)
		return n;

	d = opendir(root);
	while (d && (de = readdir(d)) && n < MAX_DIRS)
		if (de->d_name[0] != '.')
			dirs[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	qsort(dirs, n, sizeof(dirs[0]), cmp);
	return n;
}

/* Append "<dir>/<program>" for every executable file of @dir. */
static int collect(const char *root, const char *dir, char **names, int n)
{
	char dirpath[512], path[1024];
	struct dirent *te;
	int first = n;
	struct stat st;
	DIR *td;

	snprintf(dirpath, sizeof(dirpath), "%s/%s", root, dir);
	td = opendir(dirpath);
	while (td && (te = readdir(td)) && n < MAX_TESTS) {
		snprintf(path, sizeof(path), "%s/%s", dirpath, te->d_name);
		if (te->d_name[0] == '.' || stat(path, &st) ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
			continue;
		if (asprintf(&names[n], "%s/%s", dir, te->d_name) > 0)
			n++;
	}
	if (td)
		closedir(td);
	qsort(names + first, n - first, sizeof(names[0]), cmp);
	return n;
}

/* The whole kernel log, between markers, for the host to check. */
static void dump_kernel_log(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf = len > 0 ? malloc(len + 1) : NULL;

	printf("x86-pmu-dmesg: begin\n");
	if (buf) {
		len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
		if (len > 0) {
			buf[len] = '\0';
			fputs(buf, stdout);
			if (buf[len - 1] != '\n')
				putchar('\n');
		}
	}
	printf("x86-pmu-dmesg: end\n");
	free(buf);
}

int main(void)
{
	static const char *const root = "/tests";
	char *dirs[MAX_DIRS], *names[MAX_TESTS], *skip[MAX_TESTS], dirpath[512];
	int ndirs, nskip, n = 0, i, j, num = 0;
	struct timespec t0, t1;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	setenv("PATH", "/bin:/usr/bin", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * Keep kernel messages out of the TAP stream: errors only. Warnings
	 * are not lost: the whole log is printed at the end.
	 */
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 4);

	ndirs = test_dirs(root, dirs);
	nskip = cmdline_list("x86pmu.skip=", skip, MAX_TESTS);
	for (i = 0; i < ndirs; i++)
		n = collect(root, dirs[i], names, n);

	printf("\nx86-pmu-selftests: begin\n");
	printf("TAP version 13\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		char *slash = strchr(names[i], '/');
		int status;

		*slash = '\0';
		snprintf(dirpath, sizeof(dirpath), "%s/%s", root, names[i]);
		printf("# selftests: %s: %s\n", names[i], slash + 1);
		for (j = 0; j < nskip && strcmp(skip[j], slash + 1); j++)
			;
		if (j < nskip) {
			printf("ok %d selftests: %s: %s # SKIP x86pmu.skip\n",
			       ++num, names[i], slash + 1);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		status = run(dirpath, slash + 1, timeout_of(dirpath));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* Where a boot's time goes, test by test. */
		printf("# x86-pmu-time: %s/%s %.1f s\n", names[i], slash + 1,
		       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		num++;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			printf("ok %d selftests: %s: %s\n", num, names[i],
			       slash + 1);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP)
			printf("ok %d selftests: %s: %s # SKIP\n", num,
			       names[i], slash + 1);
		else
			printf("not ok %d selftests: %s: %s # exit=%d\n", num,
			       names[i], slash + 1,
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	printf("x86-pmu-selftests: end\n");
	dump_kernel_log();
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
