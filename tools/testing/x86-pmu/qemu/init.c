// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the initramfs that scripts/qemu-run.sh boots the patched kernel
 * with. The KUnit suites have run by the time it starts; it mounts the
 * pseudo file systems, runs every test program under /tests/<dir>/ in name
 * order the way the kselftest runner does (one TAP line per program, its
 * output as "# " lines, exit 4 = skip, a timeout from <dir>/settings),
 * prints marker lines around that, and reboots: QEMU runs with -no-reboot,
 * so that ends it (there is no ACPI to power off with).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/klog.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KSFT_SKIP	4
#define MAX_TESTS	64

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

/* Run one program, its output prefixed with "# "; returns wait status. */
static int run(const char *dir, const char *name, int timeout)
{
	char line[1024];
	int pipefd[2], status;
	pid_t pid;
	FILE *out;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		if (chdir(dir))
			_exit(127);
		alarm(timeout);
		execl(name, name, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	while (out && fgets(line, sizeof(line), out))
		printf("# %s", line);
	if (out)
		fclose(out);
	waitpid(pid, &status, 0);
	return status;
}

int main(void)
{
	static const char *const root = "/tests";
	char *names[MAX_TESTS], dirpath[512];
	int n = 0, i, num = 0;
	struct dirent *de, *te;
	DIR *d, *td;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Keep kernel messages out of the TAP stream: errors only. */
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 4);

	/* Collect "<dir>/<program>" for every executable file. */
	d = opendir(root);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dirpath, sizeof(dirpath), "%s/%s", root, de->d_name);
		td = opendir(dirpath);
		while (td && (te = readdir(td)) && n < MAX_TESTS) {
			char path[512];
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", dirpath,
				 te->d_name);
			if (te->d_name[0] == '.' || stat(path, &st) ||
			    !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
				continue;
			if (asprintf(&names[n], "%s/%s", de->d_name,
				     te->d_name) > 0)
				n++;
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp);

	printf("\nx86-pmu-selftests: begin\n");
	printf("TAP version 13\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		char *slash = strchr(names[i], '/');
		int status;

		*slash = '\0';
		snprintf(dirpath, sizeof(dirpath), "%s/%s", root, names[i]);
		printf("# selftests: %s: %s\n", names[i], slash + 1);
		status = run(dirpath, slash + 1, timeout_of(dirpath));
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
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
