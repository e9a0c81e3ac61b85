package main

import (
	"os"
	"os/exec"
)

// shellCommand runs command through cmd.exe, as wrangler's custom build
// does on Windows (its shell: true).
func shellCommand(command string) *exec.Cmd {
	return exec.Command("cmd.exe", "/d", "/s", "/c", command)
}

// stopGroup ends p. Windows has no process groups to signal: processes the
// command started itself are left to finish (not run here: no Windows
// machine; see docs/operations.md on platforms).
func stopGroup(p *os.Process) { _ = p.Kill() }
