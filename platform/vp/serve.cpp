// SPDX-License-Identifier: Apache-2.0
// serve.cpp: armprof-vp --serve, a fork server for armprof-explore: loaded once, one child per run, forked before elaboration.
//
// Protocol (stdin / stdout of the server, one line each way per run):
//   request:  LOG<TAB>ARG1<TAB>ARG2...\n    the arguments of one armprof-vp run, its output to LOG
//   response: status N\n                    N the child's wait status (waitpid), as a decimal number
// Anything else the server prints before its first response (the SystemC banner) is not a
// response line. End of input ends the server. The child returns from vp_serve() into sc_main
// with the request's arguments, so it runs exactly what `armprof-vp ARG1 ARG2...` runs, minus
// the process start-up and dynamic linking that the server paid once.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

int vp_serve(int *argc, char ***argv);

namespace {
std::vector<std::string> g_args; // the child's arguments (live as long as the process)
std::vector<char *> g_argv;

// A child ends as soon as its run has returned: its output flushed, the process's teardown
// (static destructors, the SystemC kernel's) skipped, since nothing of it outlives the child.
// So whatever a run writes must be closed before sc_main returns (main.cpp closes its files).
void child_exit(int status, void *)
{
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(status);
}
} // namespace

// Returns the server's exit status (>= 0) in the server, or -1 in a child whose *argc / *argv
// are the run's arguments (argv[0] kept).
int vp_serve(int *argc, char ***argv)
{
    std::string self = (*argc > 0) ? (*argv)[0] : "armprof-vp";
    char *line = nullptr;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        std::vector<std::string> f;
        for (char *p = line;;) {
            char *t = std::strchr(p, '\t');
            if (t)
                *t = '\0';
            f.emplace_back(p);
            if (!t)
                break;
            p = t + 1;
        }
        if (f.size() < 2 || f[0].empty()) {
            std::printf("status %d\n", 2 << 8); // exit 2: a malformed request
            std::fflush(stdout);
            continue;
        }
        std::fflush(stdout);
        std::cout.flush();
        std::fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            int in = open("/dev/null", O_RDONLY);
            int out = open(f[0].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (in < 0 || out < 0)
                _exit(2);
            dup2(in, STDIN_FILENO);
            dup2(out, STDOUT_FILENO);
            dup2(out, STDERR_FILENO);
            close(in);
            close(out);
            free(line);
            g_args.assign(f.begin() + 1, f.end());
            g_args.insert(g_args.begin(), self);
            for (std::string &s : g_args)
                g_argv.push_back(&s[0]);
            g_argv.push_back(nullptr);
            *argc = (int)g_args.size();
            *argv = g_argv.data();
            on_exit(child_exit, nullptr);
            return -1;
        }
        int status = 0;
        if (pid < 0)
            status = 2 << 8;
        else
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        std::printf("status %d\n", status);
        std::fflush(stdout);
    }
    free(line);
    return 0;
}
