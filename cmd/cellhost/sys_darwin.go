package main

import "golang.org/x/sys/unix"

// totalMemory returns the machine's RAM in bytes (sysctl hw.memsize).
func totalMemory() (uint64, bool) {
	n, err := unix.SysctlUint64("hw.memsize")
	return n, err == nil && n > 0
}

// isTerminalFd reports whether fd is a terminal (the TIOCGETA ioctl, the
// BSD name of Linux's TCGETS, works).
func isTerminalFd(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TIOCGETA)
	return err == nil
}
