/* SPDX-License-Identifier: MIT */
/* Running a helper program for its output (see run_output.h). */
#include "run_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"

int gm_run_output(char *const argv[], struct strbuf *out, int *status)
{
	int pipefd[2];
	pid_t pid;

	*status = 0;
	if (pipe2(pipefd, O_CLOEXEC)) {
		return gm_error_errno("cannot create a pipe");
	}
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return gm_error_errno("cannot fork");
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0) {
			dup2(devnull, 0);
		}
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	strbuf_read_fd(out, pipefd[0]);
	close(pipefd[0]);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			return gm_error_errno("cannot wait for '%s'", argv[0]);
		}
	}
	return 0;
}
