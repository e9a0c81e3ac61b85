//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// shellCommand runs command through the shell, as wrangler runs a custom
// build, in a process group of its own so that stopGroup ends the command
// and everything it started.
func shellCommand(command string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// stopGroup sends SIGTERM to p's process group.
func stopGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }
